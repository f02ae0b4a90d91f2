// SPDX-License-Identifier: GPL-2.0
/*
 * --verify: translate every page of a mapping as the MMU would and compare
 * with the page the caller asked for.  Reads only; counts nothing.
 */
#include <stddef.h>

#include "arch/arm64/arm64.h"

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
		unsigned int idx;
		const uint64_t *t = arm64_pte_table(mm, va, &idx);
		uint64_t k = 0, m;

		if (t) {
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
