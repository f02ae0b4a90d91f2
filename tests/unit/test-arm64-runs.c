// SPDX-License-Identifier: GPL-2.0
/*
 * Run tables (arch/arm64/runs.c) against array tables: the same stores and
 * clears through the arm64_tbl_*() primitives on two models, one whose
 * PTE tables keep runs and one whose PTE tables are arrays from the
 * start, must give the same entries, the same counts, and the same
 * translations, --verify answers, CONT checks, leaf shapes and ptdump.
 * Random sequences (seeded) of set_ptes(), set_pte_at(), CONT
 * set_huge_pte_at() (with break-before-make; k of them at once as
 * arm64_tbl_set_huge_ptes() against k calls), partial clears that split
 * runs, huge_ptep_get_and_clear(), first_cont() and the clear up to the
 * first CONT entry (arm64_tbl_clear_to_cont() against first_cont() and a
 * clear), on 4K, 16K and 64K, lazy and eager barriers; then a
 * hand-checked split of a CONT run.
 */
#include <string.h>

#include "arch/arm64/runs.h"
#include "prng.h"
#include "test.h"

#define NTBL 2		/* adjacent PTE tables */

struct side {
	struct arm64_mm mm;
	struct arm64_counters st;
	uint32_t id[NTBL];
};

struct ptd_log {
	struct arm64_ptdump_range r[4096];
	unsigned int nr;
};

static int ptd_collect(void *ctx, const struct arm64_ptdump_range *r)
{
	struct ptd_log *l = ctx;

	if (l->nr < 4096)
		l->r[l->nr] = *r;
	l->nr++;
	return 0;
}

/* The PTE table over @va, its upper tables populated (not counted). */
static int pte_table_of(struct side *s, uint64_t va, uint32_t *out)
{
	struct arm64_mm *mm = &s->mm;
	uint32_t id = mm->pgd;

	for (int d = 0; d + 1 < (int)mm->g.levels; d++) {
		uint64_t *p = &mm->tbl[id][arm64_index(&mm->g, d, va)];

		if (!*p && arm64_populate(mm, d, p))
			return -1;
		id = arm64_desc_table_id(mm, *p);
		if (id == UINT32_MAX)
			return -1;
	}
	*out = id;
	return 0;
}

static int side_init(struct side *s, unsigned int ps, unsigned int va,
		     bool eager, bool arrays)
{
	struct arm64_mm_opts o = { .eager_barriers = eager, .patch1 = true,
				   .vmap_cont = true };

	memset(s, 0, sizeof(*s));
	if (arm64_mm_init(&s->mm, ps, va, &o))
		return -1;
	s->mm.st = &s->st;
	for (int t = 0; t < NTBL; t++) {
		uint64_t base = s->mm.g.vmalloc_start + ((uint64_t)t << s->mm.g.pmd_shift);

		if (pte_table_of(s, base, &s->id[t]))
			return -1;
		if (arrays && !arm64_table_mut(&s->mm, s->id[t]))
			return -1;
	}
	memset(&s->st, 0, sizeof(s->st));
	return 0;
}

static uint64_t base_va(const struct side *s)
{
	return s->mm.g.vmalloc_start;
}

