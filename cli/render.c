// SPDX-License-Identifier: GPL-2.0
/*
 * Rendering (STYLE.md 5): the report as JSON (dumped once, sorted keys),
 * a fixed-width text table or CSV; the gate's decision; the --per-event
 * lines, the {"error": ...} document and the strategy listing.  Nothing
 * here decides or reads anything: it prints documents others built.
 * Anchors: bpftool's json_output split, perf's util/stat-display.c.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/report-doc.h"

/* ---- text table ----------------------------------------------------- */

static bool use_colour(FILE *f)
{
	const char *term = getenv("TERM");

	return isatty(fileno(f)) && !getenv("NO_COLOR") &&
	       !(term && !strcmp(term, "dumb"));
}

#define NAME_W 26

/* Value of metric @i in a metrics object, or NULL if absent. */
static json_t *metric_get(json_t *m, int i)
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

/* Row label: sub-kinds are indented under their total (tlbi, dsb). */
static void row_label(char *buf, size_t len, int i)
{
	const char *name = vt_metric_names[i];

	switch (vt_metric_kinds[i]) {
	case VT_MK_TLBI:
		snprintf(buf, len, "  %s", name + strlen("tlbi_"));
		return;
	case VT_MK_DSB:
		snprintf(buf, len, "  %s", name + strlen("dsb_"));
		return;
	case VT_MK_CYC:
		snprintf(buf, len, "  %s", name + strlen("cyc_"));
		return;
	case VT_MK_TOP:
	case VT_MK_VERIFY:
		break;
	}
	snprintf(buf, len, "%s", name);
}

static int col_width(const char *name)
{
	int w = (int)strlen(name) + 2;

	return w < 12 ? 12 : w;
}

/*
 * One table: metrics as rows, strategies as columns (and, for compare, a
 * ratio column after every strategy but the first).  @key selects the
 * metrics object of each strategy: "metrics" or an op of "per_op".
 */
static void table_block(FILE *f, json_t *strats, const char *op,
			bool ratios, bool colour, const char *title, int verbose)
{
	size_t hidden = 0;
	const char *bold = colour ? "\033[1m" : "", *reset = colour ? "\033[0m" : "";
	json_t *s;
	size_t k;

	fprintf(f, "%s%-*s", bold, NAME_W, title);
	json_array_foreach(strats, k, s) {
		const char *name = json_string_value(json_object_get(s, "name"));

		fprintf(f, "%*s", col_width(name), name);
		if (ratios && k > 0)
			fprintf(f, "%9s", "ratio");
	}
	fprintf(f, "%s\n", reset);

	for (int i = 0; i < VT_M__NR; i++) {
		char label[64];
		bool any = false, present = false;

		json_array_foreach(strats, k, s) {
			json_t *m = json_object_get(s, "metrics");
			json_t *v;

			if (op)
				m = json_object_get(json_object_get(s, "per_op"), op);
			v = metric_get(m, i);
			present |= v != NULL;
			any |= json_integer_value(v) != 0;
		}
		if (!present)
			continue;
		/* mismapped_pages is shown even when zero: it is the finding. */
		if (!any && vt_metric_kinds[i] != VT_MK_VERIFY &&
		    verbose == 0) {
			hidden++;
			continue;
		}
		row_label(label, sizeof(label), i);
		fprintf(f, "%-*s", NAME_W, label);
		json_array_foreach(strats, k, s) {
			const char *name = json_string_value(json_object_get(s, "name"));
			json_t *m = json_object_get(s, "metrics");
			json_t *rv;

			if (op)
				m = json_object_get(json_object_get(s, "per_op"), op);
			fprintf(f, "%*" JSON_INTEGER_FORMAT, col_width(name),
				json_integer_value(metric_get(m, i)));
			if (!ratios || k == 0)
				continue;
			rv = json_object_get(json_object_get(s, "ratios"),
					     vt_metric_names[i]);
			if (op || !json_is_real(rv)) {
				fprintf(f, "%9s", "-");
			} else {
				double x = json_real_value(rv);
				const char *c = !colour ? "" :
						x < 1 ? "\033[32m" :
						x > 1 ? "\033[31m" : "";

				fprintf(f, "%s%9.3f%s", c, x, colour ? reset : "");
			}
		}
		fputc('\n', f);
	}
	if (hidden)
		fprintf(f, "(%zu metric%s zero for every strategy not shown; -v shows them)\n",
			hidden, hidden == 1 ? "" : "s");
}

/*
 * compare: "batched: 2.31x faster than zigzag (estimate, profile
 * generic-a76)", then the counts that explain it, the largest share of
 * cycles first.
 */
