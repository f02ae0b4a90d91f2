// SPDX-License-Identifier: GPL-2.0
/*
 * --initial=booted (docs/model.md, "Initial page tables"): swapper_pg_dir
 * starts with the tables from the PGD down to the PMD table over
 * KIMAGE_VADDR (= VMALLOC_START, the kernel image mapped by map_kernel(),
 * arch/arm64/kernel/pi/map_kernel.c), over MODULES_END - 1 (the modules
 * the boot loads, from _end - SZ_128M) and over VMEMMAP_START (the first
 * struct pages, vmemmap_populate()), and no other table; --initial=empty
 * with the PGD alone.  The expectations were worked out by hand for every
 * Kconfig-valid geometry from asm/memory.h (VMEMMAP_START = -SZ_1G -
 * VMEMMAP_SIZE, VMALLOC_END = VMEMMAP_START - SZ_8M) and the level shifts;
 * nothing below asks the code under test for them.  Under 6.1's layout
 * (--modules-region=128m --vmalloc-end=256m, as --kernel=v6.1 sets):
 * VMALLOC_START = MODULES_VADDR + SZ_128M, VMEMMAP_START = -(1 << (VA_BITS
 * - VMEMMAP_SHIFT)), VMALLOC_END = VMEMMAP_START - SZ_256M, and one chain
 * more, over the fixmap (FIXADDR_TOP = VMEMMAP_START - SZ_32M,
 * early_fixmap_init()), whose entry holds the top of the vmalloc area.
 */
#include <string.h>

#include "arch/arm64/arm64.h"
#include "test.h"

struct booted_case {
	unsigned int ps, va;
	unsigned int tables;	/* live tables after arm64_mm_init(), booted */
	uint64_t vmalloc_start, vmemmap_start;
	uint64_t next_entry;	/* vmalloc_start + one entry of depth pmd_depth - 1 */
	int top_shared;		/* VMALLOC_END - 1 in VMEMMAP_START's entry at pmd_depth - 1 */
};

static const struct booted_case cases[] = {
	/* 4K/39: PGD (1 GiB entries) -> PMD: PGD, image, module, vmemmap PMD */
	{ 12, 39, 4, 0xffffffc080000000ull, 0xfffffffec0000000ull,
	  0xffffffc0c0000000ull, 0 },
	/* 4K/48: PGD, PUD + 2 PMD (image, modules), PUD + PMD (vmemmap) */
	{ 12, 48, 6, 0xffff800080000000ull, 0xfffffdffc0000000ull,
	  0xffff8000c0000000ull, 0 },
	/* 4K/52: PGD, one P4D (top entry), PUD + 2 PMD, PUD + PMD */
	{ 12, 52, 7, 0xffff800080000000ull, 0xffffc1ffc0000000ull,
	  0xffff8000c0000000ull, 0 },
	/* 16K/36: two levels, the PGD is the PMD table: nothing above it */
	{ 14, 36, 1, 0xfffffff880000000ull, 0xffffffffb8000000ull, 0, 0 },
	/* 16K/47: PGD (64 GiB entries), image + module PMD, vmemmap PMD */
	{ 14, 47, 3, 0xffffc00080000000ull, 0xffffffbfc0000000ull,
	  0xffffc01080000000ull, 1 },
	/* 16K/48: PGD (2 entries), one PUD table, two PMD tables (the image's
	 * 64 GiB PUD entry holds the module area too) */
	{ 14, 48, 4, 0xffff800080000000ull, 0xffffff7fc0000000ull,
	  0xffff801080000000ull, 1 },
	{ 14, 52, 4, 0xffffc00080000000ull, 0xfffff03fc0000000ull,
	  0xffffc01080000000ull, 1 },
	/* 64K/42: two levels */
	{ 16, 42, 1, 0xfffffe0080000000ull, 0xffffffff40000000ull, 0, 0 },
	/* 64K/48, 64K/52: PGD (4 TiB entries), image + module PMD, vmemmap PMD */
	{ 16, 48, 3, 0xffff800080000000ull, 0xffffffdfc0000000ull,
	  0xffff840080000000ull, 1 },
	{ 16, 52, 3, 0xffff800080000000ull, 0xfffffc1fc0000000ull,
	  0xffff840080000000ull, 1 },
};

/* 6.1's layout (the values the 6.1.0-57 harness boot reports at 4K/48:
 * vmalloc_start=0xffff800008000000 vmalloc_end=0xfffffbfff0000000) */
