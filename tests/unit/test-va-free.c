// SPDX-License-Identifier: GPL-2.0
/*
 * The free VA space (core/mm/va_free.c) against the sorted array with
 * linear scans it replaced (kept here as the reference): random frees,
 * lowest fits with every alignment and window, and takes at a given
 * address, from a full and from a fragmented space, must give the same
 * addresses, the same refusals and the same free ranges after every step.
 * Then the case that was quadratic: 200,000 holes.
 */
#include <errno.h>
#include <string.h>

#include "core/mm/va_free.h"
#include "prng.h"
#include "test.h"

/* ---- the reference: vmap_area.c before the tree ---------------------- */

struct range {
	uint64_t start, end;
};

static struct range ref[1 << 16];
static uint64_t nref;

static void ref_push(uint64_t at, struct range r)
{
	memmove(&ref[at + 1], &ref[at], (nref - at) * sizeof(*ref));
	ref[at] = r;
	nref++;
}

static void ref_del(uint64_t at)
{
	memmove(&ref[at], &ref[at + 1], (nref - at - 1) * sizeof(*ref));
	nref--;
}

static void ref_add(uint64_t start, uint64_t end)
{
	uint64_t lo = 0, hi = nref;

	while (lo < hi) {
		uint64_t mid = (lo + hi) / 2;

		if (ref[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && ref[lo - 1].end == start) {
		ref[lo - 1].end = end;
		if (lo < nref && ref[lo].start == end) {
			ref[lo - 1].end = ref[lo].end;
			ref_del(lo);
		}
		return;
	}
	if (lo < nref && ref[lo].start == end) {
		ref[lo].start = start;
		return;
	}
	ref_push(lo, (struct range){ start, end });
}

static void ref_take(uint64_t i, uint64_t a, uint64_t size)
{
	struct range r = ref[i];

	if (a == r.start && a + size == r.end) {
		ref_del(i);
	} else if (a == r.start) {
		ref[i].start = a + size;
	} else {
		ref[i].end = a;
		if (a + size != r.end)
			ref_push(i + 1, (struct range){ a + size, r.end });
	}
}

static int ref_lowest(uint64_t size, uint64_t align, uint64_t vstart,
		      uint64_t vend, uint64_t *out)
{
	for (uint64_t i = 0; i < nref && ref[i].start < vend; i++) {
		uint64_t lo = ref[i].start > vstart ? ref[i].start : vstart;
		uint64_t hi = ref[i].end < vend ? ref[i].end : vend;
		uint64_t a = (lo + align - 1) & ~(align - 1);

		if (a >= lo && a + size > a && a + size <= hi) {
			*out = a;
			ref_take(i, a, size);
			return 0;
		}
	}
	return -ENOSPC;
}

static int ref_take_at(uint64_t a, uint64_t size)
{
	for (uint64_t i = 0; i < nref; i++)
		if (a >= ref[i].start && a < ref[i].end &&
		    size <= ref[i].end - a) {
			ref_take(i, a, size);
			return 0;
		}
	return -ENOSPC;
}

/* ---- the comparison -------------------------------------------------- */

static uint64_t walked;

/* end - ALIGN(start, 2^shift) in 4 KiB units rounded up, saturated: what
 * va_free.c keeps per alignment class, computed apart */
static uint32_t ref_aligned(uint64_t s, uint64_t e, unsigned int shift)
{
	uint64_t a = (s + (1ull << shift) - 1) & ~((1ull << shift) - 1), u;

	if (a < s || a >= e)
		return 0;
	u = (e - a + 4095) / 4096;
	return u > UINT32_MAX ? UINT32_MAX : (uint32_t)u;
}

static void walk(const struct vt_va_free *f, uint32_t t, uint64_t *max,
		 uint32_t *amax)
{
	uint32_t al[VT_VA_ALIGN_CLASSES] = { 0 }, ar[VT_VA_ALIGN_CLASSES] = { 0 };
	uint64_t l = 0, r = 0;

	if (!t)
		return;
	walk(f, f->n[t].l, &l, al);
	if (walked < nref) {
		TEST_ASSERT_EQ("range start", f->n[t].start, ref[walked].start);
		TEST_ASSERT_EQ("range end", f->n[t].end, ref[walked].end);
	}
	walked++;
	walk(f, f->n[t].r, &r, ar);
	*max = f->n[t].end - f->n[t].start;
	if (l > *max)
		*max = l;
	if (r > *max)
		*max = r;
	TEST_ASSERT_EQ("subtree max", f->n[t].max, *max);
	for (unsigned int k = 0; k < VT_VA_ALIGN_CLASSES; k++) {
		uint32_t v = ref_aligned(f->n[t].start, f->n[t].end,
					 VT_VA_ALIGN_SHIFT0 + k);

		v = al[k] > v ? al[k] : v;
		amax[k] = ar[k] > v ? ar[k] : v;
		if (f->aclasses & (1u << k))
			TEST_ASSERT_EQ("aligned subtree max",
				       f->amax[t][f->slot[k]], amax[k]);
	}
}

static void same(const struct vt_va_free *f)
{
	uint32_t amax[VT_VA_ALIGN_CLASSES];
	uint64_t max = 0;

	walked = 0;
	walk(f, f->root, &max, amax);
	TEST_ASSERT_EQ("ranges", walked, nref);
	TEST_ASSERT_EQ("nr", f->nr, nref);
}

/* Live areas, to give back: [start, end). */
static struct range live[1 << 16];
static uint64_t nlive;

/*
 * Up to @n live areas back at once, as a purge gives them (staged in a
 * random order, then added together): by a merge each when few against
 * the tree, else by the rebuild; the same free ranges either way.
 */
static void give_back_many(struct vt_va_free *f, uint64_t n)
{
	for (; n && nlive; n--) {
		uint64_t i = rnd() % nlive;

		TEST_ASSERT_EQ("stage", vt_va_free_stage(f, live[i].start, live[i].end), 0);
		ref_add(live[i].start, live[i].end);
		live[i] = live[--nlive];
	}
	TEST_ASSERT_EQ("add staged", vt_va_free_add_staged(f), 0);
}

/* An empty tree and reference holding [@base, @top), the generator at @seed. */
static void start(struct vt_va_free *f, uint64_t seed, uint64_t base, uint64_t top)
{
	rnd_s = seed;
	vt_va_free_init(f);
	nref = nlive = 0;
	TEST_ASSERT_EQ("add", vt_va_free_add(f, base, top), 0);
	ref_add(base, top);
}

static void test_random(uint64_t seed)
{
	/* a 4K vmalloc-like window and a module-like one below it */
	const uint64_t base = 0xffff800000000000ull, mod = 0xffff800080000000ull,
		       top = 0xffff800100000000ull, page = 4096;
	struct vt_va_free f;

	start(&f, seed, base, top);
	for (int step = 0; step < 20000 && !test_failures; step++) {
		unsigned int what = rnd() % 100;

		if (what < 45 && nlive < (1 << 15)) {
			uint64_t size = (chance(80) ? rr(1, 8) : rlog(1 << 16)) * page;
			uint64_t align = page << (chance(70) ? 0 : rr(0, 12));
			uint64_t vs = chance(50) ? mod : base, ve = vs == mod ? top : mod;
			uint64_t a = 0, b = 0;
			int x, y;

			if (chance(10))		/* sizes that wrap, windows off the space */
				size = chance(50) ? UINT64_MAX - rr(0, 3) * page : 0;
			if (chance(5))
				vs = rr(0, UINT64_MAX), ve = vs + rr(0, 1ull << 40);
			else if (chance(20))	/* a window starting inside a range */
				vs = base + rr(0, (top - base) / page) * page,
				ve = vs + rr(1, 1 << 12) * page;
			x = vt_va_free_take_lowest(&f, size, align, vs, ve, &a);
			y = ref_lowest(size, align, vs, ve, &b);
			TEST_ASSERT_EQ("take_lowest", x, y);
			if (!x && !y) {
				TEST_ASSERT_EQ("lowest address", a, b);
				live[nlive++] = (struct range){ a, a + size };
			}
		} else if (what < 55 && nlive < (1 << 15)) {
			uint64_t size = rr(1, 16) * page;
			uint64_t a = chance(90) ? base + rr(0, (top - base) / page) * page :
				     UINT64_MAX - rr(0, 2);
			int x, y;

			if (chance(5))
				size = UINT64_MAX - rr(0, 2);
			x = vt_va_free_take_at(&f, a, size);
			y = ref_take_at(a, size);
			TEST_ASSERT_EQ("take_at", x, y);
			if (!x && !y)
				live[nlive++] = (struct range){ a, a + size };
		} else if (nlive && chance(8)) {
			give_back_many(&f, rr(1, chance(50) ? 8 : 2000));
		} else if (nlive) {
			uint64_t i = rnd() % nlive;

			TEST_ASSERT_EQ("give back", vt_va_free_add(&f, live[i].start, live[i].end), 0);
			ref_add(live[i].start, live[i].end);
			live[i] = live[--nlive];
		}
		same(&f);
	}
	vt_va_free_release(&f);
}

/*
 * The alignment classes: 2,000 holes of three pages one page past a
 * 1 MiB boundary's multiple of six pages, which no 1 MiB-aligned request
 * fits: the first such search visits them all and keeps the class (and
 * 32 KiB's later), then random fits, frees and takes at an address, each
 * checked against the reference with every kept class's augmentation.
 */
static void test_classes(uint64_t seed)
{
	const uint64_t base = 0xffff800000000000ull, page = 4096,
		       top = base + (1ull << 32);
	struct vt_va_free f;
	uint64_t a, b;

	start(&f, seed, base, top);
	TEST_ASSERT_EQ("first page", vt_va_free_take_at(&f, base, page), 0);
	ref_take_at(base, page);
	for (int i = 0; i < 4000; i++) {
		TEST_ASSERT_EQ("fill", vt_va_free_take_lowest(&f, 3 * page, page, base,
							       top, &a), 0);
		ref_lowest(3 * page, page, base, top, &b);
		if (i % 2 == 0)
			live[nlive++] = (struct range){ a, a + 3 * page };
	}
	for (uint64_t i = 0; i < nlive; i++) {
		vt_va_free_add(&f, live[i].start, live[i].end);
		ref_add(live[i].start, live[i].end);
	}
	nlive = 0;
	same(&f);
	for (int step = 0; step < 3000 && !test_failures; step++) {
		unsigned int what = rnd() % 100;
		uint64_t size = rr(1, 3) * page;
		uint64_t align = chance(40) ? 1ull << 20 : chance(50) ? 1ull << 15 : page;

		if (what < 50 && nlive < (1 << 15)) {
			int x = vt_va_free_take_lowest(&f, size, align, base, top, &a);
			int y = ref_lowest(size, align, base, top, &b);

			TEST_ASSERT_EQ("take_lowest", x, y);
			if (!x && !y) {
				TEST_ASSERT_EQ("lowest address", a, b);
				live[nlive++] = (struct range){ a, a + size };
			}
		} else if (what < 60 && nlive < (1 << 15)) {
			uint64_t at = base + rr(0, 30000) * page;
			int x = vt_va_free_take_at(&f, at, size), y = ref_take_at(at, size);

			TEST_ASSERT_EQ("take_at", x, y);
			if (!x && !y)
				live[nlive++] = (struct range){ at, at + size };
		} else if (nlive && chance(8)) {
			give_back_many(&f, rr(1, 500));
		} else if (nlive) {
			uint64_t i = rnd() % nlive;

			TEST_ASSERT_EQ("give back", vt_va_free_add(&f, live[i].start, live[i].end), 0);
			ref_add(live[i].start, live[i].end);
			live[i] = live[--nlive];
		}
		same(&f);
	}
	TEST_ASSERT_VAL("the 1 MiB class is kept",
			f.aclasses & (1u << (20 - VT_VA_ALIGN_SHIFT0)));
	vt_va_free_release(&f);
}

/*
 * A purge's many areas back at once (vt_va_free_stage(), then
 * vt_va_free_add_staged(): the rebuild when they are many against the
 * tree, a merge each when few): thousands of live areas of random sizes
 * and alignments, given back in batches of every size in a random order,
 * then the space filled again, each fit and the free ranges after every
 * batch checked against the reference.
 */
static void test_batches(uint64_t seed)
{
	const uint64_t base = 0xffff800000000000ull, page = 4096,
		       top = base + (1ull << 34);
	struct vt_va_free f;

	start(&f, seed, base, top);
	for (int round = 0; round < 40 && !test_failures; round++) {
		uint64_t fill = rr(1, 6000);

		for (uint64_t i = 0; i < fill && nlive < (1 << 15); i++) {
			uint64_t size = rr(1, 8) * page, a = 0, b = 0;
			uint64_t align = page << (chance(70) ? 0 : rr(0, 9));
			int x = vt_va_free_take_lowest(&f, size, align, base, top, &a);
			int y = ref_lowest(size, align, base, top, &b);

			TEST_ASSERT_EQ("take_lowest", x, y);
			TEST_ASSERT_EQ("lowest address", a, b);
			if (!x && !y)
				live[nlive++] = (struct range){ a, a + size };
		}
		same(&f);
		give_back_many(&f, chance(20) ? nlive : rr(1, nlive | 1));
		same(&f);
	}
	give_back_many(&f, nlive);
	same(&f);
	TEST_ASSERT_EQ("all back: one range", f.nr, 1);
	vt_va_free_release(&f);
}

/* Was quadratic: 200,000 one-page holes, then as many fits and frees. */
static void test_holes(void)
{
	const uint64_t base = 0xffff800000000000ull, page = 4096, n = 200000;
	struct vt_va_free f;
	uint64_t a;

	vt_va_free_init(&f);
	TEST_ASSERT_EQ("add", vt_va_free_add(&f, base, base + 4 * n * page), 0);
	for (uint64_t i = 0; i < 2 * n; i++)
		TEST_ASSERT_EQ("fill", vt_va_free_take_lowest(&f, page, page, base,
							       UINT64_MAX, &a), 0);
	for (uint64_t i = 0; i < 2 * n; i += 2)
		TEST_ASSERT_EQ("hole", vt_va_free_add(&f, base + i * page,
						      base + (i + 1) * page), 0);
	TEST_ASSERT_EQ("holes and the rest", f.nr, n + 1);
	/* two pages fit only past the holes: the tree skips them all */
	for (uint64_t i = 0; i < n / 2; i++) {
		TEST_ASSERT_EQ("fit", vt_va_free_take_lowest(&f, 2 * page, page, base,
							     UINT64_MAX, &a), 0);
		TEST_ASSERT_EQ("past the holes", a, base + (2 * n + 2 * i) * page);
	}
	for (uint64_t i = 0; i < n; i++)
		TEST_ASSERT_EQ("one page", vt_va_free_take_lowest(&f, page, page, base,
								  UINT64_MAX, &a), 0);
	TEST_ASSERT_EQ("holes used", f.nr, 1);
	vt_va_free_release(&f);
}

int main(void)
{
	for (uint64_t seed = 1; seed <= 8 && !test_failures; seed++)
		test_random(seed);
	for (uint64_t seed = 1; seed <= 2 && !test_failures; seed++)
		test_classes(seed);
	for (uint64_t seed = 1; seed <= 3 && !test_failures; seed++)
		test_batches(seed);
	test_holes();
	return test_result("va-free");
}
