// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 translation geometry (spec arm64-mapping-engine.md §1): every
 * Kconfig-valid (granule, VA_BITS) pair is checked against a table of
 * expectations written out by hand from §1.2/§1.3 and, separately, against
 * the kernel formulas re-derived here (pgtable-hwdef.h, memory.h, Kconfig).
 * Nothing below calls the code under test to compute an expectation.
 */
#include <errno.h>
#include <string.h>

#include "arch/arm64/arm64.h"
#include "test.h"

#define KiB (1ull << 10)
#define MiB (1ull << 20)
#define GiB (1ull << 30)
#define TiB (1ull << 40)

struct geom_case {
	unsigned int ps, va;
	unsigned int levels;
	uint64_t ptrs_pgd;		/* PTRS_PER_PGD */
	uint64_t ptrs_lower;		/* PTRS_PER_PTE/PMD/PUD = MAX_DVM_OPS */
	const char *names;		/* Linux names of depth 0.. joined by '/' */
	uint64_t top_entry;		/* bytes mapped by one top-level entry */
	uint64_t pmd_size, pud_size;
	int pud_block;
	uint64_t cont_ptes, cont_pte_size, cont_pmds, cont_pmd_size;
	unsigned int ioremap_max_order;
	int lpa2;
	uint64_t page_offset, vmalloc_start, vmalloc_end;
};

/*
 * §1.2 table (bold rows) and §1.3 layout.  The 4K/39, 4K/48 and 4K/52
 * vmalloc bounds are the literal addresses of the spec (4K/52 confirmed on
 * Debian 6.12); the other rows were computed by hand from the §1.3
 * formulas: VMALLOC_START = -(2^(VA_BITS_MIN-1)) + 2 GiB,
 * VMALLOC_END = -1 GiB - ((2^(VA_BITS_MIN-1) ... PAGE_OFFSET) >> (PS-6)) - 8 MiB.
 */
static const struct geom_case cases[] = {
	{ 12, 39, 3, 512, 512, "PGD/PMD/PTE", 1 * GiB,
	  2 * MiB, 1 * GiB, 1, 16, 64 * KiB, 16, 32 * MiB, 30, 0,
	  0xffffff8000000000ull, 0xffffffc080000000ull, 0xfffffffebf800000ull },
	{ 12, 48, 4, 512, 512, "PGD/PUD/PMD/PTE", 512 * GiB,
	  2 * MiB, 1 * GiB, 1, 16, 64 * KiB, 16, 32 * MiB, 30, 0,
	  0xffff000000000000ull, 0xffff800080000000ull, 0xfffffdffbf800000ull },
	{ 12, 52, 5, 16, 512, "PGD/P4D/PUD/PMD/PTE", 256 * TiB,
	  2 * MiB, 1 * GiB, 1, 16, 64 * KiB, 16, 32 * MiB, 30, 1,
	  0xfff0000000000000ull, 0xffff800080000000ull, 0xffffc1ffbf800000ull },
	{ 14, 36, 2, 2048, 2048, "PGD/PTE", 32 * MiB,
	  32 * MiB, 64 * GiB, 0, 128, 2 * MiB, 32, 1 * GiB, 25, 0,
	  0xfffffff000000000ull, 0xfffffff880000000ull, 0xffffffffb7800000ull },
	{ 14, 47, 3, 2048, 2048, "PGD/PMD/PTE", 64 * GiB,
	  32 * MiB, 64 * GiB, 0, 128, 2 * MiB, 32, 1 * GiB, 25, 0,
	  0xffff800000000000ull, 0xffffc00080000000ull, 0xffffffbfbf800000ull },
	{ 14, 48, 4, 2, 2048, "PGD/PUD/PMD/PTE", 128 * TiB,
	  32 * MiB, 64 * GiB, 0, 128, 2 * MiB, 32, 1 * GiB, 25, 0,
	  0xffff000000000000ull, 0xffff800080000000ull, 0xffffff7fbf800000ull },
	{ 14, 52, 4, 32, 2048, "PGD/PUD/PMD/PTE", 128 * TiB,
	  32 * MiB, 64 * GiB, 0, 128, 2 * MiB, 32, 1 * GiB, 25, 1,
	  0xfff0000000000000ull, 0xffffc00080000000ull, 0xfffff03fbf800000ull },
	{ 16, 42, 2, 8192, 8192, "PGD/PTE", 512 * MiB,
	  512 * MiB, 4 * TiB, 0, 32, 2 * MiB, 32, 16 * GiB, 29, 0,
	  0xfffffc0000000000ull, 0xfffffe0080000000ull, 0xffffffff3f800000ull },
	{ 16, 48, 3, 64, 8192, "PGD/PMD/PTE", 4 * TiB,
	  512 * MiB, 4 * TiB, 0, 32, 2 * MiB, 32, 16 * GiB, 29, 0,
	  0xffff000000000000ull, 0xffff800080000000ull, 0xffffffdfbf800000ull },
	{ 16, 52, 3, 1024, 8192, "PGD/PMD/PTE", 4 * TiB,
	  512 * MiB, 4 * TiB, 0, 32, 2 * MiB, 32, 16 * GiB, 29, 0,
	  0xfff0000000000000ull, 0xffff800080000000ull, 0xfffffc1fbf800000ull },
};

