// SPDX-License-Identifier: GPL-2.0
/*
 * Models the arm64 translation geometry of arch/arm64/include/asm/
 * pgtable-hwdef.h, memory.h, pgtable.h and arch/arm64/Kconfig
 * (linux-mm/linux-mm @ 0075c5f7ce7e, 590430501fd6).
 */
#include <errno.h>

#include "arch/arm64/arm64.h"

/* The ARM64_VA_BITS_* choices of arch/arm64/Kconfig for each granule. */
bool arm64_geom_valid(unsigned int ps, unsigned int va)
{
	switch (ps) {
	case 12:
		return va == 39 || va == 48 || va == 52;
	case 14:
		return va == 36 || va == 47 || va == 48 || va == 52;
	case 16:
		return va == 42 || va == 48 || va == 52;
	default:
		return false;
	}
}

/* ARM64_HW_PGTABLE_LEVEL_SHIFT(n) = (PAGE_SHIFT - 3) * (4 - n) + 3 */
static unsigned int hw_shift(unsigned int ps, int hw)
{
	return (ps - 3) * (4 - hw) + 3;
}

int arm64_geom_init(struct arm64_geom *g, unsigned int ps, unsigned int va)
{
	unsigned int va_min;
	uint64_t vmemmap_size, page_end;

	if (!arm64_geom_valid(ps, va))
		return -EINVAL;
	*g = (struct arm64_geom){ 0 };
	g->page_shift = ps;
	g->va_bits = va;
	g->bits_per_level = ps - 3;
	/* ARM64_HW_PGTABLE_LEVELS(va_bits) = ((va_bits) - 4) / (PAGE_SHIFT - 3) */
	g->levels = (va - 4) / (ps - 3);
	g->page_size = 1ull << ps;
	g->pmd_depth = -1;
	g->pud_depth = -1;
	for (unsigned int d = 0; d < g->levels; d++) {
		int hw = 4 - (int)g->levels + (int)d;

		g->shift[d] = hw_shift(ps, hw);
		g->ptrs[d] = 1ull << (ps - 3);
		if (d == 0) {
			g->ptrs[d] = 1ull << (va - g->shift[0]);
			g->name[d] = ARM64_PGD;
		} else {
			g->name[d] = (enum arm64_lname)(hw + 1);
		}
		g->size[d] = 1ull << g->shift[d];
		g->idx_mask[d] = g->ptrs[d] - 1;
		if (hw == 2)
			g->pmd_depth = d;
		if (hw == 1)
			g->pud_depth = d;
	}
	g->pmd_shift = hw_shift(ps, 2);
	g->pud_shift = hw_shift(ps, 1);
	g->pmd_size = 1ull << g->pmd_shift;
	g->pud_size = 1ull << g->pud_shift;
	g->pud_block_ok = ps == 12;
	/* CONFIG_ARM64_CONT_PTE_SHIFT 4/7/5, CONFIG_ARM64_CONT_PMD_SHIFT 4/5/5 */
	switch (ps) {
	case 12:
		g->cont_pte_shift = ps + 4;
		g->cont_pmd_shift = g->pmd_shift + 4;
		g->max_page_order = 10;
		g->ioremap_max_order = g->pud_shift;
		break;
	case 14:
		g->cont_pte_shift = ps + 7;
		g->cont_pmd_shift = g->pmd_shift + 5;
		g->max_page_order = 11;
		g->ioremap_max_order = g->pmd_shift;
		break;
	default:
		g->cont_pte_shift = ps + 5;
		g->cont_pmd_shift = g->pmd_shift + 5;
		g->max_page_order = 13;
		g->ioremap_max_order = g->pmd_shift;
		break;
	}
	g->cont_ptes = 1ull << (g->cont_pte_shift - ps);
	g->cont_pte_size = 1ull << g->cont_pte_shift;
	g->cont_pmds = 1ull << (g->cont_pmd_shift - g->pmd_shift);
	g->cont_pmd_size = 1ull << g->cont_pmd_shift;
	g->ptrs_per_pte = 1ull << (ps - 3);
	g->lpa2 = va == 52 && ps != 16;
	g->pa_bits = va == 52 ? 52 : 48;
	g->pa_fold = (ps == 16 && g->pa_bits == 52) || g->lpa2;
	g->desc_mask = 0x0000ffffffffffffull & ~(g->page_size - 1);

	/* memory.h: VA_BITS_MIN, PAGE_OFFSET, _PAGE_END(), MODULES_*, VMEMMAP_* */
	va_min = va == 52 ? (ps == 14 ? 47 : 48) : va;
	g->page_offset = -(1ull << va);
	page_end = -(1ull << (va_min - 1));
	g->modules_vaddr = page_end;			/* MODULES_VADDR */
	g->vmalloc_start = page_end + (2ull << 30);	/* MODULES_END: MODULES_VSIZE 2G */
	/* STRUCT_PAGE_MAX_SHIFT = 6 */
	vmemmap_size = (page_end - g->page_offset) >> (ps - 6);
	/* VMEMMAP_START = VMEMMAP_END - VMEMMAP_SIZE, VMEMMAP_END = -SZ_1G;
	 * VMALLOC_END = VMEMMAP_START - SZ_8M */
	g->vmemmap_start = (-(1ull << 30)) - vmemmap_size;
	g->vmalloc_end = g->vmemmap_start - (8ull << 20);
	return 0;
}

const char *arm64_level_name(const struct arm64_geom *g, int d)
{
	static const char *const names[] = { "PGD", "P4D", "PUD", "PMD", "PTE" };

	return names[g->name[d]];
}
