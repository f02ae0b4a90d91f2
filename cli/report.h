/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reports and the other result documents, by job: cli/report.c builds a
 * report as one JSON tree (spec/interfaces.md section 3); cli/render.c
 * renders it as JSON, a text table or CSV (so the three forms cannot
 * disagree), and renders the gate's result, --per-event lines, errors and
 * the strategy list; cli/render-ptdump.c renders ptdump; cli/report-read.c
 * reads a report back; cli/gate.c makes the gate's decision.
 */
#ifndef VT_REPORT_H
#define VT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"

#define VT_REPORT_FORMAT "vmaptool-report"
#define VT_REPORT_VERSION 1

struct vt_report;

/* An empty report made with @model (its kernel and what-if options) and
 * @per_op; its geometry is the first trace's. */
struct vt_report *vt_report_new(const struct vt_model_opts *model, bool per_op);
void vt_report_free(struct vt_report *r);

/**
 * vt_report_add_trace() - add one replayed trace
 * @r: the report
 * @trace: the trace's path as given
 * @res: the replay result (one entry per spec)
 * @specs: the strategies, in the order of @res
 * @ratios: add "ratios" against the first strategy (compare)
 *
 * Return: 0, or -ENOMEM.
 */
int vt_report_add_trace(struct vt_report *r, const char *trace,
			const struct vt_replay_result *res,
			const struct vt_strategy_spec *specs, bool ratios);

/* The names the human forms (table, mail, summary) show for the traces
 * added, in order: @shown[i] for trace i, its path when NULL (a bundled
 * trace by the name typed, docs/vmaptool-replay.md); the document keeps
 * the paths.  0 or -ENOMEM. */
int vt_report_set_shown(struct vt_report *r, const char *const *shown, size_t n);
/* The name the human forms show for trace @i of @r. */
const char *vt_report_trace_shown(const struct vt_report *r, size_t i);

struct vt_profile;
/* The cost profile the estimates were made with: named in the config,
 * and compare's speed-up and its explanation are made with it. */
void vt_report_set_profile(struct vt_report *r, const struct vt_profile *p);

/* ---- compare --summary (cli/summary.c, cli/render-summary.c) -------- */

#define VT_SUMMARY_MAX_METRICS 16
/* The metrics of the summary, in the order given (--metrics). */
struct vt_summary_opts {
	int metric[VT_SUMMARY_MAX_METRICS];	/* index in VT_METRICS */
	unsigned int nr;
};
/* --metrics=LIST (NULL: the default list); -1 with the usage error,
 * naming the metric a mistyped one is likely to be, in @why. */
int vt_summary_parse_metrics(const char *list, struct vt_summary_opts *o,
			     char *why, size_t len);
/* The name --metrics takes for metric @i in @buf, or NULL for a metric
 * it refuses (the --verify counts). */
const char *vt_summary_metric_name(int i, char *buf, size_t len);
/*
 * Make @r a summary of @opts (it must outlive @r): the estimate under
 * @chosen and its range over the shipped profiles whose FEAT_TLBIRANGE is
 * @tlbi_range (the run's), loaded here (one that fails to load is left
 * out with a warning).  Call before adding traces.  0 or -ENOMEM.
 */
int vt_report_set_summary(struct vt_report *r, const struct vt_summary_opts *opts,
			  const struct vt_profile *chosen, bool tlbi_range);

/* How the human forms look (docs/report-format.md). */
struct vt_render_opts {
	int verbose;		/* the options line, rows zero everywhere */
	bool wide;		/* strategies as columns whatever the width */
	enum vt_colour colour;
};

/* Render @r to @f in @fmt.  Return: 0 or -errno. */
int vt_report_render(const struct vt_report *r, FILE *f, enum vt_format fmt,
		     const struct vt_render_opts *o);
/* The same with --color=auto and not --wide. */
int vt_report_write(const struct vt_report *r, FILE *f, enum vt_format fmt,
		    int verbose);
/* The SVG of @r (cli/render-svg.c): per trace and strategy, bars of the
 * counts on a log scale and the estimated cycles stacked by kernel
 * function.  Return: 0 or -errno. */
int vt_report_svg(const struct vt_report *r, FILE *f);

/* ---- reading a report back (gate) ----------------------------------- */

/* Load and check a report file: format "vmaptool-report", version 1.
 * @path may be "-" (standard input), a pipe or a FIFO (core/input.h).
 * Errors: VT_ERR_TRACE_SYNTAX, VT_ERR_TRACE_VERSION, VT_ERR_TRACE_SCHEMA,
 * VT_ERR_INPUT_LIMIT, -errno. */
int vt_report_load(const char *path, struct vt_report **out,
		   struct vt_error *err);
/* The same with the --max-input limit @max (0: the default). */
int vt_report_load_max(const char *path, uint64_t max,
		       struct vt_report **out, struct vt_error *err);
