// SPDX-License-Identifier: GPL-2.0
/*
 * The MMU's view of the tables: the walk of a kernel VA over the
 * descriptor formats of asm/pgtable-hwdef.h, and the contiguous-hint
 * invariants every CONT group must keep.  Reads only; counts nothing.
 */
#include "arch/arm64/arm64.h"

int arm64_translate(const struct arm64_mm *mm, uint64_t va, struct arm64_xlat *x)
{
	const struct arm64_geom *g = &mm->g;
	uint32_t id = mm->pgd;

	for (unsigned int d = 0; d < g->levels; d++) {
		uint64_t desc = mm->tbl[id][arm64_index(g, d, va)];
		int hw = 4 - (int)g->levels + (int)d;
		uint64_t mask = (1ull << g->shift[d]) - 1;

		if (!(desc & PTE_VALID))
			return -14;	/* -EFAULT */
		if (d == g->levels - 1) {
			if (!arm64_desc_table(desc))	/* level 3: 0b01 reserved */
				return -14;
		} else if (arm64_desc_table(desc)) {
			id = arm64_desc_table_id(mm, desc);
			if (id == UINT32_MAX)
				return -14;
			continue;
		} else if (hw < 1 || (hw == 1 && !g->pud_block_ok)) {
			return -14;	/* no block at this level */
		}
		x->desc = desc;
		x->depth = d;
		x->cont = desc & PTE_CONT;
		x->pa = (arm64_desc_to_pa(g, desc) & ~mask) | (va & mask);
		return 0;
	}
	return -14;
}

uint64_t arm64_check_cont(const struct arm64_mm *mm, uint64_t start,
			  uint64_t end, uint64_t *first_va)
{
	const struct arm64_geom *g = &mm->g;
	uint64_t bad = 0, n = g->cont_ptes;
	uint64_t va = start & ~(g->cont_pte_size - 1);

	for (; va < end; va += g->cont_pte_size) {
		struct arm64_xlat x0, x;
		bool any = false, ok = true;

		for (uint64_t i = 0; i < n; i++) {
			if (!arm64_translate(mm, va + i * g->page_size, &x) &&
			    x.depth == (int)g->levels - 1 && x.cont)
				any = true;
		}
		if (!any)
			continue;
		if (arm64_translate(mm, va, &x0) || !x0.cont ||
		    (x0.pa & (g->cont_pte_size - 1)))
			ok = false;
		for (uint64_t i = 1; ok && i < n; i++) {
			if (arm64_translate(mm, va + i * g->page_size, &x) ||
			    !x.cont || x.pa != x0.pa + i * g->page_size ||
			    arm64_desc_attrs(g, x.desc) != arm64_desc_attrs(g, x0.desc))
				ok = false;
		}
		if (!ok) {
			if (!bad && first_va)
				*first_va = va;
			bad++;
		}
	}
	return bad;
}
