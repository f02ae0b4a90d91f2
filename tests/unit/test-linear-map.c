// SPDX-License-Identifier: GPL-2.0
/*
 * The linear-map builder (arch/arm64/linear-map.c) against the counts of
 * spec/worked-examples.md S9 and hand counts of map_mem() for 16 and
 * 256 GiB, per version of arch/arm64/mm/mmu.c.
 */
#include <string.h>

#include "arch/arm64/linear-map.h"
#include "test.h"

#define GiB (1ull << 30)
#define M(st, x) ((st)->c[ARM64_C_##x])

static const char *const vname[] = { "old", "p1", "p1p2", "new" };

struct want {
	uint64_t fixmap, dsb_ishst, dsb_ish, isb;
};

static int map(struct arm64_mm *mm, struct arm64_counters *st, unsigned int ps,
	       unsigned int va, enum arm64_linear_variant v, uint64_t phys,
	       uint64_t size, unsigned int flags)
{
	struct arm64_mm_opts o = { 0 };
	uint64_t memstart;
	int err;

	if (arm64_mm_init(mm, ps, va, &o))
		return -1;
	memset(st, 0, sizeof(*st));
	mm->st = st;
	memstart = phys & ~(arm64_memstart_align(&mm->g) - 1);
	err = arm64___create_pgd_mapping(mm, v, phys,
				       arm64_linear_virt(&mm->g, memstart, phys),
				       size, arm64_linear_prot(&mm->g), flags);
	return err;
}

static void check_verify(struct arm64_mm *mm, uint64_t phys, uint64_t size,
			 const char *what)
{
	uint64_t memstart = phys & ~(arm64_memstart_align(&mm->g) - 1), first;
	uint64_t bad = arm64_linear_verify(mm, phys,
					   arm64_linear_virt(&mm->g, memstart, phys),
					   size, arm64_linear_prot(&mm->g), &first);

	if (bad)
		fprintf(stderr, "%s: %llu pages wrong from 0x%llx\n", what,
			(unsigned long long)bad, (unsigned long long)first);
	TEST_ASSERT_EQ(what, bad, 0);
}

/*
 * S9: 1 GiB at PTE granularity (rodata=full): T = 1 PUD + 1 PMD + 512 PTE
 * tables = 514, N = 262,144 PTEs.
 */