static void faster_lines(FILE *f, json_t *strats, const char *profile)
{
	json_t *s;
	size_t k;

	json_array_foreach(strats, k, s) {
		json_t *est = json_object_get(s, "estimate"), *e;
		double x = json_real_value(json_object_get(est, "speedup"));
		size_t i;

		if (!est || !json_is_real(json_object_get(est, "speedup")))
			continue;
		fprintf(f, "%s: %.2f\u00d7 %s than %s (estimate, profile %s)",
			json_string_value(json_object_get(s, "name")),
			x >= 1 ? x : 1 / x, x >= 1 ? "faster" : "slower",
			json_string_value(json_object_get(est, "baseline")),
			profile ? profile : "-");
		json_array_foreach(json_object_get(est, "explained_by"), i, e)
			fprintf(f, "%s %s %" JSON_INTEGER_FORMAT " -> %" JSON_INTEGER_FORMAT
				" (%+" JSON_INTEGER_FORMAT " cycles)", i ? "," : ":",
				json_string_value(json_object_get(e, "event")),
				json_integer_value(json_object_get(e, "baseline_count")),
				json_integer_value(json_object_get(e, "count")),
				-json_integer_value(json_object_get(e, "cycles_saved")));
		fputc('\n', f);
	}
}

static void write_table(const struct vt_report *r, FILE *f, int verbose)
{
	json_t *config = json_object_get(r->root, "config");
	bool colour = use_colour(f);
	json_t *t;
	size_t i;

	fprintf(f, "config: %s granule, %" JSON_INTEGER_FORMAT "-bit VA, %"
		JSON_INTEGER_FORMAT " levels, kernel %s\n",
		json_string_value(json_object_get(config, "granule")),
		json_integer_value(json_object_get(config, "va_bits")),
		json_integer_value(json_object_get(config, "levels")),
		json_string_value(json_object_get(config, "kernel_model")));
	if (verbose) {
		json_t *opts = json_object_get(config, "options"), *v;
		const char *key;

		fputs("options:", f);
		json_object_foreach(opts, key, v) {
			if (json_is_integer(v))
				fprintf(f, " %s=%" JSON_INTEGER_FORMAT, key,
					json_integer_value(v));
			else
				fprintf(f, " %s=%s", key, json_string_value(v));
		}
		fputc('\n', f);
	}
	json_array_foreach(r->traces, i, t) {
		json_t *strats = json_object_get(t, "strategies");
		json_t *g = json_object_get(t, "config");
		bool ratios = json_object_get(json_array_get(strats, 1), "ratios");
		json_t *per_op = NULL, *s;
		const char *op;
		size_t k;

		fprintf(f, "\ntrace: %s (%" JSON_INTEGER_FORMAT " events",
			json_string_value(json_object_get(t, "trace")),
			json_integer_value(json_object_get(t, "events")));
		if (g)
			fprintf(f, ", %s granule, %" JSON_INTEGER_FORMAT "-bit VA",
				json_string_value(json_object_get(g, "granule")),
				json_integer_value(json_object_get(g, "va_bits")));
		fputs(")\n", f);
		table_block(f, strats, NULL, ratios, colour, "metric [count]",
			    verbose);
		faster_lines(f, strats, json_string_value(json_object_get(config, "profile")));

		/* Ops in a fixed order: the union over the strategies. */
		json_array_foreach(strats, k, s)
			if (!per_op)
				per_op = json_object_get(s, "per_op");
		if (!per_op)
			continue;
		for (int o = 0; o < VT_OP__NR; o++) {
			bool seen = false;
			char title[64];

			op = vt_op_names[o];
			json_array_foreach(strats, k, s)
				seen |= json_object_get(json_object_get(s, "per_op"),
							op) != NULL;
			if (!seen)
				continue;
			snprintf(title, sizeof(title), "%s [count]", op);
			fputc('\n', f);
			table_block(f, strats, op, false, colour, title, verbose);
		}
	}
}

/* ---- CSV ------------------------------------------------------------ */

/* RFC 4180 field: quoted only when it needs to be. */
static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_metrics(FILE *f, const char *trace, const char *strat,
			const char *prefix, json_t *m)
{
	for (int i = 0; i < VT_M__NR; i++) {
		json_t *v = metric_get(m, i);
		const char *name = vt_metric_names[i];

		if (!v)
			continue;
		csv_field(f, trace);
		fputc(',', f);
		csv_field(f, strat);
		fprintf(f, ",%s", prefix);
		switch (vt_metric_kinds[i]) {
		case VT_MK_TLBI:
			fprintf(f, "tlbi_by_kind.%s", name + strlen("tlbi_"));
			break;
		case VT_MK_DSB:
			fprintf(f, "dsb_by_kind.%s", name + strlen("dsb_"));
			break;
		case VT_MK_CYC:
			fprintf(f, "cycles_by_function.%s", name + strlen("cyc_"));
			break;
		case VT_MK_TOP:
		case VT_MK_VERIFY:
			fputs(name, f);
			break;
		}
		fprintf(f, ",%" JSON_INTEGER_FORMAT "\n", json_integer_value(v));
	}
}

