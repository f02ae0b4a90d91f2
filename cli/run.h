/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli/run.c: what replay, compare and gate share: turning --strategy into
 * specs, replaying traces (in parallel with --jobs), and publishing the
 * report and the --per-event lines whole or not at all.
 */
#ifndef VT_RUN_H
#define VT_RUN_H

#include "cli/cli.h"
#include "cli/report.h"
#include "core/cost/profile.h"

struct vt_spec_list {
	struct vt_strategy_spec *v;
	unsigned int nr;
};

/*
 * Parse a comma-separated strategy list (NULL: the default list).  Prints
 * the problem and returns an exit code (2) on a bad or repeated name.
 */
int vt_run_parse_strategies(const char *list, struct vt_spec_list *out);
void vt_spec_list_release(struct vt_spec_list *l);

/* A trace that failed to read because it is a trace-cmd recording:
 * @err says to run 'vmaptool import' first. */
void vt_run_explain(const char *path, struct vt_error *err);

/* Whether @path is a whole vmaptool report (its top-level "format" is
 * "vmaptool-report" and it loads), such as a gate baseline; false for "-",
 * a pipe or FIFO (never read here) and a broken one, which is an error
 * where it is read. */
bool vt_run_is_report(const char *path);

/* The strategy whose name @name (before any '@', ':' or '+') is likely a
 * typo of, or @name with the axis a '+' part is likely a typo of (in
 * @buf); NULL if neither. */
const char *vt_run_suggest_strategy(const char *name, char *buf, size_t size);

/*
 * Drop the reports among @traces (a baseline kept beside the traces and
 * taken by their glob, docs/ci-gate.md), each with a note naming it under
 * @cmd; *@n becomes the number left, @shown (NULL, or the names as
 * typed, vt_trace_args_bundled()) kept in step.  When every one is a report, nothing
 * is left to replay: an error naming the first, with what to do instead,
 * and its exit status (3).
 */
int vt_run_skip_reports(const char *cmd, char **traces, const char **shown,
			int *n);

/*
 * A replay as replay, compare, gate and ptdump ask run.c for it: the
 * common options and what the command made of them.  The command builds
 * it (vt_run_opts_init(), then for a cost estimate vt_run_use_profile());
 * run.c only reads it.
 */
struct vt_run_opts {
	const struct vt_cli *cli;	/* outputs, format, --per-event, --jobs, -v */
	struct vt_model_opts model;	/* the model to replay */
	bool geometry_given;		/* the pair overrides the trace's config */
	bool per_op;			/* --per-op (or the baseline's) */
	const struct vt_profile *profile; /* the cost profile; NULL: none (ptdump) */
};

/* The options as the command line gives them, without a profile. */
void vt_run_opts_init(struct vt_run_opts *o, const struct vt_cli *cli);
/*
 * Load cost profile @name (NULL: the default) into @store, which must
 * outlive the reports made under @o (they point at it).  The one place
 * where --tlbi-range is decided: the profile's FEAT_TLBIRANGE turns it on
 * unless the command line gave --tlbi-range or @model_fixed (the model is
 * a baseline's, as recorded).  Prints the problem and returns an exit code
 * on failure.
 */
int vt_run_use_profile(struct vt_run_opts *o, struct vt_profile *store,
		       const char *name, bool model_fixed);
/* Add to a "no such cost profile" @err the built-in names @word may mean. */
void vt_run_profile_hint(struct vt_error *err, const char *word);

/* The replay request of @o for trace @path under @specs. */
void vt_run_req_init(struct vt_replay_req *req, const struct vt_run_opts *o,
		     const struct vt_spec_list *specs, const char *path);

/*
 * Replay @traces under @specs into @report (which may be NULL when only
 * per-event lines are wanted; @ratios: compare).  --per-event lines go to
 * @per_event.  Returns 0 or an exit code after printing the error.
 */
int vt_run_traces(const struct vt_run_opts *o, char **traces, int n,
		  const struct vt_spec_list *specs, struct vt_report *report,
		  bool ratios, FILE *per_event);

/*
 * The whole replay/compare command after argument parsing: replay, then
 * write the report to -o/stdout, or the per-event lines in its place.
 * @shown: NULL, or per trace the name the human report shows for it (a
 * bundled trace's as typed; NULL: its path).
 */
int vt_run_command(const struct vt_cli *cli, char **traces, const char **shown,
		   int n, const struct vt_spec_list *specs, bool ratios);

#endif