static void test_s9(void)
{
	static const struct want w[] = {
		/* 514 allocs + 1 PUD + 32 PMD (per CONT_PMD) + 512 x 32 PTE */
		[ARM64_LINEAR_OLD] = { 16931, 296520, 16931, 296520 },
		/* 514 allocs + 514 populations */
		[ARM64_LINEAR_P1] = { 1028, 264714, 1028, 264714 },
		/* PTE stores without barriers: 2 x 1028 + 514 */
		[ARM64_LINEAR_P1P2] = { 1028, 2570, 1028, 2570 },
		/* one map per table: map + clear_page dsb + populate pair +
		 * unmap = 3 ishst, 1 ish, 3 isb per table, minus nothing */
		[ARM64_LINEAR_NEW] = { 514, 2056, 514, 1542 },
	};

	for (int v = 0; v < 4; v++) {
		struct arm64_mm mm;
		struct arm64_counters st;
		char what[64];
		int err = map(&mm, &st, 12, 48, v, 0x40000000, GiB,
			      ARM64_NO_EXEC_MAPPINGS | ARM64_NO_BLOCK_MAPPINGS |
			      ARM64_NO_CONT_MAPPINGS);

		snprintf(what, sizeof(what), "S9 %s", vname[v]);
		TEST_ASSERT_EQ(what, err, 0);
		TEST_ASSERT_EQ("tables", M(&st, tables_allocated), 514);
		TEST_ASSERT_EQ("pgd_writes", M(&st, pgd_writes), 1);
		TEST_ASSERT_EQ("pud_writes", M(&st, pud_writes), 1);
		TEST_ASSERT_EQ("pmd_writes", M(&st, pmd_writes), 512);
		TEST_ASSERT_EQ("pte_writes", M(&st, pte_writes), 262144);
		TEST_ASSERT_EQ("walks", M(&st, table_walks), 1);
		TEST_ASSERT_EQ("steps", M(&st, walk_steps), 1 + 1 + 512);
		TEST_ASSERT_EQ("fixmap_maps", M(&st, fixmap_maps), w[v].fixmap);
		TEST_ASSERT_EQ("fixmap_stores", M(&st, fixmap_stores), 2 * w[v].fixmap);
		TEST_ASSERT_EQ("tlbi", M(&st, tlbi), w[v].fixmap);
		TEST_ASSERT_EQ("vaale1is", M(&st, tlbi_vaale1is), w[v].fixmap);
		TEST_ASSERT_EQ("dsb ishst", M(&st, dsb_ishst), w[v].dsb_ishst);
		TEST_ASSERT_EQ("dsb ish", M(&st, dsb_ish), w[v].dsb_ish);
		TEST_ASSERT_EQ("dsb", M(&st, dsb), w[v].dsb_ishst + w[v].dsb_ish);
		TEST_ASSERT_EQ("isb", M(&st, isb), w[v].isb);
		TEST_ASSERT_EQ("no blocks", M(&st, block_maps), 0);
		TEST_ASSERT_EQ("no cont", M(&st, cont_ranges), 0);
		TEST_ASSERT_EQ("no dmb", M(&st, dmb), 0);
		check_verify(&mm, 0x40000000, GiB, what);
		arm64_mm_release(&mm);
	}
}

/*
 * Seed 003: "we ended up issuing 32 TLBIs per (pmd|pte) table during the
 * population phase" -> 1 after the patch.  One PTE table populated
 * (2 MiB, the PUD and PMD tables already there from a first call).
 */
static void test_per_table(void)
{
	for (int v = ARM64_LINEAR_OLD; v <= ARM64_LINEAR_P1; v++) {
		struct arm64_mm mm;
		struct arm64_counters st, before;
		uint64_t phys = 0x40000000, memstart;
		unsigned int fl = ARM64_NO_EXEC_MAPPINGS | ARM64_NO_BLOCK_MAPPINGS |
				  ARM64_NO_CONT_MAPPINGS;

		TEST_ASSERT_EQ("first", map(&mm, &st, 12, 48, v, phys, 2ull << 20, fl), 0);
		before = st;
		memstart = phys & ~(arm64_memstart_align(&mm.g) - 1);
		phys += 2ull << 20;
		TEST_ASSERT_EQ("second",
			       arm64___create_pgd_mapping(&mm, v, phys,
							arm64_linear_virt(&mm.g, memstart, phys),
							2ull << 20, arm64_linear_prot(&mm.g), fl), 0);
		/* the new PTE table: 1 pair at allocation; population: 32
		 * CONT_PTE sub-ranges (old) or 1 (p1); the PUD table once and
		 * the PMD table once per CONT_PMD sub-range (1 here) */
		TEST_ASSERT_EQ("tables", M(&st, tables_allocated) - M(&before, tables_allocated), 1);
		TEST_ASSERT_EQ(v == ARM64_LINEAR_OLD ? "old: 32 TLBIs for the PTE table"
						     : "p1: 1 TLBI for the PTE table",
			       M(&st, tlbi) - M(&before, tlbi),
			       1 + 1 + 1 + (v == ARM64_LINEAR_OLD ? 32 : 1));
		check_verify(&mm, 0x40000000, 4ull << 20, "per table");
		arm64_mm_release(&mm);
	}
}