static void write_csv(const struct vt_report *r, FILE *f)
{
	json_t *t;
	size_t i;

	fputs("trace,strategy,metric,value\n", f);
	json_array_foreach(r->traces, i, t) {
		const char *trace = json_string_value(json_object_get(t, "trace"));
		json_t *s;
		size_t k;

		json_array_foreach(json_object_get(t, "strategies"), k, s) {
			const char *name = json_string_value(json_object_get(s, "name"));
			json_t *ratios = json_object_get(s, "ratios");
			json_t *per_op = json_object_get(s, "per_op");

			csv_metrics(f, trace, name, "", json_object_get(s, "metrics"));
			for (int o = 0; per_op && o < VT_OP__NR; o++) {
				json_t *m = json_object_get(per_op, vt_op_names[o]);
				char prefix[64];

				if (!m)
					continue;
				snprintf(prefix, sizeof(prefix), "per_op.%s.",
					 vt_op_names[o]);
				csv_metrics(f, trace, name, prefix, m);
			}
			for (int m = 0; ratios && m < VT_M__NR; m++) {
				json_t *v = json_object_get(ratios, vt_metric_names[m]);

				if (!v)
					continue;
				csv_field(f, trace);
				fputc(',', f);
				csv_field(f, name);
				fprintf(f, ",ratios.%s,", vt_metric_names[m]);
				if (json_is_real(v))
					fprintf(f, "%.6g", json_real_value(v));
				fputc('\n', f);
			}
		}
	}
}

int vt_report_write(const struct vt_report *r, FILE *f, enum vt_format fmt,
		    int verbose)
{
	int ret = 0;

	switch (fmt) {
	case VT_FMT_JSON:
		ret = dump_json(r->root, f, JSON_INDENT(2));
		break;
	case VT_FMT_TABLE:
		write_table(r, f, verbose);
		break;
	case VT_FMT_CSV:
		write_csv(r, f);
		break;
	}
	if (!ret && ferror(f))
		ret = -EIO;
	return ret;
}


/* ---- error document, per-event lines -------------------------------- */

#define VT_E(code, str) #code
static const char *const err_names[] = { VT_ERRORS };
#undef VT_E

void vt_report_error_json(FILE *f, const struct vt_error *e, bool one_line)
{
	json_t *doc = json_object(), *o = json_object();
	char msg[600], name[32];

	if (e->code > VT_ERR__START && e->code < VT_ERR__END) {
		snprintf(name, sizeof(name), "%s",
			 err_names[e->code - VT_ERR__START - 1]);
	} else {
		const char *n = e->code < 0 ? strerrorname_np(-e->code) : NULL;

		snprintf(name, sizeof(name), "%s", n ? n : "UNKNOWN");
	}
	if (e->msg[0])
		snprintf(msg, sizeof(msg), "%s", e->msg);
	else
		vt_strerror(e->code, msg, sizeof(msg));
	if (!doc || !o || put(doc, "error", json_incref(o)) ||
	    put(o, "code", json_string(name)) ||
	    put(o, "message", json_string(msg)) ||
	    put(o, "file", e->file[0] ? json_string(e->file) : json_null()) ||
	    put(o, "line", e->line ? json_integer((json_int_t)e->line) : json_null()) ||
	    put(o, "column", e->column ? json_integer((json_int_t)e->column)
				       : json_null()) ||
	    (e->event >= 0 && put(o, "event", json_integer(e->event))) ||
	    /* among --per-event lines on stdout, the error is one line too */
	    dump_json(doc, f, one_line ? JSON_COMPACT : JSON_INDENT(2)))
		fputs("{\"error\": {\"code\": \"ENOMEM\"}}\n", f);
	json_decref(o);
	json_decref(doc);
}

int vt_report_event_line(FILE *f, long index, const char *strategy,
			 const char *op, const struct vt_event *ev,
			 uint64_t va, const struct vt_stats *delta,
			 const struct vt_shape *shape, bool verify)
{
	json_t *l = json_object(), *sh = json_object(), *id;
	int ret = -ENOMEM;

	/* The id belongs to the event, not to a purge it triggered. */
	if (!ev || !ev->id.present || strcmp(op, vt_op_names[ev->op]))
		id = json_null();
	else if (ev->id.is_str)
		id = json_string(ev->id.str);
	else
		id = json_integer((json_int_t)ev->id.num);
	if (!l || !sh || put(l, "index", json_integer(index)) ||
	    put(l, "strategy", json_string(strategy)) ||
	    put(l, "op", json_string(op)) || put(l, "id", id) ||
	    put(l, "va", hex(va)) ||
	    put(l, "metrics", vt_report_metrics_json(delta, verify)) ||
	    put(l, "shape", json_incref(sh)) ||
	    put(sh, "pte", json_integer((json_int_t)shape->pte)) ||
	    put(sh, "pte_cont", json_integer((json_int_t)shape->pte_cont)) ||
	    put(sh, "pmd_block", json_integer((json_int_t)shape->pmd_block)) ||
	    put(sh, "pud_block", json_integer((json_int_t)shape->pud_block)) ||
	    (shape->huge_fallback && put(l, "huge_fallback", json_true())))
		goto out;
	ret = dump_json(l, f, JSON_COMPACT);
out:
	json_decref(sh);
	json_decref(l);
	return ret;
}


