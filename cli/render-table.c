// SPDX-License-Identifier: GPL-2.0
/*
 * The human forms of a report (docs/report-format.md): the text table and
 * --format=mail.  Both fit 72 columns: strategies are columns while they
 * fit, and become blocks, one per strategy, when they do not (--wide keeps
 * the columns whatever the width).  A change against the first strategy
 * is said in words ("3.5x fewer", "4.3% more") and coloured by whether it
 * is good for that metric, which the metric table says (VT_METRICS in
 * core/stats.h), never a special case here.  Mail is the table for a
 * cover letter: a header naming what was replayed, plain ASCII, no colour,
 * no control characters, every line wrapped at 72 columns.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/report-doc.h"

#define TEXT_COLS 72		/* what a mail or a terminal can take */
#define WIDE_NAME_W 26		/* --wide: today's fixed widths */
#define WIDE_COL_W 12

/*
 * An allocation of the renderer failed: the text is incomplete, and
 * vt_report_write_table() / _mail() say so (-ENOMEM, exit 4) instead of
 * returning a cut report as success.
 */
static _Thread_local bool render_oom;

struct text_out {
	FILE *f;
	bool colour;
	bool mail;	/* ASCII only, control characters replaced */
	bool wide;
	int verbose;
};

static const char *bold(const struct text_out *o)
{
	return o->colour ? "\033[1m" : "";
}

static const char *reset(const struct text_out *o)
{
	return o->colour ? "\033[0m" : "";
}

/* --color=auto: a terminal, NO_COLOR unset or empty, TERM not "dumb" */
static bool colour_wanted(FILE *f, enum vt_colour c)
{
	const char *term = getenv("TERM"), *no = getenv("NO_COLOR");

	switch (c) {
	case VT_COLOUR_ALWAYS:
		return true;
	case VT_COLOUR_NEVER:
		return false;
	case VT_COLOUR_AUTO:
		break;
	}
	return isatty(fileno(f)) && !(no && *no) &&
	       !(term && !strcmp(term, "dumb"));
}

/*
 * A string from the report (a trace path, a strategy name as given) as
 * mail may carry it: a byte that is not printable ASCII (a control
 * character, DEL, a byte of a UTF-8 sequence) becomes '?'.
 */