/*
 * map_mem() of 16 and 256 GiB at PTE granularity, DRAM from 2 GiB
 * (memstart_addr = 2 GiB, so VA = PAGE_OFFSET and one PGD entry, one
 * PUD table, covers up to 512 GiB).  Hand count for G GiB:
 *   T_pud = 1, T_pmd = G, T_pte = 512 G, T = 1 + 513 G, N = 262144 G;
 *   steps = 1 + G + 512 G; stores: pgd 1, pud G, pmd 512 G, pte N.
 *   old:  pairs = T + 1 + 32 G + 32 x 512 G
 *         dsb ishst = 2 pairs + N + T, ish = pairs, isb = 2 pairs + N + T
 *   p1:   pairs = 2T; same barrier formula
 *   p1p2: pairs = 2T; ishst = 2 pairs + T, ish = pairs, isb = 2 pairs + T
 *   new:  pairs = T; ishst = 4T, ish = T, isb = 3T
 * 16 GiB: T = 8209, N = 4194304; old pairs = 8209 + 1 + 512 + 262144 =
 * 270866; 2T = 16418.
 * 256 GiB: T = 131329, N = 67108864; old pairs = 131329 + 1 + 8192 +
 * 4194304 = 4333826; 2T = 262658.
 */
static void test_map_mem(void)
{
	static const uint64_t gib[] = { 16, 256 };

	for (int i = 0; i < 2; i++) {
		uint64_t G = gib[i], T = 1 + 513 * G, N = 262144 * G;
		uint64_t pairs[4] = { T + 1 + 32 * G + 32 * 512 * G, 2 * T, 2 * T, T };

		TEST_ASSERT_EQ("hand count 16G old", i ? 4333826 : 270866, pairs[0]);
		for (int v = 0; v < 4; v++) {
			struct arm64_mm mm;
			struct arm64_counters st;
			char what[64];
			uint64_t ishst, ish, isb;

			snprintf(what, sizeof(what), "map_mem %llu GiB %s",
				 (unsigned long long)G, vname[v]);
			TEST_ASSERT_EQ(what, map(&mm, &st, 12, 48, v, 2 * GiB, G * GiB,
						 ARM64_NO_EXEC_MAPPINGS |
						 ARM64_NO_BLOCK_MAPPINGS |
						 ARM64_NO_CONT_MAPPINGS), 0);
			if (v <= ARM64_LINEAR_P1) {
				ishst = 2 * pairs[v] + N + T;
				isb = ishst;
			} else if (v == ARM64_LINEAR_P1P2) {
				ishst = 2 * pairs[v] + T;
				isb = ishst;
			} else {
				ishst = 4 * T;
				isb = 3 * T;
			}
			ish = pairs[v];
			TEST_ASSERT_EQ(what, M(&st, tables_allocated), T);
			TEST_ASSERT_EQ("steps", M(&st, walk_steps), 1 + G + 512 * G);
			TEST_ASSERT_EQ("pud_writes", M(&st, pud_writes), G);
			TEST_ASSERT_EQ("pmd_writes", M(&st, pmd_writes), 512 * G);
			TEST_ASSERT_EQ("pte_writes", M(&st, pte_writes), N);
			TEST_ASSERT_EQ("fixmap", M(&st, fixmap_maps), pairs[v]);
			TEST_ASSERT_EQ("tlbi", M(&st, tlbi), pairs[v]);
			TEST_ASSERT_EQ("ishst", M(&st, dsb_ishst), ishst);
			TEST_ASSERT_EQ("ish", M(&st, dsb_ish), ish);
			TEST_ASSERT_EQ("isb", M(&st, isb), isb);
			if (G == 16)
				check_verify(&mm, 2 * GiB, G * GiB, what);
			arm64_mm_release(&mm);
		}
	}
}

/*
 * Without rodata=full (or with BBML2_NOABORT in the newest kernels): the
 * same 1 GiB at a 1 GiB-aligned PA is one PUD block; an unaligned range
 * uses CONT PMD blocks, PMD blocks, CONT PTEs and PTEs.
 */
