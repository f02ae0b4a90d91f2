// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a report back (gate): load and check a vmaptool-report
 * document, and recover how it was made (the what-if options through the
 * option table of core/options.def, the strategies, per_op, the geometry
 * of each trace) so that gate can replay traces the same way.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/report-doc.h"
#include "core/input.h"
#include "core/json-read.h"

/* @p without "./" components and repeated slashes, into @buf. */
const char *vt_report_key_normal(const char *p, char *buf, size_t len)
{
	size_t n = 0;

	while (*p && n + 1 < len) {
		if (p[0] == '.' && p[1] == '/' && (n == 0 || buf[n - 1] == '/')) {
			p += 2;
			continue;
		}
		if (*p == '/' && n && buf[n - 1] == '/') {
			p++;
			continue;
		}
		buf[n++] = *p++;
	}
	buf[n] = '\0';
	return buf;
}

/* A report that reads as JSON but holds a value no report can: named by
 * its key path, since jansson keeps no positions after the load. */
static int bad(struct vt_error *err, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad(struct vt_error *err, const char *path, const char *fmt, ...)
{
	va_list ap;

	snprintf(err->file, sizeof(err->file), "%s", path);
	va_start(ap, fmt);
	vt_error_vset(err, VT_ERR_TRACE_SCHEMA, fmt, ap);
	va_end(ap);
	return err->code;
}

/* What a JSON value is, for a message: "a string", "-1", "null". */
static const char *what_is(json_t *v, char *buf, size_t len)
{
	switch (json_typeof(v)) {
	case JSON_INTEGER:
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return buf;
	case JSON_REAL:
		snprintf(buf, len, "a real number (%.17g)", json_real_value(v));
		return buf;
	case JSON_STRING:
		snprintf(buf, len, "the string '%.32s%s'", json_string_value(v),
			 strlen(json_string_value(v)) > 32 ? "..." : "");
		return buf;
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		return "null";
	case JSON_ARRAY:
		return "an array";
	default:
		return "an object";
	}
}

/*
 * Every value of a metrics object (and of per_op's, one level down) is a
 * count, a non-negative JSON integer (report-format.md); gate compares
 * each, so one of another type must not be skipped unseen.  Objects nest
 * @depth more levels at most (per_op.OP.tlbi_by_kind.KIND: 2 below
 * per_op), so a hostile nesting cannot run the stack deep.
 */
static int check_counts(json_t *m, const char *prefix, int depth,
			const char *trace, const char *strat, const char *path,
			struct vt_error *err)
{
	const char *key;
	json_t *v;
	char buf[64];

	json_object_foreach(m, key, v) {
		if (json_is_object(v) && depth > 0) {
			char sub[256];
			int ret;

			snprintf(sub, sizeof(sub), "%s%s.", prefix, key);
			ret = check_counts(v, sub, depth - 1, trace, strat, path, err);
			if (ret)
				return ret;
			continue;
		}
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return bad(err, path, "trace '%s', strategy '%s': %s%s is %s, "
				   "not a count (a non-negative integer)", trace,
				   strat, prefix, key, what_is(v, buf, sizeof(buf)));
	}
	return 0;
}

/* A config's geometry (the top-level one or a trace's, over the top-level
 * one as vt_report_trace_geometry() reads them: @ps and @va in and out): a
 * known granule and a VA size Kconfig offers with it, as --granule and
 * --va-bits check them. */
static int check_geometry(json_t *c, const char *where, const char *path,
			  unsigned int *psp, unsigned int *vap, struct vt_error *err)
{
	json_t *g = json_object_get(c, "granule"), *vb = json_object_get(c, "va_bits");
	unsigned int ps = *psp, va = *vap;
	char buf[64];

	if (g) {
		int s = json_is_string(g) ? vt_granule_shift(json_string_value(g)) : -1;

		if (s < 0)
			return bad(err, path, "%sgranule: %s%s%s is not a granule "
				   "(expected 4k, 16k or 64k)", where,
				   json_is_string(g) ? "'" : "",
				   json_is_string(g) ? json_string_value(g) :
				   what_is(g, buf, sizeof(buf)),
				   json_is_string(g) ? "'" : "");
		ps = (unsigned int)s;
	}
	if (vb) {
		if (!json_is_integer(vb) || json_integer_value(vb) < 1 ||
		    json_integer_value(vb) > 64)
			return bad(err, path, "%sva_bits: %s is not a VA size "
				   "(an integer 1..64)", where, what_is(vb, buf, sizeof(buf)));
		va = (unsigned int)json_integer_value(vb);
	}
	if ((g || vb) && !vt_geometry_valid(ps, va))
		return bad(err, path, "%sgranule %s with va_bits %u is not a "
			   "Kconfig-valid pair", where, vt_granule_name(ps), va);
	*psp = ps;
	*vap = va;
	return 0;
}

static int read_option(json_t *opts, const struct vt_option *opt,
		       enum vt_kernel_gen gen, unsigned int *v);

/* "v6.12" or "v6.12 with overrides" (report.c): the generation, or -1. */
static int kernel_of(const char *km)
{
	for (int g = 0; km && g < VT_KERNEL__NR; g++) {
		size_t n = strlen(vt_kernels[g].name);

		if (!strncmp(km, vt_kernels[g].name, n) &&
		    (km[n] == '\0' || !strcmp(km + n, " with overrides")))
			return g;
	}
	return -1;
}

/*
 * The config a report was made with, checked as the command line checks
 * the same options (cli/main.c): a baseline sets up the replay, so a value
 * --cpus or --kernel would refuse must not slip in through it.
 */
static int check_config(json_t *c, const char *path, struct vt_error *err)
{
	json_t *km = json_object_get(c, "kernel_model");
	json_t *prof = json_object_get(c, "profile");
	json_t *opts = json_object_get(c, "options");
	int gen = VT_KERNEL_DEFAULT, ret;
	unsigned int ps = 12, va = 48;
	char buf[64];

	ret = check_geometry(c, "config.", path, &ps, &va, err);
	if (ret)
		return ret;
	if (km) {
		gen = json_is_string(km) ? kernel_of(json_string_value(km)) : -1;
		if (gen < 0)
			return bad(err, path, "config.kernel_model: %s%.64s%s is not a "
				   "kernel generation of --kernel", json_is_string(km) ? "'" : "",
				   json_is_string(km) ? json_string_value(km) :
				   what_is(km, buf, sizeof(buf)), json_is_string(km) ? "'" : "");
	}
	if (prof) {
		/* a name as --profile takes it (report.c writes the profile's
		 * name); a path would make gate read that file */
		const char *p = json_string_value(prof);
		size_t n = p ? strlen(p) : 0;

		if (!p || !n || n > 63 || strspn(p, "abcdefghijklmnopqrstuvwxyz"
						 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != n ||
		    p[0] == '.' || (n >= 5 && !strcmp(p + n - 5, ".json")))
			return bad(err, path, "config.profile: %s%.64s%s is not a cost "
				   "profile name (letters, digits, '.', '_', '-'; a file "
				   "is given with --profile)", p ? "'" : "",
				   p ? p : what_is(prof, buf, sizeof(buf)), p ? "'" : "");
	}
	if (opts && !json_is_object(opts))
		return bad(err, path, "config.options is not an object");
	for (int i = 0; opts && i < VT_OPT__NR; i++) {
		const struct vt_option *o = &vt_options[i];
		json_t *j = json_object_get(opts, o->json);
		unsigned int v;

		if (!read_option(opts, o, (enum vt_kernel_gen)gen, &v))
			continue;
		if (o->kind == VT_OK_NUMBER)
			return bad(err, path, "config.options.%s: %s is not valid "
				   "(expected an integer %u..%u, as --%s)", o->json,
				   what_is(j, buf, sizeof(buf)), o->min, o->max, o->name);
		return bad(err, path, "config.options.%s: %s%.64s%s is not valid "
			   "(expected %s, as --%s)", o->json,
			   json_is_string(j) ? "'" : "",
			   json_is_string(j) ? json_string_value(j) :
			   what_is(j, buf, sizeof(buf)), json_is_string(j) ? "'" : "",
			   o->kind == VT_OK_FLAG ? "on|off" : o->words, o->name);
	}
	return 0;
}

/* Sorting to find what is listed twice in O(n log n), not O(n^2). */
struct dup_key {
	const char *key;		/* a trace's normalised key */
	struct vt_strategy_spec spec;	/* or a strategy as parsed */
	size_t at;			/* its index */
};

static int cmp_trace_key(const void *x, const void *y)
{
	const struct dup_key *a = x, *b = y;
	int c = strcmp(a->key, b->key);

	return c ? c : a->at < b->at ? -1 : a->at > b->at;
}

/* Strategies are the same when what their names resolve to is, as
 * vt_run_parse_strategies() compares them (an alias, batched@12345678). */
static int cmp_spec(const void *x, const void *y)
{
	const struct dup_key *a = x, *b = y;
	const struct vt_strategy_spec *p = &a->spec, *q = &b->spec;

	if (p->strat != q->strat)
		return (uintptr_t)p->strat < (uintptr_t)q->strat ? -1 : 1;
	if (p->patches != q->patches)
		return p->patches < q->patches ? -1 : 1;
	if (p->force != q->force)
		return p->force < q->force ? -1 : 1;
	if (p->axes != q->axes)
		return p->axes < q->axes ? -1 : 1;
	return a->at < b->at ? -1 : a->at > b->at;
}

static bool same_spec(const struct dup_key *a, const struct dup_key *b)
{
	return a->spec.strat == b->spec.strat && a->spec.patches == b->spec.patches &&
	       a->spec.force == b->spec.force && a->spec.axes == b->spec.axes;
}

/* The strategies of trace @name: each known and once, every count a count. */
static int check_strategies(json_t *strats, const char *name, const char *path,
			    struct vt_error *err)
{
	size_t n = json_array_size(strats), k;
	struct dup_key *d = calloc(n ? n : 1, sizeof(*d));
	int ret = 0;
	json_t *s;

	if (!d)
		return vt_error_set(err, -ENOMEM, "out of memory");
	json_array_foreach(strats, k, s) {
		const char *sn = json_string_value(json_object_get(s, "name"));
		json_t *po = json_object_get(s, "per_op");
		struct vt_error serr;

		vt_error_init(&serr);
		d[k].at = k;
		if (strlen(sn) >= sizeof(d[k].spec.name))
			ret = bad(err, path, "trace '%s': strategy name '%.32s...' "
				  "is too long", name, sn);
		else if (vt_strategy_parse(sn, &d[k].spec, &serr) < 0)
			ret = bad(err, path, "trace '%s': strategy '%s': %s", name,
				  sn, serr.msg[0] ? serr.msg : "not a strategy");
		if (!ret)
			ret = check_counts(json_object_get(s, "metrics"), "metrics.",
					   1, name, sn, path, err);
		if (!ret && po)
			ret = check_counts(po, "per_op.", 2, name, sn, path, err);
		if (ret)
			goto out;
	}
	qsort(d, n, sizeof(*d), cmp_spec);
	for (k = 1; k < n; k++)
		if (same_spec(&d[k - 1], &d[k])) {
			const char *first = json_string_value(json_object_get(
				json_array_get(strats, d[k - 1].at), "name"));
			const char *again = json_string_value(json_object_get(
				json_array_get(strats, d[k].at), "name"));
			bool differ = strcmp(first, again);

			ret = bad(err, path, "trace '%s': strategy '%s' is listed "
				  "twice%s%s%s", name, again, differ ? " (as '" : "",
				  differ ? first : "", differ ? "')" : "");
			break;
		}
out:
	free(d);
	return ret;
}

/* Each trace once (by its key, as vt_gate_key_match() compares them), its
 * events a count, its config a geometry, its strategies checked. */
static int check_traces(json_t *root, const char *path, struct vt_error *err)
{
	json_t *traces = json_object_get(root, "traces"), *t;
	size_t n = json_array_size(traces), i;
	struct dup_key *d = calloc(n ? n : 1, sizeof(*d));
	int ret = 0;

	if (!d)
		return vt_error_set(err, -ENOMEM, "out of memory");
	json_array_foreach(traces, i, t) {
		const char *name = json_string_value(json_object_get(t, "trace"));
		json_t *c = json_object_get(t, "config");
		size_t len = strlen(name) + 1;
		char *key = malloc(len);

		if (!key) {
			ret = vt_error_set(err, -ENOMEM, "out of memory");
			goto out;
		}
		/* the whole key: normalising only shortens it */
		d[i].key = vt_report_key_normal(name, key, len);
		d[i].at = i;
		if (c) {
			unsigned int ps = 12, va = 48;
			char where[300];

			snprintf(where, sizeof(where), "trace '%.256s': config.", name);
			/* the top-level config was checked: this cannot fail */
			check_geometry(json_object_get(root, "config"), "", path,
				       &ps, &va, err);
			ret = check_geometry(c, where, path, &ps, &va, err);
			if (ret)
				goto out;
		}
		ret = check_strategies(json_object_get(t, "strategies"), name, path, err);
		if (ret)
			goto out;
	}
	qsort(d, n, sizeof(*d), cmp_trace_key);
	for (i = 1; i < n; i++)
		if (!strcmp(d[i - 1].key, d[i].key)) {
			const char *first = json_string_value(json_object_get(
				json_array_get(traces, d[i - 1].at), "trace"));
			const char *again = json_string_value(json_object_get(
				json_array_get(traces, d[i].at), "trace"));
			bool differ = strcmp(first, again);

			ret = bad(err, path, "trace '%s' is listed twice (entries %zu "
				  "and %zu of \"traces\"%s%s%s)", again, d[i - 1].at + 1,
				  d[i].at + 1, differ ? ", as '" : "", differ ? first : "",
				  differ ? "'" : "");
			break;
		}
out:
	for (i = 0; i < n; i++)
		free((char *)d[i].key);
	free(d);
	return ret;
}

/*
 * The shape of a report, through the typed reader (core/json-read.c) as
 * profiles and figures are read: each field of its type or a located
 * error naming it ("trace 'x': \"events\" must be an integer from 0 to
 * ..., not a string"), never skipped.  The counts, the geometry and the
 * options are checked after, with the rules of the command line.
 */
static int check_strategy_shape(const struct vt_jr *tr, json_t *s, size_t k,
				const char *trace)
{
	struct vt_jr sr = *tr, *r = &sr;
	char where[320];
	const char *name;
	json_t *v;
	int ret;

	snprintf(where, sizeof(where), "trace '%.256s', strategy %zu", trace, k + 1);
	r->where = where;
	if (!json_is_object(s))
		return vt_jr_fail(r, "must be an object, not %s", vt_jr_type(s));
	ret = vt_jr_str(r, s, "name", VT_JR_REQUIRED, &name);
	if (ret)
		return ret;
	snprintf(where, sizeof(where), "trace '%.256s', strategy '%.32s'", trace, name);
	ret = vt_jr_object(r, s, "metrics", VT_JR_REQUIRED, &v);
	if (!ret)
		ret = vt_jr_object(r, s, "per_op", VT_JR_OPTIONAL, &v);
	return ret;
}

static int check_shape(json_t *root, const char *path, struct vt_error *err)
{
	struct vt_jr r = { path, VT_ERR_TRACE_SCHEMA, NULL, err };
	/* NULL until read: json_array_foreach() sizes them before ret is looked at */
	json_t *traces = NULL, *v, *t, *strats = NULL, *s;
	char where[300];
	const char *name;
	int64_t events;
	size_t i, k;
	int ret;

	ret = vt_jr_array(&r, root, "traces", VT_JR_REQUIRED, &traces);
	if (!ret)
		ret = vt_jr_object(&r, root, "config", VT_JR_REQUIRED, &v);
	json_array_foreach(traces, i, t) {
		if (ret)
			break;
		snprintf(where, sizeof(where), "traces[%zu]", i);
		r.where = where;
		if (!json_is_object(t))
			return vt_jr_fail(&r, "must be an object, not %s", vt_jr_type(t));
		ret = vt_jr_str(&r, t, "trace", VT_JR_REQUIRED, &name);
		if (ret)
			break;
		snprintf(where, sizeof(where), "trace '%.256s'", name);
		/* gate compares it: a changed trace is a regression */
		ret = vt_jr_int(&r, t, "events", VT_JR_OPTIONAL, 0, 0, INT64_MAX, &events);
		if (!ret)
			ret = vt_jr_object(&r, t, "config", VT_JR_OPTIONAL, &v);
		if (!ret)
			ret = vt_jr_array(&r, t, "strategies", VT_JR_REQUIRED, &strats);
		if (ret)
			break;
		json_array_foreach(strats, k, s) {
			if (ret)
				break;
			ret = check_strategy_shape(&r, s, k, name);
		}
	}
	return ret;
}

int vt_report_load(const char *path, struct vt_report **out,
		   struct vt_error *err)
{
	return vt_report_load_max(path, 0, out, err);
}

int vt_report_load_max(const char *path, uint64_t max,
		       struct vt_report **out, struct vt_error *err)
{
	struct vt_report *r;
	json_error_t jerr;
	const char *format;
	json_t *root;
	int ret;

	*out = NULL;
	/* "-", pipes and devices like every input; held whole: bounded */
	ret = vt_input_load_json(path, "report", max, JSON_REJECT_DUPLICATES,
				 &root, &jerr, err);
	if (ret)
		return ret;
	if (!root)
		return vt_json_error(err, path, &jerr, VT_ERR_TRACE_SYNTAX,
				     "report is not valid JSON: ");
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
	ret = check_shape(root, path, err);
	if (ret) {
		json_decref(root);
		return ret;
	}
	ret = check_config(json_object_get(root, "config"), path, err);
	if (!ret)
		ret = check_traces(root, path, err);
	if (ret) {
		json_decref(root);
		return ret;
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
	int ps = g ? vt_granule_shift(g) : -1;

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

/*
 * Value of option @opt in a report's config.options, written as the
 * report writes it (vt_option_value_word()): returns 0 and sets @v, or -1.
 */
static int read_option(json_t *opts, const struct vt_option *opt,
		       enum vt_kernel_gen gen, unsigned int *v)
{
	json_t *j = json_object_get(opts, opt->json);
	const char *word = json_string_value(j);
	char buf[64];
	int i;

	/*
	 * An option the baseline does not name was added after it was made:
	 * it then ran as the option's default (or what its generation sets)
	 * does, which is what a new option must default to
	 * (docs/options.md), so new options do not break stored baselines.
	 */
	if (!j) {
		*v = opt->kernel[gen] ? opt->kernel[gen] - 1 : opt->def;
		return 0;
	}
	if (opt->kind == VT_OK_NUMBER) {
		if (!json_is_integer(j) || json_integer_value(j) < opt->min ||
		    json_integer_value(j) > opt->max)
			return -1;
		*v = (unsigned int)json_integer_value(j);
		return 0;
	}
	i = word ? vt_option_word_index(opt, word) : -1;
	if (i < 0)
		return -1;
	*v = opt->kind == VT_OK_FLAG ? (unsigned int)i : opt->values[i];
	/* only the word a report writes for that value */
	if (strcmp(vt_option_value_word(opt, *v, buf, sizeof(buf)), word))
		return -1;
	return 0;
}

const char *vt_report_profile_name(const struct vt_report *r)
{
	return json_string_value(json_object_get(json_object_get(r->root, "config"),
						 "profile"));
}

const char *vt_report_cost_of(const struct vt_report *r)
{
	return json_string_value(json_object_get(json_object_get(r->root, "config"),
						 "cost_of"));
}

int vt_report_setup(const struct vt_report *r, struct vt_model_opts *o,
		    char **strategies, bool *per_op, struct vt_error *err)
{
	json_t *config = json_object_get(r->root, "config");
	json_t *opts = json_object_get(config, "options");
	const char *km = json_string_value(json_object_get(config, "kernel_model"));
	json_t *strats, *s;
	size_t len = 0, k;
	char *list;

	vt_model_opts_init(o);
	/* checked by the load (check_config()) */
	if (kernel_of(km) >= 0)
		o->kernel = (enum vt_kernel_gen)kernel_of(km);
	if (!json_is_object(opts))
		return vt_error_set(err, VT_ERR_TRACE_SCHEMA,
				    "baseline has no config.options object");
	for (int i = 0; i < VT_OPT__NR; i++) {
		unsigned int v;

		if (read_option(opts, &vt_options[i], o->kernel, &v))
			return vt_error_set(err, VT_ERR_TRACE_SCHEMA,
					    "baseline option '%s' missing or invalid",
					    vt_options[i].json);
		vt_option_set(o, (enum vt_option_id)i, v);
	}

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
