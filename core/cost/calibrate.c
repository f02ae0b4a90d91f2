// SPDX-License-Identifier: GPL-2.0
/*
 * Figures, experiments and the fit (calibrate.h).  The fit is a damped
 * Gauss-Newton (Levenberg-Marquardt) on log prices: every observation is
 * ln(predicted / published) over a common log-space sd, every free group
 * of prices has a normal prior on ln(price / anchor) whose 2-sd width is
 * the profile's plausible range, and the group never leaves that range.
 * Unidentified directions therefore stay at their hardware anchors instead
 * of wandering off, which plain NNLS would let them do.
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/cost/calibrate.h"
#include "core/input.h"
#include "core/json-read.h"

const char *const vt_fig_quantity_names[4] = {
	[VT_Q_SPEEDUP] = "speedup",
	[VT_Q_TIME_RATIO] = "time_ratio",
	[VT_Q_TIME_BEFORE] = "before_time",
	[VT_Q_TIME_AFTER] = "after_time",
};

/* ---- loading -------------------------------------------------------- */

static int fbad(struct vt_error *err, const char *path, const char *id,
		const char *what)
{
	vt_error_set(err, VT_ERR_BAD_EXPERIMENT, "figure '%s': %s", id, what);
	snprintf(err->file, sizeof(err->file), "%.255s", path);
	return VT_ERR_BAD_EXPERIMENT;
}

static double unit_ns(const char *unit)
{
	static const struct { const char *u; double ns; } t[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "usec", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};

	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(unit, t[i].u))
			return t[i].ns;
	return 0;
}

/* A published value: a number, or the mean of a list of samples. */
static bool pub_value(json_t *v, double *out)
{
	size_t i, n;
	double sum = 0;

	if (json_is_number(v)) {
		*out = json_number_value(v);
		return true;
	}
	if (!json_is_array(v) || !(n = json_array_size(v)))
		return false;
	for (i = 0; i < n; i++) {
		if (!json_is_number(json_array_get(v, i)))
			return false;
		sum += json_number_value(json_array_get(v, i));
	}
	*out = sum / n;
	return true;
}

/* @key of @o into @dst: refused, not cut, when it does not fit (a cut
 * "gen" or "options" would run another experiment); not a string: refused */
static int str_field(char *dst, size_t len, json_t *o, const char *key,
		     const char *path, const char *id, struct vt_error *err)
{
	char where[160];
	struct vt_jr r = { path, VT_ERR_BAD_EXPERIMENT, where, err };

	snprintf(where, sizeof(where), "figure '%s'", id);
	return vt_jr_string(&r, o, key, VT_JR_OPTIONAL, "", dst, len);
}

/* A list of names (@key of @eo): NULL when absent; each element a string. */
static int name_list(json_t *eo, const char *key, const char *path,
		     const char *id, json_t **out, struct vt_error *err)
{
	char where[160];
	struct vt_jr r = { path, VT_ERR_BAD_EXPERIMENT, where, err };
	const char *n;
	int ret;

	snprintf(where, sizeof(where), "figure '%s'", id);
	ret = vt_jr_array(&r, eo, key, VT_JR_OPTIONAL, out);
	for (size_t i = 0; !ret && *out && i < json_array_size(*out); i++)
		ret = vt_jr_string_at(&r, *out, key, i, &n);
	return ret;
}

static int load_side(json_t *o, struct vt_exp_side *s, const char *path,
		     const char *id, struct vt_error *err)
{
	if (!json_is_object(o) || !json_is_string(json_object_get(o, "strategy")))
		return fbad(err, path, id, "\"before\" and \"after\" need a \"strategy\"");
	return str_field(s->strategy, sizeof(s->strategy), o, "strategy", path, id, err) ?:
	       str_field(s->options, sizeof(s->options), o, "options", path, id, err);
}

static int load_published(json_t *fo, struct vt_figure *f, const char *path,
			  struct vt_error *err)
{
	const char *unit = json_string_value(json_object_get(fo, "unit"));
	json_t *cp = json_object_get(fo, "change_percent");
	double b = 0, a = 0, k = unit ? unit_ns(unit) : 0;
	bool hb = pub_value(json_object_get(fo, "before"), &b);
	bool ha = pub_value(json_object_get(fo, "after"), &a);

	if (!unit)
		return fbad(err, path, f->id, "no \"unit\"");
	if (k > 0) {
		f->has_before_ns = hb;
		f->has_after_ns = ha;
		f->before_ns = b * k;
		f->after_ns = a * k;
	}
	switch (f->q) {
	case VT_Q_SPEEDUP:
		if (!strcmp(unit, "x") && ha)
			f->published = a;
		else if (k > 0 && hb && ha && a > 0)
			f->published = b / a;
		else if (json_is_number(cp))	/* ">0 is faster": T_before/T_after - 1 */
			f->published = 1 + json_number_value(cp) / 100;
		else
			return fbad(err, path, f->id, "no published speedup");
		break;
	case VT_Q_TIME_RATIO:
		if (k > 0 && hb && ha && b > 0)
			f->published = a / b;
		else if (json_is_number(cp))
			f->published = 1 + json_number_value(cp) / 100;
		else
			return fbad(err, path, f->id, "no published change of time");
		break;
	case VT_Q_TIME_BEFORE:
		if (!f->has_before_ns)
			return fbad(err, path, f->id, "no published before time");
		f->published = f->before_ns;
		break;
	case VT_Q_TIME_AFTER:
		if (!f->has_after_ns)
			return fbad(err, path, f->id, "no published after time");
		f->published = f->after_ns;
		break;
	}
	if (!(f->published > 0))
		return fbad(err, path, f->id, "published value is not positive");
	return 0;
}

