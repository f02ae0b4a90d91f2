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

/*
 * Load the cost profile of --profile (or the default) once; the profile's
 * FEAT_TLBIRANGE becomes the --tlbi-range default.  Prints the problem and
 * returns an exit code on failure.
 */
int vt_run_load_profile(void);
/* Add to a "no such cost profile" @err the built-in names @word may mean. */
void vt_run_profile_hint(struct vt_error *err, const char *word);
/* The loaded profile, or NULL before vt_run_load_profile(). */
const struct vt_profile *vt_run_profile(void);

/* The replay request's model options under the common options: the
 * geometry is forced only when --granule or --va-bits was given. */
void vt_run_req_init(struct vt_replay_req *req, struct vt_model_opts *opts,
		     const struct vt_spec_list *specs, const char *path);

/*
 * Replay @traces under @specs into @report (which may be NULL when only
 * per-event lines are wanted; @ratios: compare).  --per-event lines go to
 * @per_event.  Returns 0 or an exit code after printing the error.
 */
int vt_run_traces(char **traces, int n, const struct vt_spec_list *specs,
		  struct vt_report *report, bool ratios, FILE *per_event);

/*
 * The whole replay/compare command after argument parsing: replay, then
 * write the report to -o/stdout, or the per-event lines in its place.
 */
int vt_run_command(char **traces, int n, const struct vt_spec_list *specs,
		   bool ratios);

#endif
