// SPDX-License-Identifier: GPL-2.0
/*
 * Building the report (STYLE.md 5): one jansson tree with the shape of
 * spec/interfaces.md section 3, from the replay results.  The renderers
 * (cli/render.c) print it as JSON, a table or CSV, so the three forms
 * cannot disagree; cli/report-read.c reads it back and cli/gate.c
 * compares two.  The config.options object comes from the option table
 * (core/options.def).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/report-doc.h"
#include "core/cost/profile.h"

#ifndef VT_VERSION
#define VT_VERSION "0.0.0"
#endif

static unsigned int levels_of(unsigned int page_shift, unsigned int va_bits)
{
	if (page_shift <= 3 || va_bits < 4)
		return 0;
	return (va_bits - 4) / (page_shift - 3);
}

const char *vt_granule_name(unsigned int page_shift)
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

int vt_granule_shift(const char *name)
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
json_t *vt_report_metrics_json(const struct vt_stats *s, bool verify)
{
	json_t *m = json_object(), *tlbi = json_object(), *dsb = json_object();
	json_t *cyc = json_object();
	int bad = !m || !tlbi || !dsb || !cyc;

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
		case VT_MK_CYC:
			bad |= put(cyc, name + strlen("cyc_"), v);
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
		bad |= put(m, "cycles_by_function", cyc);
		tlbi = dsb = cyc = NULL;
	}
	json_decref(tlbi);
	json_decref(dsb);
	json_decref(cyc);
	if (bad) {
		json_decref(m);
		return NULL;
	}
	return m;
}

/* Effective value of every what-if option, spelled as on the command
 * line, in the order of the option table. */
static json_t *options_json(const struct vt_model_opts *o)
{
	json_t *j = json_object();
	int bad = !j;

	for (int i = 0; i < VT_OPT__NR && !bad; i++) {
		const struct vt_option *opt = &vt_options[i];
		unsigned int v = vt_option_get(o, (enum vt_option_id)i);
		char word[64];

		if (opt->kind == VT_OK_NUMBER)
			bad |= put(j, opt->json, json_integer(v));
		else if (vt_option_value_word(opt, v, word, sizeof(word)))
			bad |= put(j, opt->json, json_string(word));
		else
			bad = 1;
	}
	if (bad) {
		json_decref(j);
		return NULL;
	}
	return j;
}

json_t *vt_report_geometry_json(unsigned int page_shift, unsigned int va_bits)
{
	json_t *c = json_object();

	if (!c)
		return NULL;
	if (put(c, "granule", json_string(vt_granule_name(page_shift))) ||
	    put(c, "va_bits", json_integer(va_bits)) ||
	    put(c, "levels", json_integer(levels_of(page_shift, va_bits)))) {
		json_decref(c);
		return NULL;
	}
	return c;
}

struct vt_report *vt_report_new(const struct vt_model_opts *model, bool per_op)
{
	struct vt_report *r = calloc(1, sizeof(*r));
	json_t *tool;

	if (!r)
		return NULL;
	r->model = *model;
	r->per_op = per_op;
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
	json_decref(r->shown);
	if (r->summary)
		r->summary_free(r->summary);
	free(r);
}

