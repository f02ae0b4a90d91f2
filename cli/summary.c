// SPDX-License-Identifier: GPL-2.0
/*
 * compare --summary (docs/vmaptool-compare.md, "Summary"): a block of at
 * most 72 columns per trace for a cover letter.  The report carries it
 * (a top-level "summary" and one per trace, docs/report-format.md), so
 * that JSON, the table and mail say the same; this file builds it and
 * prints its text form, the same ASCII in the table and mail forms.
 *
 * The estimated speed-up is given under the chosen profile and as a
 * range over the shipped profiles that apply: those whose features give
 * the run's model (FEAT_TLBIRANGE, features.tlbi_range, equal to the
 * run's --tlbi-range), so that a replay under each would make the same
 * counts.  The estimate is linear in the counts (core/cost/estimate.h),
 * so each profile's figure is priced from the totals, without a replay.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/report-doc.h"
#include "core/cost/profile.h"
#include "core/input.h"

#ifndef VT_VERSION
#define VT_VERSION "0.0.0"
#endif

#define SUM_COLS 72

static const char *const default_metrics =
	"pte_writes,tlbi,dsb,isb,tables_allocated,tlb_entries,ns";

/* Metric @i as the report spells its key ("tlbi_by_kind.vale1is"). */
static void report_path(int i, char *buf, size_t len)
{
	const char *n = vt_metric_names[i];

	switch (vt_metric_kinds[i]) {
	case VT_MK_TLBI:
		snprintf(buf, len, "tlbi_by_kind.%s", n + strlen("tlbi_"));
		return;
	case VT_MK_DSB:
		snprintf(buf, len, "dsb_by_kind.%s", n + strlen("dsb_"));
		return;
	case VT_MK_CYC:
		snprintf(buf, len, "cycles_by_function.%s", n + strlen("cyc_"));
		return;
	case VT_MK_TOP:
	case VT_MK_VERIFY:
		break;
	}
	snprintf(buf, len, "%s", n);
}

const char *vt_summary_metric_name(int i, char *buf, size_t len)
{
	if (vt_metric_kinds[i] == VT_MK_VERIFY)
		return NULL;
	report_path(i, buf, len);
	return buf;
}

int vt_summary_parse_metrics(const char *list, struct vt_summary_opts *o,
			     char *why, size_t len)
{
	char paths[VT_M__NR][64];
	const char *cands[VT_M__NR];
	const char *p = list ? list : default_metrics;

	memset(o, 0, sizeof(*o));
	for (int i = 0; i < VT_M__NR; i++)
		cands[i] = vt_summary_metric_name(i, paths[i], sizeof(paths[i]));
	for (;;) {
		size_t n = strcspn(p, ",");
		char word[64];
		int found = -1;

		if (!n || n >= sizeof(word)) {
			snprintf(why, len, "--metrics: %s metric name in '%s'",
				 n ? "a too long" : "an empty", list ? list : "");
			return -1;
		}
		memcpy(word, p, n);
		word[n] = '\0';
		for (int i = 0; i < VT_M__NR && found < 0; i++)
			if (cands[i] && !strcmp(word, cands[i]))
				found = i;
		if (found < 0) {
			const char *hint = vt_suggest(word, cands, VT_M__NR);

			snprintf(why, len, "--metrics: unknown metric '%s'; %s%s%s"
				 "see docs/report-format.md", word,
				 hint ? "did you mean '" : "", hint ? hint : "",
				 hint ? "'? " : "");
			return -1;
		}
		for (unsigned int k = 0; k < o->nr; k++)
			if (o->metric[k] == found) {
				snprintf(why, len, "--metrics: '%s' given twice", word);
				return -1;
			}
		if (o->nr == VT_SUMMARY_MAX_METRICS) {
			snprintf(why, len, "--metrics: at most %d metrics",
				 VT_SUMMARY_MAX_METRICS);
			return -1;
		}
		o->metric[o->nr++] = found;
		p += n;
		if (!*p)
			return 0;
		p++;
	}
}

/* ---- the profiles of the range ---------------------------------------- */

struct vt_summary {
	const struct vt_summary_opts *opts;
	const struct vt_profile *chosen;
	struct vt_profile *range;	/* the shipped profiles that apply */
	unsigned int nr_range;
	bool chosen_in_range;		/* chosen is range[chosen_at], same prices */
	unsigned int chosen_at;
};

static int summary_add(const struct vt_report *r, json_t *t,
		       const struct vt_replay_result *res,
		       const struct vt_strategy_spec *specs);
