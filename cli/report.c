// SPDX-License-Identifier: GPL-2.0
/*
 * The only code that formats results (STYLE.md 5).  Every report is built
 * as one jansson tree with the shape of spec/interfaces.md section 3 and
 * rendered from that tree: JSON (dumped once, sorted keys, so a golden file
 * can hold it), a fixed-width text table, or CSV.  Anchors: bpftool's
 * json_output split, perf's util/stat-display.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/report.h"

#ifndef VT_VERSION
#define VT_VERSION "0.0.0"
#endif

struct vt_report {
	json_t *root;
	json_t *traces;		/* borrowed from root */
	bool have_config;
	unsigned int page_shift, va_bits;	/* of the top-level config */
};

/* Set @key of @o to @v, stealing @v; returns nonzero on failure. */
static int put(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v) != 0;
}

static int append(json_t *a, json_t *v)
{
	return json_array_append_new(a, v) != 0;
}

static json_t *hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return json_string(buf);
}

static unsigned int levels_of(unsigned int page_shift, unsigned int va_bits)
{
	if (page_shift <= 3 || va_bits < 4)
		return 0;
	return (va_bits - 4) / (page_shift - 3);
}

static const char *granule_name(unsigned int page_shift)
{
	switch (page_shift) {
	case 12:
		return "4k";
	case 14:
		return "16k";
	case 16:
		return "64k";
	}
	return "?";
}

static int granule_shift(const char *name)
{
	if (!strcmp(name, "4k"))
		return 12;
	if (!strcmp(name, "16k"))
		return 14;
	if (!strcmp(name, "64k"))
		return 16;
	return -1;
}

/* The metrics object of one strategy or op: the keys of section 4. */
static json_t *metrics_json(const struct vt_stats *s, bool verify)
{
	json_t *m = json_object(), *tlbi = json_object(), *dsb = json_object();
	int bad = !m || !tlbi || !dsb;

	for (int i = 0; i < VT_M__NR && !bad; i++) {
		const char *name = vt_metric_names[i];
		json_t *v = json_integer((json_int_t)s->m[i]);

		switch (vt_metric_kinds[i]) {
		case VT_MK_TOP:
			bad |= put(m, name, v);
			break;
		case VT_MK_TLBI:
			bad |= put(tlbi, name + strlen("tlbi_"), v);
			break;
		case VT_MK_DSB:
			bad |= put(dsb, name + strlen("dsb_"), v);
			break;
		case VT_MK_VERIFY:
			if (verify)
				bad |= put(m, name, v);
			else
				json_decref(v);
			break;
		}
	}
	if (!bad) {
		bad |= put(m, "tlbi_by_kind", tlbi);
		bad |= put(m, "dsb_by_kind", dsb);
		tlbi = dsb = NULL;
	}
	json_decref(tlbi);
	json_decref(dsb);
	if (bad) {
		json_decref(m);
		return NULL;
	}
	return m;
}

static const char *on(bool b)
{
	return b ? "on" : "off";
}