static int load_covers(json_t *eo, struct vt_figure *f, const char *path,
		       struct vt_error *err)
{
	json_t *cov, *exc;
	size_t i;
	int ret = name_list(eo, "covers", path, f->id, &cov, err) ?:
		  name_list(eo, "excludes", path, f->id, &exc, err);

	if (ret)
		return ret;

	for (int e = 0; e < VT_CE__NR; e++)
		f->covers[e] = !cov;
	for (i = 0; cov && i < json_array_size(cov); i++) {
		const char *n = json_string_value(json_array_get(cov, i));
		bool any = false;

		for (int e = 0; n && e < VT_CE__NR; e++)
			if (!strcmp(vt_cost_events[e].name, n) ||
			    !strcmp(vt_cost_events[e].group, n))
				f->covers[e] = any = true;
		if (!any)
			return fbad(err, path, f->id, "\"covers\" names an unknown cost event");
	}
	for (i = 0; exc && i < json_array_size(exc); i++) {
		const char *n = json_string_value(json_array_get(exc, i));
		bool any = false;

		for (int e = 0; n && e < VT_CE__NR; e++)
			if (!strcmp(vt_cost_events[e].name, n) ||
			    !strcmp(vt_cost_events[e].group, n)) {
				f->covers[e] = false;
				any = true;
			}
		if (!any)
			return fbad(err, path, f->id, "\"excludes\" names an unknown cost event");
	}
	return 0;
}

static int load_experiment(json_t *eo, struct vt_figure *f, const char *path,
			   struct vt_error *err)
{
	char where[160], qbuf[16];
	struct vt_jr r = { path, VT_ERR_BAD_EXPERIMENT, where, err };
	json_t *v, *tr;
	const char *q;
	int64_t ev;
	size_t i;
	bool b;
	int ret, o;

	snprintf(where, sizeof(where), "figure '%s'", f->id);

	ret = str_field(f->profile, sizeof(f->profile), eo, "profile", path, f->id, err);
	if (ret)
		return ret;
	if (!f->profile[0])
		return fbad(err, path, f->id, "experiment without a \"profile\"");
	ret = vt_jr_object(&r, eo, "trace", VT_JR_OPTIONAL, &tr);
	if (!ret)
		ret = vt_jr_object(&r, tr, "inline", VT_JR_OPTIONAL, &v);
	if (ret)
		return ret;
	ret = str_field(f->trace_gen, sizeof(f->trace_gen), tr, "gen", path, f->id, err) ?:
	      str_field(f->trace_file, sizeof(f->trace_file), tr, "file", path, f->id, err);
	if (ret)
		return ret;
	v = json_object_get(tr, "inline");
	if (json_is_object(v))
		f->trace_inline = json_incref(v);
	if (!f->trace_gen[0] && !f->trace_file[0] && !f->trace_inline)
		return fbad(err, path, f->id, "\"trace\" needs \"gen\", \"file\" or \"inline\"");
	ret = load_side(json_object_get(eo, "before"), &f->before, path, f->id, err);
	if (!ret)
		ret = load_side(json_object_get(eo, "after"), &f->after, path, f->id, err);
	if (ret)
		return ret;
	ret = name_list(eo, "timed_ops", path, f->id, &v, err);
	if (ret)
		return ret;
	if (v && !json_array_size(v))
		return fbad(err, path, f->id, "\"timed_ops\" is empty: nothing would be timed");
	for (o = 0; o < VT_OP__NR; o++)
		f->op_timed[o] = !v;
	for (i = 0; v && i < json_array_size(v); i++) {
		o = vt_op_find(json_string_value(json_array_get(v, i)) ?: "");
		if (o < 0)
			return fbad(err, path, f->id, "\"timed_ops\" names an unknown op");
		f->op_timed[o] = true;
	}
	ret = vt_jr_int(&r, eo, "from_event", VT_JR_OPTIONAL, 0, 0, LONG_MAX, &ev);
	if (ret)
		return ret;
	f->from_event = (long)ev;
	ret = vt_jr_int(&r, eo, "to_event", VT_JR_OPTIONAL, 0, 0, LONG_MAX, &ev);
	if (ret)
		return ret;
	f->to_event = (long)ev;
	if (f->to_event && f->to_event <= f->from_event)
		return fbad(err, path, f->id, "\"from_event\" and \"to_event\" make an empty range");
	ret = str_field(f->same_as, sizeof(f->same_as), eo, "same_measurement_as",
			path, f->id, err) ?: load_covers(eo, f, path, err);
	if (ret)
		return ret;
	ret = vt_jr_number(&r, eo, "scale", VT_JR_OPTIONAL, 1, -HUGE_VAL, HUGE_VAL, &f->scale);
	if (ret)
		return ret;
	/* repetitions: a scale past 1e9 made inf - inf of the predictions */
	if (!(f->scale > 0 && f->scale <= 1e9))
		return fbad(err, path, f->id, "\"scale\" must be > 0 and at most 1e9");
	ret = vt_jr_bool(&r, eo, "fit_times", VT_JR_OPTIONAL, false, &b);
	if (ret)
		return ret;
	f->fit_times = b;
	ret = vt_jr_bool(&r, eo, "erratum_4118414", VT_JR_OPTIONAL, false, &b);
	if (ret)
		return ret;
	f->erratum = json_object_get(eo, "erratum_4118414") ? b : -1;
	ret = name_list(eo, "needs", path, f->id, &v, err);
	if (ret)
		return ret;
	if (json_array_size(v) > VT_EXP_MAX_NEEDS)
		return fbad(err, path, f->id, "\"needs\" names more than 8 metrics");
	for (i = 0; v && i < json_array_size(v); i++) {
		const char *n = json_string_value(json_array_get(v, i)) ?: "";

		snprintf(f->needs[f->nr_needs++], sizeof(f->needs[0]), "%s", n);
	}
	ret = str_field(f->assumptions, sizeof(f->assumptions), eo, "assumptions",
			path, f->id, err);
	if (ret)
		return ret;
	ret = vt_jr_string(&r, eo, "quantity", VT_JR_OPTIONAL, "speedup", qbuf, sizeof(qbuf));
	if (ret)
		return ret;
	q = qbuf;
	f->q = VT_Q_SPEEDUP;
	for (o = 0; q && o < 4; o++)
		if (!strcmp(q, vt_fig_quantity_names[o]))
			break;
	if (!q || o == 4)
		return fbad(err, path, f->id,
			    "\"quantity\" must be speedup, time_ratio, before_time or after_time");
	f->q = o;
	return 0;
}

