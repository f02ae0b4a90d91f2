// SPDX-License-Identifier: GPL-2.0
/*
 * The text of compare --summary (cli/summary.c builds it into the
 * report): per trace one block of at most 72 columns, plain ASCII, the
 * same in the table and mail forms.  Every line goes through emit(),
 * which replaces what is not printable ASCII (a trace path, a strategy
 * name, a trace's meta are input) and wraps at 72 columns, breaking a
 * word longer than a line, so that no line is longer whatever the input.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/report-doc.h"

#ifndef VT_VERSION
#define VT_VERSION "0.0.0"
#endif

#define SUM_COLS 72

/* An allocation of this render failed: vt_summary_write() returns
 * -ENOMEM (exit 4) rather than a cut block with exit 0. */
static _Thread_local bool sum_oom;

/* @text as lines of at most SUM_COLS columns: as it is when it fits,
 * else broken at spaces (a word longer than a line is cut), the
 * continuation lines indented by @indent. */
static void emit(FILE *f, const char *text, int indent)
{
	size_t len = strlen(text);
	char *s = malloc(len + 1);
	const char *p;
	int col;
	bool start = true;

	if (!s) {
		sum_oom = true;
		return;
	}
	/* a continuation keeps room for text (a long strategy name) */
	if (indent > SUM_COLS / 3)
		indent = SUM_COLS / 3;
	for (size_t i = 0; i <= len; i++)
		s[i] = i < len && ((unsigned char)text[i] < 0x20 ||
				   (unsigned char)text[i] >= 0x7f) ? '?' : text[i];
	if (len <= SUM_COLS) {
		fprintf(f, "%s\n", s);
		free(s);
		return;
	}
	/* the leading spaces of the line are its own indentation */
	for (p = s, col = 0; *p == ' '; p++)
		col++;
	fprintf(f, "%*s", col, "");
	while (*p) {
		size_t n = strcspn(p, " ");

		if (!start && col + 1 + (int)n > SUM_COLS) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			start = true;
		}
		if (!start) {
			fputc(' ', f);
			col++;
		}
		/* a word longer than a line: as much as fits, then the rest */
		while (col + (int)n > SUM_COLS) {
			size_t room = (size_t)(SUM_COLS - col);

			fprintf(f, "%.*s\n%*s", (int)room, p, indent, "");
			p += room;
			n -= room;
			col = indent;
		}
		fprintf(f, "%.*s", (int)n, p);
		col += (int)n;
		start = false;
		p += n;
		p += strspn(p, " ");
	}
	fputc('\n', f);
	free(s);
}

static const char *name_of(json_t *strats, size_t k)
{
	return json_string_value(json_object_get(json_array_get(strats, k), "name"));
}

static json_int_t val(json_t *row, size_t k)
{
	return json_integer_value(json_array_get(json_object_get(row, "values"), k));
}

static const char *change(json_t *row, size_t k)
{
	return json_string_value(json_array_get(json_object_get(row, "changes"), k));
}

static int digits(json_int_t v)
{
	char b[32];

	return snprintf(b, sizeof(b), "%" JSON_INTEGER_FORMAT, v);
}

/* Strategies as columns, each after the first with its change in words;
 * false when they do not fit SUM_COLS. */
static bool rows_columns(FILE *f, json_t *strats, json_t *rows, const bool *fold)
{
	size_t ns = json_array_size(strats), nr = json_array_size(rows), i, k;
	int label_w = (int)strlen("metric"), total, *val_w, *ch_w;
	char line[512];
	json_t *row;

	val_w = calloc(ns ? ns : 1, sizeof(int));
	ch_w = calloc(ns ? ns : 1, sizeof(int));
	if (!val_w || !ch_w) {
		free(val_w);
		free(ch_w);
		sum_oom = true;
		return true;	/* no fallback layout: the render fails */
	}
	json_array_foreach(rows, i, row) {
		const char *m = json_string_value(json_object_get(row, "metric"));

		if ((int)strlen(m) + 2 > label_w)
			label_w = (int)strlen(m) + 2;
	}
	total = label_w;
	for (k = 0; k < ns; k++) {
		if (fold[k])
			continue;
		val_w[k] = (int)strlen(name_of(strats, k)) + 2;
		ch_w[k] = k ? (int)strlen("change") + 2 : 0;
		for (i = 0; i < nr; i++) {
			row = json_array_get(rows, i);
			if (digits(val(row, k)) + 2 > val_w[k])
				val_w[k] = digits(val(row, k)) + 2;
			if (k && (int)strlen(change(row, k)) + 2 > ch_w[k])
				ch_w[k] = (int)strlen(change(row, k)) + 2;
		}
		total += val_w[k] + ch_w[k];
	}
	if (total > SUM_COLS) {
		free(val_w);
		free(ch_w);
		return false;
	}
	snprintf(line, sizeof(line), "%-*s", label_w, "metric");
	for (k = 0; k < ns; k++) {
		if (fold[k])
			continue;
		snprintf(line + strlen(line), sizeof(line) - strlen(line), "%*s",
			 val_w[k], name_of(strats, k));
		if (k)
			snprintf(line + strlen(line), sizeof(line) - strlen(line),
				 "%*s", ch_w[k], "change");
	}
	emit(f, line, 0);
	json_array_foreach(rows, i, row) {
		snprintf(line, sizeof(line), "  %-*s", label_w - 2,
			 json_string_value(json_object_get(row, "metric")));
		for (k = 0; k < ns; k++) {
			if (fold[k])
				continue;
			snprintf(line + strlen(line), sizeof(line) - strlen(line),
				 "%*" JSON_INTEGER_FORMAT, val_w[k], val(row, k));
			if (k)
				snprintf(line + strlen(line), sizeof(line) - strlen(line),
					 "%*s", ch_w[k], change(row, k));
		}
		emit(f, line, 4);
	}
	free(val_w);
	free(ch_w);
	return true;
}