/* The same answers from both sides over the tables' range. */
static void compare(struct side *a, struct side *b, const char *what)
{
	const struct arm64_geom *g = &a->mm.g;
	uint64_t n = g->ptrs[g->levels - 1], va0 = base_va(a);
	uint64_t end = va0 + ((uint64_t)NTBL << g->pmd_shift);
	static struct ptd_log la, lb;
	struct arm64_shape sa, sb;
	uint64_t fa = 0, fb = 0, ba, bb;
	int diff = 0;

	for (int t = 0; t < NTBL; t++)
		for (uint64_t i = 0; i < n; i++)
			diff += arm64_entry(&a->mm, a->id[t], i) !=
				arm64_entry(&b->mm, b->id[t], i);
	TEST_ASSERT_EQ(what, diff, 0);
	TEST_ASSERT_VAL(what, !memcmp(&a->st, &b->st, sizeof(a->st)));
	TEST_ASSERT_EQ(what, a->mm.tlb_units, b->mm.tlb_units);
	TEST_ASSERT_EQ(what, a->mm.tlb_units_peak, b->mm.tlb_units_peak);
	TEST_ASSERT_EQ(what, a->mm.lazy_pending, b->mm.lazy_pending);
	for (uint64_t va = va0; va < end; va += g->page_size) {
		struct arm64_xlat xa = { 0 }, xb = { 0 };
		int ra = arm64_translate(&a->mm, va, &xa), rb = arm64_translate(&b->mm, va, &xb);

		if (ra != rb || (!ra && (xa.pa != xb.pa || xa.desc != xb.desc))) {
			TEST_ASSERT_VAL(what, 0);
			break;
		}
	}
	/* --verify of the range against a progression from the first leaf */
	for (uint64_t off = 0; off < end - va0; off += (end - va0) / 4) {
		struct arm64_xlat x = { 0 };
		uint64_t pfn = arm64_translate(&a->mm, va0 + off, &x) ? 5 : x.pa >> g->page_shift;
		uint64_t fva[2] = { 0 }, want[2] = { 0 }, got[2] = { 0 };

		ba = arm64_verify_pages(&a->mm, va0 + off, pfn, (end - va0 - off) >> g->page_shift,
					&fva[0], &want[0], &got[0]);
		bb = arm64_verify_pages(&b->mm, va0 + off, pfn, (end - va0 - off) >> g->page_shift,
					&fva[1], &want[1], &got[1]);
		TEST_ASSERT_EQ(what, ba, bb);
		if (ba) {
			TEST_ASSERT_EQ(what, fva[0], fva[1]);
			TEST_ASSERT_EQ(what, want[0], want[1]);
			TEST_ASSERT_EQ(what, got[0], got[1]);
		}
	}
	ba = arm64_check_cont(&a->mm, va0, end, &fa);
	bb = arm64_check_cont(&b->mm, va0, end, &fb);
	TEST_ASSERT_EQ(what, ba, bb);
	if (ba)
		TEST_ASSERT_EQ(what, fa, fb);
	ba = arm64_check_cont(&a->mm, va0 + 5 * g->page_size, end - 7 * g->page_size, &fa);
	bb = arm64_check_cont(&b->mm, va0 + 5 * g->page_size, end - 7 * g->page_size, &fb);
	TEST_ASSERT_EQ(what, ba, bb);
	arm64_leaf_shape(&a->mm, va0 + 3 * g->page_size, end, &sa);
	arm64_leaf_shape(&b->mm, va0 + 3 * g->page_size, end, &sb);
	TEST_ASSERT_VAL(what, !memcmp(&sa, &sb, sizeof(sa)));
	la.nr = lb.nr = 0;
	arm64_ptdump(&a->mm, ptd_collect, &la);
	arm64_ptdump(&b->mm, ptd_collect, &lb);
	TEST_ASSERT_EQ(what, la.nr, lb.nr);
	if (la.nr == lb.nr && la.nr <= 4096)
		TEST_ASSERT_VAL(what, !memcmp(la.r, lb.r, la.nr * sizeof(la.r[0])));
}

/* Where the last store ended: the next one often continues it (as the
 * walkers go up a table), so runs meet and merge on both sides. */
static int last_t;
static uint64_t last_end;