static const char *safe(const struct text_out *o, const char *s, char *buf,
			size_t len)
{
	size_t i;

	if (!o->mail || !s)
		return s ? s : "";
	for (i = 0; s[i] && i + 1 < len; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f ?
			 '?' : s[i];
	buf[i] = '\0';
	return buf;
}

/* A trace path as one word of prose: safe(), its spaces ones vt_wrap()
 * never breaks a line at (VT_WRAP_SPACE), so that it can be copied. */
static const char *path_word(const struct text_out *o, const char *s, char *buf,
			     size_t len)
{
	const char *t = safe(o, s, buf, len);
	size_t i;

	if (t != buf)
		snprintf(buf, len, "%s", t);
	for (i = 0; buf[i]; i++)
		if (buf[i] == ' ')
			buf[i] = VT_WRAP_SPACE;
	return buf;
}

/* ---- a change in words ----------------------------------------------- */

static void factor(char *buf, size_t len, double x)
{
	snprintf(buf, len, x >= 9.95 ? "%.0f" : "%.1f", x);
}

static void percent(char *buf, size_t len, double p)
{
	snprintf(buf, len, p >= 9.95 ? "%.0f%%" : p >= 0.995 ? "%.1f%%" : "%.2g%%", p);
}

/*
 * @cur against @base in words: "same", "3.5x fewer", "4.3% more",
 * "none before", "none now", for compare and gate alike.  Returns +1
 * when the change is good for metric @i, -1 when it is bad, 0 when
 * neither (same, a metric whose direction is neutral, or @i < 0).
 */
int vt_change_words(char *buf, size_t len, json_int_t base, json_int_t cur, int i)
{
	char num[32];
	int good = i >= 0 && vt_metric_better[i] == VT_MB_FEWER;

	if (cur == base) {
		snprintf(buf, len, "same");
		return 0;
	}
	if (base == 0)
		snprintf(buf, len, "none before");
	else if (cur == 0)
		snprintf(buf, len, "none now");
	else if (cur < base && (double)base / (double)cur >= 2)
		factor(num, sizeof(num), (double)base / (double)cur),
		snprintf(buf, len, "%sx fewer", num);
	else if (cur < base)
		percent(num, sizeof(num), 100.0 * (double)(base - cur) / (double)base),
		snprintf(buf, len, "%s fewer", num);
	else if ((double)cur / (double)base >= 2)
		factor(num, sizeof(num), (double)cur / (double)base),
		snprintf(buf, len, "%sx more", num);
	else
		percent(num, sizeof(num), 100.0 * (double)(cur - base) / (double)base),
		snprintf(buf, len, "%s more", num);
	if (!good)
		return 0;
	return cur < base ? 1 : -1;
}

static const char *sentiment_colour(const struct text_out *o, int s)
{
	if (!o->colour || !s)
		return "";
	return s > 0 ? "\033[32m" : "\033[31m";
}

/* ---- rows ------------------------------------------------------------ */

json_t *vt_report_metric_get(json_t *m, int i)
{
	const char *name = vt_metric_names[i];

	switch (vt_metric_kinds[i]) {
	case VT_MK_TLBI:
		return json_object_get(json_object_get(m, "tlbi_by_kind"),
				       name + strlen("tlbi_"));
	case VT_MK_DSB:
		return json_object_get(json_object_get(m, "dsb_by_kind"),
				       name + strlen("dsb_"));
	case VT_MK_CYC:
		return json_object_get(json_object_get(m, "cycles_by_function"),
				       name + strlen("cyc_"));
	case VT_MK_TOP:
	case VT_MK_VERIFY:
		break;
	}
	return json_object_get(m, name);
}

/* Row label: sub-kinds are indented under their total (tlbi, dsb, cycles). */
static void row_label(char *buf, size_t len, int i)
{
	const char *name = vt_metric_names[i];

	switch (vt_metric_kinds[i]) {
	case VT_MK_TLBI:
	case VT_MK_DSB:
	case VT_MK_CYC:
		snprintf(buf, len, "  %s", strchr(name, '_') + 1);
		return;
	case VT_MK_TOP:
	case VT_MK_VERIFY:
		break;
	}
	snprintf(buf, len, "%s", name);
}

/* One table: the strategies' metrics objects for the totals or one op. */
struct table {
	json_t *strats;
	const char *op;		/* NULL: the totals */
	size_t nr;
	bool words;		/* compare: the change against the first in words */
	int order[VT_M__NR];	/* rows shown, in order */
	bool forced[VT_M__NR];	/* shown even where equal to the first */
	int nr_rows;
	size_t hidden;		/* rows zero for every strategy */
};

static json_t *strat_metrics(const struct table *t, size_t k)
{
	json_t *m = json_object_get(json_array_get(t->strats, k), "metrics");

	return t->op ? json_object_get(json_object_get(json_array_get(t->strats, k),
							"per_op"), t->op) : m;
}

static json_int_t value(const struct table *t, size_t k, int i)
{
	return json_integer_value(vt_report_metric_get(strat_metrics(t, k), i));
}

static const char *strat_name(const struct table *t, size_t k)
{
	return json_string_value(json_object_get(json_array_get(t->strats, k), "name"));
}

/*
 * Which rows to show, in VT_METRICS order but with lazy_pages_pending
 * right after the TLBIs: the TLBIs of those pages are not counted yet.
 * Hidden: rows zero for every strategy (unless -v); never the totals'
 * tlbi (a zero there is a finding too), nor mismapped_pages.
 */
static void table_rows(struct table *t, int verbose)
{
	int seq[VT_M__NR], n = 0;

	for (int i = 0; i < VT_M__NR; i++) {
		if (i == VT_M_lazy_pages_pending)
			continue;
		seq[n++] = i;
		if ((i == VT_M_tlbi || vt_metric_kinds[i] == VT_MK_TLBI) &&
		    (i + 1 >= VT_M__NR || vt_metric_kinds[i + 1] != VT_MK_TLBI))
			seq[n++] = VT_M_lazy_pages_pending;
	}
	t->nr_rows = 0;
	t->hidden = 0;
	for (int j = 0; j < n; j++) {
		int i = seq[j];
		bool present = false, any = false;

		for (size_t k = 0; k < t->nr; k++) {
			json_t *v = vt_report_metric_get(strat_metrics(t, k), i);

			present |= v != NULL;
			any |= json_integer_value(v) != 0;
		}
		if (!present)
			continue;
		t->forced[i] = vt_metric_kinds[i] == VT_MK_VERIFY ||
			       (!t->op && i == VT_M_tlbi);
		if (!any && !t->forced[i] && !verbose) {
			t->hidden++;
			continue;
		}
		t->order[t->nr_rows++] = i;
	}
}

static int digits(json_int_t v)
{
	char buf[32];

	return snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, v);
}