/* The model options, the strategy list ("a,b,c", malloc'd) and whether
 * per_op was asked for, as a report was made, so that gate can replay
 * traces the same way. */
int vt_report_setup(const struct vt_report *r, struct vt_model_opts *o,
		    char **strategies, bool *per_op, struct vt_error *err);
size_t vt_report_nr_traces(const struct vt_report *r);
/* The cost profile a report was made with (config.profile), or NULL. */
const char *vt_report_profile_name(const struct vt_report *r);
/* The part of the work its estimate is restricted to (config.cost_of,
 * --cost-of), or NULL for the whole. */
const char *vt_report_cost_of(const struct vt_report *r);
const char *vt_report_trace_path(const struct vt_report *r, size_t i);
/* The geometry trace @i was replayed with. */
void vt_report_trace_geometry(const struct vt_report *r, size_t i,
			      unsigned int *page_shift, unsigned int *va_bits);

/* ---- the gate (cli/gate.c decides, cli/render.c renders) ------------ */

struct vt_gate;

/* --threshold=METRIC:N (absolute) or METRIC:N% (relative to the baseline) */
struct vt_gate_threshold {
	char metric[48];	/* "tlbi", "tlbi_by_kind.vale1is", "cycles" */
	double v;
	bool pct;
};
#define VT_GATE_MAX_TH 64

struct vt_gate_opts {
	struct vt_gate_threshold th[VT_GATE_MAX_TH];
	unsigned int nr_th;
	bool allow_missing;	/* a trace on one side only does not fail */
	bool strict;		/* every count that moved fails, whatever its
				 * direction (--strict) */
};

/* Counts exact; cycles and ns within 2%. */
void vt_gate_opts_init(struct vt_gate_opts *o);
/* Add "METRIC:N[%][,...]" or the old bare "PCT" (cycles and ns) to @o;
 * -1 with the reason in @why. */
int vt_gate_parse_threshold(struct vt_gate_opts *o, const char *arg,
			    char *why, size_t len);

/**
 * vt_gate_compare() - compare @cur against @base
 * @base: the baseline report
 * @cur: the current report (traces matched by key, strategies by name)
 * @o: thresholds, --allow-missing, --strict
 * @out: the decision: counts whose direction is "fewer" that increased,
 *       or that disappeared (regressions), that decreased (improvements),
 *       neutral counts that moved (changes), traces on one side only
 *       (missing); free with vt_gate_free()
 *
 * Return: 0 or -ENOMEM.
 */
int vt_gate_compare(const struct vt_report *base, const struct vt_report *cur,
		    const struct vt_gate_opts *o, struct vt_gate **out);
/* A regression, or a trace missing without --allow-missing: exit 1. */
bool vt_gate_failed(const struct vt_gate *g);
void vt_gate_free(struct vt_gate *g);
/* The list of differences and a summary line, or the vmaptool-gate JSON
 * document.  Return: 0 or -errno. */
int vt_gate_write(const struct vt_gate *g, FILE *f, enum vt_format fmt);
/* A JUnit XML document (one testcase per trace and strategy) and a
 * Markdown table fit for a merge-request comment.  Return: 0 or -errno. */
int vt_gate_write_junit(const struct vt_gate *g, FILE *f);
int vt_gate_write_markdown(const struct vt_gate *g, FILE *f);

/* ---- other documents ------------------------------------------------ */

/* {"error": {code, message, file, line, column}} for --format=json;
 * @one_line among --per-event lines on stdout. */
void vt_report_error_json(FILE *f, const struct vt_error *e, bool one_line);

/* One --per-event JSON line (interfaces.md 1.1).  Return: 0 or -errno. */
int vt_report_event_line(FILE *f, long index, const char *strategy,
			 const char *op, const struct vt_event *ev,
			 uint64_t va, const struct vt_stats *delta,
			 const struct vt_shape *shape, bool verify);

struct vt_ptdump_line {
	uint64_t va_start, va_end, pa_start, attrs, nr;
	int level;
	char lvl_name[8];
	char kind[8];
};

struct vt_ptdump_doc {
	const char *trace;
	const char *strategy;
	long at;			/* last event replayed, -1 = all */
	unsigned int page_shift, va_bits;
	struct vt_layout layout;	/* the markers' addresses */
	const struct vt_ptdump_line *lines;
	size_t nr;
};

/* Ranges in arch/arm64/mm/ptdump.c style (@verbose: with pa and count),
 * or as JSON/CSV. */
int vt_report_ptdump(FILE *f, enum vt_format fmt, const struct vt_ptdump_doc *d,
		     int verbose);

/* The strategy list; @describe_model (-v): with every what-if option and
 * kernel generation of the option table and the kernel code it models. */
int vt_report_strategies(FILE *f, enum vt_format fmt,
			 const struct vt_strategy_info *infos,
			 bool describe_model);

#endif