int vt_figures_load(const char *path, struct vt_figure_set *set,
		    struct vt_error *err)
{
	json_error_t je;
	json_t *root;
	size_t i;
	int ret;

	memset(set, 0, sizeof(*set));
	/* "-", pipes and devices like every input; held whole: bounded */
	ret = vt_input_load_json_capped(path, "figures file", VT_FIGURES_MAX_INPUT,
				 JSON_REJECT_DUPLICATES,
				 &root, &je, err);
	if (ret)
		return ret;
	if (!root)
		return vt_json_error(err, path, &je, VT_ERR_BAD_EXPERIMENT, NULL);
	if (!json_is_array(root)) {
		ret = fbad(err, path, "-", "a figures file is a JSON array of figures");
		goto out;
	}
	/* a figure holds a few KiB of text fields: a file of a million
	 * one-line figures would ask for gigabytes */
	if (json_array_size(root) > VT_FIGURES_MAX) {
		ret = vt_error_set(err, VT_ERR_BAD_EXPERIMENT,
				   "%zu figures: a figures file holds at most 100000",
				   json_array_size(root));
		snprintf(err->file, sizeof(err->file), "%.255s", path);
		goto out;
	}
	set->v = calloc(json_array_size(root) + 1, sizeof(*set->v));
	if (!set->v) {
		ret = vt_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < json_array_size(root); i++) {
		json_t *fo = json_array_get(root, i), *eo, *why;
		struct vt_figure *f = &set->v[set->nr++];

		ret = str_field(f->id, sizeof(f->id), fo, "id", path, "-", err);
		if (ret)
			goto out;
		if (!f->id[0]) {
			ret = fbad(err, path, "-", "a figure without an \"id\"");
			goto out;
		}
		eo = json_object_get(fo, "experiment");
		why = json_object_get(fo, "inexpressible");
		if (json_is_string(why)) {
			f->state = VT_FIG_INEXPRESSIBLE;
			snprintf(f->why, sizeof(f->why), "%s", json_string_value(why));
			continue;
		}
		if (!json_is_object(eo)) {
			ret = fbad(err, path, f->id,
				   "neither an \"experiment\" nor an \"inexpressible\" reason");
			goto out;
		}
		ret = load_experiment(eo, f, path, err);
		if (!ret)
			ret = load_published(fo, f, path, err);
		if (ret)
			goto out;
		for (unsigned int k = 0; k < f->nr_needs; k++)
			if (vt_metric_find(f->needs[k]) < 0) {
				f->state = VT_FIG_PENDING;
				snprintf(f->why, sizeof(f->why),
					 "needs the count '%s', which this build does not produce",
					 f->needs[k]);
				break;
			}
	}
	for (i = 0; i < set->nr; i++)
		set->v[i].loo_group = i;
	for (i = 0; i < set->nr; i++) {
		struct vt_figure *f = &set->v[i];
		unsigned int k;

		if (!f->same_as[0])
			continue;
		for (k = 0; k < set->nr && strcmp(set->v[k].id, f->same_as); k++)
			;
		if (k == set->nr || k == i) {
			ret = fbad(err, path, f->id, "\"same_measurement_as\" names no other figure");
			goto out;
		}
		if (set->v[k].loo_group < f->loo_group)
			f->loo_group = set->v[k].loo_group;
		else
			set->v[k].loo_group = f->loo_group;
	}
out:
	json_decref(root);
	if (ret)
		vt_figure_set_release(set);
	return ret;
}