/* Widths of the column layout; returns its total width. */
static int column_widths(const struct table *t, const char *title, bool wide,
			 int *name_w, int *col_w, int *words_w)
{
	int total;

	/* the title heads the name column: a table of short names only (a
	 * trace of no events: tlbi alone) is as wide as it */
	*name_w = wide ? WIDE_NAME_W : 0;
	if ((int)strlen(title) + 2 > *name_w)
		*name_w = (int)strlen(title) + 2;
	*words_w = (int)strlen("change") + 2;	/* the header */
	for (int r = 0; r < t->nr_rows; r++) {
		char label[64];

		row_label(label, sizeof(label), t->order[r]);
		if ((int)strlen(label) + 2 > *name_w)
			*name_w = (int)strlen(label) + 2;
		for (size_t k = 1; t->words && k < t->nr; k++) {
			char w[48];

			vt_change_words(w, sizeof(w), value(t, 0, t->order[r]),
					value(t, k, t->order[r]), t->order[r]);
			if ((int)strlen(w) + 2 > *words_w)
				*words_w = (int)strlen(w) + 2;
		}
	}
	total = *name_w;
	for (size_t k = 0; k < t->nr; k++) {
		int w = (int)strlen(strat_name(t, k)) + 2;

		for (int r = 0; r < t->nr_rows; r++)
			if (digits(value(t, k, t->order[r])) + 2 > w)
				w = digits(value(t, k, t->order[r])) + 2;
		if (wide && w < WIDE_COL_W)
			w = WIDE_COL_W;
		col_w[k] = w;
		total += w + (t->words && k > 0 ? *words_w : 0);
	}
	return total;
}

static void hidden_line(const struct text_out *o, const struct table *t)
{
	if (t->hidden)
		fprintf(o->f, "(%zu metric%s zero for every strategy not shown; "
			"-v shows them)\n", t->hidden, t->hidden == 1 ? "" : "s");
}

/* Metrics as rows, strategies as columns (and compare's change in words). */
static void table_columns(const struct text_out *o, const struct table *t,
			  const char *title, int name_w, const int *col_w,
			  int words_w)
{
	char buf[256];

	fprintf(o->f, "%s%-*s", bold(o), name_w, title);
	for (size_t k = 0; k < t->nr; k++) {
		fprintf(o->f, "%*s", col_w[k], safe(o, strat_name(t, k), buf, sizeof(buf)));
		if (t->words && k > 0)
			fprintf(o->f, "%*s", words_w, "change");
	}
	fprintf(o->f, "%s\n", reset(o));
	for (int r = 0; r < t->nr_rows; r++) {
		int i = t->order[r];
		char label[64];

		row_label(label, sizeof(label), i);
		fprintf(o->f, "%-*s", name_w, label);
		for (size_t k = 0; k < t->nr; k++) {
			char w[48];
			int s;

			fprintf(o->f, "%*" JSON_INTEGER_FORMAT, col_w[k], value(t, k, i));
			if (!t->words || k == 0)
				continue;
			s = vt_change_words(w, sizeof(w), value(t, 0, i), value(t, k, i), i);
			fprintf(o->f, "%*s%s%s%s", words_w - (int)strlen(w), "",
				sentiment_colour(o, s), w, s && o->colour ? reset(o) : "");
		}
		fputc('\n', o->f);
	}
	hidden_line(o, t);
}

/*
 * One block per strategy: the first lists every row shown, the others
 * only the rows that differ from the first (and the totals' tlbi), as
 * "first -> this", with compare's change in words.
 */