/* ---- the kernel formulas, re-derived independently ------------------- */

/* ARM64_HW_PGTABLE_LEVEL_SHIFT(n) */
static unsigned int f_shift(unsigned int ps, int n)
{
	return (ps - 3) * (unsigned int)(4 - n) + 3;
}

static uint64_t f_vmalloc_start(unsigned int ps, unsigned int va)
{
	unsigned int va_min = va == 52 ? (ps == 14 ? 47 : 48) : va;
	uint64_t page_end = 0ull - (1ull << (va_min - 1));	/* _PAGE_END */

	return page_end + 2 * GiB;		/* MODULES_END */
}

static uint64_t f_vmalloc_end(unsigned int ps, unsigned int va)
{
	unsigned int va_min = va == 52 ? (ps == 14 ? 47 : 48) : va;
	/* _PAGE_END(VA_BITS_MIN) - PAGE_OFFSET = 2^va - 2^(va_min - 1) */
	uint64_t span = (1ull << va) - (1ull << (va_min - 1));
	uint64_t vmemmap_size = span >> (ps - 6);	/* STRUCT_PAGE_MAX_SHIFT 6 */
	uint64_t vmemmap_start = (0ull - GiB) - vmemmap_size;

	return vmemmap_start - 8 * MiB;
}

static void check_pair(const struct geom_case *c)
{
	struct arm64_geom g;
	char what[96], names[64] = "";
	unsigned int levels = (c->va - 4) / (c->ps - 3);
	unsigned int pgdir_shift = f_shift(c->ps, 4 - (int)levels);
	uint64_t ptrs = 1ull << (c->ps - 3);
	int err, before = test_failures;

	snprintf(what, sizeof(what), "%uK/%u", 1u << (c->ps - 10), c->va);
	err = arm64_geom_init(&g, c->ps, c->va);
	TEST_ASSERT_EQ(what, err, 0);
	if (err)
		return;

	/* table vs formula (guards the table itself) */
	TEST_ASSERT_EQ("table levels = formula", c->levels, levels);
	TEST_ASSERT_EQ("table PTRS_PER_PGD = formula", c->ptrs_pgd,
		       1ull << (c->va - pgdir_shift));
	TEST_ASSERT_EQ("table top entry = formula", c->top_entry, 1ull << pgdir_shift);
	TEST_ASSERT_EQ("table vmalloc_start = formula", c->vmalloc_start,
		       f_vmalloc_start(c->ps, c->va));
	TEST_ASSERT_EQ("table vmalloc_end = formula", c->vmalloc_end,
		       f_vmalloc_end(c->ps, c->va));

	TEST_ASSERT_EQ("page_shift", g.page_shift, c->ps);
	TEST_ASSERT_EQ("va_bits", g.va_bits, c->va);
	TEST_ASSERT_EQ("page_size", g.page_size, 1ull << c->ps);
	TEST_ASSERT_EQ("bits_per_level", g.bits_per_level, c->ps - 3);
	TEST_ASSERT_EQ("levels", g.levels, c->levels);
	TEST_ASSERT_EQ("PTRS_PER_PGD", g.ptrs[0], c->ptrs_pgd);
	TEST_ASSERT_EQ("PGDIR_SHIFT", g.shift[0], pgdir_shift);
	TEST_ASSERT_EQ("top entry size", 1ull << g.shift[0], c->top_entry);
	for (unsigned int d = 0; d < c->levels; d++) {
		int hw = 4 - (int)c->levels + (int)d;

		TEST_ASSERT_EQ("shift[d] = ARM64_HW_PGTABLE_LEVEL_SHIFT(hw)",
			       g.shift[d], f_shift(c->ps, hw));
		if (d)
			TEST_ASSERT_EQ("PTRS_PER (lower)", g.ptrs[d], c->ptrs_lower);
		if (d)
			strcat(names, "/");
		strcat(names, arm64_level_name(&g, (int)d));
	}
	TEST_ASSERT_EQ("PTE level shift = PAGE_SHIFT", g.shift[c->levels - 1], c->ps);
	TEST_ASSERT_VAL("level names / folding", !strcmp(names, c->names));
	if (strcmp(names, c->names))
		fprintf(stderr, "  names %s, want %s\n", names, c->names);
	/* depth of hw level 2 and 1 (or -1: folded / above the top) */
	TEST_ASSERT_EQ("pmd_depth", (long long)g.pmd_depth,
		       (long long)(c->levels >= 2 ? (int)c->levels - 2 : -1));
	TEST_ASSERT_EQ("pud_depth", (long long)g.pud_depth,
		       (long long)(c->levels >= 3 ? (int)c->levels - 3 : -1));
	TEST_ASSERT_EQ("PTRS_PER_PTE", g.ptrs_per_pte, c->ptrs_lower);
	TEST_ASSERT_EQ("MAX_DVM_OPS = PTRS_PER_PTE", g.ptrs_per_pte, ptrs);
	TEST_ASSERT_EQ("PMD_SHIFT", g.pmd_shift, f_shift(c->ps, 2));
	TEST_ASSERT_EQ("PUD_SHIFT", g.pud_shift, f_shift(c->ps, 1));
	TEST_ASSERT_EQ("PMD_SIZE", g.pmd_size, c->pmd_size);
	TEST_ASSERT_EQ("PUD_SIZE", g.pud_size, c->pud_size);
	TEST_ASSERT_EQ("pud_block_ok (pud_sect_supported)", g.pud_block_ok, c->pud_block);
	TEST_ASSERT_EQ("CONT_PTES", g.cont_ptes, c->cont_ptes);
	TEST_ASSERT_EQ("CONT_PTE_SIZE", g.cont_pte_size, c->cont_pte_size);
	TEST_ASSERT_EQ("CONT_PTE_SIZE = CONT_PTES * PAGE_SIZE", g.cont_pte_size,
		       c->cont_ptes << c->ps);
	TEST_ASSERT_EQ("CONT_PTE_SHIFT", 1ull << g.cont_pte_shift, c->cont_pte_size);
	TEST_ASSERT_EQ("CONT_PMDS", g.cont_pmds, c->cont_pmds);
	TEST_ASSERT_EQ("CONT_PMD_SIZE", g.cont_pmd_size, c->cont_pmd_size);
	TEST_ASSERT_EQ("CONT_PMD_SIZE = CONT_PMDS * PMD_SIZE", g.cont_pmd_size,
		       c->cont_pmds * c->pmd_size);
	TEST_ASSERT_EQ("CONT_PMD_SHIFT", 1ull << g.cont_pmd_shift, c->cont_pmd_size);
	TEST_ASSERT_EQ("IOREMAP_MAX_ORDER", g.ioremap_max_order, c->ioremap_max_order);
	TEST_ASSERT_EQ("IOREMAP_MAX_ORDER: PUD_SHIFT on 4K, PMD_SHIFT else",
		       g.ioremap_max_order,
		       c->ps == 12 ? f_shift(c->ps, 1) : f_shift(c->ps, 2));
	TEST_ASSERT_EQ("MAX_PAGE_ORDER", g.max_page_order,
		       c->ps == 12 ? 10 : c->ps == 14 ? 11 : 13);
	TEST_ASSERT_EQ("lpa2", g.lpa2, c->lpa2);
	TEST_ASSERT_EQ("pa_bits", g.pa_bits, c->va == 52 ? 52 : 48);
	TEST_ASSERT_EQ("PAGE_OFFSET", g.page_offset, c->page_offset);
	TEST_ASSERT_EQ("VMALLOC_START", g.vmalloc_start, c->vmalloc_start);
	TEST_ASSERT_EQ("VMALLOC_END", g.vmalloc_end, c->vmalloc_end);
	/* VMALLOC_START is MODULES_END: a 1 GiB boundary */
	TEST_ASSERT_EQ("VMALLOC_START 1 GiB aligned", g.vmalloc_start & (GiB - 1), 0);
	TEST_ASSERT_VAL("VMALLOC_START < VMALLOC_END", g.vmalloc_start < g.vmalloc_end);
	TEST_ASSERT_VAL("vmalloc area inside the kernel half",
			g.vmalloc_start >= g.page_offset);
	if (test_failures != before)
		fprintf(stderr, "  ^ in %s\n", what);
}