/* One block per strategy after the first: the rows that differ from it,
 * "first -> this" and the change in words. */
static void rows_blocks(FILE *f, json_t *strats, json_t *rows, const bool *fold)
{
	size_t ns = json_array_size(strats), i, k;
	int label_w = 0, num_w = 1;
	char line[512];
	json_t *row;

	json_array_foreach(rows, i, row) {
		const char *m = json_string_value(json_object_get(row, "metric"));

		if ((int)strlen(m) > label_w)
			label_w = (int)strlen(m);
		for (k = 0; k < ns; k++)
			if (digits(val(row, k)) > num_w)
				num_w = digits(val(row, k));
	}
	snprintf(line, sizeof(line), "%s [count]", name_of(strats, 0));
	emit(f, line, 2);
	json_array_foreach(rows, i, row) {
		snprintf(line, sizeof(line), "  %-*s  %*" JSON_INTEGER_FORMAT, label_w,
			 json_string_value(json_object_get(row, "metric")), num_w, val(row, 0));
		emit(f, line, 4);
	}
	for (k = 1; k < ns; k++) {
		int same = 0;

		if (fold[k])
			continue;
		snprintf(line, sizeof(line), "%s against %s", name_of(strats, k),
			 name_of(strats, 0));
		emit(f, line, 2);
		json_array_foreach(rows, i, row) {
			if (val(row, 0) == val(row, k)) {
				same++;
				continue;
			}
			snprintf(line, sizeof(line), "  %-*s  %*" JSON_INTEGER_FORMAT " -> %*"
				 JSON_INTEGER_FORMAT "  %s", label_w,
				 json_string_value(json_object_get(row, "metric")), num_w,
				 val(row, 0), num_w, val(row, k), change(row, k));
			emit(f, line, 4);
		}
		if (same) {
			snprintf(line, sizeof(line), "  (%d other metric%s as for %s)", same,
				 same == 1 ? "" : "s", name_of(strats, 0));
			emit(f, line, 4);
		}
	}
}

/* "10.84x" */
static void times(char *buf, size_t len, json_t *x)
{
	if (json_is_real(x))
		snprintf(buf, len, "%.2fx", json_real_value(x));
	else
		snprintf(buf, len, "-");
}

/* The estimated speed-ups: the chosen profile's figure and the range. */
/* @cost_of: --cost-of's part (config.cost_of), or NULL for the whole */
static void speedups(FILE *f, json_t *top, json_t *strats, json_t *sp,
		     const char *cost_of)
{
	const char *profile = json_string_value(json_object_get(top, "profile"));
	const char *erratum = json_string_value(json_object_get(top, "erratum_4118414"));
	size_t np = json_array_size(json_object_get(top, "profiles")), i;
	int name_w = 0;
	char line[512], a[32], b[32], c[32];
	json_t *e;

	if (!json_array_size(sp))
		return;
	json_array_foreach(sp, i, e) {
		int w = (int)strlen(json_string_value(json_object_get(e, "strategy")));

		name_w = w > name_w ? w : name_w;
	}
	snprintf(line, sizeof(line), "estimated speed-up against %s (its time / "
		 "this one's) with profile %s%s%s%s%s, and its range over the %zu "
		 "shipped profile%s that apply:", name_of(strats, 0), profile ? profile : "-",
		 erratum ? ", ARM64_ERRATUM_4118414 " : "", erratum ? erratum : "",
		 cost_of ? ", cost of " : "", cost_of ? cost_of : "",
		 np, np == 1 ? "" : "s");
	emit(f, line, 0);
	json_array_foreach(sp, i, e) {
		json_t *lo = json_object_get(e, "low"), *hi = json_object_get(e, "high");

		times(a, sizeof(a), json_object_get(e, "speedup"));
		if (!lo) {
			snprintf(line, sizeof(line), "  %-*s  %7s  (no profile applies)", name_w,
				 json_string_value(json_object_get(e, "strategy")), a);
		} else {
			times(b, sizeof(b), json_object_get(lo, "speedup"));
			times(c, sizeof(c), json_object_get(hi, "speedup"));
			if (!strcmp(b, c))
				snprintf(line, sizeof(line), "  %-*s  %7s  %s with every one", name_w,
					 json_string_value(json_object_get(e, "strategy")), a, b);
			else
				snprintf(line, sizeof(line), "  %-*s  %7s  %s (%s) .. %s (%s)", name_w,
				 json_string_value(json_object_get(e, "strategy")), a,
				 b, json_string_value(json_object_get(lo, "profile")),
				 c, json_string_value(json_object_get(hi, "profile")));
		}
		emit(f, line, name_w + 13);
	}
	/* a strategy that mis-maps: its figure is not a valid speed-up */
	json_array_foreach(strats, i, e) {
		const char *w = json_string_value(json_object_get(json_object_get(e, "mismaps"),
								  "warning"));

		if (w) {
			snprintf(line, sizeof(line), "warning: %s", w);
			emit(f, line, 2);
		}
	}
}