/* Effective value of every what-if option, spelled as on the command line. */
static json_t *options_json(const struct vt_model_opts *o)
{
	json_t *j = json_object();
	int bad = !j;

	if (bad)
		return NULL;
	bad |= put(j, "barriers", json_string(o->eager_barriers ? "eager" : "lazy"));
	bad |= put(j, "vmap_cont", json_string(on(o->vmap_cont)));
	bad |= put(j, "vmalloc_pages",
		   json_string(o->vmalloc_high_order ? "high-order" : "order0"));
	bad |= put(j, "purge", json_string(o->purge_immediate ? "immediate" : "lazy"));
	bad |= put(j, "purge_at_end", json_string(on(o->purge_at_end)));
	bad |= put(j, "tlbi_range", json_string(on(o->tlbi_range)));
	bad |= put(j, "kernel_flush",
		   json_string(o->flush_per_page ? "per-page" : "range-ops"));
	bad |= put(j, "nohugevmalloc", json_string(on(o->nohugevmalloc)));
	bad |= put(j, "nohugeiomap", json_string(on(o->nohugeiomap)));
	bad |= put(j, "initial", json_string(o->initial_empty ? "empty" : "booted"));
	bad |= put(j, "cpus", json_integer(o->cpus));
	bad |= put(j, "verify", json_string(on(o->verify)));
	bad |= put(j, "use_trace_va", json_string(on(o->use_trace_va)));
	bad |= put(j, "skip_unknown", json_string(on(o->skip_unknown)));
	if (bad) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* True if @o differs from what its --kernel generation implies. */
static bool kernel_overridden(const struct vt_model_opts *o)
{
	struct vt_model_opts k = *o;

	vt_model_opts_kernel(&k, o->kernel);
	return k.eager_barriers != o->eager_barriers ||
	       k.vmap_cont != o->vmap_cont ||
	       k.vmalloc_high_order != o->vmalloc_high_order ||
	       k.purge_immediate != o->purge_immediate ||
	       k.purge_at_end != o->purge_at_end ||
	       k.tlbi_range != o->tlbi_range ||
	       k.flush_per_page != o->flush_per_page ||
	       k.nohugevmalloc != o->nohugevmalloc ||
	       k.nohugeiomap != o->nohugeiomap ||
	       k.initial_empty != o->initial_empty || k.cpus != o->cpus;
}

static json_t *geometry_json(unsigned int page_shift, unsigned int va_bits)
{
	json_t *c = json_object();

	if (!c)
		return NULL;
	if (put(c, "granule", json_string(granule_name(page_shift))) ||
	    put(c, "va_bits", json_integer(va_bits)) ||
	    put(c, "levels", json_integer(levels_of(page_shift, va_bits)))) {
		json_decref(c);
		return NULL;
	}
	return c;
}

struct vt_report *vt_report_new(void)
{
	struct vt_report *r = calloc(1, sizeof(*r));
	json_t *tool;

	if (!r)
		return NULL;
	r->root = json_object();
	r->traces = json_array();
	tool = json_object();
	if (!r->root || !r->traces || !tool ||
	    put(tool, "name", json_string("vmaptool")) ||
	    put(tool, "version", json_string(VT_VERSION)) ||
	    put(r->root, "format", json_string(VT_REPORT_FORMAT)) ||
	    put(r->root, "version", json_integer(VT_REPORT_VERSION)) ||
	    put(r->root, "tool", tool) ||
	    put(r->root, "traces", json_incref(r->traces))) {
		json_decref(r->traces);
		json_decref(r->root);
		free(r);
		return NULL;
	}
	json_decref(r->traces);		/* root holds it */
	return r;
}

void vt_report_free(struct vt_report *r)
{
	if (!r)
		return;
	json_decref(r->root);
	free(r);
}

static int set_config(struct vt_report *r, const struct vt_trace_config *g)
{
	const struct vt_model_opts *o = &vt_cli.model;
	json_t *c = geometry_json(g->page_shift, g->va_bits);
	char km[128];

	if (!c)
		return -ENOMEM;
	snprintf(km, sizeof(km), "%s%s", vt_kernel_names[o->kernel],
		 kernel_overridden(o) ? " with overrides" : "");
	if (put(c, "kernel_model", json_string(km)) ||
	    put(c, "options", options_json(o)) ||
	    put(r->root, "config", c))
		return -ENOMEM;
	r->have_config = true;
	r->page_shift = g->page_shift;
	r->va_bits = g->va_bits;
	return 0;
}

/* Round to 6 significant digits so that ratios print the same everywhere. */
static double round6(double x)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.6g", x);
	return strtod(buf, NULL);
}

static json_t *ratios_json(const struct vt_stats *s, const struct vt_stats *base,
			   bool verify)
{
	json_t *j = json_object();

	if (!j)
		return NULL;
	for (int i = 0; i < VT_M__NR; i++) {
		json_t *v;

		if (vt_metric_kinds[i] != VT_MK_TOP &&
		    !(vt_metric_kinds[i] == VT_MK_VERIFY && verify))
			continue;
		v = base->m[i] ? json_real(round6((double)s->m[i] /
						  (double)base->m[i]))
			       : json_null();
		if (put(j, vt_metric_names[i], v)) {
			json_decref(j);
			return NULL;
		}
	}
	return j;
}

