// SPDX-License-Identifier: GPL-2.0
/*
 * Rendering (STYLE.md 5): the report as JSON (dumped once, sorted keys)
 * or CSV (its text table and mail are cli/render-table.c's, its SVG
 * cli/render-svg.c's); the --per-event lines, the {"error": ...}
 * document and the strategy listing.  Nothing
 * here decides or reads anything: it prints documents others built.
 * Anchors: bpftool's json_output split, perf's util/stat-display.c.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/report-doc.h"

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
		json_t *v = vt_report_metric_get(m, i);
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
			/* compare: the pages a strategy mis-maps (report.c) */
			if (json_is_integer(json_object_get(json_object_get(s, "mismaps"), "pages"))) {
				csv_field(f, trace);
				fputc(',', f);
				csv_field(f, name);
				fprintf(f, ",mismaps.pages,%" JSON_INTEGER_FORMAT "\n",
					json_integer_value(json_object_get(json_object_get(s, "mismaps"), "pages")));
			}
		}
	}
}

int vt_report_render(const struct vt_report *r, FILE *f, enum vt_format fmt,
		     const struct vt_render_opts *o)
{
	int ret = 0;

	/* --summary: its block in the human forms, the same in both */
	if (r->summary && (fmt == VT_FMT_TABLE || fmt == VT_FMT_MAIL)) {
		ret = vt_summary_write(r, f);
		return !ret && ferror(f) ? -EIO : ret;
	}
	switch (fmt) {
	case VT_FMT_JSON:
		ret = dump_json(r->root, f, JSON_INDENT(2));
		break;
	case VT_FMT_TABLE:
		ret = vt_report_write_table(r, f, o);
		break;
	case VT_FMT_MAIL:
		ret = vt_report_write_mail(r, f, o);
		break;
	case VT_FMT_CSV:
		write_csv(r, f);
		break;
	}
	if (!ret && ferror(f))
		ret = -EIO;
	return ret;
}

int vt_report_write(const struct vt_report *r, FILE *f, enum vt_format fmt,
		    int verbose)
{
	struct vt_render_opts o = { .verbose = verbose, .colour = VT_COLOUR_AUTO };

	return vt_report_render(r, f, fmt, &o);
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

/* One entry of the model description: @label, then @text (its line
 * breaks are soft) beside it, wrapped at 79 columns (argp's --help margin)
 * under the text's column. */
static void describe_entry(FILE *f, const char *label, const char *text,
			   const char *suffix)
{
	char para[1024];
	size_t n;

	/* a label that fills its column gets a line of its own */
	if (strlen(label) > 22)
		fprintf(f, "%s\n%24s", label, "");
	else
		fprintf(f, "%-24s", label);
	n = (size_t)snprintf(para, sizeof(para), "%s%s", text, suffix);
	for (size_t i = 0; i < n && i < sizeof(para); i++)
		if (para[i] == '\n')
			para[i] = ' ';
	vt_wrap(f, para, 24, 24, 79);
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
	/* the axes of vt_axes_resolve(), per generation */
	fputs("\nAxes every strategy takes from its --kernel where its name\n"
	      "gives none of a group (+vfree-*, +linear-*; an axis alone\n"
	      "means zigzag+axis):\n", f);
	for (int k = 0; k < VT_KERNEL__NR; k++) {
		uint32_t axes = vt_axes_resolve(0, (enum vt_kernel_gen)k);
		char label[64], text[128];
		size_t n = 0;

		snprintf(label, sizeof(label), "--kernel=%s", vt_kernels[k].name);
		text[0] = '\0';
		for (uint32_t bit = 1; bit && bit <= axes; bit <<= 1)
			if ((axes & bit) && vt_axis_name(bit) && n < sizeof(text))
				n += (size_t)snprintf(text + n, sizeof(text) - n, "%s+%s",
						      n ? " " : "", vt_axis_name(bit));
		describe_entry(f, label, text, "");
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
	case VT_FMT_MAIL:	/* refused by the command line: only reports */
		for (i = infos; i->name; i++)
			if ((int)strlen(i->name) > w)
				w = (int)strlen(i->name);
		/* 79 columns, as argp's --help */
		for (i = infos; i->name; i++) {
			fprintf(f, "%-*s  ", w, i->name);
			vt_wrap(f, i->summary ? i->summary : "", w + 2, w + 2, 79);
			if (i->origin && *i->origin) {
				fprintf(f, "%-*s  models: ", w, "");
				vt_wrap(f, i->origin, w + 10, w + 10, 79);
			}
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