/* One random operation, the same on both sides. */
static void step(struct side *a, struct side *b, uint64_t *next_pfn, bool invalid)
{
	const struct arm64_geom *g = &a->mm.g;
	uint64_t n = g->ptrs[g->levels - 1], prot = arm64_prot_bits(g, ARM64_PAGE_KERNEL);
	bool cont = chance(50) && last_end < n;
	int t = cont ? last_t : (int)rr(0, NTBL - 1);
	uint64_t i = cont ? last_end : rr(0, n - 1), k, wa = 0, wb = 0;
	uint64_t addr = base_va(a) + ((uint64_t)t << g->pmd_shift) + (i << g->page_shift);
	uint64_t pfn = chance(60) ? *next_pfn : rr(0x1000, 0x100000);
	int ra, rb;

	last_t = t;

	switch (rr(0, 8)) {
	case 0:
	case 1:		/* set_ptes() of a stretch, stopping at a live entry */
		k = rr(1, n - i < 80 ? n - i : 80);
		ra = arm64_runs_set_ptes(&a->mm, a->id[t], i, pfn, k, prot, &wa);
		rb = arm64_runs_set_ptes(&b->mm, b->id[t], i, pfn, k, prot, &wb);
		TEST_ASSERT_EQ("set_ptes rc", ra | rb, 0);
		TEST_ASSERT_EQ("set_ptes written", wa, wb);
		*next_pfn = pfn + wa;
		last_end = i + wa;
		break;
	case 2:		/* set_pte_at(): a leaf, none, or (rarely) invalid */
		k = chance(70) ? arm64_pa_to_desc(g, pfn << g->page_shift) | prot :
		    invalid ? 0x40 : 0;
		ra = arm64_tbl_set_pte_at(&a->mm, a->id[t], i, k);
		rb = arm64_tbl_set_pte_at(&b->mm, b->id[t], i, k);
		TEST_ASSERT_EQ("set_pte_at rc", ra | rb, 0);
		*next_pfn = pfn + 1;
		last_end = i + 1;
		break;
	case 3:
	case 4: {	/* a CONT batch: 1 CONT_PTE block, or several (patch 1) */
		uint64_t blocks = chance(50) ? 1 : rr(2, 4), size = blocks * g->cont_pte_size;
		uint64_t e;

		i &= ~(g->cont_ptes * blocks - 1);
		if (i + blocks * g->cont_ptes > n)
			break;
		addr = base_va(a) + ((uint64_t)t << g->pmd_shift) + (i << g->page_shift);
		pfn &= ~(g->cont_ptes - 1);
		e = arm64_make_huge_pte(&a->mm, arm64_pa_to_desc(g, pfn << g->page_shift) | prot,
					(unsigned int)(63 - __builtin_clzll(size)));
		if (blocks == 3)	/* not a power of two: a plain huge size */
			size = 2 * g->cont_pte_size;
		if (chance(30)) {
			/* k calls of one CONT_PTE size, one after the other, as
			 * the walker batches them; the array side call by call */
			e = arm64_make_huge_pte(&a->mm, arm64_pa_to_desc(g, pfn << g->page_shift) |
						prot, g->cont_pte_shift);
			ra = arm64_tbl_set_huge_ptes(&a->mm, a->id[t], i, addr, e,
						     g->cont_pte_size, blocks);
			rb = 0;
			for (uint64_t j = 0; j < blocks; j++)
				rb |= arm64_tbl_set_huge_pte_at(&b->mm, b->id[t], i + j * g->cont_ptes,
								addr + j * g->cont_pte_size,
								e + j * g->cont_pte_size,
								g->cont_pte_size);
		} else {
			ra = arm64_tbl_set_huge_pte_at(&a->mm, a->id[t], i, addr, e, size);
			rb = arm64_tbl_set_huge_pte_at(&b->mm, b->id[t], i, addr, e, size);
		}
		TEST_ASSERT_EQ("set_huge_pte_at rc", ra | rb, 0);
		*next_pfn = pfn + blocks * g->cont_ptes;
		last_end = i + blocks * g->cont_ptes;
		break;
	}
	case 5:		/* a partial clear: splits the runs it lands in */
		k = rr(1, n - i < 100 ? n - i : 100);
		if (chance(50))	/* then map the hole again: a middle merge */
			last_end = i;
		ra = arm64_tbl_ptes_get_and_clear(&a->mm, a->id[t], i, k);
		rb = arm64_tbl_ptes_get_and_clear(&b->mm, b->id[t], i, k);
		TEST_ASSERT_EQ("clear rc", ra | rb, 0);
		break;
	case 6:		/* huge_ptep_get_and_clear() of a CONT block */
		i &= ~(g->cont_ptes - 1);
		ra = arm64_tbl_huge_ptep_get_and_clear(&a->mm, a->id[t], i, g->cont_pte_size);
		rb = arm64_tbl_huge_ptep_get_and_clear(&b->mm, b->id[t], i, g->cont_pte_size);
		TEST_ASSERT_EQ("huge clear rc", ra | rb, 0);
		break;
	case 7: {	/* vunmap_pte_range()'s batch up to the first CONT entry */
		struct side *one = chance(50) ? a : b, *two = one == a ? b : a;
		uint64_t k1, k2, x1, x2 = 1, e0, d, e;

		if (chance(30))	/* all the table maps: the inline case */
			i = 0;
		k = chance(50) ? n - i : rr(1, n - i);
		e = arm64_entry_extent(&one->mm, one->id[t], i, &d);
		/* @one by arm64_tbl_clear_to_cont(), @two as the walker did
		 * before it: an array's entry i first, first_cont(), clear */
		ra = arm64_tbl_clear_to_cont(&one->mm, one->id[t], i, k, &k1, &x1);
		e0 = arm64_table(&two->mm, two->id[t]) ? arm64_entry(&two->mm, two->id[t], i) : 0;
		k2 = (e0 & PTE_VALID) && (e0 & PTE_CONT) ? 0 :
		     arm64_tbl_first_cont(&two->mm, two->id[t], i, k, &x2);
		rb = k2 ? arm64_tbl_ptes_get_and_clear(&two->mm, two->id[t], i, k2) : 0;
		TEST_ASSERT_EQ("clear_to_cont rc", ra | rb, 0);
		TEST_ASSERT_EQ("clear_to_cont cleared", k1, k2);
		if (!k1)
			TEST_ASSERT_EQ("clear_to_cont's extent", x1,
				       arm64_table(&one->mm, one->id[t]) ? 1 : e);
		break;
	}
	default:	/* first_cont() and the extent of an entry */
		k = rr(1, n - i);
		{
			uint64_t d, e = arm64_entry_extent(&a->mm, a->id[t], i, &d), xa, xb;
			uint64_t fa = arm64_tbl_first_cont(&a->mm, a->id[t], i, k, &xa);

			TEST_ASSERT_EQ("first_cont", fa,
				       arm64_tbl_first_cont(&b->mm, b->id[t], i, k, &xb));
			if (!fa)
				TEST_ASSERT_EQ("first_cont's extent", xa, e);

			TEST_ASSERT_VAL("extent in the table", e >= 1 && i + e <= n);
			for (uint64_t x = 0; x < e; x++)
				if (arm64_entry(&b->mm, b->id[t], i + x) !=
				    (d ? d + (x << g->page_shift) : 0)) {
					TEST_ASSERT_VAL("extent entries", 0);
					break;
				}
		}
		break;
	}
}

