// SPDX-License-Identifier: GPL-2.0
/*
 * The tally of the per-event accounting (core/tally.c) gives exactly the
 * results of pricing every event with vt_cost_fill() and adding it to the
 * totals and its op's row: for repeated shapes (hits), for more distinct
 * shapes than it has slots (a slot's events flushed when another shape
 * takes it), for counts that wrap when multiplied by their tally, with
 * touched bits over zero counts, with overrun_pages, without a profile,
 * and with the priced event left for a --per-event line.
 */
#include <string.h>

#include "core/cost/estimate.h"
#include "core/cost/profile.h"
#include "core/tally.h"
#include "prng.h"
#include "test.h"

static const enum vt_op ops[] = { VT_OP_VMALLOC, VT_OP_VFREE, VT_OP_PURGE,
				  VT_OP_LINEAR_MAP, VT_OP_VMAP, VT_OP_IOUNMAP };

/* An event's counts as the engine makes them: through vt_stats_at(),
 * the cost metrics left at 0.  @shapes bounds the distinct ones. */
static void random_event(struct vt_stats *s, unsigned int shapes)
{
	uint64_t seed = rnd_s, pick = rnd() % shapes;

	vt_stats_clear(s);
	rnd_s = pick * 7919 + 1;	/* the shape's own counts */
	for (int i = 0; i < VT_M__NR; i++) {
		if (vt_metric_kinds[i] == VT_MK_CYC || i == VT_M_cycles || i == VT_M_ns ||
		    !chance(25))
			continue;
		/* a zero count with its bit set, small counts, huge ones */
		*vt_stats_at(s, i) += chance(10) ? 0 : chance(80) ? rr(1, 4) : rnd();
	}
	if (chance(5))
		s->overrun_pages = rr(1, 512);
	rnd_s = seed;
	rnd();
}

static bool same(const struct vt_stats *a, const struct vt_stats *b)
{
	return !memcmp(a->m, b->m, sizeof(a->m)) && a->overrun_pages == b->overrun_pages;
}

static bool same_result(const struct vt_strategy_result *a, const struct vt_strategy_result *b)
{
	if (!same(&a->total, &b->total))
		return false;
	for (int op = 0; op < VT_OP__NR; op++)
		if (!same(&a->per_op[op], &b->per_op[op]))
			return false;
	return true;
}

/* @n events of at most @shapes shapes, tallied and added one by one. */
static void run(const char *what, const struct vt_profile *p, unsigned int n,
		unsigned int shapes, uint64_t seed)
{
	static struct vt_strategy_result ref, got;
	struct vt_tally *t = vt_tally_new(p);
	unsigned int bad_keep = 0;

	TEST_ASSERT_VAL("tally", t);
	if (!t)
		return;
	memset(&ref, 0, sizeof(ref));
	memset(&got, 0, sizeof(got));
	rnd_s = seed;
	for (unsigned int k = 0; k < n; k++) {
		enum vt_op op = ops[rnd() % (sizeof(ops) / sizeof(ops[0]))];
		bool keep = chance(10);
		struct vt_stats s, r;

		random_event(&s, shapes);
		r = s;
		if (p)
			vt_cost_fill(p, &r, op);
		vt_stats_add(&ref.total, &r);
		vt_stats_add(&ref.per_op[op], &r);
		vt_tally_add(t, &got, op, &s, keep);
		if (keep)
			bad_keep += !same(&s, &r);
		else
			bad_keep += !same(&s, &(struct vt_stats){ 0 }) ||
				    s.touched[0] || s.touched[VT_STATS_WORDS - 1];
		if (chance(1))
			vt_tally_flush(t, &got);	/* flushes in between change nothing */
	}
	vt_tally_flush(t, &got);
	vt_tally_free(t);
	if (!same_result(&ref, &got) || bad_keep)
		fprintf(stderr, "  %s: results %s, %u events left wrong\n", what,
			same_result(&ref, &got) ? "equal" : "differ", bad_keep);
	TEST_ASSERT_VAL(what, same_result(&ref, &got) && !bad_keep);
}

int main(void)
{
	struct vt_profile p;
	struct vt_error err;

	vt_error_init(&err);
	TEST_ASSERT_VAL("load", !vt_profile_load("generic-a76", &p, &err));
	run("few shapes", &p, 20000, 40, 1);
	run("more shapes than slots", &p, 20000, 5000, 2);
	run("every event its own shape", &p, 3000, 1u << 30, 3);
	run("no profile", NULL, 5000, 100, 4);
	return test_result("test-tally");
}