void vt_figure_set_release(struct vt_figure_set *set)
{
	for (unsigned int i = 0; i < set->nr; i++)
		json_decref(set->v[i].trace_inline);
	free(set->v);
	set->v = NULL;
	set->nr = 0;
}

/* ---- experiment sides ------------------------------------------------ */

/* One word "--name[=value]" of an experiment side, by the option table. */
static int side_word(char *w, struct vt_model_opts *o)
{
	char *v = strchr(w, '=');
	const struct vt_option *opt = NULL;
	int id, i;

	if (v)
		*v++ = '\0';
	if (strncmp(w, "--", 2))
		return -1;
	w += 2;
	if (!strcmp(w, "kernel")) {
		for (i = 0; v && i < VT_KERNEL__NR; i++)
			if (!strcmp(v, vt_kernels[i].name)) {
				vt_model_opts_kernel(o, i);
				return 0;
			}
		return -1;
	}
	for (id = 0; id < VT_OPT__NR; id++)
		if (!strcmp(vt_options[id].name, w)) {
			opt = &vt_options[id];
			break;
		}
	if (!opt)
		return -1;
	switch (opt->kind) {
	case VT_OK_WORD:
		i = v ? vt_option_word_index(opt, v) : -1;
		if (i < 0 && !(opt->arg_optional && !v))
			return -1;
		vt_option_set(o, id, i < 0 ? 1 : opt->values[i]);
		return 0;
	case VT_OK_FLAG:
		if (v)
			return -1;
		vt_option_set(o, id, 1);
		return 0;
	case VT_OK_NUMBER: {
		char *end;
		unsigned long n = v ? strtoul(v, &end, 10) : 0;

		if (!v || !*v || *end || n < opt->min || n > opt->max)
			return -1;
		vt_option_set(o, id, (unsigned int)n);
		return 0;
	}
	}
	return -1;
}

int vt_exp_side_opts(const struct vt_exp_side *s, struct vt_model_opts *o,
		     struct vt_error *err)
{
	char buf[sizeof(s->options)], *save = NULL, *w;

	snprintf(buf, sizeof(buf), "%s", s->options);
	for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		char word[sizeof(s->options)];

		snprintf(word, sizeof(word), "%s", w);
		if (side_word(w, o))
			return vt_error_set(err, VT_ERR_BAD_EXPERIMENT,
					    "unknown experiment option '%s'", word);
	}
	return 0;
}

/* ---- prediction -------------------------------------------------------- */

static double price_factor(const struct vt_profile *p, int e, int erratum)
{
	bool errata = erratum < 0 ? p->erratum_4118414 : erratum;

	return errata && vt_cost_event_is_broadcast_tlbi(e) ? 2 : 1;
}

static double cycles_of(const struct vt_profile *p, const struct vt_cost_counts *c,
			const bool covers[VT_CE__NR], int erratum)
{
	double t = 0;

	for (int e = 0; e < VT_CE__NR; e++)
		if (covers[e])
			t += price_factor(p, e, erratum) * c->n[e] * p->p[e].cycles;
	return t;
}

double vt_calibrate_time_ns(const struct vt_profile *p, const struct vt_cost_counts *c,
			    const bool covers[VT_CE__NR], int erratum)
{
	return cycles_of(p, c, covers, erratum) * 1000.0 / p->freq_mhz;
}

static double predict_q(const struct vt_profile *p, const struct vt_figure *f,
			enum vt_fig_quantity q)
{
	double tb = vt_calibrate_time_ns(p, &f->cb, f->covers, f->erratum);
	double ta = vt_calibrate_time_ns(p, &f->ca, f->covers, f->erratum);

	switch (q) {
	case VT_Q_SPEEDUP:
		return ta > 0 ? tb / ta : 0;
	case VT_Q_TIME_RATIO:
		return tb > 0 ? ta / tb : 0;
	case VT_Q_TIME_BEFORE:
		return tb;
	case VT_Q_TIME_AFTER:
		return ta;
	}
	return 0;
}

double vt_calibrate_predict(const struct vt_profile *p, struct vt_figure *f)
{
	f->pred_before_ns = predict_q(p, f, VT_Q_TIME_BEFORE);
	f->pred_after_ns = predict_q(p, f, VT_Q_TIME_AFTER);
	return predict_q(p, f, f->q);
}

/* ---- the fit ------------------------------------------------------------ */

/* One observation: a quantity of a figure, compared in log space. */
struct obs {
	unsigned int fig;
	enum vt_fig_quantity q;
	double ln_pub;
};