/*
 * The rows: a strategy with every count of the first is folded into one
 * line, the others are columns while they fit, else blocks.
 */
static void rows_print(FILE *f, json_t *strats, json_t *rows)
{
	size_t ns = json_array_size(strats), i, k, nfold = 0;
	bool *fold = calloc(ns ? ns : 1, sizeof(bool));
	char line[1024];
	json_t *row;

	if (!fold) {
		sum_oom = true;
		return;
	}
	for (k = 1; k < ns; k++) {
		fold[k] = true;
		json_array_foreach(rows, i, row)
			fold[k] &= val(row, k) == val(row, 0);
		nfold += fold[k];
	}
	if (!rows_columns(f, strats, rows, fold))
		rows_blocks(f, strats, rows, fold);
	if (nfold) {
		snprintf(line, sizeof(line), "%s", "");
		for (k = 1; k < ns; k++)
			if (fold[k])
				snprintf(line + strlen(line), sizeof(line) - strlen(line),
					 "%s%s", line[0] ? ", " : "", name_of(strats, k));
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 ": as %s in every metric above", name_of(strats, 0));
		emit(f, line, 2);
	}
	free(fold);
}

static void trace_block(FILE *f, json_t *root, json_t *t, const char *name)
{
	json_t *top = json_object_get(root, "summary");
	json_t *config = json_object_get(root, "config");
	json_t *g = json_object_get(t, "config") ? json_object_get(t, "config") : config;
	json_t *sum = json_object_get(t, "summary");
	json_t *strats = json_object_get(t, "strategies");
	json_t *tool = json_object_get(top, "tool");
	const char *src = json_string_value(json_object_get(sum, "source"));
	json_int_t ev = json_integer_value(json_object_get(t, "events"));
	char line[1024], *from = NULL;

	snprintf(line, sizeof(line), "%s: %" JSON_INTEGER_FORMAT " event%s, %s granule, %"
		 JSON_INTEGER_FORMAT "-bit VA",
		 name, ev, ev == 1 ? "" : "s",
		 json_string_value(json_object_get(g, "granule")),
		 json_integer_value(json_object_get(g, "va_bits")));
	emit(f, line, 2);
	rows_print(f, strats, json_object_get(sum, "rows"));
	speedups(f, top, strats, json_object_get(sum, "speedups"),
		 json_string_value(json_object_get(config, "cost_of")));
	/* the commit alone on its line: its length moves no other word */
	snprintf(line, sizeof(line), "made with vmaptool %s (commit %s)",
		 json_string_value(json_object_get(tool, "version")),
		 json_string_value(json_object_get(tool, "commit")));
	emit(f, line, 2);
	snprintf(line, sizeof(line), "kernel %s model, %s granule, %"
		 JSON_INTEGER_FORMAT "-bit VA",
		 json_string_value(json_object_get(config, "kernel_model")),
		 json_string_value(json_object_get(g, "granule")),
		 json_integer_value(json_object_get(g, "va_bits")));
	emit(f, line, 2);
	if (asprintf(&from, "from: %s", src ? src :
		     "(the trace's meta does not say: not made by vmaptool gen or import)") >= 0) {
		emit(f, from, 6);
		free(from);
	} else {
		sum_oom = true;
	}
}

int vt_summary_write(const struct vt_report *r, FILE *f)
{
	json_t *t;
	size_t i;

	sum_oom = false;
	json_array_foreach(r->traces, i, t) {
		if (i)
			fputc('\n', f);
		trace_block(f, r->root, t, vt_report_trace_shown(r, i));
	}
	return sum_oom ? -ENOMEM : 0;
}
