// SPDX-License-Identifier: GPL-2.0
/*
 * Replay's area table (core/mm/vmalloc.c, id_hash()) on ids chosen to
 * collide (issue 22, item 1): doubling the number of vmaps may cost at
 * most 2.5 times the work, counted in chain steps of the table
 * (e->hash_probes: deterministic for a fixed key, never wall time).
 *
 * The ids are those an unkeyed hash sends to one bucket: the inverse of
 * the unkeyed function the table used before (h = id * K; h ^ h >> 29),
 * applied to multiples of 2^24, and ids equal in their low 32 bits, which
 * any hash of the low bits only puts in one bucket.  A string id set
 * shares its first 200 bytes.  The key is fixed after vt_engine_new() so
 * that the counts are the same on every run; the key is also set from
 * getrandom once, to check the bound holds with the key a run gets.
 */
#include <string.h>

#include "core/mm/engine.h"
#include "test.h"

#define K 0x9e3779b97f4a7c15ull

static uint64_t inv_odd(uint64_t a)
{
	uint64_t x = a;	/* Newton: each step doubles the correct low bits */

	for (int i = 0; i < 6; i++)
		x *= 2 - a * x;
	return x;
}

/* the id whose unkeyed hash was @r */
static uint64_t collide_old(uint64_t r)
{
	uint64_t h = r ^ (r >> 29) ^ (r >> 58);

	return h * inv_odd(K);
}

enum shape { OLD_HASH, LOW_BITS, STRINGS };

static uint64_t run(enum shape s, unsigned int n, bool random_key)
{
	struct vt_strategy_spec spec;
	struct vt_model_opts o;
	struct vt_engine *e;
	struct vt_error err;
	struct vt_page_run run1 = { .count = 1 };
	static char str[256];
	uint64_t va, probes;

	vt_error_init(&err);
	vt_model_opts_init(&o);
	if (vt_strategy_parse("mainline", &spec, &err) || vt_engine_new(&spec, &o, &e)) {
		fprintf(stderr, "engine: %s\n", err.msg);
		exit(TEST_FAIL);
	}
	if (!random_key)
		e->hash_key = (struct vt_siphash_key){ { 0x0123456789abcdefull,
							 0xfedcba9876543210ull } };
	for (int pass = 0; pass < 2; pass++)
		for (unsigned int i = 0; i < n; i++) {
			struct vt_event ev = { .op = pass ? VT_OP_VUNMAP : VT_OP_VMAP,
					       .cpu = -1 };

			ev.id.present = true;
			if (s == OLD_HASH)
				ev.id.num = collide_old((uint64_t)(i + 1) << 24);
			else if (s == LOW_BITS)
				ev.id.num = (uint64_t)(i + 1) << 32;
			else {
				memset(str, 'a', 200);
				snprintf(str + 200, sizeof(str) - 200, "%u", i);
				ev.id.is_str = true;
				ev.id.str = str;
			}
			if (!pass) {
				run1.pfn = 0x1000 + i;
				ev.runs = &run1;
				ev.nr_runs = 1;
				ev.has_pages = true;
				ev.nr_pages = 1;
			}
			vt_error_init(&err);
			if (vt_engine_apply(e, i + (long)pass * n, &ev, &va, &err)) {
				fprintf(stderr, "event %u: %s\n", i, err.msg);
				exit(TEST_FAIL);
			}
		}
	probes = e->hash_probes;
	vt_engine_free(e);
	return probes;
}

int main(void)
{
	static const char *const names[] = { "unkeyed-hash collisions",
					     "equal low 32 bits", "long equal prefix" };

	for (int s = OLD_HASH; s <= STRINGS; s++)
		for (int rk = 0; rk < 2; rk++) {
			unsigned int n = 8192;
			uint64_t a = run(s, n, rk), b = run(s, 2 * n, rk);
			double ratio = (double)b / (double)a;

			printf("%s%s: %u ids %llu steps, %u ids %llu steps: x%.2f\n",
			       names[s], rk ? " (random key)" : "", n,
			       (unsigned long long)a, 2 * n,
			       (unsigned long long)b, ratio);
			TEST_ASSERT_VAL("doubling the ids costs more than 2.5 times the work",
					ratio <= 2.5);
		}
	return test_result("test-complexity-ids");
}