struct fit_ctx {
	struct vt_profile *prof;	/* the profile being fitted (prices set from theta) */
	const struct vt_profile *orig;	/* anchors, fit flags */
	struct vt_figure_set *set;
	struct obs *obs;
	unsigned int nr_obs;
	int *grp_of;			/* event -> group index in this fit, or -1 */
	unsigned int ng;
	double *sigma, *bound;
	double obs_sigma;
};

static void set_prices(struct fit_ctx *c, const double *theta)
{
	for (int e = 0; e < VT_CE__NR; e++)
		if (c->grp_of[e] >= 0)
			c->prof->p[e].cycles = c->orig->p[e].anchor * exp(theta[c->grp_of[e]]);
}

/* ln T and d ln T / d theta for one side of one figure. */
static double ln_time(const struct fit_ctx *c, const struct vt_figure *f,
		      const struct vt_cost_counts *n, double *grad)
{
	double t = 0;

	memset(grad, 0, c->ng * sizeof(*grad));
	for (int e = 0; e < VT_CE__NR; e++) {
		double v;

		if (!f->covers[e])
			continue;
		v = price_factor(c->prof, e, f->erratum) * n->n[e] * c->prof->p[e].cycles;
		t += v;
		if (c->grp_of[e] >= 0)
			grad[c->grp_of[e]] += v;
	}
	if (t <= 0)
		return -INFINITY;
	for (unsigned int g = 0; g < c->ng; g++)
		grad[g] /= t;
	return log(t * 1000.0 / c->prof->freq_mhz);
}

/* Residuals (data then priors) and Jacobian rows; @skip: figure left out. */
static double residuals(struct fit_ctx *c, const double *theta, double *r, double *J,
			long skip)
{
	double cost = 0, *gb = calloc(c->ng, sizeof(double)),
	       *ga = calloc(c->ng, sizeof(double));
	unsigned int i, k = 0, g;

	set_prices(c, theta);
	for (i = 0; i < c->nr_obs; i++) {
		const struct obs *o = &c->obs[i];
		const struct vt_figure *f = &c->set->v[o->fig];
		double lb = ln_time(c, f, &f->cb, gb), la = ln_time(c, f, &f->ca, ga), v;

		if (skip >= 0 && f->loo_group == skip) {
			r[k] = 0;
			for (g = 0; g < c->ng; g++)
				J[k * c->ng + g] = 0;
			k++;
			continue;
		}
		for (g = 0; g < c->ng; g++) {
			double d = 0;

			switch (o->q) {
			case VT_Q_SPEEDUP: d = gb[g] - ga[g]; break;
			case VT_Q_TIME_RATIO: d = ga[g] - gb[g]; break;
			case VT_Q_TIME_BEFORE: d = gb[g]; break;
			case VT_Q_TIME_AFTER: d = ga[g]; break;
			}
			J[k * c->ng + g] = d / c->obs_sigma;
		}
		v = o->q == VT_Q_SPEEDUP ? lb - la : o->q == VT_Q_TIME_RATIO ? la - lb :
		    o->q == VT_Q_TIME_BEFORE ? lb : la;
		r[k] = isfinite(v) ? (v - o->ln_pub) / c->obs_sigma : 0;
		cost += r[k] * r[k];
		k++;
	}
	for (g = 0; g < c->ng; g++, k++) {
		for (unsigned int h = 0; h < c->ng; h++)
			J[k * c->ng + h] = h == g ? 1 / c->sigma[g] : 0;
		r[k] = theta[g] / c->sigma[g];
		cost += r[k] * r[k];
	}
	free(gb);
	free(ga);
	return cost;
}

/* Solve A x = b for symmetric positive definite A (n x n), in place. */
static int cholesky_solve(double *A, double *b, unsigned int n)
{
	for (unsigned int j = 0; j < n; j++) {
		double s = A[j * n + j];

		for (unsigned int k = 0; k < j; k++)
			s -= A[j * n + k] * A[j * n + k];
		if (s <= 0)
			return -1;
		A[j * n + j] = sqrt(s);
		for (unsigned int i = j + 1; i < n; i++) {
			double t = A[i * n + j];

			for (unsigned int k = 0; k < j; k++)
				t -= A[i * n + k] * A[j * n + k];
			A[i * n + j] = t / A[j * n + j];
		}
	}
	for (unsigned int i = 0; i < n; i++) {
		for (unsigned int k = 0; k < i; k++)
			b[i] -= A[i * n + k] * b[k];
		b[i] /= A[i * n + i];
	}
	for (unsigned int i = n; i-- > 0;) {
		for (unsigned int k = i + 1; k < n; k++)
			b[i] -= A[k * n + i] * b[k];
		b[i] /= A[i * n + i];
	}
	return 0;
}

static void normal_eq(const struct fit_ctx *c, const double *r, const double *J,
		      unsigned int m, double *A, double *g)
{
	unsigned int n = c->ng;

	memset(A, 0, n * n * sizeof(*A));
	memset(g, 0, n * sizeof(*g));
	for (unsigned int k = 0; k < m; k++)
		for (unsigned int i = 0; i < n; i++) {
			g[i] += J[k * n + i] * r[k];
			for (unsigned int j = 0; j < n; j++)
				A[i * n + j] += J[k * n + i] * J[k * n + j];
		}
}