int vt_report_add_trace(struct vt_report *r, const char *trace,
			const struct vt_replay_result *res,
			const struct vt_strategy_spec *specs, bool ratios)
{
	bool verify = vt_cli.model.verify;
	json_t *t, *strats;

	if (!r->have_config && set_config(r, &res->config))
		return -ENOMEM;
	t = json_object();
	strats = json_array();
	if (!t || !strats || put(t, "trace", json_string(trace)) ||
	    put(t, "events", json_integer(res->events)) ||
	    put(t, "strategies", json_incref(strats)) ||
	    append(r->traces, json_incref(t)))
		goto nomem;
	/* A trace replayed with another geometry than the first says so. */
	if ((res->config.page_shift != r->page_shift ||
	     res->config.va_bits != r->va_bits) &&
	    put(t, "config", geometry_json(res->config.page_shift,
					   res->config.va_bits)))
		goto nomem;
	for (unsigned int i = 0; i < res->nr; i++) {
		const struct vt_strategy_result *sr = &res->s[i];
		json_t *s = json_object(), *per_op;

		if (!s || append(strats, s) ||
		    put(s, "name", json_string(specs[i].name)) ||
		    put(s, "metrics", metrics_json(&sr->total, verify)))
			goto nomem;
		if (ratios && i > 0 &&
		    put(s, "ratios", ratios_json(&sr->total, &res->s[0].total,
						 verify)))
			goto nomem;
		if (!vt_cli.per_op)
			continue;
		per_op = json_object();
		if (!per_op || put(s, "per_op", per_op))
			goto nomem;
		for (int op = 0; op < VT_OP__NR; op++)
			if (sr->op_seen[op] &&
			    put(per_op, vt_op_names[op],
				metrics_json(&sr->per_op[op], verify)))
				goto nomem;
	}
	json_decref(strats);
	json_decref(t);
	return 0;
nomem:
	json_decref(strats);
	json_decref(t);
	return -ENOMEM;
}

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
			bool ratios, bool colour, const char *title)
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
		    vt_cli.verbose == 0) {
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

static void write_table(const struct vt_report *r, FILE *f)
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
	if (vt_cli.verbose) {
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
		table_block(f, strats, NULL, ratios, colour, "metric [count]");

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
			table_block(f, strats, op, false, colour, title);
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

static int dump_json(json_t *root, FILE *f, size_t flags)
{
	if (json_dumpf(root, f, flags | JSON_SORT_KEYS | JSON_REAL_PRECISION(6)))
		return -EIO;
	fputc('\n', f);
	return 0;
}

int vt_report_write(const struct vt_report *r, FILE *f, enum vt_format fmt)
{
	int ret = 0;

	switch (fmt) {
	case VT_FMT_JSON:
		ret = dump_json(r->root, f, JSON_INDENT(2));
		break;
	case VT_FMT_TABLE:
		write_table(r, f);
		break;
	case VT_FMT_CSV:
		write_csv(r, f);
		break;
	}
	if (!ret && ferror(f))
		ret = -EIO;
	return ret;
}

/* ---- reading a report back ------------------------------------------ */

static int schema(struct vt_error *err, const char *path, const char *what)
{
	snprintf(err->file, sizeof(err->file), "%s", path);
	return vt_error_set(err, VT_ERR_TRACE_SCHEMA,
			    "not a valid vmaptool report: %s", what);
}

int vt_report_load(const char *path, struct vt_report **out,
		   struct vt_error *err)
{
	struct vt_report *r;
	json_error_t jerr;
	const char *format;
	json_t *root, *t;
	size_t i;
	FILE *fp;

	*out = NULL;
	fp = fopen(path, "r");
	if (!fp) {
		int e = errno;

		snprintf(err->file, sizeof(err->file), "%s", path);
		return vt_error_set(err, -e, "cannot open report '%s': %s",
				    path, strerror(e));
	}
	root = json_loadf(fp, JSON_REJECT_DUPLICATES, &jerr);
	fclose(fp);
	if (!root) {
		snprintf(err->file, sizeof(err->file), "%s", path);
		err->line = jerr.line > 0 ? (unsigned long)jerr.line : 0;
		err->column = jerr.column > 0 ? (unsigned long)jerr.column : 0;
		return vt_error_set(err, VT_ERR_TRACE_SYNTAX,
				    "report is not valid JSON: %s", jerr.text);
	}
	format = json_string_value(json_object_get(root, "format"));
	if (!format || strcmp(format, VT_REPORT_FORMAT) ||
	    !json_is_integer(json_object_get(root, "version")) ||
	    json_integer_value(json_object_get(root, "version")) != VT_REPORT_VERSION) {
		snprintf(err->file, sizeof(err->file), "%s", path);
		json_decref(root);
		return vt_error_set(err, VT_ERR_TRACE_VERSION,
				    "not a %s version %d document",
				    VT_REPORT_FORMAT, VT_REPORT_VERSION);
	}
	if (!json_is_array(json_object_get(root, "traces")) ||
	    !json_is_object(json_object_get(root, "config"))) {
		json_decref(root);
		return schema(err, path, "no \"traces\" array or \"config\" object");
	}
	json_array_foreach(json_object_get(root, "traces"), i, t) {
		json_t *s;
		size_t k;

		if (!json_is_string(json_object_get(t, "trace")) ||
		    !json_is_array(json_object_get(t, "strategies"))) {
			json_decref(root);
			return schema(err, path, "a trace without \"trace\" or \"strategies\"");
		}
		json_array_foreach(json_object_get(t, "strategies"), k, s)
			if (!json_is_string(json_object_get(s, "name")) ||
			    !json_is_object(json_object_get(s, "metrics"))) {
				json_decref(root);
				return schema(err, path,
					      "a strategy without \"name\" or \"metrics\"");
			}
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		json_decref(root);
		return vt_error_set(err, -ENOMEM, "out of memory");
	}
	r->root = root;
	r->traces = json_object_get(root, "traces");
	r->have_config = true;
	vt_report_trace_geometry(r, (size_t)-1, &r->page_shift, &r->va_bits);
	*out = r;
	return 0;
}

size_t vt_report_nr_traces(const struct vt_report *r)
{
	return json_array_size(r->traces);
}

const char *vt_report_trace_path(const struct vt_report *r, size_t i)
{
	return json_string_value(json_object_get(json_array_get(r->traces, i),
						 "trace"));
}

static void geometry_of(json_t *c, unsigned int *page_shift,
			unsigned int *va_bits)
{
	const char *g = json_string_value(json_object_get(c, "granule"));
	int ps = g ? granule_shift(g) : -1;

	if (ps > 0)
		*page_shift = (unsigned int)ps;
	if (json_is_integer(json_object_get(c, "va_bits")))
		*va_bits = (unsigned int)json_integer_value(json_object_get(c, "va_bits"));
}

void vt_report_trace_geometry(const struct vt_report *r, size_t i,
			      unsigned int *page_shift, unsigned int *va_bits)
{
	json_t *t = json_array_get(r->traces, i);

	*page_shift = 12;
	*va_bits = 48;
	geometry_of(json_object_get(r->root, "config"), page_shift, va_bits);
	if (t && json_object_get(t, "config"))
		geometry_of(json_object_get(t, "config"), page_shift, va_bits);
}

/* Read option @key as one of two words; returns 0/1 or -1. */
static int opt_word(json_t *opts, const char *key, const char *w0,
		    const char *w1)
{
	const char *v = json_string_value(json_object_get(opts, key));

	if (!v)
		return -1;
	if (!strcmp(v, w0))
		return 0;
	if (!strcmp(v, w1))
		return 1;
	return -1;
}

int vt_report_setup(const struct vt_report *r, struct vt_model_opts *o,
		    char **strategies, bool *per_op, struct vt_error *err)
{
	json_t *config = json_object_get(r->root, "config");
	json_t *opts = json_object_get(config, "options");
	const char *km = json_string_value(json_object_get(config, "kernel_model"));
	static const struct {
		const char *key, *w0, *w1;
		size_t off;
	} words[] = {
		{ "barriers", "lazy", "eager", offsetof(struct vt_model_opts, eager_barriers) },
		{ "vmap_cont", "off", "on", offsetof(struct vt_model_opts, vmap_cont) },
		{ "vmalloc_pages", "order0", "high-order",
		  offsetof(struct vt_model_opts, vmalloc_high_order) },
		{ "purge", "lazy", "immediate", offsetof(struct vt_model_opts, purge_immediate) },
		{ "purge_at_end", "off", "on", offsetof(struct vt_model_opts, purge_at_end) },
		{ "tlbi_range", "off", "on", offsetof(struct vt_model_opts, tlbi_range) },
		{ "kernel_flush", "range-ops", "per-page",
		  offsetof(struct vt_model_opts, flush_per_page) },
		{ "nohugevmalloc", "off", "on", offsetof(struct vt_model_opts, nohugevmalloc) },
		{ "nohugeiomap", "off", "on", offsetof(struct vt_model_opts, nohugeiomap) },
		{ "initial", "booted", "empty", offsetof(struct vt_model_opts, initial_empty) },
		{ "verify", "off", "on", offsetof(struct vt_model_opts, verify) },
		{ "use_trace_va", "off", "on", offsetof(struct vt_model_opts, use_trace_va) },
		{ "skip_unknown", "off", "on", offsetof(struct vt_model_opts, skip_unknown) },
	};
	json_t *strats, *s;
	size_t len = 0, k;
	char *list;

	vt_model_opts_init(o);
	for (int g = 0; km && g < 3; g++)
		if (!strncmp(km, vt_kernel_names[g], strlen(vt_kernel_names[g])))
			o->kernel = (enum vt_kernel_gen)g;
	if (!json_is_object(opts))
		return vt_error_set(err, VT_ERR_TRACE_SCHEMA,
				    "baseline has no config.options object");
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		int v = opt_word(opts, words[i].key, words[i].w0, words[i].w1);

		if (v < 0)
			return vt_error_set(err, VT_ERR_TRACE_SCHEMA,
					    "baseline option '%s' missing or invalid",
					    words[i].key);
		*(bool *)((char *)o + words[i].off) = v;
	}
	if (!json_is_integer(json_object_get(opts, "cpus")))
		return vt_error_set(err, VT_ERR_TRACE_SCHEMA,
				    "baseline option 'cpus' missing or invalid");
	o->cpus = (unsigned int)json_integer_value(json_object_get(opts, "cpus"));

	strats = json_object_get(json_array_get(r->traces, 0), "strategies");
	*per_op = json_object_get(json_array_get(strats, 0), "per_op") != NULL;
	json_array_foreach(strats, k, s)
		len += strlen(json_string_value(json_object_get(s, "name"))) + 1;
	if (!len)
		return vt_error_set(err, VT_ERR_TRACE_SCHEMA,
				    "baseline has no strategies");
	list = malloc(len);
	if (!list)
		return vt_error_set(err, -ENOMEM, "out of memory");
	list[0] = '\0';
	json_array_foreach(strats, k, s) {
		if (k)
			strcat(list, ",");
		strcat(list, json_string_value(json_object_get(s, "name")));
	}
	*strategies = list;
	return 0;
}

/* ---- gate ----------------------------------------------------------- */

struct gate {
	double threshold;
	json_t *regressions, *improvements;
	unsigned long compared;
	const char *trace, *strategy;
};

static json_t *find_named(json_t *arr, const char *key, const char *name)
{
	json_t *e;
	size_t i;

	json_array_foreach(arr, i, e) {
		const char *n = json_string_value(json_object_get(e, key));

		if (n && !strcmp(n, name))
			return e;
	}
	return NULL;
}

static int note(struct gate *g, json_t *list, const char *metric, json_t *b,
		json_t *c, const char *why)
{
	json_t *e = json_object();

	if (!e || append(list, e) ||
	    put(e, "trace", json_string(g->trace)) ||
	    (g->strategy && put(e, "strategy", json_string(g->strategy))) ||
	    (metric && put(e, "metric", json_string(metric))) ||
	    (b && put(e, "baseline", json_deep_copy(b))) ||
	    (c && put(e, "current", json_deep_copy(c))) ||
	    (why && put(e, "reason", json_string(why))))
		return -ENOMEM;
	return 0;
}

static int cmp_keys(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Compare every number of @b (baseline) with @c (current), recursively. */
static int gate_obj(struct gate *g, const char *prefix, json_t *b, json_t *c)
{
	size_t n = json_object_size(b), i = 0;
	const char **keys;
	const char *key;
	json_t *v;
	int ret = 0;

	keys = calloc(n ? n : 1, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	json_object_foreach(b, key, v)
		keys[i++] = key;
	qsort(keys, n, sizeof(*keys), cmp_keys);
	for (i = 0; i < n && !ret; i++) {
		json_t *bv = json_object_get(b, keys[i]);
		json_t *cv = json_object_get(c, keys[i]);
		char path[256];

		snprintf(path, sizeof(path), "%s%s", prefix, keys[i]);
		if (json_is_object(bv)) {
			char sub[264];

			if (!json_is_object(cv)) {
				ret = note(g, g->regressions, path, NULL, NULL,
					   "missing from the current report");
				continue;
			}
			snprintf(sub, sizeof(sub), "%s.", path);
			ret = gate_obj(g, sub, bv, cv);
		} else if (json_is_integer(bv)) {
			json_int_t x = json_integer_value(bv);
			json_int_t y = json_integer_value(cv);

			if (!strcmp(keys[i], "cycles") || !strcmp(keys[i], "ns")) {
				if (!json_is_integer(cv))
					ret = note(g, g->regressions, path, bv, NULL,
						   "missing from the current report");
				else if ((double)y > (double)x * (1 + g->threshold / 100))
					ret = note(g, g->regressions, path, bv, cv, NULL);
				else if ((double)y < (double)x * (1 - g->threshold / 100))
					ret = note(g, g->improvements, path, bv, cv, NULL);
				g->compared++;
				continue;
			}
			g->compared++;
			if (!json_is_integer(cv))
				ret = note(g, g->regressions, path, bv, NULL,
					   "missing from the current report");
			else if (y > x)
				ret = note(g, g->regressions, path, bv, cv, NULL);
			else if (y < x)
				ret = note(g, g->improvements, path, bv, cv, NULL);
		}
		/* Reals (ratios) and strings derive from the counts. */
	}
	free(keys);
	return ret;
}

static void gate_line(FILE *f, const char *what, json_t *e)
{
	json_t *b = json_object_get(e, "baseline"), *c = json_object_get(e, "current");
	const char *s = json_string_value(json_object_get(e, "strategy"));
	const char *m = json_string_value(json_object_get(e, "metric"));
	const char *why = json_string_value(json_object_get(e, "reason"));

	fprintf(f, "%s: %s", what, json_string_value(json_object_get(e, "trace")));
	if (s)
		fprintf(f, ": %s", s);
	if (m)
		fprintf(f, ": %s", m);
	if (b && c) {
		json_int_t x = json_integer_value(b), y = json_integer_value(c);

		fprintf(f, " %" JSON_INTEGER_FORMAT " -> %" JSON_INTEGER_FORMAT
			" (%+" JSON_INTEGER_FORMAT, x, y, y - x);
		if (x)
			fprintf(f, ", %+.1f%%", 100.0 * (double)(y - x) / (double)x);
		fputc(')', f);
	}
	if (why)
		fprintf(f, " %s", why);
	fputc('\n', f);
}

int vt_report_gate(const struct vt_report *base, const struct vt_report *cur,
		   double threshold, FILE *f, enum vt_format fmt,
		   unsigned int *regressions, unsigned int *improvements)
{
	struct gate g = { .threshold = threshold };
	json_t *tb, *doc = NULL, *e;
	size_t i;
	int ret = -ENOMEM;

	g.regressions = json_array();
	g.improvements = json_array();
	if (!g.regressions || !g.improvements)
		goto out;
	json_array_foreach(base->traces, i, tb) {
		json_t *tc, *sb;
		size_t k;

		g.trace = json_string_value(json_object_get(tb, "trace"));
		g.strategy = NULL;
		tc = find_named(cur->traces, "trace", g.trace);
		if (!tc) {
			if (note(&g, g.regressions, NULL, NULL, NULL,
				 "missing from the current report"))
				goto out;
			continue;
		}
		if (!json_equal(json_object_get(tb, "events"),
				json_object_get(tc, "events")) &&
		    note(&g, g.regressions, "events", json_object_get(tb, "events"),
			 json_object_get(tc, "events"), "the trace changed"))
			goto out;
		json_array_foreach(json_object_get(tb, "strategies"), k, sb) {
			json_t *sc;

			g.strategy = json_string_value(json_object_get(sb, "name"));
			sc = find_named(json_object_get(tc, "strategies"), "name",
					g.strategy);
			if (!sc) {
				if (note(&g, g.regressions, NULL, NULL, NULL,
					 "missing from the current report"))
					goto out;
				continue;
			}
			if (gate_obj(&g, "", json_object_get(sb, "metrics"),
				     json_object_get(sc, "metrics")))
				goto out;
			if (json_object_get(sb, "per_op") &&
			    gate_obj(&g, "per_op.", json_object_get(sb, "per_op"),
				     json_object_get(sc, "per_op")))
				goto out;
		}
	}
	*regressions = (unsigned int)json_array_size(g.regressions);
	*improvements = (unsigned int)json_array_size(g.improvements);
	if (fmt == VT_FMT_JSON) {
		doc = json_object();
		if (!doc || put(doc, "format", json_string("vmaptool-gate")) ||
		    put(doc, "version", json_integer(1)) ||
		    put(doc, "compared", json_integer((json_int_t)g.compared)) ||
		    put(doc, "threshold_pct", json_real(threshold)) ||
		    put(doc, "regressions", json_incref(g.regressions)) ||
		    put(doc, "improvements", json_incref(g.improvements)))
			goto out;
		ret = dump_json(doc, f, JSON_INDENT(2));
		goto out;
	}
	json_array_foreach(g.regressions, i, e)
		gate_line(f, "regression", e);
	json_array_foreach(g.improvements, i, e)
		gate_line(f, "improvement", e);
	fprintf(f, "gate: %s: %u regression%s, %u improvement%s in %lu counts compared\n",
		*regressions ? "FAIL" : "ok", *regressions,
		*regressions == 1 ? "" : "s", *improvements,
		*improvements == 1 ? "" : "s", g.compared);
	ret = ferror(f) ? -EIO : 0;
out:
	json_decref(doc);
	json_decref(g.regressions);
	json_decref(g.improvements);
	return ret;
}

/* ---- error document, per-event lines -------------------------------- */

#define VT_E(code, str) #code
static const char *const err_names[] = { VT_ERRORS };
#undef VT_E

void vt_report_error_json(FILE *f, const struct vt_error *e)
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
	    dump_json(doc, f, vt_cli.per_event && !vt_cli.per_event_file ?
			      JSON_COMPACT : JSON_INDENT(2)))
		fputs("{\"error\": {\"code\": \"ENOMEM\"}}\n", f);
	json_decref(o);
	json_decref(doc);
}

int vt_report_event_line(FILE *f, long index, const char *strategy,
			 const char *op, const struct vt_event *ev,
			 uint64_t va, const struct vt_stats *delta,
			 const struct vt_shape *shape)
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
	    put(l, "metrics", metrics_json(delta, vt_cli.model.verify)) ||
	    put(l, "shape", json_incref(sh)) ||
	    put(sh, "pte", json_integer((json_int_t)shape->pte)) ||
	    put(sh, "pte_cont", json_integer((json_int_t)shape->pte_cont)) ||
	    put(sh, "pmd_block", json_integer((json_int_t)shape->pmd_block)) ||
	    put(sh, "pud_block", json_integer((json_int_t)shape->pud_block)))
		goto out;
	ret = dump_json(l, f, JSON_COMPACT);