/* Rounds of 300 steps on fresh models (a run table that became an array
 * stays one); the last steps of a round may store an invalid entry. */
static void test_random(void)
{
	static const unsigned int geo[][2] = { { 12, 48 }, { 14, 48 }, { 16, 48 } };
	struct side *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));

	TEST_ASSERT_VAL("alloc", a && b);
	for (unsigned int round = 0; a && b && round < 30 && !test_failures; round++) {
		unsigned int gi = round % 3;
		int eager = (round / 3) % 2;
		uint64_t next = 0x4000;
		char what[64];

		snprintf(what, sizeof(what), "random %uK eager=%d round %u",
			 1u << (geo[gi][0] - 10), eager, round);
		if (side_init(a, geo[gi][0], geo[gi][1], eager, false) ||
		    side_init(b, geo[gi][0], geo[gi][1], eager, true)) {
			TEST_ASSERT_VAL("init", 0);
			break;
		}
		TEST_ASSERT_VAL("the run side starts as runs",
				arm64_is_run_table(&a->mm, a->id[0]));
		TEST_ASSERT_VAL("the array side is arrays",
				!arm64_is_run_table(&b->mm, b->id[0]));
		rnd_s = 24 + round;
		for (int s = 0; s < 300 && !test_failures; s++) {
			/* the lazy-MMU pair is emitted between batches */
			arm64_lazy_mmu_enable(&a->mm);
			arm64_lazy_mmu_enable(&b->mm);
			step(a, b, &next, s >= 280);
			arm64_lazy_mmu_disable(&a->mm);
			arm64_lazy_mmu_disable(&b->mm);
			if (s % 20 == 19)
				compare(a, b, what);
		}
		compare(a, b, what);
		arm64_mm_release(&a->mm);
		arm64_mm_release(&b->mm);
	}
	free(a);
	free(b);
}