/* Levenberg-Marquardt from @theta; leaves the optimum in @theta. */
static int lm(struct fit_ctx *c, double *theta, long skip)
{
	unsigned int n = c->ng, m = c->nr_obs + n;
	double *r = calloc(m, sizeof(double)), *J = calloc((size_t)m * n, sizeof(double)),
	       *A = calloc((size_t)n * n, sizeof(double)), *g = calloc(n, sizeof(double)),
	       *t2 = calloc(n, sizeof(double)), lambda = 1e-3, cost;
	int ret = 0;

	if (!r || !J || !A || !g || !t2) {
		ret = -ENOMEM;
		goto out;
	}
	cost = residuals(c, theta, r, J, skip);
	for (int it = 0; it < 200 && n; it++) {
		double step = 0, nc;

		normal_eq(c, r, J, m, A, g);
		for (unsigned int i = 0; i < n; i++) {
			A[i * n + i] *= 1 + lambda;
			g[i] = -g[i];
		}
		if (cholesky_solve(A, g, n)) {
			lambda *= 10;
			continue;
		}
		for (unsigned int i = 0; i < n; i++) {
			t2[i] = theta[i] + g[i];
			if (t2[i] > c->bound[i])
				t2[i] = c->bound[i];
			if (t2[i] < -c->bound[i])
				t2[i] = -c->bound[i];
			step = fmax(step, fabs(t2[i] - theta[i]));
		}
		nc = residuals(c, t2, r, J, skip);
		if (nc <= cost) {
			memcpy(theta, t2, n * sizeof(*theta));
			lambda = fmax(lambda / 3, 1e-9);
			if (cost - nc < 1e-12 * (1 + cost) && step < 1e-9) {
				cost = nc;
				break;
			}
			cost = nc;
		} else {
			lambda *= 4;
			residuals(c, theta, r, J, skip);
			if (lambda > 1e12)
				break;
		}
	}
	residuals(c, theta, r, J, skip);
out:
	free(r);
	free(J);
	free(A);
	free(g);
	free(t2);
	return ret;
}