static void summary_free(struct vt_summary *s);

static bool same_prices(const struct vt_profile *a, const struct vt_profile *b)
{
	if (strcmp(a->name, b->name) || a->freq_mhz != b->freq_mhz ||
	    a->erratum_4118414 != b->erratum_4118414 || a->tlbi_range != b->tlbi_range)
		return false;
	for (int e = 0; e < VT_CE__NR; e++)
		if (a->p[e].cycles != b->p[e].cycles)
			return false;
	return true;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* The top-level "summary": what every trace's block shares. */
static json_t *summary_top_json(const struct vt_summary *s)
{
	json_t *j = json_object(), *m = json_array(), *pr = json_array(), *tool = json_object();
	int bad = !j || !m || !pr || !tool;

	for (unsigned int k = 0; k < s->opts->nr && !bad; k++) {
		char path[64];

		report_path(s->opts->metric[k], path, sizeof(path));
		bad |= append(m, json_string(path));
	}
	for (unsigned int k = 0; k < s->nr_range && !bad; k++)
		bad |= append(pr, json_string(s->range[k].name));
	if (!bad &&
	    !put(tool, "version", json_string(VT_VERSION)) &&
	    !put(tool, "commit", json_string(vt_build_commit())) &&
	    !put(j, "metrics", m) && !put(j, "profiles", pr) && !put(j, "tool", tool) &&
	    !put(j, "profile", str_or_null(s->chosen ? s->chosen->name : NULL)) &&
	    /* --erratum-4118414: the chosen profile and the range's */
	    !(s->chosen && s->chosen->erratum_overridden &&
	      put(j, "erratum_4118414", json_string(s->chosen->erratum_4118414 ? "on" : "off"))))
		return j;
	json_decref(j);
	return NULL;
}

int vt_report_set_summary(struct vt_report *r, const struct vt_summary_opts *opts,
			  const struct vt_profile *chosen, bool tlbi_range)
{
	struct vt_summary *s = calloc(1, sizeof(*s));
	struct vt_error err;
	char **names = NULL;
	unsigned int nr = 0;

	if (!s)
		return -ENOMEM;
	s->opts = opts;
	s->chosen = chosen;
	vt_error_init(&err);
	if (vt_profile_names(&names, &nr, &err))
		vt_warn("--summary: no range of profiles: %s", err.msg);
	s->range = calloc(nr ? nr : 1, sizeof(*s->range));
	if (!s->range) {
		vt_profile_names_free(names, nr);
		free(s);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < nr; i++) {
		struct vt_profile *p = &s->range[s->nr_range];

		vt_error_init(&err);
		if (vt_profile_load(names[i], p, &err)) {
			vt_warn("--summary: profile '%s' left out of the range: %s",
				names[i], err.msg);
			continue;
		}
		/* features: a profile whose FEAT_TLBIRANGE differs would
		 * have made other counts */
		if (p->tlbi_range != tlbi_range)
			continue;
		/* --erratum-4118414 is a switch of the run: every profile's */
		if (chosen && chosen->erratum_overridden) {
			p->erratum_4118414 = chosen->erratum_4118414;
			p->erratum_overridden = true;
		}
		/* --cost-of is a switch of the run too: the same part priced */
		if (chosen)
			p->cost_of = chosen->cost_of;
		if (chosen && same_prices(p, chosen)) {
			s->chosen_in_range = true;
			s->chosen_at = s->nr_range;
		}
		s->nr_range++;
	}
	vt_profile_names_free(names, nr);
	r->summary = s;
	r->summary_add = summary_add;
	r->summary_free = summary_free;
	if (put(r->root, "summary", summary_top_json(s)))
		return -ENOMEM;
	return 0;
}

static void summary_free(struct vt_summary *s)
{
	if (!s)
		return;
	free(s->range);
	free(s);
}

/* ---- one trace -------------------------------------------------------- */

/* Round to 6 significant digits, as the report's ratios. */
static double round6(double x)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.6g", x);
	return strtod(buf, NULL);
}

/* Where the trace came from, from its meta (gen's command, import's
 * recording), or NULL. */