out:
	json_decref(sh);
	json_decref(l);
	return ret;
}

/* ---- ptdump --------------------------------------------------------- */

/* The pte_bits[] table of arch/arm64/mm/ptdump.c, decoded from the
 * descriptor bits of arm64-mapping-engine.md 2.1. */
static const struct {
	uint64_t mask, val;
	const char *set, *clear;
} pte_bits[] = {
	{ 1ull << 0, 1ull << 0, " ", "F" },		/* PTE_VALID */
	{ 1ull << 6, 1ull << 6, "USR", "   " },		/* PTE_USER */
	{ 1ull << 7, 1ull << 7, "ro", "RW" },		/* PTE_RDONLY */
	{ 1ull << 53, 1ull << 53, "NX", "x " },		/* PTE_PXN */
	{ 3ull << 8, 3ull << 8, "SHD", "   " },		/* PTE_SHARED */
	{ 1ull << 10, 1ull << 10, "AF", "  " },		/* PTE_AF */
	{ 1ull << 11, 1ull << 11, "NG", "  " },		/* PTE_NG */
	{ 1ull << 52, 1ull << 52, "CON", "   " },	/* PTE_CONT */
	{ 3ull, 1ull, "BLK", "   " },			/* PMD_TYPE_SECT */
	{ 1ull << 54, 1ull << 54, "UXN", "   " },	/* PTE_UXN */
	{ 1ull << 50, 1ull << 50, "GP", "  " },		/* PTE_GP */
	{ 7ull << 2, 3ull << 2, "DEVICE/nGnRnE", NULL },
	{ 7ull << 2, 4ull << 2, "DEVICE/nGnRE", NULL },
	{ 7ull << 2, 2ull << 2, "MEM/NORMAL-NC", NULL },
	{ 7ull << 2, 0ull << 2, "MEM/NORMAL", NULL },
	{ 7ull << 2, 1ull << 2, "MEM/NORMAL-TAGGED", NULL },
};