/* The spec's literal addresses, kept apart from the table on purpose. */
static void check_literal_layout(void)
{
	static const struct { unsigned int ps, va; uint64_t start, end; } lit[] = {
		{ 12, 39, 0xffffffc080000000ull, 0xfffffffebf800000ull },
		{ 12, 48, 0xffff800080000000ull, 0xfffffdffbf800000ull },
		{ 12, 52, 0xffff800080000000ull, 0xffffc1ffbf800000ull },
	};

	for (size_t i = 0; i < sizeof(lit) / sizeof(lit[0]); i++) {
		struct arm64_geom g;

		TEST_ASSERT_EQ("init", arm64_geom_init(&g, lit[i].ps, lit[i].va), 0);
		TEST_ASSERT_EQ("spec VMALLOC_START", g.vmalloc_start, lit[i].start);
		TEST_ASSERT_EQ("spec VMALLOC_END", g.vmalloc_end, lit[i].end);
	}
}

static void check_invalid(void)
{
	static const unsigned int bad[][2] = {
		{ 12, 42 }, { 12, 47 }, { 14, 39 }, { 14, 42 }, { 16, 39 },
		{ 16, 47 }, { 12, 0 }, { 13, 48 }, { 13, 39 }, { 12, 64 },
		{ 16, 36 }, { 0, 48 },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct arm64_geom g;
		struct arm64_mm mm;
		struct arm64_mm_opts o = { 0 };
		int err = arm64_geom_init(&g, bad[i][0], bad[i][1]);

		if (err != -EINVAL)
			fprintf(stderr, "  pair %u/%u\n", bad[i][0], bad[i][1]);
		TEST_ASSERT_EQ("invalid pair rejected with -EINVAL", (long long)err,
			       (long long)-EINVAL);
		err = arm64_mm_init(&mm, bad[i][0], bad[i][1], &o);
		TEST_ASSERT_EQ("arm64_mm_init rejects it too", (long long)err,
			       (long long)-EINVAL);
	}
}