static char *trace_source(const char *meta)
{
	struct vt_json_budget b;
	json_t *m = NULL;
	const char *cmd, *rec, *src;
	char *out = NULL;

	if (meta) {	/* the budget: out of memory stays out (core/input.h) */
		vt_json_budget_begin(&b, UINT64_MAX);
		m = json_loads(meta, 0, NULL);
		vt_json_budget_end(&b);
		m = vt_json_whole(m);
	}
	cmd = json_string_value(json_object_get(m, "command"));
	rec = json_string_value(json_object_get(m, "recording"));
	src = json_string_value(json_object_get(m, "source"));

	if (cmd)
		out = strdup(cmd);
	else if (rec && src)
		out = strdup(src);	/* "vmaptool import of X.dat (trace-cmd trace.dat)" */
	else if (rec && asprintf(&out, "recording %s", rec) < 0)
		out = NULL;
	else if (!rec && src)
		out = strdup(src);
	json_decref(m);
	return out;
}

/* Cycles of @sr's totals under @p. */
static double cycles_under(const struct vt_profile *p, const struct vt_strategy_result *sr)
{
	struct vt_cost_counts c;
	struct vt_cost_estimate e;

	vt_report_total_counts(p, sr, &c);
	vt_cost_estimate(p, &c, &e);
	return e.total;
}

static json_t *end_json(const char *profile, double x)
{
	json_t *j = json_object();

	if (!j || put(j, "profile", json_string(profile)) ||
	    put(j, "speedup", json_real(round6(x)))) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* {"strategy", "speedup", "low", "high"} of strategy @k against the first. */
static json_t *speedup_json(const struct vt_summary *s, const struct vt_replay_result *res,
			    json_t *strat, unsigned int k, const char *name)
{
	json_t *j = json_object(), *est = json_object_get(strat, "estimate");
	json_t *x = json_object_get(est, "speedup");
	double lo = 0, hi = 0;
	int ilo = -1, ihi = -1;

	if (!j || put(j, "strategy", json_string(name)) ||
	    put(j, "speedup", json_is_real(x) ? json_real(json_real_value(x)) : json_null()))
		goto nomem;
	for (unsigned int i = 0; i < s->nr_range; i++) {
		double cb = cycles_under(&s->range[i], &res->s[0]);
		double cs = cycles_under(&s->range[i], &res->s[k]);
		double v;

		if (s->chosen_in_range && i == s->chosen_at && json_is_real(x))
			v = json_real_value(x);	/* the figure the table shows */
		else if (cs > 0)
			v = round6(cb / cs);
		else
			continue;
		if (ilo < 0 || v < lo)
			lo = v, ilo = (int)i;
		if (ihi < 0 || v > hi)
			hi = v, ihi = (int)i;
	}
	if (ilo >= 0 && (put(j, "low", end_json(s->range[ilo].name, lo)) ||
			 put(j, "high", end_json(s->range[ihi].name, hi))))
		goto nomem;
	return j;
nomem:
	json_decref(j);
	return NULL;
}

/* The "summary" object of trace @t, whose strategies are in it already. */
static int summary_add(const struct vt_report *r, json_t *t,
		       const struct vt_replay_result *res,
		       const struct vt_strategy_spec *specs)
{
	const struct vt_summary *s = r->summary;
	json_t *j = json_object(), *rows = json_array(), *sp = json_array();
	json_t *strats = json_object_get(t, "strategies");
	char *src = trace_source(res->meta);
	int bad = !j || !rows || !sp || put(j, "source", str_or_null(src)) ||
		  put(j, "rows", json_incref(rows)) || put(j, "speedups", json_incref(sp)) ||
		  put(t, "summary", json_incref(j));

	free(src);
	for (unsigned int k = 0; k < s->opts->nr && !bad; k++) {
		int m = s->opts->metric[k];
		json_t *row = json_object(), *vals = json_array(), *ch = json_array();
		char path[64];

		report_path(m, path, sizeof(path));
		bad |= !row || !vals || !ch || append(rows, row) ||
		       put(row, "metric", json_string(path)) ||
		       put(row, "values", vals) || put(row, "changes", ch);
		if (bad) {
			json_decref(vals);
			json_decref(ch);
			break;
		}
		for (unsigned int i = 0; i < res->nr && !bad; i++) {
			json_int_t b = (json_int_t)res->s[0].total.m[m];
			json_int_t v = (json_int_t)res->s[i].total.m[m];
			char w[48];

			bad |= append(vals, json_integer(v));
			if (i == 0) {
				bad |= append(ch, json_null());
			} else {
				vt_change_words(w, sizeof(w), b, v, m);
				bad |= append(ch, json_string(w));
			}
		}
	}
	for (unsigned int i = 1; i < res->nr && !bad; i++)
		bad |= append(sp, speedup_json(s, res, json_array_get(strats, i), i,
					       specs[i].name));
	json_decref(rows);
	json_decref(sp);
	json_decref(j);
	return bad ? -ENOMEM : 0;
}
