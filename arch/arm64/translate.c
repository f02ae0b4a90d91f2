// SPDX-License-Identifier: GPL-2.0
/*
 * The MMU's view of the tables: the walk of a kernel VA over the
 * descriptor formats of asm/pgtable-hwdef.h, and the contiguous-hint
 * invariants every CONT group must keep.  Reads only; counts nothing.
 */
#include <stddef.h>

#include "arch/arm64/arm64.h"

int arm64_translate(const struct arm64_mm *mm, uint64_t va, struct arm64_xlat *x)
{
	const struct arm64_geom *g = &mm->g;
	uint32_t id = mm->pgd;

	for (unsigned int d = 0; d < g->levels; d++) {
		uint64_t desc = arm64_entry(mm, id, arm64_index(g, d, va));
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

uint32_t arm64_pte_table_id(const struct arm64_mm *mm, uint64_t va)
{
	const struct arm64_geom *g = &mm->g;
	uint32_t id = mm->pgd;

	for (unsigned int d = 0; d + 1 < g->levels; d++) {
		uint64_t desc = arm64_entry(mm, id, arm64_index(g, d, va));

		if (!(desc & PTE_VALID) || !arm64_desc_table(desc))
			return UINT32_MAX;
		id = arm64_desc_table_id(mm, desc);
		if (id == UINT32_MAX)
			return UINT32_MAX;
	}
	return id;
}

const uint64_t *arm64_pte_table(const struct arm64_mm *mm, uint64_t va,
				unsigned int *idx)
{
	uint32_t id = arm64_pte_table_id(mm, va);

	if (id == UINT32_MAX)
		return NULL;
	*idx = arm64_index(&mm->g, mm->g.levels - 1, va);
	return mm->tbl[id];	/* NULL for a run table: callers translate */
}

/* Whether the CONT group t[0 .. CONT_PTES) has a valid CONT page
 * descriptor (bits 0, 1, 52) and breaks an invariant. */
static bool group_broken(const struct arm64_geom *g, const uint64_t *t)
{
	const uint64_t mask = arm64_desc_addr_mask(g), n = g->cont_ptes;
	uint64_t acc = 0, d0, pa0, attrs0;
	bool ok = true;

	for (uint64_t i = 0; i < n; i++)
		acc |= t[i] & (t[i] << 52) & (t[i] << 51) & PTE_CONT;
	if (!acc)
		return false;
	d0 = t[0];
	if (arm64_desc_linear(g)) {
		/* same attributes, contiguous output: entry i is entry 0
		 * plus i pages (no carry: pa0 is CONT-aligned) */
		uint64_t diff = 0;

		for (uint64_t i = 1; i < n; i++)
			diff |= t[i] ^ (d0 + (i << g->page_shift));
		return !((d0 & PTE_TYPE_MASK) == PTE_TYPE_PAGE && (d0 & PTE_CONT) &&
			 !((d0 & mask) & (g->cont_pte_size - 1)) && !diff);
	}
	pa0 = arm64_desc_to_pa(g, d0);
	attrs0 = arm64_desc_attrs(g, d0);
	if ((d0 & PTE_TYPE_MASK) != PTE_TYPE_PAGE || !(d0 & PTE_CONT) ||
	    (pa0 & (g->cont_pte_size - 1)))
		ok = false;
	for (uint64_t i = 1; ok && i < n; i++)
		if ((t[i] & PTE_TYPE_MASK) != PTE_TYPE_PAGE || !(t[i] & PTE_CONT) ||
		    arm64_desc_to_pa(g, t[i]) != pa0 + i * g->page_size ||
		    arm64_desc_attrs(g, t[i]) != attrs0)
			ok = false;
	return !ok;
}

/*
 * Whether some entry of the run table @id may be a valid page descriptor
 * with PTE_CONT (bits 0, 1 and 52, as group_broken() tests them).  A run's
 * entries are desc0 + k pages: bits 0 and 1 are desc0's, bit 52 is desc0's
 * unless the addition carries into it (then: may).  No run that may: no
 * CONT group of the table can break.
 */
static bool runs_may_cont(const struct arm64_mm *mm, uint32_t id)
{
	const uint64_t low = (1ull << 52) - 1;
	struct arm64_run one;
	uint32_t nr;
	const struct arm64_run *r = arm64_table_runs(mm, id, &one, &nr);

	for (uint32_t k = 0; k < nr; k++) {
		uint64_t d = r[k].desc0;

		if ((d & 3) == 3 &&
		    ((d & PTE_CONT) ||
		     ((d & low) + ((uint64_t)(r[k].len - 1) << mm->g.page_shift)) > low))
			return true;
	}
	return false;
}

/*
 * Group by group, the range of a PMD entry with no PTE table, or a run
 * table with no run that may be CONT (runs_may_cont()), skipped whole;
 * in a run table the groups that lie inside one extent
 * (arm64_entry_extent()) are all alike (a run advances a page an entry, a
 * gap is none): the first, produced on demand, is checked for them all.
 */
uint64_t arm64_check_cont(const struct arm64_mm *mm, uint64_t start,
			  uint64_t end, uint64_t *first_va)
{
	const struct arm64_geom *g = &mm->g;
	const unsigned int tshift = g->shift[g->levels - 2];
	uint64_t bad = 0, n = g->cont_ptes;
	uint64_t va = start & ~(g->cont_pte_size - 1);
	const uint64_t *tbl = NULL;
	uint64_t tbl_va = 1;	/* not a table's base: nothing looked up yet */
	uint32_t tid = UINT32_MAX;
	uint64_t run[128];	/* a run table's group (CONT_PTES <= 128) */

	while (va < end) {
		uint64_t groups = 1;
		const uint64_t *t;

		if ((va >> tshift << tshift) != tbl_va) {
			tbl_va = va >> tshift << tshift;
			tid = arm64_pte_table_id(mm, va);
			tbl = tid == UINT32_MAX ? NULL : mm->tbl[tid];
			if (tid != UINT32_MAX && !tbl && !runs_may_cont(mm, tid))
				tid = UINT32_MAX;
		}
		if (tid == UINT32_MAX) {
			/* no PTE table under this PMD entry (a block, or
			 * nothing), or no CONT page in it: no group up to its
			 * end can break */
			uint64_t next = tbl_va + (1ull << tshift);

			if (next <= va)
				break;	/* the top of the address space */
			va = next;
			continue;
		}
		if (tbl) {
			t = tbl + arm64_index(g, g->levels - 1, va);
		} else {
			unsigned int i0 = arm64_index(g, g->levels - 1, va);
			uint64_t d, e = arm64_entry_extent(mm, tid, i0, &d);
			uint64_t left = (end - va + g->cont_pte_size - 1) / g->cont_pte_size;

			if (e >= n) {
				/* groups inside one extent: entry k is d + k
				 * pages (or none), so only d's type, CONT bit
				 * and alignment can break them */
				const uint64_t mask = arm64_desc_addr_mask(g);
				bool broken = (d & (d << 52) & (d << 51) & PTE_CONT) &&
					      (d & mask & (g->cont_pte_size - 1));

				groups = e / n < left ? e / n : left;
				if (broken) {
					if (!bad && first_va)
						*first_va = va;
					bad += groups;
				}
				va += groups * g->cont_pte_size;
				continue;
			}
			/* a group over extents: produced extent by extent */
			for (uint64_t i = 0; i < n && i < 128;) {
				for (uint64_t k = 0; k < e && i < n && i < 128; k++, i++)
					run[i] = d ? d + (k << g->page_shift) : 0;
				if (i < n && i < 128)
					e = arm64_entry_extent(mm, tid, i0 + i, &d);
			}
			t = run;
		}
		if (group_broken(g, t)) {
			if (!bad && first_va)
				*first_va = va;
			bad += groups;
		}
		va += groups * g->cont_pte_size;
	}
	return bad;
}