/* Descriptor bits of a line; the type bits follow from its kind if the
 * engine left them out. */
static uint64_t line_attrs(const struct vt_ptdump_line *l)
{
	uint64_t a = l->attrs;

	if (!(a & 3))
		a |= strcmp(l->kind, "block") ? 3 : 1;
	return a;
}

struct marker {
	uint64_t start;
	const char *name;
};

/* The address markers of ptdump_init() that bound the areas vmaptool
 * models (arm64-mapping-engine.md 1.3). */
static size_t markers_of(unsigned int ps, unsigned int va_bits,
			 struct marker *m)
{
	unsigned int min = va_bits == 52 ? (ps == 14 ? 47 : 48) : va_bits;
	uint64_t page_offset = 0 - (1ull << va_bits);
	uint64_t page_end = 0 - (1ull << (min - 1));
	uint64_t vmemmap_size = (page_end - page_offset) >> (ps - 6);
	uint64_t vmemmap_start = (0 - (1ull << 30)) - vmemmap_size;

	m[0] = (struct marker){ page_offset, "Linear Mapping start" };
	m[1] = (struct marker){ page_end, "Linear Mapping end" };
	m[2] = (struct marker){ page_end, "Modules start" };
	m[3] = (struct marker){ page_end + (2ull << 30), "Modules end" };
	m[4] = (struct marker){ page_end + (2ull << 30), "vmalloc() area" };
	m[5] = (struct marker){ vmemmap_start - (8ull << 20), "vmalloc() end" };
	return 6;
}