/* ---- strategies ----------------------------------------------------- */

/* One entry of the model description: @label, then @text's lines, the
 * first beside the label, the rest under it. */
static void describe_entry(FILE *f, const char *label, const char *text,
			   const char *suffix)
{
	const char *p = text;

	fprintf(f, "%-24s", label);
	for (;;) {
		size_t n = strcspn(p, "\n");

		fprintf(f, "%.*s", (int)n, p);
		p += n;
		if (!*p)
			break;
		fprintf(f, "\n%24s", "");
		p++;
	}
	fprintf(f, "%s\n", suffix);
}

/*
 * What each what-if option and --kernel generation models, from the
 * option table (core/options.def), for 'strategies -v'.  Returns a
 * malloc'd string or NULL.
 */
static char *describe_model(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (int i = 0; i < VT_OPT__NR; i++) {
		const struct vt_option *o = &vt_options[i];
		char label[64];

		if (!o->models)
			continue;
		if (o->label)
			snprintf(label, sizeof(label), "%s", o->label);
		else if (o->kind == VT_OK_WORD)
			snprintf(label, sizeof(label), "--%s=%s", o->name, o->words);
		else if (o->kind == VT_OK_NUMBER)
			snprintf(label, sizeof(label), "--%s=N", o->name);
		else
			snprintf(label, sizeof(label), "--%s", o->name);
		describe_entry(f, label, o->models, "");
	}
	for (int k = 0; k < VT_KERNEL__NR; k++) {
		char label[64];

		snprintf(label, sizeof(label), "--kernel=%s", vt_kernels[k].name);
		describe_entry(f, label, vt_kernels[k].summary,
			       k == VT_KERNEL_DEFAULT ? " (default)" : "");
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int vt_report_strategies(FILE *f, enum vt_format fmt,
			 const struct vt_strategy_info *infos,
			 bool describe_model_too)
{
	char *describe = describe_model_too ? describe_model() : NULL;
	const struct vt_strategy_info *i;
	int w = 0, ret = 0;

	if (describe_model_too && !describe)
		return -ENOMEM;

	switch (fmt) {
	case VT_FMT_JSON: {
		json_t *doc = json_object(), *list = json_array();

		ret = -ENOMEM;
		if (!doc || !list || put(doc, "strategies", json_incref(list)) ||
		    put(doc, "format", json_string("vmaptool-strategies")) ||
		    put(doc, "version", json_integer(1)) ||
		    (describe && put(doc, "model", json_string(describe))))
			goto out_json;
		for (i = infos; i->name; i++) {
			json_t *o = json_object();

			if (!o || append(list, o) ||
			    put(o, "name", json_string(i->name)) ||
			    put(o, "summary", json_string(i->summary ? i->summary : "")) ||
			    put(o, "origin", json_string(i->origin ? i->origin : "")))
				goto out_json;
		}
		ret = dump_json(doc, f, JSON_INDENT(2));
out_json:
		json_decref(list);
		json_decref(doc);
		free(describe);
		return ret;
	}
	case VT_FMT_CSV:
		fputs("name,summary,origin\n", f);
		for (i = infos; i->name; i++) {
			csv_field(f, i->name);
			fputc(',', f);
			csv_field(f, i->summary ? i->summary : "");
			fputc(',', f);
			csv_field(f, i->origin ? i->origin : "");
			fputc('\n', f);
		}
		break;
	case VT_FMT_TABLE:
		for (i = infos; i->name; i++)
			if ((int)strlen(i->name) > w)
				w = (int)strlen(i->name);
		for (i = infos; i->name; i++) {
			fprintf(f, "%-*s  %s\n", w, i->name, i->summary ? i->summary : "");
			if (i->origin && *i->origin)
				fprintf(f, "%-*s  models: %s\n", w, "", i->origin);
		}
		if (describe)
			fprintf(f, "\nWhat-if options of the modelled kernel:\n%s%s",
				describe,
				describe[0] && describe[strlen(describe) - 1] != '\n' ?
				"\n" : "");
		break;
	}
	free(describe);
	return ferror(f) ? -EIO : 0;
}
