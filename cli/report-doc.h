/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report document (spec/interfaces.md section 3) as the report
 * modules share it, and nothing else includes: cli/report.c builds it,
 * cli/report-read.c reads one back, cli/gate.c decides on two of them,
 * cli/render*.c print them.  Every JSON output goes through jansson, with
 * sorted keys, so that a golden file can hold it.
 */
#ifndef VT_REPORT_DOC_H
#define VT_REPORT_DOC_H

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include <jansson.h>

#include "cli/report.h"
#include "core/cost/estimate.h"

struct vt_report {
	json_t *root;
	json_t *traces;		/* borrowed from root */
	json_t *shown;		/* built: vt_report_set_shown()'s, or NULL */
	bool have_config;
	unsigned int page_shift, va_bits;	/* of the top-level config */
	struct vt_model_opts model;	/* built: the options it was made with */
	bool per_op;			/* built: add per_op objects */
	const struct vt_profile *profile;	/* built: the cost profile, or NULL */
	struct vt_summary *summary;	/* built: compare --summary, or NULL */
	/* cli/summary.c's, set with the summary: report.c (linked alone
	 * by the report reader's fuzz harness) calls them through here */
	int (*summary_add)(const struct vt_report *r, json_t *t,
			   const struct vt_replay_result *res,
			   const struct vt_strategy_spec *specs);
	void (*summary_free)(struct vt_summary *s);
};

/* The gate's decision: entries {trace, strategy, metric, baseline,
 * current, reason} of what regressed and what improved. */
struct vt_gate {
	struct vt_gate_opts opts;
	json_t *regressions, *improvements;
	json_t *changes;	/* neutral counts that moved: they pass */
	json_t *missing;	/* traces on one side only */
	json_t *cases;		/* {trace, strategy} compared (JUnit) */
	unsigned long compared;
};

/* Index in @traces (a report's "traces") of the trace with key @key:
 * equal paths once "./" and "//" are dropped, nothing else; -1 none. */
long vt_gate_key_match(json_t *traces, const char *key);
/* @p without "./" components and repeated slashes, into @buf (the key of
 * a trace as vt_gate_key_match() compares it; cli/report-read.c). */
const char *vt_report_key_normal(const char *p, char *buf, size_t len);

/* Set @key of @o to @v, stealing @v; returns nonzero on failure. */
static inline int put(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v) != 0;
}

static inline int append(json_t *a, json_t *v)
{
	return json_array_append_new(a, v) != 0;
}

static inline json_t *hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return json_string(buf);
}

/* Every JSON document is dumped once, keys sorted, reals to 6 digits. */
static inline int dump_json(json_t *root, FILE *f, size_t flags)
{
	errno = 0;	/* a short fwrite() says why: ENOSPC, EPIPE ... */
	if (json_dumpf(root, f, flags | JSON_SORT_KEYS | JSON_REAL_PRECISION(6)))
		return errno > 0 ? -errno : -EIO;
	fputc('\n', f);
	return 0;
}

/* "4k", "16k", "64k" ("?" otherwise) and back (-1 if unknown). */
const char *vt_granule_name(unsigned int page_shift);
int vt_granule_shift(const char *name);
/* The value of metric @i (index in VT_METRICS) in a metrics object, or
 * NULL: sub-kinds live in tlbi_by_kind, dsb_by_kind, cycles_by_function. */
json_t *vt_report_metric_get(json_t *m, int i);
/* @cur against @base in words ("3.5x fewer", "4.3% more", "same"), for
 * compare and gate alike; +1 when the change is good for metric @i, -1
 * bad, 0 neither (or @i < 0: the words alone). */
int vt_change_words(char *buf, size_t len, json_int_t base, json_int_t cur,
		    int i);
/* The text table and --format=mail (cli/render-table.c). */
/* -ENOMEM: an allocation failed, the text written is incomplete */
int vt_report_write_table(const struct vt_report *r, FILE *f,
			  const struct vt_render_opts *o);
/* The cost events of a strategy's totals (its API calls from the op counts). */
void vt_report_total_counts(const struct vt_profile *p, const struct vt_strategy_result *sr,
			    struct vt_cost_counts *c);
/* --summary's text (cli/render-summary.c). */
struct vt_summary;
int vt_summary_write(const struct vt_report *r, FILE *f);
int vt_report_write_mail(const struct vt_report *r, FILE *f,
			 const struct vt_render_opts *o);
/* {granule, va_bits, levels} of a config. */
json_t *vt_report_geometry_json(unsigned int page_shift, unsigned int va_bits);
/* The metrics object of one strategy, op or event (section 4 keys). */
json_t *vt_report_metrics_json(const struct vt_stats *s, bool verify);

/*
 * @text from column @col, broken at spaces into lines of at most @cols
 * columns (UTF-8 sequences count one), continuation lines indented by
 * @indent; a word longer than a line stays whole (docs/report-format.md).
 * VT_WRAP_SPACE is a space the line is never broken at (a trace path's),
 * printed as ' '.  Ends the line.
 */
#define VT_WRAP_SPACE '\x01'
void vt_wrap(FILE *f, const char *text, int col, int indent, int cols);
/* @text as it is, VT_WRAP_SPACE printed as ' ' (a line not wrapped). */
void vt_wrap_none(FILE *f, const char *text);

#endif