/*
 * By hand (4K): 256 pages as 16 CONT blocks are one run; a clear of
 * [40, 60) leaves runs [0, 40) and [60, 256), breaks the CONT groups 32-47
 * and 48-63, and counts 20 clears of 20 CONT entries (20 TLB units).
 */
static void test_split(void)
{
	struct side a, b;
	uint64_t prot, e, d;

	if (side_init(&a, 12, 48, false, false) || side_init(&b, 12, 48, false, true)) {
		TEST_ASSERT_VAL("init", 0);
		return;
	}
	prot = arm64_prot_bits(&a.mm.g, ARM64_PAGE_KERNEL);
	for (uint64_t blk = 0; blk < 16; blk++) {
		uint64_t va = base_va(&a) + blk * 65536;

		e = arm64_make_huge_pte(&a.mm, (0x80000000ull + blk * 65536) | prot, 16);
		arm64_tbl_set_huge_pte_at(&a.mm, a.id[0], blk * 16, va, e, 65536);
		arm64_tbl_set_huge_pte_at(&b.mm, b.id[0], blk * 16, va, e, 65536);
	}
	TEST_ASSERT_EQ("one run", a.mm.runs[a.id[0]].list->nr, 1);
	TEST_ASSERT_EQ("its length", arm64_entry_extent(&a.mm, a.id[0], 0, &d), 256);
	TEST_ASSERT_EQ("pte_writes", a.st.c[ARM64_C_pte_writes], 256);
	TEST_ASSERT_EQ("cont_ranges", a.st.c[ARM64_C_cont_ranges], 16);
	TEST_ASSERT_EQ("set_huge_pte_at_calls", a.st.c[ARM64_C_set_huge_pte_at_calls], 16);
	TEST_ASSERT_EQ("no broken group", arm64_check_cont(&a.mm, base_va(&a),
							  base_va(&a) + (1 << 20), NULL), 0);
	compare(&a, &b, "split: mapped");
	arm64_tbl_ptes_get_and_clear(&a.mm, a.id[0], 40, 20);
	arm64_tbl_ptes_get_and_clear(&b.mm, b.id[0], 40, 20);
	TEST_ASSERT_EQ("two runs", a.mm.runs[a.id[0]].list->nr, 2);
	TEST_ASSERT_EQ("the head", arm64_entry_extent(&a.mm, a.id[0], 0, &d), 40);
	TEST_ASSERT_EQ("the gap", arm64_entry_extent(&a.mm, a.id[0], 40, &d), 20);
	TEST_ASSERT_EQ("the gap is none", d, 0);
	TEST_ASSERT_EQ("the tail", arm64_entry_extent(&a.mm, a.id[0], 60, &d), 196);
	TEST_ASSERT_EQ("the tail's first leaf", d, arm64_make_huge_pte(&a.mm,
			(0x80000000ull + 60 * 4096) | prot, 16));
	TEST_ASSERT_EQ("pte_clears", a.st.c[ARM64_C_pte_clears], 20);
	TEST_ASSERT_EQ("tlb units", a.mm.tlb_units, 256 - 20);
	TEST_ASSERT_EQ("two broken groups", arm64_check_cont(&a.mm, base_va(&a),
							    base_va(&a) + (1 << 20), NULL), 2);
	compare(&a, &b, "split: cleared");
	/* the gap mapped again by set_ptes() (no CONT): three runs, no merge */
	arm64_runs_set_ptes(&a.mm, a.id[0], 40, 0x80000 + 40, 20, prot, &e);
	arm64_runs_set_ptes(&b.mm, b.id[0], 40, 0x80000 + 40, 20, prot, &e);
	TEST_ASSERT_EQ("three runs", a.mm.runs[a.id[0]].list->nr, 3);
	compare(&a, &b, "split: refilled");
	/* scattered single pages: past arm64_runs_max() runs, an array */
	for (uint64_t i = 300; i < 300 + 2 * arm64_runs_max(&a.mm.g); i += 2) {
		arm64_runs_set_ptes(&a.mm, a.id[0], i, 0x9000 + 7 * i, 1, prot, &e);
		arm64_runs_set_ptes(&b.mm, b.id[0], i, 0x9000 + 7 * i, 1, prot, &e);
	}
	TEST_ASSERT_VAL("scattered pages: an array", !arm64_is_run_table(&a.mm, a.id[0]));
	compare(&a, &b, "split: scattered");
	arm64_mm_release(&a.mm);
	arm64_mm_release(&b.mm);
}