static void test_blocks(void)
{
	struct arm64_mm mm;
	struct arm64_counters st;

	TEST_ASSERT_EQ("1G block", map(&mm, &st, 12, 48, ARM64_LINEAR_NEW,
				       0x40000000, GiB, ARM64_NO_EXEC_MAPPINGS), 0);
	TEST_ASSERT_EQ("pud block", M(&st, pud_writes), 1);
	TEST_ASSERT_EQ("block_maps", M(&st, block_maps), 1);
	TEST_ASSERT_EQ("tables: the PUD table", M(&st, tables_allocated), 1);
	TEST_ASSERT_EQ("one fixmap pair", M(&st, fixmap_maps), 1);
	check_verify(&mm, 0x40000000, GiB, "1G block");
	arm64_mm_release(&mm);

	/* [1G + 64K, 1G + 96M): PTEs with CONT to 2M, PMD blocks to 32M, a
	 * CONT_PMD range [32M, 64M), PMD blocks to 96M */
	TEST_ASSERT_EQ("mixed", map(&mm, &st, 12, 48, ARM64_LINEAR_P1,
				    0x40010000, (96ull << 20) - (64 << 10),
				    ARM64_NO_EXEC_MAPPINGS), 0);
	/* PTE part: 2M - 64K = 496 PTEs = 31 CONT ranges; 15 PMD blocks in
	 * [2M, 32M), 16 CONT PMD blocks in [32M, 64M), 16 PMD blocks with
	 * CONT in [64M, 96M) */
	TEST_ASSERT_EQ("pte_writes", M(&st, pte_writes), 496);
	TEST_ASSERT_EQ("cont_ranges", M(&st, cont_ranges), 31 + 1 + 1);
	TEST_ASSERT_EQ("blocks", M(&st, block_maps), 15 + 16 + 16);
	TEST_ASSERT_EQ("tables", M(&st, tables_allocated), 3);
	check_verify(&mm, 0x40010000, (96ull << 20) - (64 << 10), "mixed");
	arm64_mm_release(&mm);
}

/* Other granules: 64K/42 (2 levels, PMD folded) and 16K/47 (3 levels),
 * 4K/39 (PUD folded: the 1 GiB entries are PGD entries) and 4K/52 (5
 * levels, FIX_P4D used).  Every page translates right. */
static void test_geometries(void)
{
	static const struct { unsigned int ps, va; } geo[] = {
		{ 16, 42 }, { 16, 48 }, { 14, 47 }, { 14, 36 }, { 12, 39 }, { 12, 52 },
	};

	for (size_t i = 0; i < sizeof(geo) / sizeof(geo[0]); i++) {
		for (int v = 0; v < 4; v++) {
			for (int blocks = 0; blocks < 2; blocks++) {
				struct arm64_mm mm;
				struct arm64_counters st;
				char what[64];
				uint64_t phys = 0x80000000ull + (3ull << 20) * geo[i].ps;

				phys &= ~((1ull << geo[i].ps) - 1);
				snprintf(what, sizeof(what), "%uK/%u %s %s",
					 1u << (geo[i].ps - 10), geo[i].va, vname[v],
					 blocks ? "blocks" : "ptes");
				TEST_ASSERT_EQ(what, map(&mm, &st, geo[i].ps, geo[i].va, v,
							 phys, 1ull << 30,
							 ARM64_NO_EXEC_MAPPINGS |
							 (blocks ? 0 : ARM64_NO_BLOCK_MAPPINGS |
								       ARM64_NO_CONT_MAPPINGS)), 0);
				check_verify(&mm, phys, 1ull << 30, what);
				TEST_ASSERT_VAL(what, M(&st, table_walks) == 1);
				arm64_mm_release(&mm);
			}
		}
	}
}