static void ptdump_text(FILE *f, const struct vt_ptdump_doc *d)
{
	static const char units[] = "KMGTPE";
	struct marker m[8];
	size_t nm = markers_of(d->page_shift, d->va_bits, m), next = 0;

	for (size_t i = 0; i < d->nr; i++) {
		const struct vt_ptdump_line *l = &d->lines[i];
		uint64_t a = line_attrs(l), delta;
		const char *unit = units;

		while (next < nm && m[next].start <= l->va_start)
			fprintf(f, "---[ %s ]---\n", m[next++].name);
		fprintf(f, "0x%016" PRIx64 "-0x%016" PRIx64 "   ",
			l->va_start, l->va_end);
		delta = (l->va_end - l->va_start) >> 10;
		while (!(delta & 1023) && unit[1]) {
			delta >>= 10;
			unit++;
		}
		fprintf(f, "%9" PRIu64 "%c %s", delta, *unit, l->lvl_name);
		for (size_t b = 0; b < sizeof(pte_bits) / sizeof(pte_bits[0]); b++) {
			const char *s = (a & pte_bits[b].mask) == pte_bits[b].val ?
					pte_bits[b].set : pte_bits[b].clear;

			if (s)
				fprintf(f, " %s", s);
		}
		if (vt_cli.verbose)
			fprintf(f, "  pa 0x%" PRIx64 " x%" PRIu64, l->pa_start, l->nr);
		fputc('\n', f);
	}
	while (next < nm)
		fprintf(f, "---[ %s ]---\n", m[next++].name);
}