/* 1 - posterior variance / prior variance for each group at @theta. */
static void determination(struct fit_ctx *c, const double *theta, double *det)
{
	unsigned int n = c->ng, m = c->nr_obs + n;
	double *r = calloc(m, sizeof(double)), *J = calloc((size_t)m * n, sizeof(double)),
	       *A = calloc((size_t)n * n, sizeof(double)), *g = calloc(n, sizeof(double)),
	       *col = calloc(n, sizeof(double)), *A0 = calloc((size_t)n * n, sizeof(double));

	if (!r || !J || !A || !g || !col || !A0)
		goto out;
	residuals(c, theta, r, J, -1);
	normal_eq(c, r, J, m, A0, g);
	for (unsigned int i = 0; i < n; i++) {
		/* Column i of the inverse: its diagonal entry is the posterior variance. */
		memcpy(A, A0, n * n * sizeof(*A));
		memset(col, 0, n * sizeof(*col));
		col[i] = 1;
		det[i] = cholesky_solve(A, col, n) ? 0 :
			 fmax(0, 1 - col[i] / (c->sigma[i] * c->sigma[i]));
	}
out:
	free(r);
	free(J);
	free(A);
	free(g);
	free(col);
	free(A0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void summarise(struct vt_figure_set *set, struct vt_fit *fit)
{
	double *rr = calloc(set->nr + 1, sizeof(double)), *rl = calloc(set->nr + 1, sizeof(double)),
	       *tr = calloc(set->nr + 1, sizeof(double)), *tl = calloc(set->nr + 1, sizeof(double));
	unsigned int nr = 0, nt = 0, nrl = 0, ntl = 0;

	if (!rr || !rl || !tr || !tl)
		goto out;
	for (unsigned int i = 0; i < set->nr; i++) {
		const struct vt_figure *f = &set->v[i];
		bool ratio = f->q == VT_Q_SPEEDUP || f->q == VT_Q_TIME_RATIO;

		if (f->state != VT_FIG_EXPRESSED || !f->ran)
			continue;
		if (ratio)
			rr[nr++] = fabs(f->err);
		else
			tr[nt++] = fabs(f->err);
		if (f->has_loo) {
			if (ratio)
				rl[nrl++] = fabs(f->loo_err);
			else
				tl[ntl++] = fabs(f->loo_err);
		}
	}
#define MED(a, n) ((n) ? ((n) % 2 ? (a)[(n) / 2] : ((a)[(n) / 2 - 1] + (a)[(n) / 2]) / 2) : 0)
	qsort(rr, nr, sizeof(double), cmp_double);
	qsort(rl, nrl, sizeof(double), cmp_double);
	qsort(tr, nt, sizeof(double), cmp_double);
	qsort(tl, ntl, sizeof(double), cmp_double);
	fit->n_ratio = nr;
	fit->n_time = nt;
	fit->med_ratio = MED(rr, nr);
	fit->worst_ratio = nr ? rr[nr - 1] : 0;
	fit->med_ratio_loo = MED(rl, nrl);
	fit->worst_ratio_loo = nrl ? rl[nrl - 1] : 0;
	fit->med_time = MED(tr, nt);
	fit->worst_time = nt ? tr[nt - 1] : 0;
	fit->med_time_loo = MED(tl, ntl);
	fit->worst_time_loo = ntl ? tl[ntl - 1] : 0;
#undef MED
out:
	free(rr);
	free(rl);
	free(tr);
	free(tl);
}

void vt_calibrate_check(const struct vt_profile *profs, unsigned int nr_profs,
			struct vt_figure_set *set, struct vt_fit *summary)
{
	memset(summary, 0, sizeof(*summary));
	for (unsigned int i = 0; i < set->nr; i++) {
		struct vt_figure *f = &set->v[i];

		if (f->state != VT_FIG_EXPRESSED || !f->ran || f->prof < 0 ||
		    f->prof >= (int)nr_profs)
			continue;
		f->predicted = vt_calibrate_predict(&profs[f->prof], f);
		f->err = f->predicted / f->published - 1;
		f->has_loo = false;
	}
	summarise(set, summary);
}

static bool group_free(const struct vt_profile *p, int e, bool free_measured)
{
	return p->p[e].fit || (free_measured && p->p[e].source == VT_SRC_MEASURED);
}

/*
 * The groups of free prices of one profile: events sharing a group name
 * share one theta; sigma and bound are the widest of their ranges.
 */
static void fit_groups(struct fit_ctx *c, bool free_measured, char (*names)[32],
		       double *sigma, double *bound)
{
	for (int e = 0; e < VT_CE__NR; e++) {
		unsigned int g;

		c->grp_of[e] = -1;
		if (!group_free(c->orig, e, free_measured))
			continue;
		for (g = 0; g < c->ng; g++)
			if (!strcmp(names[g], vt_cost_events[e].group))
				break;
		if (g == c->ng) {
			snprintf(names[g], sizeof(names[g]), "%s", vt_cost_events[e].group);
			sigma[g] = 0;
			bound[g] = 0;
			c->ng++;
		}
		c->grp_of[e] = g;
		sigma[g] = fmax(sigma[g], log(fmax(c->orig->p[e].range, 1.0001)) / 2);
		bound[g] = fmax(bound[g], log(fmax(c->orig->p[e].range, 1.0001)));
	}
}

/* Profile pi's observations (ln of each published figure); marks the groups they count. */
static unsigned int fit_observations(struct fit_ctx *c, unsigned int pi, bool *active)
{
	const struct vt_figure_set *set = c->set;
	unsigned int nobs = 0;

	for (unsigned int i = 0; i < set->nr; i++) {
		const struct vt_figure *f = &set->v[i];

		if (f->state != VT_FIG_EXPRESSED || !f->ran || f->prof != (int)pi)
			continue;
		c->obs[nobs++] = (struct obs){ i, f->q, log(f->published) };
		if (f->fit_times && f->q != VT_Q_TIME_BEFORE && f->has_before_ns)
			c->obs[nobs++] = (struct obs){ i, VT_Q_TIME_BEFORE, log(f->before_ns) };
		if (f->fit_times && f->q != VT_Q_TIME_AFTER && f->has_after_ns)
			c->obs[nobs++] = (struct obs){ i, VT_Q_TIME_AFTER, log(f->after_ns) };
		for (int e = 0; e < VT_CE__NR; e++)
			if (c->grp_of[e] >= 0 && f->covers[e] &&
			    (f->cb.n[e] > 0 || f->ca.n[e] > 0))
				active[c->grp_of[e]] = true;
	}
	return nobs;
}

/* Inactive groups are not fitted: nothing observes them. Renumber the rest. */
static void fit_drop_inactive(struct fit_ctx *c, const bool *active, char (*names)[32],
			      double *sigma, double *bound)
{
	unsigned int map[VT_CE__NR], ng = 0;

	for (int e = 0; e < VT_CE__NR; e++)
		if (c->grp_of[e] >= 0 && !active[c->grp_of[e]])
			c->grp_of[e] = -1;
	for (unsigned int g = 0; g < c->ng; g++)
		map[g] = active[g] ? ng++ : (unsigned int)-1;
	for (unsigned int g = 0; g < c->ng; g++)
		if (active[g]) {
			memmove(names[map[g]], names[g], sizeof(names[0]));
			sigma[map[g]] = sigma[g];
			bound[map[g]] = bound[g];
		}
	for (int e = 0; e < VT_CE__NR; e++)
		if (c->grp_of[e] >= 0)
			c->grp_of[e] = map[c->grp_of[e]];
	c->ng = ng;
}

/* Leave-one-out: refit profile pi without each figure, predict it. */
static int fit_leave_one_out(struct fit_ctx *c, unsigned int pi, const double *full)
{
	struct vt_figure_set *set = c->set;

	for (unsigned int i = 0; i < set->nr; i++) {
		struct vt_figure *f = &set->v[i];
		double t[VT_CE__NR];
		int ret;

		if (f->state != VT_FIG_EXPRESSED || !f->ran || f->prof != (int)pi)
			continue;
		memcpy(t, full, sizeof(t));
		ret = lm(c, t, f->loo_group);
		if (ret)
			return ret;
		set_prices(c, t);
		f->loo_pred = predict_q(c->prof, f, f->q);
		f->loo_err = f->loo_pred / f->published - 1;
		f->has_loo = true;
	}
	return 0;
}

/* The fitted prices go into profile pi, and its groups into fit->g. */
static int fit_record(struct fit_ctx *c, unsigned int pi, unsigned int nobs,
		      char (*names)[32], const double *full, const double *det,
		      struct vt_fit *fit)
{
	struct vt_profile *prof = c->prof;
	unsigned int nf = 0;

	set_prices(c, full);
	for (unsigned int i = 0; i < c->set->nr; i++)
		nf += c->set->v[i].state == VT_FIG_EXPRESSED && c->set->v[i].ran &&
		      c->set->v[i].prof == (int)pi;
	snprintf(prof->calibration, sizeof(prof->calibration),
		 "free prices fitted by 'vmaptool calibrate' to %u published figures "
		 "(%u observations); the others are hardware defaults", nf, nobs);
	for (int e = 0; e < VT_CE__NR; e++) {
		if (c->grp_of[e] < 0)
			continue;
		prof->p[e].source = VT_SRC_FITTED;
		prof->p[e].fit = true;
		prof->p[e].determined = det[c->grp_of[e]];
	}
	if (VT_REALLOC_ARRAY(fit->g, (size_t)fit->nr + c->ng))
		return -ENOMEM;
	for (unsigned int g = 0; g < c->ng; g++) {
		struct vt_fit_group *fg = &fit->g[fit->nr++];

		memset(fg, 0, sizeof(*fg));
		snprintf(fg->name, sizeof(fg->name), "%s", names[g]);
		fg->prof = pi;
		fg->theta = full[g];
		fg->sigma = c->sigma[g];
		fg->bound = c->bound[g];
		fg->determined = det[g];
		fg->active = true;
	}
	return 0;
}

/* Fit profile pi's free prices to its figures; 0 when it has none to fit. */
static int fit_profile(struct vt_profile *profs, unsigned int pi, struct vt_figure_set *set,
		       bool free_measured, struct vt_fit *fit)
{
	int grp_of[VT_CE__NR];
	struct vt_profile orig = profs[pi];
	struct fit_ctx c = { .prof = &profs[pi], .orig = &orig, .set = set,
			     .grp_of = grp_of, .obs_sigma = fit->obs_sigma };
	char names[VT_CE__NR][32];
	double theta[VT_CE__NR] = { 0 }, sigma[VT_CE__NR], bound[VT_CE__NR];
	double det[VT_CE__NR] = { 0 }, full[VT_CE__NR];
	bool active[VT_CE__NR] = { false };
	unsigned int nobs;
	int ret;

	fit_groups(&c, free_measured, names, sigma, bound);
	c.sigma = sigma;
	c.bound = bound;
	c.obs = calloc(2 * set->nr + 1, sizeof(*c.obs));
	if (!c.obs)
		return -ENOMEM;
	nobs = fit_observations(&c, pi, active);
	c.nr_obs = nobs;
	fit_drop_inactive(&c, active, names, sigma, bound);
	if (!nobs || !c.ng) {
		free(c.obs);
		return 0;
	}
	ret = lm(&c, theta, -1);
	if (ret)
		goto out;
	determination(&c, theta, det);
	memcpy(full, theta, sizeof(full));
	ret = fit_leave_one_out(&c, pi, full);
	if (ret)
		goto out;
	ret = fit_record(&c, pi, nobs, names, full, det, fit);
out:
	free(c.obs);
	return ret;
}

int vt_calibrate_fit(struct vt_profile *profs, unsigned int nr_profs,
		     struct vt_figure_set *set, bool free_measured,
		     struct vt_fit *fit, struct vt_error *err)
{
	memset(fit, 0, sizeof(*fit));
	fit->obs_sigma = 0.05;
	for (unsigned int pi = 0; pi < nr_profs; pi++) {
		int ret = fit_profile(profs, pi, set, free_measured, fit);

		if (ret)
			return vt_error_set(err, ret, "out of memory");
	}
	for (unsigned int i = 0; i < set->nr; i++) {
		struct vt_figure *f = &set->v[i];

		if (f->state != VT_FIG_EXPRESSED || !f->ran || f->prof < 0)
			continue;
		f->predicted = vt_calibrate_predict(&profs[f->prof], f);
		f->err = f->predicted / f->published - 1;
		if (!f->has_loo) {
			/* A profile with nothing free: the prediction is out of sample. */
			f->loo_pred = f->predicted;
			f->loo_err = f->err;
			f->has_loo = true;
		}
	}
	summarise(set, fit);
	return 0;
}

void vt_fit_release(struct vt_fit *fit)
{
	free(fit->g);
	fit->g = NULL;
	fit->nr = 0;
}
