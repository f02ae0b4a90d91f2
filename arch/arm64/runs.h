/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The walkers' commonest table stores and clears, inline where they call
 * them (core/mm/walk.c, through arch/arch.h): a stretch appended past a
 * run table's last run, the clear of all a run table maps, and
 * pmd_clear_huge()/pud_clear_huge()'s pmd_sect() test.  What they do not
 * take is done out of line in arch/arm64/runs.c (the _slow functions) and
 * pgtable.c (arm64_clear_huge(), arm64_count_clears()).  arm64.h, which
 * those files include, declares the primitives and calls neither, so no
 * file calls back into one that calls it.
 */
#ifndef VT_ARM64_RUNS_H
#define VT_ARM64_RUNS_H

#include "arch/arm64/arm64.h"

/* pmd_sect()/pud_sect() first, inline: a walk asks at every table entry */
static inline int arm64_pmd_clear_huge(struct arm64_mm *mm, uint64_t *pmdp)
{
	if (!arm64_desc_block(*pmdp))
		return 0;
	return arm64_clear_huge(mm, mm->g.pmd_depth, pmdp);
}
static inline int arm64_pud_clear_huge(struct arm64_mm *mm, uint64_t *pudp)
{
	if (!arm64_desc_block(*pudp))
		return 0;
	return arm64_clear_huge(mm, mm->g.pud_depth, pudp);
}

/*
 * Entries [i, i + n) (n > 0) of the run list @rs become desc0 + (k <<
 * page_shift) when they lie past its last run (the walkers go up a table):
 * they continue that run or follow it, in O(1).  False, and nothing done,
 * when they do not lie past it.  The list has room for one more run.
 */
static inline bool arm64_runs_append(const struct arm64_geom *g,
				     struct arm64_runs *rs, uint64_t i,
				     uint64_t n, uint64_t desc0)
{
	if (rs->nr) {
		struct arm64_run *x = &rs->r[rs->nr - 1];

		if ((uint64_t)x->first + x->len > i)
			return false;
		if (x->first + x->len == i &&
		    x->desc0 + ((uint64_t)x->len << g->page_shift) == desc0 &&
		    arm64_run_ok(g, x->desc0, x->len + n)) {
			x->len += (uint32_t)n;
			return true;
		}
	}
	rs->r[rs->nr++] = (struct arm64_run){ (uint32_t)i, (uint32_t)n, desc0 };
	return true;
}

int arm64_runs_set_ptes_slow(struct arm64_mm *mm, uint32_t id, uint64_t i,
			     uint64_t pfn, uint64_t n, uint64_t prot,
			     uint64_t *written);
/*
 * arm64_runs_set_ptes(), inline where the stretch goes past the last run
 * of a run table with room for it (a run more keeps it within
 * arm64_runs_max()) and pa(pfn + k) | prot is a run: the walkers' common
 * store.  Everything else in arch/arm64/runs.c.
 */
static inline int arm64_runs_set_ptes(struct arm64_mm *mm, uint32_t id,
				      uint64_t i, uint64_t pfn, uint64_t n,
				      uint64_t prot, uint64_t *written)
{
	const struct arm64_geom *g = &mm->g;
	const uint64_t top = g->desc_mask >> g->page_shift;
	struct arm64_runs *rs = mm->runs[id].list;

	if (mm->tbl[id] || mm->tbl_kind[id] != ARM64_TBL_RUNS || !n ||
	    rs->nr >= rs->cap || rs->nr >= arm64_runs_max(g) ||
	    (prot & g->desc_mask) || !(prot & PTE_VALID) || pfn > top ||
	    n - 1 > top - pfn ||
	    !arm64_runs_append(g, rs, i, n, (pfn << g->page_shift) | prot))
		return arm64_runs_set_ptes_slow(mm, id, i, pfn, n, prot, written);
	arm64_count_set_ptes(mm, n);
	*written = n;
	return 0;
}

int arm64_tbl_clear_to_cont_slow(struct arm64_mm *mm, uint32_t id, uint64_t i,
				 uint64_t n, uint64_t *k, uint64_t *ext);
/* vunmap_pte_range()'s batch: arm64_tbl_ptes_get_and_clear() of the *k =
 * arm64_tbl_first_cont() entries from @i (in one pass over a run table's
 * runs); none when *k is 0, *ext then as arm64_tbl_first_cont()'s. */
/*
 * arm64_tbl_clear_to_cont() inline in a run table's two common cases:
 * [i, i + n) covers every run and none of them is CONT (an unmap of all
 * the table maps): they all go, and n entries are counted cleared; entry i
 * is in the first run and it is CONT (an unmap clears a table's CONT
 * blocks from its start): nothing.  Everything else in arch/arm64/runs.c.
 */
static inline int arm64_tbl_clear_to_cont(struct arm64_mm *mm, uint32_t id,
					  uint64_t i, uint64_t n, uint64_t *k,
					  uint64_t *ext)
{
	struct arm64_runs *rs = mm->runs[id].list;
	uint64_t nv = 0, cont = 0;

	if (mm->tbl[id] || mm->tbl_kind[id] != ARM64_TBL_RUNS)
		return arm64_tbl_clear_to_cont_slow(mm, id, i, n, k, ext);
	if (rs->nr && (rs->r[0].desc0 & PTE_CONT) && i >= rs->r[0].first &&
	    i < (uint64_t)rs->r[0].first + rs->r[0].len) {
		*k = 0;
		*ext = rs->r[0].first + rs->r[0].len - i;
		return 0;
	}
	if (rs->nr && (i > rs->r[0].first ||
		       i + n < (uint64_t)rs->r[rs->nr - 1].first + rs->r[rs->nr - 1].len))
		return arm64_tbl_clear_to_cont_slow(mm, id, i, n, k, ext);
	for (uint32_t r = 0; r < rs->nr; r++) {
		nv += rs->r[r].len;
		cont |= rs->r[r].desc0;
	}
	if (cont & PTE_CONT)
		return arm64_tbl_clear_to_cont_slow(mm, id, i, n, k, ext);
	rs->nr = 0;
	arm64_count_clears(mm, n, nv, 0);
	*k = n;
	*ext = 1;
	return 0;
}

#endif