static void table_blocks(const struct text_out *o, const struct table *t)
{
	int name_w = 0, num_w = 1;
	char buf[256], bbuf[256], op[80] = "";
	const char *base = safe(o, strat_name(t, 0), bbuf, sizeof(bbuf));

	for (int r = 0; r < t->nr_rows; r++) {
		char label[64];

		row_label(label, sizeof(label), t->order[r]);
		if ((int)strlen(label) + 2 > name_w)
			name_w = (int)strlen(label) + 2;
		for (size_t k = 0; k < t->nr; k++)
			if (digits(value(t, k, t->order[r])) > num_w)
				num_w = digits(value(t, k, t->order[r]));
	}
	if (t->op)
		snprintf(op, sizeof(op), "%s, ", t->op);
	fprintf(o->f, "%s%s%s [count]%s\n", bold(o), op, base, reset(o));
	for (int r = 0; r < t->nr_rows; r++) {
		char label[64];

		row_label(label, sizeof(label), t->order[r]);
		fprintf(o->f, "  %-*s%*" JSON_INTEGER_FORMAT "\n", name_w, label,
			num_w, value(t, 0, t->order[r]));
	}
	hidden_line(o, t);
	for (size_t k = 1; k < t->nr; k++) {
		int same = 0;

		fprintf(o->f, "%s%s%s against %s%s\n", bold(o), op,
			safe(o, strat_name(t, k), buf, sizeof(buf)), base, reset(o));
		for (int r = 0; r < t->nr_rows; r++) {
			int i = t->order[r], s;
			json_int_t a = value(t, 0, i), b = value(t, k, i);
			char label[64], w[48];

			if (a == b && !t->forced[i]) {
				same++;
				continue;
			}
			row_label(label, sizeof(label), i);
			fprintf(o->f, "  %-*s%*" JSON_INTEGER_FORMAT " -> %*"
				JSON_INTEGER_FORMAT, name_w, label, num_w, a, num_w, b);
			if (t->words) {
				s = vt_change_words(w, sizeof(w), a, b, i);
				fprintf(o->f, "  %s%s%s", sentiment_colour(o, s), w,
					s && o->colour ? reset(o) : "");
			}
			fputc('\n', o->f);
		}
		if (same)
			fprintf(o->f, "  (%d other metric%s as for %s)\n", same,
				same == 1 ? "" : "s", base);
	}
}

static void table_print(const struct text_out *o, json_t *strats,
			const char *op, bool words, const char *title)
{
	struct table t = { .strats = strats, .op = op, .nr = json_array_size(strats),
			   .words = words };
	int name_w, words_w, *col_w = calloc(t.nr ? t.nr : 1, sizeof(int));

	if (!col_w) {
		render_oom = true;
		return;
	}
	table_rows(&t, o->verbose);
	if (column_widths(&t, title, o->wide, &name_w, col_w, &words_w) <= TEXT_COLS ||
	    o->wide || t.nr < 2)
		table_columns(o, &t, title, name_w, col_w, words_w);
	else
		table_blocks(o, &t);
	free(col_w);
}

/* ---- lines of prose -------------------------------------------------- */

/* @text as lines of at most 72 columns (vt_wrap()); --wide prints it on
 * one line as before. */
static void prose(const struct text_out *o, const char *text, int indent)
{
	if (o->wide && !o->mail)
		vt_wrap_none(o->f, text);
	else
		vt_wrap(o->f, text, 0, indent, TEXT_COLS);
}

/* compare: "batched mis-maps 240 pages: not a valid speed-up" (report.c) */
static void mismap_line(const struct text_out *o, json_t *s)
{
	json_t *w = json_object_get(json_object_get(s, "mismaps"), "warning");
	char buf[512];

	if (json_is_string(w))
		prose(o, safe(o, json_string_value(w), buf, sizeof(buf)), 2);
}

/*
 * compare: "batched: 3.5x faster than pagewise (estimate, profile
 * generic-a76)", then the counts that explain it, the largest share of
 * cycles first; a strategy that mis-maps pages says so after it.
 */