static const struct booted_case cases61[] = {
	/* 4K/39: PGD, image PMD (with the modules), vmemmap PMD, fixmap PMD */
	{ 12, 39, 4, 0xffffffc008000000ull, 0xfffffffe00000000ull,
	  0xffffffc048000000ull, 1 },
	/* 4K/48: PGD, PUD + PMD (image, modules), PUD + PMD (vmemmap), PUD +
	 * PMD (fixmap: PGD entry 503, the vmemmap's is 504) */
	{ 12, 48, 7, 0xffff800008000000ull, 0xfffffc0000000000ull,
	  0xffff800048000000ull, 1 },
	/* 16K/47: PGD (64 GiB entries), image, vmemmap and fixmap PMD tables */
	{ 14, 47, 4, 0xffffc00008000000ull, 0xffffff8000000000ull,
	  0xffffc01008000000ull, 1 },
	/* 64K/48: PGD (4 TiB entries): the vmemmap and the fixmap share one */
	{ 16, 48, 3, 0xffff800008000000ull, 0xffffffc000000000ull,
	  0xffff840008000000ull, 1 },
};

/* The descriptor at depth d over va, or 0 when a table above is missing. */
static uint64_t entry(const struct arm64_mm *mm, int d, uint64_t va)
{
	uint32_t tid = mm->pgd;

	for (int i = 0; i < d; i++) {
		uint64_t e = mm->tbl[tid][arm64_index(&mm->g, i, va)];

		if (!arm64_desc_table(e))
			return 0;
		tid = arm64_desc_table_id(mm, e);
		if (tid == UINT32_MAX)
			return 0;
	}
	return mm->tbl[tid][arm64_index(&mm->g, d, va)];
}

static void check(const struct booted_case *c, bool v61)
{
	struct arm64_mm_opts booted = { .modules_128m = v61, .vmalloc_end_256m = v61 };
	struct arm64_mm_opts empty = { .initial_empty = true, .modules_128m = v61,
				       .vmalloc_end_256m = v61 };
	uint64_t gap = v61 ? 256ull << 20 : 8ull << 20;
	struct arm64_mm mm;
	char what[96];
	int pd;

	snprintf(what, sizeof(what), "%uK/%u%s", 1u << (c->ps - 10), c->va,
		 v61 ? " (6.1)" : "");
	if (arm64_mm_init(&mm, c->ps, c->va, &booted)) {
		TEST_ASSERT_VAL(what, 0);
		return;
	}
	pd = mm.g.pmd_depth;
	TEST_ASSERT_EQ("VMALLOC_START", mm.g.vmalloc_start, c->vmalloc_start);
	TEST_ASSERT_EQ("VMEMMAP_START", mm.g.vmemmap_start, c->vmemmap_start);
	TEST_ASSERT_EQ("VMALLOC_END = VMEMMAP_START - SZ_8M (6.1: SZ_256M)",
		       mm.g.vmalloc_end, c->vmemmap_start - gap);
	TEST_ASSERT_EQ(what, mm.nr_tbl - mm.nr_free, c->tables);
	for (int d = 0; d < pd; d++) {
		TEST_ASSERT_VAL("image chain: a table",
				arm64_desc_table(entry(&mm, d, c->vmalloc_start)));
		TEST_ASSERT_VAL("module chain: a table",
				arm64_desc_table(entry(&mm, d, c->vmalloc_start - 1)));
		TEST_ASSERT_VAL("vmemmap chain: a table",
				arm64_desc_table(entry(&mm, d, c->vmemmap_start)));
		if (v61)
			TEST_ASSERT_VAL("fixmap chain: a table",
					arm64_desc_table(entry(&mm, d, c->vmemmap_start -
							       (32ull << 20) - 1)));
	}
	if (pd > 0) {
		/* the image's neighbour entry was left none by the boot */
		TEST_ASSERT_EQ("next entry none", entry(&mm, pd - 1, c->next_entry), 0);
		TEST_ASSERT_EQ("top of the vmalloc area",
			       arm64_desc_table(entry(&mm, pd - 1, mm.g.vmalloc_end - 1)),
			       c->top_shared);
		/* nothing below the PMD tables: the image's PMD entries are none */
		TEST_ASSERT_EQ("PMD entry none", entry(&mm, pd, c->vmalloc_start), 0);
	}
	arm64_mm_release(&mm);

	if (arm64_mm_init(&mm, c->ps, c->va, &empty)) {
		TEST_ASSERT_VAL(what, 0);
		return;
	}
	TEST_ASSERT_EQ("--initial=empty: the PGD alone", mm.nr_tbl - mm.nr_free, 1);
	arm64_mm_release(&mm);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check(&cases[i], false);
	for (size_t i = 0; i < sizeof(cases61) / sizeof(cases61[0]); i++)
		check(&cases61[i], true);
	return test_result("test-booted-tables");
}