static int ptdump_json(FILE *f, const struct vt_ptdump_doc *d)
{
	json_t *doc = json_object(), *ranges = json_array();
	int ret = -ENOMEM;

	if (!doc || !ranges || put(doc, "ranges", json_incref(ranges)) ||
	    put(doc, "format", json_string("vmaptool-ptdump")) ||
	    put(doc, "version", json_integer(1)) ||
	    put(doc, "trace", json_string(d->trace)) ||
	    put(doc, "strategy", json_string(d->strategy)) ||
	    put(doc, "at", d->at >= 0 ? json_integer(d->at) : json_null()) ||
	    put(doc, "config", geometry_json(d->page_shift, d->va_bits)))
		goto out;
	for (size_t i = 0; i < d->nr; i++) {
		const struct vt_ptdump_line *l = &d->lines[i];
		uint64_t a = line_attrs(l);
		json_t *o = json_object(), *attrs = json_array();

		if (!o || append(ranges, o) || !attrs || put(o, "attributes", attrs) ||
		    put(o, "va_start", hex(l->va_start)) ||
		    put(o, "va_end", hex(l->va_end)) ||
		    put(o, "pa_start", hex(l->pa_start)) ||
		    put(o, "level", json_string(l->lvl_name)) ||
		    put(o, "kind", json_string(l->kind)) ||
		    put(o, "descriptors", json_integer((json_int_t)l->nr)) ||
		    put(o, "attrs", hex(a)))
			goto out;
		for (size_t b = 0; b < sizeof(pte_bits) / sizeof(pte_bits[0]); b++) {
			const char *s = (a & pte_bits[b].mask) == pte_bits[b].val ?
					pte_bits[b].set : pte_bits[b].clear;
			char word[32];
			size_t n;

			/* the padding of the text form is not an attribute */
			snprintf(word, sizeof(word), "%s", s ? s : "");
			n = strlen(word);
			while (n && word[n - 1] == ' ')
				word[--n] = '\0';
			if (n && append(attrs, json_string(word)))
				goto out;
		}
	}
	ret = dump_json(doc, f, JSON_INDENT(2));
out:
	json_decref(ranges);
	json_decref(doc);
	return ret;
}

int vt_report_ptdump(FILE *f, enum vt_format fmt, const struct vt_ptdump_doc *d)
{
	switch (fmt) {
	case VT_FMT_JSON:
		return ptdump_json(f, d);
	case VT_FMT_CSV:
		fputs("va_start,va_end,pa_start,level,kind,descriptors,attrs\n", f);
		for (size_t i = 0; i < d->nr; i++) {
			const struct vt_ptdump_line *l = &d->lines[i];

			fprintf(f, "0x%" PRIx64 ",0x%" PRIx64 ",0x%" PRIx64
				",%s,%s,%" PRIu64 ",0x%" PRIx64 "\n",
				l->va_start, l->va_end, l->pa_start, l->lvl_name,
				l->kind, l->nr, line_attrs(l));
		}
		break;
	case VT_FMT_TABLE:
		ptdump_text(f, d);
		break;
	}
	return ferror(f) ? -EIO : 0;
}

/* ---- strategies ----------------------------------------------------- */

int vt_report_strategies(FILE *f, enum vt_format fmt,
			 const struct vt_strategy_info *infos,
			 const char *describe)
{
	const struct vt_strategy_info *i;
	int w = 0, ret = 0;

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
	return ferror(f) ? -EIO : 0;
}
