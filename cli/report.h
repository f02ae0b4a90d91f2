/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli/report.c: the only code that formats results.  A report is built as
 * one JSON tree (spec/interfaces.md section 3) and rendered from that tree
 * as JSON, a text table or CSV, so that the three forms cannot disagree.
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

/* An empty report whose config is taken from vt_cli and the first trace. */
struct vt_report *vt_report_new(void);
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

/* Render @r to @f in @fmt.  Return: 0 or -errno (write error). */
int vt_report_write(const struct vt_report *r, FILE *f, enum vt_format fmt);

/* ---- reading a report back (gate) ----------------------------------- */

/* Load and check a report file: format "vmaptool-report", version 1.
 * Errors: VT_ERR_TRACE_SYNTAX, VT_ERR_TRACE_VERSION, VT_ERR_TRACE_SCHEMA,
 * -errno. */
int vt_report_load(const char *path, struct vt_report **out,
		   struct vt_error *err);
/* The model options, the strategy list ("a,b,c", malloc'd) and whether
 * per_op was asked for, as a report was made, so that gate can replay
 * traces the same way. */
int vt_report_setup(const struct vt_report *r, struct vt_model_opts *o,
		    char **strategies, bool *per_op, struct vt_error *err);
size_t vt_report_nr_traces(const struct vt_report *r);
const char *vt_report_trace_path(const struct vt_report *r, size_t i);
/* The geometry trace @i was replayed with. */
void vt_report_trace_geometry(const struct vt_report *r, size_t i,
			      unsigned int *page_shift, unsigned int *va_bits);

/**
 * vt_report_gate() - compare @cur against @base and print the differences
 * @base: the baseline report
 * @cur: the current report
 * @threshold: tolerance in percent for estimated metrics (cycles, ns)
 * @f: where the list goes
 * @fmt: text (table/csv) or JSON
 * @regressions: out, counts that increased or disappeared
 * @improvements: out, counts that decreased
 *
 * Return: 0 or -errno.
 */
int vt_report_gate(const struct vt_report *base, const struct vt_report *cur,
		   double threshold, FILE *f, enum vt_format fmt,
		   unsigned int *regressions, unsigned int *improvements);

/* ---- other documents ------------------------------------------------ */

/* {"error": {code, message, file, line, column}} for --format=json. */
void vt_report_error_json(FILE *f, const struct vt_error *e);

/* One --per-event JSON line (interfaces.md 1.1).  Return: 0 or -errno. */
int vt_report_event_line(FILE *f, long index, const char *strategy,
			 const char *op, const struct vt_event *ev,
			 uint64_t va, const struct vt_stats *delta,
			 const struct vt_shape *shape);

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
	const struct vt_ptdump_line *lines;
	size_t nr;
};

/* Ranges in arch/arm64/mm/ptdump.c style, or as JSON/CSV. */
int vt_report_ptdump(FILE *f, enum vt_format fmt, const struct vt_ptdump_doc *d);

/* The strategy list; @describe (from vt_model_describe(), -v) or NULL. */
int vt_report_strategies(FILE *f, enum vt_format fmt,
			 const struct vt_strategy_info *infos,
			 const char *describe);

#endif
