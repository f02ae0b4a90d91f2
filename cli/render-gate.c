// SPDX-License-Identifier: GPL-2.0
/*
 * Rendering the gate's decision (cli/gate.c built it): text lines in
 * words ("tlbi: 16 -> 24, 50% more (regression)"), the vmaptool-gate JSON
 * document, JUnit XML for CI test reports and a Markdown table for a
 * merge-request comment (docs/vmaptool-gate.md).  Nothing here decides.
 * Every byte written is ASCII whatever the locale (trace paths and
 * strategy names aside, which are the user's own).
 */
#include <stdlib.h>
#include <string.h>

#include "cli/report-doc.h"

static const char *str(json_t *e, const char *key)
{
	return json_string_value(json_object_get(e, key));
}

/* "tlbi: 16 -> 24, 50% more" or "missing from the current report". */
static void what(FILE *f, json_t *e)
{
	const char *m = str(e, "metric"), *ch = str(e, "change");
	const char *why = str(e, "reason");

	if (m)
		fprintf(f, "%s: ", m);
	if (ch)
		fprintf(f, "%" JSON_INTEGER_FORMAT " -> %" JSON_INTEGER_FORMAT ", %s",
			json_integer_value(json_object_get(e, "baseline")),
			json_integer_value(json_object_get(e, "current")), ch);
	if (ch && why)
		fputs(", ", f);
	if (why)
		fputs(why, f);
}

static void line(FILE *f, const char *kind, json_t *e)
{
	const char *s = str(e, "strategy");

	fprintf(f, "%s: ", str(e, "trace"));
	if (s)
		fprintf(f, "%s: ", s);
	what(f, e);
	fprintf(f, " (%s)\n", kind);
}

/* What a trace on one side only is called: it fails unless allowed. */
static const char *missing_kind(const struct vt_gate *g)
{
	return g->opts.allow_missing ? "allowed by --allow-missing" : "missing";
}

static void summary(FILE *f, const struct vt_gate *g, const char *bold)
{
	unsigned int r = (unsigned int)json_array_size(g->regressions);
	unsigned int i = (unsigned int)json_array_size(g->improvements);
	unsigned int c = (unsigned int)json_array_size(g->changes);
	unsigned int m = (unsigned int)json_array_size(g->missing);

	fprintf(f, "%sgate: %s%s: %u regression%s, %u improvement%s", bold,
		vt_gate_failed(g) ? "FAIL" : "ok", bold, r, r == 1 ? "" : "s",
		i, i == 1 ? "" : "s");
	if (c)
		fprintf(f, ", %u neutral change%s", c, c == 1 ? "" : "s");
	if (m && g->opts.allow_missing)
		fprintf(f, ", %u trace%s on one side only (allowed)", m,
			m == 1 ? "" : "s");
	else if (m)
		fprintf(f, ", %u trace%s missing", m, m == 1 ? "" : "s");
	if (g->compared)
		fprintf(f, " in %lu counts compared\n", g->compared);
	else
		fputs(": nothing compared, no trace of the command line is in "
		      "the baseline\n", f);
}

static json_t *thresholds_json(const struct vt_gate_opts *o)
{
	json_t *j = json_object();
	char buf[64];

	for (unsigned int i = 0; j && i < o->nr_th; i++) {
		snprintf(buf, sizeof(buf), "%g%s", o->th[i].v, o->th[i].pct ? "%" : "");
		if (put(j, o->th[i].metric, json_string(buf))) {
			json_decref(j);
			return NULL;
		}
	}
	return j;
}

static double cycles_pct(const struct vt_gate_opts *o)
{
	for (unsigned int i = 0; i < o->nr_th; i++)
		if (!strcmp(o->th[i].metric, "cycles") && o->th[i].pct)
			return o->th[i].v;
	return 0;
}

