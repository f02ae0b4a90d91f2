// SPDX-License-Identifier: GPL-2.0
/*
 * --verify: translate every page of a mapping as the MMU would and compare
 * with the page the caller asked for.  Reads only; counts nothing.
 */
#include "arch/arm64/arm64.h"

uint64_t arm64_verify_pages(const struct arm64_mm *mm, uint64_t va,
			    uint64_t pfn, uint64_t n, uint64_t *first_va,
			    uint64_t *want, uint64_t *got)
{
	const struct arm64_geom *g = &mm->g;
	uint64_t bad = 0;

	for (uint64_t i = 0; i < n; i++, va += g->page_size) {
		struct arm64_xlat x;
		uint64_t pa = (pfn + i) << g->page_shift;

		if (!arm64_translate(mm, va, &x) && x.pa == pa)
			continue;
		if (!bad) {
			*first_va = va;
			*want = pa;
			*got = arm64_translate(mm, va, &x) ? UINT64_MAX : x.pa;
		}
		bad++;
	}
	return bad;
}
