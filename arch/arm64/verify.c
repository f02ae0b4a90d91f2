// SPDX-License-Identifier: GPL-2.0
/*
 * --verify: translate every page of a mapping as the MMU would and compare
 * with the page the caller asked for.  Reads only; counts nothing.
 */
#include <stddef.h>

#include "arch/arm64/arm64.h"

/*
 * Entries [idx, idx + m) of the run table @id against pa, pa + 1 page, ...:
 * extent by extent, a run's first leaf for the whole run (its leaves share
 * their type and their output advances with the VA as the pages asked
 * for do, so each is right exactly when the first is), a gap of none
 * entries all faults.  @bad: the pages found bad before (the first bad
 * one is reported once).
 */
static uint64_t verify_runs(const struct arm64_mm *mm, uint32_t id,
			    unsigned int idx, uint64_t va, uint64_t pa,
			    uint64_t m, uint64_t bad, uint64_t *first_va,
			    uint64_t *want, uint64_t *got)
{
	const struct arm64_geom *g = &mm->g;
	const unsigned int ps = g->page_shift;
	uint64_t nbad = 0;

	for (uint64_t k = 0; k < m;) {
		uint64_t d, e = arm64_entry_extent(mm, id, idx + k, &d);
		uint64_t p = pa + (k << ps);
		bool page = (d & PTE_VALID) && arm64_desc_table(d);

		if (e > m - k)
			e = m - k;
		if (!page || arm64_desc_to_pa(g, d) != p) {
			if (!bad && !nbad) {
				*first_va = va + (k << ps);
				*want = p;
				*got = page ? arm64_desc_to_pa(g, d) : UINT64_MAX;
			}
			nbad += e;
		}
		k += e;
	}
	return nbad;
}

/*
 * Each PTE table's entries for the pages are scanned linearly (one walk of
 * the upper levels per table); a block is compared once for the pages it
 * covers (its output is at a constant offset from what is asked, so all
 * are right or all wrong); a fault above the PTE level costs a walk per
 * page.  The same pages and first bad page as translating each page.
 */
uint64_t arm64_verify_pages(const struct arm64_mm *mm, uint64_t va,
			    uint64_t pfn, uint64_t n, uint64_t *first_va,
			    uint64_t *want, uint64_t *got)
{
	const struct arm64_geom *g = &mm->g;
	const unsigned int ps = g->page_shift;
	const bool linear = arm64_desc_linear(g);
	const uint64_t mask = arm64_desc_addr_mask(g);
	uint64_t pa = pfn << ps, bad = 0;

	while (n) {
		unsigned int idx = arm64_index(g, g->levels - 1, va);
		uint32_t id = arm64_pte_table_id(mm, va);
		const uint64_t *t = id == UINT32_MAX ? NULL : mm->tbl[id];
		uint64_t k = 0, m;

		if (t)
			id = UINT32_MAX;	/* an array: scanned below */

		if (id != UINT32_MAX) {
			m = g->ptrs[g->levels - 1] - idx;
			if (m > n)
				m = n;
			bad += verify_runs(mm, id, idx, va, pa, m, bad, first_va,
					   want, got);
		} else if (t) {
			m = g->ptrs[g->levels - 1] - idx;
			if (m > n)
				m = n;
			t += idx;
			if (linear) {
				/* valid page descriptors (0b11) of pa, pa + 1 page, ... */
				uint64_t diff = 0;

				for (uint64_t x = 0; x < m; x++)
					diff |= ((t[x] & mask) ^ (pa + (x << ps))) |
						((t[x] & PTE_TYPE_MASK) ^ PTE_TYPE_PAGE);
				if (!diff)
					k = m;
			}
			for (; k < m; k++) {
				uint64_t d = t[k], p = pa + (k << ps);
				bool page = (d & PTE_VALID) && arm64_desc_table(d);

				if (page && arm64_desc_to_pa(g, d) == p)
					continue;
				if (!bad) {
					*first_va = va + (k << ps);
					*want = p;
					*got = page ? arm64_desc_to_pa(g, d) : UINT64_MAX;
				}
				bad++;
			}
		} else {
			struct arm64_xlat x;
			int rc = arm64_translate(mm, va, &x);

			m = 1;
			if (!rc) {
				uint64_t bsz = 1ull << g->shift[x.depth];

				m = (((va | (bsz - 1)) + 1) - va) >> ps;
				if (m > n)
					m = n;
			}
			if (rc || x.pa != pa) {
				if (!bad) {
					*first_va = va;
					*want = pa;
					*got = rc ? UINT64_MAX : x.pa;
				}
				bad += m;
			}
		}
		va += m << ps;
		pa += m << ps;
		n -= m;
	}
	return bad;
}
