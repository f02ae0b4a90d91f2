// SPDX-License-Identifier: GPL-2.0
/*
 * The gate's decision (STYLE.md 8): every count of the baseline against
 * the current report, exactly, per trace and strategy; only estimated
 * metrics (cycles, ns) get the threshold.  The result is rendered by
 * vt_gate_write() (cli/render.c).
 */
#include <stdlib.h>
#include <string.h>

#include "cli/report-doc.h"

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

int vt_gate_compare(const struct vt_report *base, const struct vt_report *cur,
		    double threshold, struct vt_gate **out)
{
	struct gate g = { .threshold = threshold };
	struct vt_gate *res;
	json_t *tb;
	size_t i;
	int ret = -ENOMEM;

	*out = NULL;
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
	res = calloc(1, sizeof(*res));
	if (!res)
		goto out;
	res->threshold = threshold;
	res->compared = g.compared;
	res->regressions = g.regressions;
	res->improvements = g.improvements;
	g.regressions = g.improvements = NULL;
	*out = res;
	ret = 0;
out:
	json_decref(g.regressions);
	json_decref(g.improvements);
	return ret;
}

unsigned int vt_gate_regressions(const struct vt_gate *g)
{
	return (unsigned int)json_array_size(g->regressions);
}

void vt_gate_free(struct vt_gate *g)
{
	if (!g)
		return;
	json_decref(g->regressions);
	json_decref(g->improvements);
	free(g);
}
