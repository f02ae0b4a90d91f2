// SPDX-License-Identifier: GPL-2.0
/*
 * The gate's decision (STYLE.md 8, docs/vmaptool-gate.md): every count of
 * the baseline against the current report, per trace (matched by its
 * key, exactly: vt_gate_key_match()) and strategy (by name).  Counts are
 * exact unless --threshold gives a metric a tolerance; the cost model's
 * estimates (cycles, ns) default to 2%.  A count that moved is judged by
 * its direction (judge()): work or cost that rose is a regression, that
 * fell an improvement, a neutral count that moved a change; --strict
 * fails on every move.  Only what the baseline has is compared, so a
 * metric or strategy added since it was made is ignored.  The result is
 * rendered by cli/render-gate.c.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/report-doc.h"

struct gate {
	const struct vt_gate_opts *o;
	json_t *regressions, *improvements, *changes, *missing, *cases;
	unsigned long compared;
	const char *trace, *strategy;
};

/* ---- trace keys ------------------------------------------------------ */

/*
 * Exact: the two keys are equal once "./" components and repeated slashes
 * are dropped, nothing else.  No suffix, no "seen from a folder above":
 * "sub/t.json" is never "t.json" (issue 22 item 6).  cmd-gate.c made
 * both sides keys of one rule first (a path relative to the baseline's
 * folder).
 */
long vt_gate_key_match(json_t *traces, const char *key)
{
	char nk[4096], nt[4096];
	json_t *t;
	size_t i;

	vt_report_key_normal(key, nk, sizeof(nk));
	json_array_foreach(traces, i, t) {
		const char *s = json_string_value(json_object_get(t, "trace"));

		if (s && !strcmp(vt_report_key_normal(s, nt, sizeof(nt)), nk))
			return (long)i;
	}
	return -1;
}

/* ---- thresholds ------------------------------------------------------ */

/* A metric name --threshold accepts: a key of "metrics" (or
 * tlbi_by_kind.X / dsb_by_kind.X), or an estimate of the cost model. */
static bool metric_known(const char *name)
{
	if (!strcmp(name, "cycles") || !strcmp(name, "ns"))
		return true;
	for (int i = 0; i < VT_M__NR; i++) {
		const char *m = vt_metric_names[i];

		switch (vt_metric_kinds[i]) {
		case VT_MK_TLBI:
			if (!strncmp(name, "tlbi_by_kind.", 13) &&
			    !strcmp(name + 13, m + 5))
				return true;
			break;
		case VT_MK_DSB:
			if (!strncmp(name, "dsb_by_kind.", 12) &&
			    !strcmp(name + 12, m + 4))
				return true;
			break;
		default:
			if (!strcmp(name, m))
				return true;
		}
	}
	return false;
}

static int add_threshold(struct vt_gate_opts *o, const char *metric,
			 double v, bool pct)
{
	for (unsigned int i = 0; i < o->nr_th; i++)
		if (!strcmp(o->th[i].metric, metric)) {
			o->th[i].v = v;
			o->th[i].pct = pct;
			return 0;
		}
	if (o->nr_th == VT_GATE_MAX_TH)
		return -1;
	snprintf(o->th[o->nr_th].metric, sizeof(o->th[0].metric), "%s", metric);
	o->th[o->nr_th].v = v;
	o->th[o->nr_th].pct = pct;
	o->nr_th++;
	return 0;
}

void vt_gate_opts_init(struct vt_gate_opts *o)
{
	memset(o, 0, sizeof(*o));
	add_threshold(o, "cycles", 2, true);
	add_threshold(o, "ns", 2, true);
}

/* The known metric closest to @name (as metric_known() spells them), if
 * close enough to be a typo. */
static const char *metric_hint(const char *name)
{
	static char paths[VT_M__NR + 2][64];
	const char *cands[VT_M__NR + 2] = { "cycles", "ns" };

	for (int i = 0; i < VT_M__NR; i++) {
		const char *m = vt_metric_names[i];

		switch (vt_metric_kinds[i]) {
		case VT_MK_TLBI:
			snprintf(paths[i], sizeof(paths[i]), "tlbi_by_kind.%s", m + 5);
			break;
		case VT_MK_DSB:
			snprintf(paths[i], sizeof(paths[i]), "dsb_by_kind.%s", m + 4);
			break;
		default:
			snprintf(paths[i], sizeof(paths[i]), "%s", m);
			break;
		}
		cands[i + 2] = paths[i];
	}
	return vt_suggest(name, cands, VT_M__NR + 2);
}