static void faster_lines(const struct text_out *o, json_t *strats, const char *profile)
{
	json_t *s;
	size_t k;

	json_array_foreach(strats, k, s) {
		json_t *est = json_object_get(s, "estimate"), *e;
		double x = json_real_value(json_object_get(est, "speedup"));
		char *line = NULL, num[32], b1[256], b2[256];
		size_t len = 0, i;
		FILE *m;

		if (!est || !json_is_real(json_object_get(est, "speedup"))) {
			mismap_line(o, s);
			continue;
		}
		m = open_memstream(&line, &len);
		if (!m) {
			render_oom = true;
			return;
		}
		snprintf(num, sizeof(num), "%.2f", x >= 1 ? x : 1 / x);
		if (x == 1)	/* equal estimates, as the table says "same" */
			fprintf(m, "%s: same speed as %s (estimate, profile %s)",
				safe(o, json_string_value(json_object_get(s, "name")), b1, sizeof(b1)),
				safe(o, json_string_value(json_object_get(est, "baseline")), b2, sizeof(b2)),
				profile ? profile : "-");
		else if (!strcmp(num, "1.00"))	/* "0.48% slower": the cycles' change */
			percent(num, sizeof(num), 100 * fabs(1 - 1 / x)),
			fprintf(m, "%s: %s %s than %s (estimate, profile %s)",
				safe(o, json_string_value(json_object_get(s, "name")), b1, sizeof(b1)),
				num, x > 1 ? "faster" : "slower",
				safe(o, json_string_value(json_object_get(est, "baseline")), b2, sizeof(b2)),
				profile ? profile : "-");
		else
			fprintf(m, "%s: %s%s %s than %s (estimate, profile %s)",
				safe(o, json_string_value(json_object_get(s, "name")), b1, sizeof(b1)),
				num, "x",	/* ASCII in every locale, as the rows' "26x fewer" */
				x >= 1 ? "faster" : "slower",
				safe(o, json_string_value(json_object_get(est, "baseline")), b2, sizeof(b2)),
				profile ? profile : "-");
		json_array_foreach(json_object_get(est, "explained_by"), i, e)
			fprintf(m, "%s %s %" JSON_INTEGER_FORMAT " -> %" JSON_INTEGER_FORMAT
				" (%+" JSON_INTEGER_FORMAT " cycles)", i ? "," : ":",
				json_string_value(json_object_get(e, "event")),
				json_integer_value(json_object_get(e, "baseline_count")),
				json_integer_value(json_object_get(e, "count")),
				-json_integer_value(json_object_get(e, "cycles_saved")));
		if (!fclose(m) && line)
			prose(o, line, 2);
		else
			render_oom = true;
		free(line);
		mismap_line(o, s);
	}
}

/*
 * The TLBIs of pages still lazily pending are not counted: say so once
 * per trace, and how to count them.
 */
static void pending_hint(const struct text_out *o, json_t *strats)
{
	json_int_t lo = -1, hi = 0, purges = 0;
	char text[256], n[64];
	json_t *s;
	size_t k;

	json_array_foreach(strats, k, s) {
		json_t *m = json_object_get(s, "metrics");
		json_int_t p = json_integer_value(json_object_get(m, "lazy_pages_pending"));

		lo = lo < 0 || p < lo ? p : lo;
		hi = p > hi ? p : hi;
		purges += json_integer_value(json_object_get(m, "purges"));
	}
	if (hi <= 0)
		return;
	if (lo == hi)
		snprintf(n, sizeof(n), "%" JSON_INTEGER_FORMAT, hi);
	else
		snprintf(n, sizeof(n), "%" JSON_INTEGER_FORMAT "-%" JSON_INTEGER_FORMAT,
			 lo, hi);
	snprintf(text, sizeof(text), "note: the trace ended %s: %s pages still "
		 "lazily pending; --purge-at-end counts their TLBIs",
		 purges ? "with lazily freed areas not purged" : "before any purge", n);
	prose(o, text, 6);
}

/* ---- the documents ---------------------------------------------------- */

static void options_line(const struct text_out *o, json_t *config)
{
	json_t *opts = json_object_get(config, "options"), *v;
	char *line = NULL;
	size_t len = 0;
	const char *key;
	FILE *m = open_memstream(&line, &len);

	if (!m) {
		render_oom = true;
		return;
	}
	fputs("options:", m);
	json_object_foreach(opts, key, v) {
		if (json_is_integer(v))
			fprintf(m, " %s=%" JSON_INTEGER_FORMAT, key, json_integer_value(v));
		else
			fprintf(m, " %s=%s", key, json_string_value(v));
	}
	if (!fclose(m) && line)
		prose(o, line, 9);
	else
		render_oom = true;
	free(line);
}

static const char *events_word(json_int_t n)
{
	return n == 1 ? "event" : "events";
}