int vt_gate_write(const struct vt_gate *g, FILE *f, enum vt_format fmt)
{
	json_t *doc, *e;
	size_t i;
	int ret = -ENOMEM;

	if (fmt == VT_FMT_JSON) {
		doc = json_object();
		if (!doc || put(doc, "format", json_string("vmaptool-gate")) ||
		    put(doc, "version", json_integer(1)) ||
		    put(doc, "result", json_string(vt_gate_failed(g) ? "fail" : "ok")) ||
		    put(doc, "strict", json_boolean(g->opts.strict)) ||
		    put(doc, "compared", json_integer((json_int_t)g->compared)) ||
		    put(doc, "threshold_pct", json_real(cycles_pct(&g->opts))) ||
		    put(doc, "thresholds", thresholds_json(&g->opts)) ||
		    put(doc, "regressions", json_incref(g->regressions)) ||
		    put(doc, "improvements", json_incref(g->improvements)) ||
		    put(doc, "changes", json_incref(g->changes)) ||
		    put(doc, "missing", json_incref(g->missing)))
			goto out;
		ret = dump_json(doc, f, JSON_INDENT(2));
out:
		json_decref(doc);
		return ret;
	}
	json_array_foreach(g->regressions, i, e)
		line(f, "regression", e);
	json_array_foreach(g->improvements, i, e)
		line(f, "improvement", e);
	json_array_foreach(g->changes, i, e)
		line(f, "neutral change", e);
	json_array_foreach(g->missing, i, e)
		line(f, missing_kind(g), e);
	summary(f, g, "");
	return ferror(f) ? -EIO : 0;
}

/* ---- JUnit XML ------------------------------------------------------- */

/* @s as JUnit XML text: the special characters escaped, control characters
 * but newline and tab as '?'. */
static void junit_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
				fputc('?', f);
			else
				fputc(*s, f);
		}
	}
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The entries of @list for @trace and @strategy (NULL: trace-level). */
static unsigned int count_for(json_t *list, const char *trace, const char *strategy)
{
	unsigned int n = 0;
	json_t *e;
	size_t i;

	json_array_foreach(list, i, e)
		n += same(str(e, "trace"), trace) && same(str(e, "strategy"), strategy);
	return n;
}

/* The <failure> of @n regressions of @t and @s: its message the list
 * of them in words, its text one line each. */
static int junit_failure(FILE *f, json_t *list, const char *t, const char *s,
			 unsigned int n)
{
	char *msg = NULL;
	size_t len, k;
	FILE *m = open_memstream(&msg, &len);
	unsigned int j = 0;
	json_t *e;

	if (!m)
		return -ENOMEM;
	json_array_foreach(list, k, e)
		if (same(str(e, "trace"), t) && same(str(e, "strategy"), s)) {
			if (j++)
				fputs("; ", m);
			what(m, e);
			fputs(" (regression)", m);
		}
	if (fclose(m)) {
		free(msg);
		return -ENOMEM;
	}
	fprintf(f, "      <failure type=\"regression\" message=\"%u "
		"regression%s: ", n, n == 1 ? "" : "s");
	junit_text(f, msg);
	fputs("\">", f);
	free(msg);
	json_array_foreach(list, k, e)
		if (same(str(e, "trace"), t) && same(str(e, "strategy"), s)) {
			char *one = NULL;
			size_t l1;
			FILE *o = open_memstream(&one, &l1);

			if (!o)
				return -ENOMEM;
			line(o, "regression", e);
			if (!fclose(o))
				junit_text(f, one);
			free(one);
		}
	fputs("</failure>\n", f);
	return 0;
}

/* A trace on one side only: <skipped> under --allow-missing, else a
 * <failure> of type "missing" (it fails the gate, and is no regression). */