int vt_gate_parse_threshold(struct vt_gate_opts *o, const char *arg,
			    char *why, size_t len)
{
	char *copy = strdup(arg), *save = NULL, *item;
	int ret = 0;

	if (!copy) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	for (item = strtok_r(copy, ",", &save); item && !ret;
	     item = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(item, ':'), *num = colon ? colon + 1 : item;
		char *end;
		bool pct;
		double v;

		if (colon)
			*colon = '\0';
		v = strtod(num, &end);
		pct = *end == '%';
		if (pct)
			end++;
		/* the old form: a bare PCT is the tolerance of the estimates */
		if (!colon)
			pct = true;
		if (!*num || *end || !(v >= 0 && v <= 1e12) || (pct && v > 1000)) {
			snprintf(why, len, "invalid value '%s' for --threshold "
				 "(expected METRIC:N, METRIC:N%%, a list of them, or PCT)",
				 arg);
			ret = -1;
		} else if (colon && !metric_known(item)) {
			const char *hint = metric_hint(item);

			snprintf(why, len, "--threshold: unknown metric '%s'%s%s%s", item,
				 hint ? "; did you mean '" : "", hint ? hint : "",
				 hint ? "'?" : "");
			ret = -1;
		} else if (!colon) {
			if (add_threshold(o, "cycles", v, true) ||
			    add_threshold(o, "ns", v, true))
				ret = -1;
		} else if (add_threshold(o, item, v, pct)) {
			snprintf(why, len, "--threshold: too many metrics");
			ret = -1;
		}
	}
	free(copy);
	return ret;
}

/* The threshold of metric path @path ("tlbi", "per_op.vunmap.tlbi"). */
static const struct vt_gate_threshold *threshold_of(const struct gate *g,
						    const char *path)
{
	const char *name = path;

	if (!strncmp(name, "per_op.", 7)) {
		const char *dot = strchr(name + 7, '.');

		name = dot ? dot + 1 : name;
	}
	for (unsigned int i = 0; i < g->o->nr_th; i++)
		if (!strcmp(g->o->th[i].metric, name))
			return &g->o->th[i];
	return NULL;
}

/* ---- findings -------------------------------------------------------- */

/*
 * The metric of path @path ("tlbi", "tlbi_by_kind.vale1is",
 * "per_op.vunmap.dsb_by_kind.ish"): its index in VT_METRICS, or -1.
 */
static int metric_of(const char *path)
{
	char name[320];

	if (!strncmp(path, "per_op.", 7)) {
		const char *dot = strchr(path + 7, '.');

		path = dot ? dot + 1 : path;
	}
	if (!strncmp(path, "tlbi_by_kind.", 13))
		snprintf(name, sizeof(name), "tlbi_%s", path + 13);
	else if (!strncmp(path, "dsb_by_kind.", 12))
		snprintf(name, sizeof(name), "dsb_%s", path + 12);
	else
		snprintf(name, sizeof(name), "%s", path);
	return vt_metric_find(name);
}

/*
 * One finding.  A count moved is said as compare says it, by the one
 * function of cli/render-table.c: "change" holds its words ("50% more",
 * "3.5x fewer", "none before"), the renderers put "16 -> 24, " before.
 */
static int note(struct gate *g, json_t *list, const char *metric, json_t *b,
		json_t *c, const char *why)
{
	json_t *e = json_object();
	char words[64];

	if (!e || append(list, e) ||
	    put(e, "trace", json_string(g->trace)) ||
	    (g->strategy && put(e, "strategy", json_string(g->strategy))) ||
	    (metric && put(e, "metric", json_string(metric))) ||
	    (b && put(e, "baseline", json_deep_copy(b))) ||
	    (c && put(e, "current", json_deep_copy(c))) ||
	    (why && put(e, "reason", json_string(why))))
		return -ENOMEM;
	if (json_is_integer(b) && json_is_integer(c)) {
		vt_change_words(words, sizeof(words), json_integer_value(b),
				json_integer_value(c), -1);
		if (put(e, "change", json_string(words)))
			return -ENOMEM;
	}
	return 0;
}

/*
 * A count @path that moved beyond its tolerance (@up: it rose): what it
 * is by its direction (VT_METRICS in core/stats.h).  A metric where fewer
 * is better (the work, the estimated cycles and ns) regresses when it
 * rises and improves when it falls; a neutral one (the workload, a shape:
 * cont_ranges, pages_allocated) is a change, reported, never a failure.
 * Under --strict every move is a regression.  A count the table does not
 * know (none today: the reader refuses unknown keys) is taken as "fewer".
 */