/* @said: the mail header has already named this trace and its events */
static void trace_body(const struct text_out *o, json_t *t, const char *name,
		       const char *profile, bool said)
{
	json_t *strats = json_object_get(t, "strategies");
	json_t *g = json_object_get(t, "config");
	bool words = json_object_get(json_array_get(strats, 1), "ratios");
	json_t *per_op = NULL, *s;
	char buf[512], *line = NULL;
	size_t k, len = 0;
	FILE *m;

	m = open_memstream(&line, &len);
	if (!m) {
		render_oom = true;
		return;
	}
	fprintf(m, "trace: %s (%" JSON_INTEGER_FORMAT " %s",
		path_word(o, name, buf, sizeof(buf)),
		json_integer_value(json_object_get(t, "events")),
		events_word(json_integer_value(json_object_get(t, "events"))));
	if (g)
		fprintf(m, ", %s granule, %" JSON_INTEGER_FORMAT "-bit VA",
			json_string_value(json_object_get(g, "granule")),
			json_integer_value(json_object_get(g, "va_bits")));
	fputc(')', m);
	if (fclose(m) || !line) {
		free(line);
		render_oom = true;
		return;
	}
	fputc('\n', o->f);
	if (!said || g)
		prose(o, line, 7);
	free(line);
	table_print(o, strats, NULL, words, "metric [count]");
	pending_hint(o, strats);
	faster_lines(o, strats, profile);

	/* Ops in a fixed order: the union over the strategies. */
	json_array_foreach(strats, k, s)
		if (!per_op)
			per_op = json_object_get(s, "per_op");
	if (!per_op)
		return;
	for (int op = 0; op < VT_OP__NR; op++) {
		bool seen = false;
		char title[64];

		json_array_foreach(strats, k, s)
			seen |= json_object_get(json_object_get(s, "per_op"),
						vt_op_names[op]) != NULL;
		if (!seen)
			continue;
		snprintf(title, sizeof(title), "%s [count]", vt_op_names[op]);
		fputc('\n', o->f);
		table_print(o, strats, vt_op_names[op], false, title);
	}
}

/*
 * The profile as the estimate lines name it: "altra-metal", with
 * --erratum-4118414 "altra-metal, ARM64_ERRATUM_4118414 off", with
 * --cost-of "altra-metal, cost of map" (report.c).
 */
static const char *profile_label(json_t *config, char *buf, size_t len)
{
	const char *p = json_string_value(json_object_get(config, "profile"));
	const char *e = json_string_value(json_object_get(config, "erratum_4118414"));
	const char *c = json_string_value(json_object_get(config, "cost_of"));

	if (!p || (!e && !c))
		return p;
	snprintf(buf, len, "%s%s%s%s%s", p, e ? ", ARM64_ERRATUM_4118414 " : "", e ? e : "",
		 c ? ", cost of " : "", c ? c : "");
	return buf;
}

int vt_report_write_table(const struct vt_report *r, FILE *f,
			  const struct vt_render_opts *ro)
{
	json_t *config = json_object_get(r->root, "config");
	char plabel[128];
	const char *profile = profile_label(config, plabel, sizeof(plabel));
	struct text_out o = { f, colour_wanted(f, ro->colour), false, ro->wide,
			      ro->verbose };
	json_t *t;
	size_t i;

	render_oom = false;
	fprintf(f, "config: %s granule, %" JSON_INTEGER_FORMAT "-bit VA, %"
		JSON_INTEGER_FORMAT " levels, kernel %s\n",
		json_string_value(json_object_get(config, "granule")),
		json_integer_value(json_object_get(config, "va_bits")),
		json_integer_value(json_object_get(config, "levels")),
		json_string_value(json_object_get(config, "kernel_model")));
	if (ro->verbose)
		options_line(&o, config);
	json_array_foreach(r->traces, i, t)
		trace_body(&o, t, vt_report_trace_shown(r, i), profile, false);
	return render_oom ? -ENOMEM : 0;
}

/*
 * The model as the header names it: "v6.12 model (with --barriers=lazy)" where
 * the report's kernel_model says only "v6.12 with overrides".
 */