static void junit_missing(FILE *f, const struct vt_gate *g, const char *t,
			  const char *s)
{
	json_t *e;
	size_t k;

	fputs(g->opts.allow_missing ? "      <skipped message=\"" :
	      "      <failure type=\"missing\" message=\"", f);
	json_array_foreach(g->missing, k, e)
		if (same(str(e, "trace"), t) && same(str(e, "strategy"), s))
			junit_text(f, str(e, "reason"));
	fputs("\"/>\n", f);
}

int vt_gate_write_junit(const struct vt_gate *g, FILE *f)
{
	unsigned int cases = (unsigned int)json_array_size(g->cases), failures = 0;
	bool allow = g->opts.allow_missing;
	json_t *c;
	size_t i;

	json_array_foreach(g->cases, i, c)
		failures += count_for(g->regressions, str(c, "trace"),
				      str(c, "strategy")) != 0 ||
			    (!allow && count_for(g->missing, str(c, "trace"),
						 str(c, "strategy")));
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites name=\"vmaptool gate\" tests=\"%u\" failures=\"%u\">\n"
		"  <testsuite name=\"vmaptool gate\" tests=\"%u\" failures=\"%u\" "
		"errors=\"0\" skipped=\"%zu\">\n", cases, failures, cases, failures,
		allow ? json_array_size(g->missing) : 0);
	json_array_foreach(g->cases, i, c) {
		const char *t = str(c, "trace"), *s = str(c, "strategy");
		unsigned int n = count_for(g->regressions, t, s);

		fputs("    <testcase classname=\"", f);
		junit_text(f, t);
		fputs("\" name=\"", f);
		junit_text(f, s ? s : "trace");
		fputs("\">\n", f);
		if (count_for(g->missing, t, s))
			junit_missing(f, g, t, s);
		if (n && junit_failure(f, g->regressions, t, s, n))
			return -ENOMEM;
		fputs("    </testcase>\n", f);
	}
	fputs("  </testsuite>\n</testsuites>\n", f);
	return ferror(f) ? -EIO : 0;
}

/* ---- Markdown -------------------------------------------------------- */

static void md(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|' || *s == '\\' || *s == '`' || *s == '*' || *s == '_')
			fputc('\\', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
}

static void md_row(FILE *f, const char *kind, json_t *e)
{
	json_t *b = json_object_get(e, "baseline"), *c = json_object_get(e, "current");
	const char *ch = str(e, "change");

	fprintf(f, "| %s | ", kind);
	md(f, str(e, "trace"));
	fputs(" | ", f);
	md(f, str(e, "strategy") ? str(e, "strategy") : "-");
	fputs(" | ", f);
	md(f, str(e, "metric") ? str(e, "metric") : "-");
	fputs(" | ", f);
	if (json_is_integer(b))
		fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(b));
	fputs(" | ", f);
	if (json_is_integer(c))
		fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(c));
	fputs(" | ", f);
	md(f, ch);
	if (ch && str(e, "reason"))
		fputs(", ", f);
	md(f, str(e, "reason"));
	fputs(" |\n", f);
}

int vt_gate_write_markdown(const struct vt_gate *g, FILE *f)
{
	json_t *e;
	size_t i;

	summary(f, g, "**");
	fputc('\n', f);
	if (!json_array_size(g->regressions) && !json_array_size(g->improvements) &&
	    !json_array_size(g->changes) && !json_array_size(g->missing)) {
		fputs("No count changed.\n", f);
		return ferror(f) ? -EIO : 0;
	}
	fputs("| result | trace | strategy | metric | baseline | current | change |\n"
	      "| --- | --- | --- | --- | ---: | ---: | --- |\n", f);
	json_array_foreach(g->regressions, i, e)
		md_row(f, "regression", e);
	json_array_foreach(g->improvements, i, e)
		md_row(f, "improvement", e);
	json_array_foreach(g->changes, i, e)
		md_row(f, "neutral", e);
	json_array_foreach(g->missing, i, e)
		md_row(f, g->opts.allow_missing ? "allowed" : "missing", e);
	return ferror(f) ? -EIO : 0;
}