static int judge(struct gate *g, const char *path, json_t *bv, json_t *cv,
		 bool up)
{
	int m = metric_of(path);
	bool neutral = m >= 0 && vt_metric_better[m] == VT_MB_NEUTRAL;

	if (g->o->strict && (neutral || !up))
		return note(g, g->regressions, path, bv, cv, neutral ?
			    "a neutral count, failed by --strict" :
			    "an improvement, failed by --strict");
	if (neutral)
		return note(g, g->changes, path, bv, cv, NULL);
	return note(g, up ? g->regressions : g->improvements, path, bv, cv, NULL);
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
		const struct vt_gate_threshold *th;
		char path[256];
		double x, y, allow;

		snprintf(path, sizeof(path), "%s%s", prefix, keys[i]);
		/* The estimate is judged by its totals (cycles, ns) under
		 * their tolerance; its split by kernel function explains a
		 * change and is not gated part by part (a part that was 0
		 * would fail any percentage). */
		if (!strcmp(keys[i], "cycles_by_function"))
			continue;
		if (json_is_object(bv)) {
			char sub[264];

			if (!json_is_object(cv)) {
				ret = note(g, g->regressions, path, NULL, NULL,
					   "missing from the current report");
				continue;
			}
			snprintf(sub, sizeof(sub), "%s.", path);
			ret = gate_obj(g, sub, bv, cv);
			continue;
		}
		/* every other value is refused by the reader (check_counts()
		 * in cli/report-read.c): never skipped unseen */
		if (!json_is_integer(bv))
			continue;
		g->compared++;
		if (!json_is_integer(cv)) {
			ret = note(g, g->regressions, path, bv, NULL,
				   "missing from the current report");
			continue;
		}
		x = (double)json_integer_value(bv);
		y = (double)json_integer_value(cv);
		th = threshold_of(g, path);
		allow = !th ? 0 : th->pct ? x * th->v / 100 : th->v;
		if (y > x + allow || y < x - allow)
			ret = judge(g, path, bv, cv, y > x);
	}
	free(keys);
	return ret;
}

static int add_case(struct gate *g)
{
	json_t *e = json_object();

	if (!e || append(g->cases, e) || put(e, "trace", json_string(g->trace)) ||
	    (g->strategy && put(e, "strategy", json_string(g->strategy))))
		return -ENOMEM;
	return 0;
}

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

/* A trace on one side only: listed as missing, which fails the gate
 * unless --allow-missing (vt_gate_failed()); never a regression. */
static int missing(struct gate *g, const char *why)
{
	g->strategy = NULL;
	if (add_case(g))
		return -ENOMEM;
	return note(g, g->missing, NULL, NULL, NULL, why);
}

int vt_gate_compare(const struct vt_report *base, const struct vt_report *cur,
		    const struct vt_gate_opts *o, struct vt_gate **out)
{
	struct gate g = { .o = o };
	struct vt_gate *res;
	bool *seen = NULL;
	json_t *tb, *tc;
	size_t i;
	int ret = -ENOMEM;

	*out = NULL;
	g.regressions = json_array();
	g.improvements = json_array();
	g.changes = json_array();
	g.missing = json_array();
	g.cases = json_array();
	seen = calloc(json_array_size(cur->traces) + 1, sizeof(*seen));
	if (!g.regressions || !g.improvements || !g.changes || !g.missing || !g.cases || !seen)
		goto out;
	json_array_foreach(base->traces, i, tb) {
		json_t *sb;
		long at;
		size_t k;

		g.trace = json_string_value(json_object_get(tb, "trace"));
		g.strategy = NULL;
		at = vt_gate_key_match(cur->traces, g.trace);
		if (at < 0 || seen[at]) {
			if (missing(&g, "in the baseline but not in the current run"))
				goto out;
			continue;
		}
		seen[at] = true;
		tc = json_array_get(cur->traces, (size_t)at);
		if (!json_equal(json_object_get(tb, "events"),
				json_object_get(tc, "events")) &&
		    (add_case(&g) ||
		     note(&g, g.regressions, "events", json_object_get(tb, "events"),
			  json_object_get(tc, "events"), "the trace changed")))
			goto out;
		json_array_foreach(json_object_get(tb, "strategies"), k, sb) {
			json_t *sc;

			g.strategy = json_string_value(json_object_get(sb, "name"));
			if (add_case(&g))
				goto out;
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
	json_array_foreach(cur->traces, i, tc) {
		if (seen[i])
			continue;
		g.trace = json_string_value(json_object_get(tc, "trace"));
		if (missing(&g, "not in the baseline"))
			goto out;
	}
	res = calloc(1, sizeof(*res));
	if (!res)
		goto out;
	res->opts = *o;
	res->compared = g.compared;
	res->regressions = g.regressions;
	res->improvements = g.improvements;
	res->changes = g.changes;
	res->missing = g.missing;
	res->cases = g.cases;
	g.regressions = g.improvements = g.changes = g.missing = g.cases = NULL;
	*out = res;
	ret = 0;
out:
	free(seen);
	json_decref(g.regressions);
	json_decref(g.improvements);
	json_decref(g.changes);
	json_decref(g.missing);
	json_decref(g.cases);
	return ret;
}

bool vt_gate_failed(const struct vt_gate *g)
{
	/* a gate that compared nothing gated nothing: a report whose trace
	 * keys match none of the baseline's (paths written relative to
	 * another folder) fails, --allow-missing or not */
	return json_array_size(g->regressions) || !g->compared ||
	       (json_array_size(g->missing) && !g->opts.allow_missing);
}

void vt_gate_free(struct vt_gate *g)
{
	if (!g)
		return;
	json_decref(g->regressions);
	json_decref(g->improvements);
	json_decref(g->changes);
	json_decref(g->missing);
	json_decref(g->cases);
	free(g);
}