/*
 * By hand (4K): vunmap_pte_range()'s batch over a table's whole range.
 * Three stretches of pages [5, 9), [20, 30) and [31, 40) are three runs;
 * arm64_tbl_clear_to_cont() of [0, 512) clears all 512 entries at once
 * (23 valid: 23 * 16 TLB units) and leaves no run.  Then with a CONT
 * block at [64, 80) after a stretch at [2, 6): the batch stops at entry 64
 * (64 cleared, the block kept), and the next one, from the block, clears
 * nothing and gives the block's extent.
 */
static void test_clear_to_cont(void)
{
	struct side a, b;
	uint64_t prot, e, k = 0, x = 0;

	if (side_init(&a, 12, 48, false, false) || side_init(&b, 12, 48, false, true)) {
		TEST_ASSERT_VAL("init", 0);
		return;
	}
	prot = arm64_prot_bits(&a.mm.g, ARM64_PAGE_KERNEL);
	for (int s = 0; s < 2; s++) {
		struct side *sd = s ? &b : &a;

		arm64_runs_set_ptes(&sd->mm, sd->id[0], 5, 0x1000, 4, prot, &e);
		arm64_runs_set_ptes(&sd->mm, sd->id[0], 20, 0x2000, 10, prot, &e);
		arm64_runs_set_ptes(&sd->mm, sd->id[0], 31, 0x3000, 9, prot, &e);
	}
	TEST_ASSERT_EQ("three runs", a.mm.runs[a.id[0]].list->nr, 3);
	a.st = b.st = (struct arm64_counters){ 0 };
	TEST_ASSERT_EQ("rc", arm64_tbl_clear_to_cont(&a.mm, a.id[0], 0, 512, &k, &x), 0);
	TEST_ASSERT_EQ("all cleared", k, 512);
	TEST_ASSERT_EQ("no run left", a.mm.runs[a.id[0]].list->nr, 0);
	TEST_ASSERT_EQ("pte_clears", a.st.c[ARM64_C_pte_clears], 512);
	TEST_ASSERT_EQ("tlb units", a.mm.tlb_units, 0);
	TEST_ASSERT_EQ("array side rc", arm64_tbl_clear_to_cont(&b.mm, b.id[0], 0, 512, &k, &x), 0);
	TEST_ASSERT_EQ("array side: all cleared", k, 512);
	compare(&a, &b, "clear_to_cont: all");

	for (int s = 0; s < 2; s++) {
		struct side *sd = s ? &b : &a;
		uint64_t va = base_va(sd) + 64 * 4096;

		e = arm64_make_huge_pte(&sd->mm, 0x80000000ull | prot, 16);
		arm64_runs_set_ptes(&sd->mm, sd->id[0], 2, 0x1000, 4, prot, &k);
		arm64_tbl_set_huge_pte_at(&sd->mm, sd->id[0], 64, va, e, 65536);
		TEST_ASSERT_EQ("rc", arm64_tbl_clear_to_cont(&sd->mm, sd->id[0], 0, 512, &k, &x), 0);
		TEST_ASSERT_EQ("up to the block", k, 64);
		TEST_ASSERT_EQ("rc", arm64_tbl_clear_to_cont(&sd->mm, sd->id[0], 64, 448, &k, &x), 0);
		TEST_ASSERT_EQ("at the block", k, 0);
		TEST_ASSERT_EQ("its extent", x, s ? 1 : 16);
	}
	TEST_ASSERT_EQ("the block's run", a.mm.runs[a.id[0]].list->nr, 1);
	compare(&a, &b, "clear_to_cont: CONT");
	arm64_mm_release(&a.mm);
	arm64_mm_release(&b.mm);
}

int main(void)
{
	test_split();
	test_clear_to_cont();
	test_random();
	return test_result("test-arm64-runs");
}