/* arm64_index()/arm64_addr_end() agree with the geometry. */
static void check_index_helpers(void)
{
	struct arm64_geom g;
	uint64_t va = 0xffff800080000000ull + 3 * GiB + 5 * (2 * MiB) + 7 * 4096 + 12;

	arm64_geom_init(&g, 12, 48);
	TEST_ASSERT_EQ("pgd index", arm64_index(&g, 0, va), 256);
	TEST_ASSERT_EQ("pud index", arm64_index(&g, 1, va), 5);	/* 2G+3G */
	TEST_ASSERT_EQ("pmd index", arm64_index(&g, 2, va), 5);
	TEST_ASSERT_EQ("pte index", arm64_index(&g, 3, va), 7);
	TEST_ASSERT_EQ("pmd_addr_end mid", arm64_addr_end(&g, 2, va, va + 8 * MiB),
		       (va & ~(2 * MiB - 1)) + 2 * MiB);
	TEST_ASSERT_EQ("pmd_addr_end capped", arm64_addr_end(&g, 2, va, va + 4096),
		       va + 4096);
	/* the last entry of the address space: boundary wraps to 0 */
	TEST_ASSERT_EQ("pgd_addr_end at the top", arm64_addr_end(&g, 0,
		       0xffffff8000000000ull, 0), 0);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_pair(&cases[i]);
	check_literal_layout();
	check_invalid();
	check_index_helpers();
	return test_result("test-arm64-geometry");
}