/*
 * Folded and extra levels, 1 GiB at PTE granularity:
 * 4K/52 (LPA2, 5 levels): P4D + PUD + PMD + 512 PTE tables = 515; the P4D
 * table is reached through FIX_P4D (pgtable_l5_enabled()); steps 1 PGD + 1
 * P4D + 1 PUD + 512 PMD; old pairs = 515 + 1 (P4D once) + 1 (PUD once) +
 * 32 (PMD per CONT_PMD) + 16384 = 16933.
 * 4K/39 (3 levels, PUD folded into the 1 GiB PGD entries): PMD + 512 PTE
 * = 513 tables; no PUD fixmap; the PMD-table descriptor goes into
 * swapper_pg_dir (pgd_writes); old pairs = 513 + 32 + 16384 = 16929.
 */
static void test_levels(void)
{
	static const struct {
		unsigned int va;
		uint64_t tables, steps, old_pairs, pgd, p4d, pud;
	} c[] = {
		{ 52, 515, 515, 16933, 1, 1, 1 },
		{ 39, 513, 513, 16929, 1, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		for (int v = 0; v < 4; v++) {
			struct arm64_mm mm;
			struct arm64_counters st;
			char what[64];
			uint64_t T = c[i].tables;
			uint64_t pairs = v == ARM64_LINEAR_OLD ? c[i].old_pairs :
					 v == ARM64_LINEAR_NEW ? T : 2 * T;

			snprintf(what, sizeof(what), "4K/%u %s", c[i].va, vname[v]);
			TEST_ASSERT_EQ(what, map(&mm, &st, 12, c[i].va, v, 0x40000000, GiB,
						 ARM64_NO_EXEC_MAPPINGS | ARM64_NO_BLOCK_MAPPINGS |
						 ARM64_NO_CONT_MAPPINGS), 0);
			TEST_ASSERT_EQ("tables", M(&st, tables_allocated), T);
			TEST_ASSERT_EQ("steps", M(&st, walk_steps), c[i].steps);
			TEST_ASSERT_EQ("pgd_writes", M(&st, pgd_writes), c[i].pgd);
			TEST_ASSERT_EQ("p4d_writes", M(&st, p4d_writes), c[i].p4d);
			TEST_ASSERT_EQ("pud_writes", M(&st, pud_writes), c[i].pud);
			TEST_ASSERT_EQ("pmd_writes", M(&st, pmd_writes), 512);
			TEST_ASSERT_EQ("fixmap pairs", M(&st, fixmap_maps), pairs);
			TEST_ASSERT_EQ("tlbi", M(&st, tlbi), pairs);
			check_verify(&mm, 0x40000000, GiB, what);
			arm64_mm_release(&mm);
		}
	}
}

/* Mapping a range twice: permission-only changes pass; a changed PA or a
 * CONT entry in the old code is a BUG_ON(). */
static void test_remap(void)
{
	struct arm64_mm mm;
	struct arm64_counters st;
	uint64_t phys = 0x40000000, virt;

	TEST_ASSERT_EQ("map", map(&mm, &st, 12, 48, ARM64_LINEAR_P1, phys, 4ull << 20,
				  ARM64_NO_EXEC_MAPPINGS | ARM64_NO_BLOCK_MAPPINGS |
				  ARM64_NO_CONT_MAPPINGS), 0);
	virt = arm64_linear_virt(&mm.g, phys, phys);
	TEST_ASSERT_EQ("same again", arm64___create_pgd_mapping(&mm, ARM64_LINEAR_P1, phys, virt,
							      4ull << 20, arm64_linear_prot(&mm.g),
							      ARM64_NO_BLOCK_MAPPINGS |
							      ARM64_NO_CONT_MAPPINGS), 0);
	TEST_ASSERT_EQ("other PA", arm64___create_pgd_mapping(&mm, ARM64_LINEAR_P1, phys + (4 << 20),
							    virt, 4ull << 20, arm64_linear_prot(&mm.g),
							    ARM64_NO_BLOCK_MAPPINGS |
							    ARM64_NO_CONT_MAPPINGS),
		       (uint64_t)(int64_t)ARM64_LINEAR_EBUG);
	TEST_ASSERT_EQ("misaligned", arm64___create_pgd_mapping(&mm, ARM64_LINEAR_P1, phys + 1,
							      virt, 4096, arm64_linear_prot(&mm.g), 0),
		       (uint64_t)(int64_t)ARM64_LINEAR_EMISALIGNED);
	arm64_mm_release(&mm);
}

/* ptdump ranges folded into one number, to compare two trees. */
static int ptd_sum(void *ctx, const struct arm64_ptdump_range *r)
{
	uint64_t *h = ctx;

	*h = (*h ^ r->va_start) * 1099511628211ull;
	*h = (*h ^ r->va_end ^ (r->pa_start << 1) ^ r->attrs ^ (r->nr << 3) ^
	      (uint64_t)r->level) * 1099511628211ull;
	return 0;
}

/*
 * Run tables (issue 24): a whole PTE table filled by one call is kept as
 * one record, not an array; built half a table per call instead, every
 * table is an array.  Both must translate, verify, shape and ptdump the
 * same, and a run table written to is expanded to the same descriptors.
 */
static void test_run_tables(void)
{
	static const unsigned int flags[] = {
		ARM64_NO_EXEC_MAPPINGS | ARM64_NO_BLOCK_MAPPINGS | ARM64_NO_CONT_MAPPINGS,
		ARM64_NO_EXEC_MAPPINGS | ARM64_NO_BLOCK_MAPPINGS,
	};
	const uint64_t size = 1ull << 30, half = 1ull << 20;

	for (unsigned int f = 0; f < 2; f++) {
		for (uint64_t off = 0; off <= 0x1000; off += 0x1000) {
			struct arm64_mm a, b;
			struct arm64_counters sa, sb;
			struct arm64_shape ha, hb;
			uint64_t phys = 0x40000000 + off, virt, first, arrays = 0, ptda = 0, ptdb = 0;
			uint64_t *t;
			int err;
			char what[96];

			snprintf(what, sizeof(what), "runs flags %u off 0x%llx", f,
				 (unsigned long long)off);
			TEST_ASSERT_EQ(what, map(&a, &sa, 12, 48, ARM64_LINEAR_NEW, phys, size,
						 flags[f]), 0);
			/* b: pieces ending on 1 MiB VA boundaries, where a CONT_PTE
			 * range ends too, so the kernel's choices are a's */
			virt = arm64_linear_virt(&a.g, 0x40000000, phys);
			first = ((virt + half) & ~(half - 1)) - virt;
			TEST_ASSERT_EQ(what, map(&b, &sb, 12, 48, ARM64_LINEAR_NEW, phys, first,
						 flags[f]), 0);
			for (uint64_t x = first; x < size; x += half) {
				uint64_t n = size - x < half ? size - x : half;

				err = arm64___create_pgd_mapping(&b, ARM64_LINEAR_NEW, phys + x,
								 virt + x, n,
								 arm64_linear_prot(&b.g), flags[f]);
				TEST_ASSERT_EQ(what, err, 0);
			}
			for (uint32_t id = 0; id < a.nr_tbl; id++)
				arrays += a.tbl[id] != NULL;
			/* 512 PTE tables, 1 GiB at offset 0 (off 4K: 511 whole) */
			TEST_ASSERT_VAL(what, arrays < 16);
			TEST_ASSERT_EQ(what, M(&sa, pte_writes), size >> 12);
			TEST_ASSERT_EQ(what, M(&sa, pte_writes), M(&sb, pte_writes));
			TEST_ASSERT_EQ(what, M(&sa, cont_ranges), M(&sb, cont_ranges));
			TEST_ASSERT_EQ(what, a.lin_tlb_units_peak, b.lin_tlb_units_peak);
			for (uint64_t va = virt & ~0xfffull; va < virt + size; va += 4096) {
				struct arm64_xlat xa, xb;
				int ra = arm64_translate(&a, va, &xa), rb = arm64_translate(&b, va, &xb);

				if (ra != rb || (!ra && (xa.desc != xb.desc || xa.pa != xb.pa))) {
					fprintf(stderr, "%s: va 0x%llx differs\n", what,
						(unsigned long long)va);
					TEST_ASSERT_VAL(what, 0);
					break;
				}
			}
			check_verify(&a, phys, size, what);
			TEST_ASSERT_EQ(what, arm64_check_cont(&a, virt, virt + size, NULL),
				       arm64_check_cont(&b, virt, virt + size, NULL));
			arm64_leaf_shape(&a, virt, virt + size, &ha);
			arm64_leaf_shape(&b, virt, virt + size, &hb);
			TEST_ASSERT_VAL(what, !memcmp(&ha, &hb, sizeof(ha)));
			TEST_ASSERT_EQ(what, ha.pte, size >> 12);
			arm64_ptdump(&a, ptd_sum, &ptda);
			arm64_ptdump(&b, ptd_sum, &ptdb);
			TEST_ASSERT_EQ(what, ptda, ptdb);
			/* a run table written to: expanded in place, same entries */
			for (uint32_t id = 0; id < a.nr_tbl; id++) {
				if (!arm64_is_run_table(&a, id))
					continue;
				t = arm64_table_mut(&a, id);
				TEST_ASSERT_VAL(what, t && a.tbl[id] == t &&
						      !arm64_is_run_table(&a, id));
				break;
			}
			ptda = 0;
			arm64_ptdump(&a, ptd_sum, &ptda);
			TEST_ASSERT_EQ(what, ptda, ptdb);
			arm64_mm_release(&a);
			arm64_mm_release(&b);
		}
	}
}

/* A run table on an id freed before keeps that id's array: filled whole. */
static void test_run_reused_id(void)
{
	struct arm64_mm mm;
	struct arm64_counters st;
	struct arm64_xlat x;
	uint64_t phys = 0x40000000, virt, size = 4ull << 20;
	unsigned int idx;
	uint32_t id;

	TEST_ASSERT_EQ("map", map(&mm, &st, 12, 48, ARM64_LINEAR_NEW, phys, 4096,
				  ARM64_NO_BLOCK_MAPPINGS | ARM64_NO_CONT_MAPPINGS), 0);
	TEST_ASSERT_EQ("alloc", arm64_table_alloc(&mm, (int)mm.g.levels - 1, &id), 0);
	arm64_table_free(&mm, id);
	virt = arm64_linear_virt(&mm.g, phys, phys);
	TEST_ASSERT_EQ("map over the freed id",
		       arm64___create_pgd_mapping(&mm, ARM64_LINEAR_NEW, phys + size, virt + size,
						  size, arm64_linear_prot(&mm.g),
						  ARM64_NO_BLOCK_MAPPINGS | ARM64_NO_CONT_MAPPINGS), 0);
	TEST_ASSERT_VAL("the freed id is an array again", mm.tbl[id] && !arm64_is_run_table(&mm, id));
	TEST_ASSERT_VAL("and the first new PTE table",
			arm64_pte_table(&mm, virt + size, &idx) == mm.tbl[id]);
	for (uint64_t va = virt + size; va < virt + 2 * size; va += 4096)
		if (arm64_translate(&mm, va, &x) || x.pa != phys + (va - virt)) {
			TEST_ASSERT_VAL("translates", 0);
			break;
		}
	check_verify(&mm, phys + size, size, "reused id");
	arm64_mm_release(&mm);
}

int main(void)
{
	test_s9();
	test_per_table();
	test_map_mem();
	test_blocks();
	test_geometries();
	test_levels();
	test_remap();
	test_run_tables();
	test_run_reused_id();
	return test_result("test-linear-map");
}