static int set_config(struct vt_report *r, const struct vt_trace_config *g)
{
	const struct vt_model_opts *o = &r->model;
	json_t *c = vt_report_geometry_json(g->page_shift, g->va_bits);
	char km[128];

	if (!c)
		return -ENOMEM;
	snprintf(km, sizeof(km), "%s%s", vt_kernels[o->kernel].name,
		 vt_model_kernel_overridden(o) ? " with overrides" : "");
	if (put(c, "kernel_model", json_string(km)) ||
	    put(c, "options", options_json(o)) ||
	    (r->profile && put(c, "profile", json_string(r->profile->name))) ||
	    (r->profile && r->profile->erratum_overridden &&
	     put(c, "erratum_4118414",
		 json_string(r->profile->erratum_4118414 ? "on" : "off"))) ||
	    (r->profile && r->profile->cost_of && r->profile->cost_of != VT_COST_ALL &&
	     put(c, "cost_of", json_string(vt_cost_part_name(r->profile->cost_of)))) ||
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

void vt_report_set_profile(struct vt_report *r, const struct vt_profile *p)
{
	r->profile = p;
}

/* The cost events of a strategy's totals (its API calls from the op
 * counts, those of the sides @p prices). */
void vt_report_total_counts(const struct vt_profile *p, const struct vt_strategy_result *sr,
			    struct vt_cost_counts *c)
{
	uint64_t api = 0;

	for (int op = 0; op < VT_OP__NR; op++)
		if (vt_cost_op_is_api(op) && vt_cost_api_priced(p, op))
			api += sr->op_events[op];
	vt_cost_counts_from_stats(c, &sr->total, api);
}

/*
 * compare: how much faster @sr is than the first strategy under the
 * profile, and the counts that explain it, largest share first.
 */
static json_t *estimate_json(const struct vt_profile *p, const struct vt_strategy_result *sr,
			     const struct vt_strategy_result *base, const char *base_name)
{
	struct vt_cost_reason why[4];
	struct vt_cost_counts a, b;
	json_t *j = json_object(), *list = json_array();
	unsigned int n;
	double cb = (double)base->total.m[VT_M_cycles], cs = (double)sr->total.m[VT_M_cycles];

	if (!j || !list || put(j, "baseline", json_string(base_name)) ||
	    put(j, "speedup", cs > 0 ? json_real(round6(cb / cs)) : json_null()) ||
	    put(j, "explained_by", json_incref(list)))
		goto nomem;
	vt_report_total_counts(p, base, &a);
	vt_report_total_counts(p, sr, &b);
	n = vt_cost_explain(p, &a, &b, why, 4);
	for (unsigned int i = 0; i < n; i++) {
		json_t *e = json_object();

		if (!e || append(list, e) ||
		    put(e, "event", json_string(vt_cost_events[why[i].e].name)) ||
		    put(e, "baseline_count", json_integer((json_int_t)why[i].n_a)) ||
		    put(e, "count", json_integer((json_int_t)why[i].n_b)) ||
		    put(e, "cycles_saved", json_integer((json_int_t)llround(why[i].cycles))))
			goto nomem;
	}
	json_decref(list);
	return j;
nomem:
	json_decref(list);
	json_decref(j);
	return NULL;
}

/*
 * compare: a strategy whose batches map pages to the wrong physical pages
 * (batch_overrun) does less work than a correct one, so its speed-up is
 * not valid.  The pages are --verify's mismapped_pages when it ran, else
 * the pages of the overrun batches that land on another page than the
 * array's (struct vt_stats' overrun_pages: what the kernel's set of
 * entries maps, no check of the tables needed).  Nothing when none.
 */
static int put_mismaps(json_t *o, const struct vt_stats *s, const char *name,
		       bool verify)
{
	uint64_t n = verify ? s->m[VT_M_mismapped_pages] : s->overrun_pages;
	json_t *j;
	char msg[256];

	if (!n)
		return 0;
	snprintf(msg, sizeof(msg), "%s mis-maps %llu page%s: not a valid speed-up",
		 name, (unsigned long long)n, n == 1 ? "" : "s");
	j = json_object();
	return !j || put(o, "mismaps", j) ||
	       put(j, "pages", json_integer((json_int_t)n)) ||
	       put(j, "counted_by", json_string(verify ? "verify" : "batch_overrun")) ||
	       put(j, "warning", json_string(msg));
}

int vt_report_set_shown(struct vt_report *r, const char *const *shown, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		if (append(a, shown[i] ? json_string_nocheck(shown[i]) : json_null())) {
			json_decref(a);
			a = NULL;
		}
	if (!a)
		return -ENOMEM;
	json_decref(r->shown);
	r->shown = a;
	return 0;
}

const char *vt_report_trace_shown(const struct vt_report *r, size_t i)
{
	const char *s = json_string_value(json_array_get(r->shown, i));

	return s ? s : json_string_value(json_object_get(json_array_get(r->traces, i),
							 "trace"));
}

int vt_report_add_trace(struct vt_report *r, const char *trace,
			const struct vt_replay_result *res,
			const struct vt_strategy_spec *specs, bool ratios)
{
	bool verify = r->model.verify;
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
	    put(t, "config", vt_report_geometry_json(res->config.page_shift,
					   res->config.va_bits)))
		goto nomem;
	for (unsigned int i = 0; i < res->nr; i++) {
		const struct vt_strategy_result *sr = &res->s[i];
		json_t *s = json_object(), *per_op;

		if (!s || append(strats, s) ||
		    put(s, "name", json_string(specs[i].name)) ||
		    put(s, "metrics", vt_report_metrics_json(&sr->total, verify)))
			goto nomem;
		if (ratios && i > 0 &&
		    put(s, "ratios", ratios_json(&sr->total, &res->s[0].total,
						 verify)))
			goto nomem;
		if (ratios && i > 0 && r->profile &&
		    put(s, "estimate", estimate_json(r->profile, sr, &res->s[0],
						     specs[0].name)))
			goto nomem;
		if (ratios && put_mismaps(s, &sr->total, specs[i].name, verify))
			goto nomem;
		if (!r->per_op)
			continue;
		per_op = json_object();
		if (!per_op || put(s, "per_op", per_op))
			goto nomem;
		for (int op = 0; op < VT_OP__NR; op++)
			if (sr->op_seen[op] &&
			    put(per_op, vt_op_names[op],
				vt_report_metrics_json(&sr->per_op[op], verify)))
				goto nomem;
	}
	if (r->summary && r->summary_add(r, t, res, specs))
		goto nomem;
	json_decref(strats);
	json_decref(t);
	return 0;
nomem:
	json_decref(strats);
	json_decref(t);
	return -ENOMEM;
}