static void header_kernel_model(FILE *m, const struct vt_report *r, const char *model)
{
	static const char suffix[] = " with overrides";
	size_t n = model ? strlen(model) : 0, sl = sizeof(suffix) - 1;
	struct vt_model_opts opts;
	struct vt_error err;
	char *list = NULL, word[64];
	bool per_op, first = true;

	vt_error_init(&err);
	if (n < sl || strcmp(model + n - sl, suffix) ||
	    vt_report_setup(r, &opts, &list, &per_op, &err)) {
		fprintf(m, "%s model", model ? model : "-");
		free(list);
		return;
	}
	free(list);
	fprintf(m, "%.*s model (with", (int)(n - sl), model);
	for (int i = 0; i < VT_OPT__NR; i++) {
		const struct vt_option *t = &vt_options[i];
		unsigned int v = vt_option_get(&opts, (enum vt_option_id)i);

		if (!t->kernel[opts.kernel] || v == t->kernel[opts.kernel] - 1)
			continue;
		if (t->kind == VT_OK_NUMBER)
			snprintf(word, sizeof(word), "%u", v);
		else if (!vt_option_value_word(t, v, word, sizeof(word)))
			snprintf(word, sizeof(word), "%u", v);
		fprintf(m, "%s --%s=%s", first ? "" : ",", t->name, word);
		first = false;
	}
	fputc(')', m);
}

/*
 * --format=mail: a header saying what was replayed (the traces, the
 * modelled kernel and geometry, the strategies and which one the changes
 * are against), then the table of each trace.
 */
int vt_report_write_mail(const struct vt_report *r, FILE *f,
			 const struct vt_render_opts *ro)
{
	json_t *config = json_object_get(r->root, "config");
	json_t *first = json_array_get(r->traces, 0), *t, *s;
	json_t *strats = json_object_get(first, "strategies");
	char plabel[128];
	const char *profile = profile_label(config, plabel, sizeof(plabel));
	struct text_out o = { f, false, true, false, ro->verbose };
	bool words = json_object_get(json_array_get(strats, 1), "ratios");
	char *line = NULL, buf[512];
	size_t len = 0, i, k;
	FILE *m;

	render_oom = false;
	fprintf(f, "Counts of vmaptool %s, a model of the arm64 kernel-mapping\n"
		"engine (mm/vmalloc.c, arch/arm64), replaying recorded traces.\n\n",
		json_string_value(json_object_get(json_object_get(r->root, "tool"),
						  "version")));
	m = open_memstream(&line, &len);
	if (!m) {
		return -ENOMEM;
	}
	fprintf(m, "Trace%s ", json_array_size(r->traces) == 1 ? ":" : "s:");
	json_array_foreach(r->traces, i, t)
		fprintf(m, "%s%s (%" JSON_INTEGER_FORMAT " %s)", i ? ", " : "",
			path_word(&o, vt_report_trace_shown(r, i), buf, sizeof(buf)),
			json_integer_value(json_object_get(t, "events")),
			events_word(json_integer_value(json_object_get(t, "events"))));
	fputc('\n', m);
	fputs("Kernel: ", m);
	header_kernel_model(m, r, json_string_value(json_object_get(config, "kernel_model")));
	fprintf(m, ", %s granule, %" JSON_INTEGER_FORMAT
		"-bit VA, %" JSON_INTEGER_FORMAT " levels\n",
		json_string_value(json_object_get(config, "granule")),
		json_integer_value(json_object_get(config, "va_bits")),
		json_integer_value(json_object_get(config, "levels")));
	fputs("Strategies: ", m);
	json_array_foreach(strats, k, s)
		fprintf(m, "%s%s%s", k ? ", " : "",
			safe(&o, json_string_value(json_object_get(s, "name")), buf,
			     sizeof(buf)),
			k == 0 && json_array_size(strats) > 1 ?
			(words ? " (changes are against it)" : " (the first)") : "");
	fputc('\n', m);
	if (profile)
		fprintf(m, "Estimate: cycles and ns from cost profile %s\n", profile);
	if (fclose(m) || !line) {
		free(line);
		return -ENOMEM;
	}
	/* each header line wrapped, its continuation under the value */
	for (char *p = line, *nl; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		prose(&o, p, (int)(strchr(p, ':') - p) + 2);
	}
	free(line);
	if (ro->verbose)
		options_line(&o, config);
	/* one trace: the header has named it; several: each table says whose */
	json_array_foreach(r->traces, i, t)
		trace_body(&o, t, vt_report_trace_shown(r, i), profile,
			   json_array_size(r->traces) == 1);
	return render_oom ? -ENOMEM : 0;
}
