// SPDX-License-Identifier: GPL-2.0
/*
 * The leaf shape of a range: how many PTEs (CONT or not), PMD blocks and
 * PUD blocks map it (--per-event's "shape").  Reads only; counts nothing.
 */
#include <string.h>

#include "arch/arm64/arm64.h"

static void shape_level(const struct arm64_mm *mm, int d, uint32_t tid,
			uint64_t addr, uint64_t end, struct arm64_shape *s)
{
	const struct arm64_geom *g = &mm->g;

	do {
		uint64_t next = arm64_addr_end(g, d, addr, end);
		uint64_t v = mm->tbl[tid][arm64_index(g, d, addr)];
		int hw = 4 - (int)g->levels + d;

		if (v & PTE_VALID) {
			if (d == (int)g->levels - 1) {
				s->pte++;
				if (v & PTE_CONT)
					s->pte_cont++;
			} else if (arm64_desc_table(v)) {
				uint32_t c = arm64_desc_table_id(mm, v);

				if (c != UINT32_MAX)
					shape_level(mm, d + 1, c, addr, next, s);
			} else if (hw == 2) {
				s->pmd_block++;
			} else if (hw == 1) {
				s->pud_block++;
			}
		}
		addr = next;
	} while (addr != end);
}

void arm64_leaf_shape(const struct arm64_mm *mm, uint64_t start, uint64_t end,
		      struct arm64_shape *s)
{
	memset(s, 0, sizeof(*s));
	if (start < end)
		shape_level(mm, 0, mm->pgd, start, end, s);
}
