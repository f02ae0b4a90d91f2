// SPDX-License-Identifier: GPL-2.0
/*
 * The leaf shape of a range: how many PTEs (CONT or not), PMD blocks and
 * PUD blocks map it (--per-event's "shape").  Reads only; counts nothing.
 */
#include <string.h>

#include "arch/arm64/arm64.h"

/*
 * The leaves of one last-level table, entries [i, last]: a plain count
 * over the array (a linear map at PTE level is millions of them).
 */
static void shape_leaves(const uint64_t *t, unsigned int i, unsigned int last,
			 struct arm64_shape *s)
{
	uint64_t pte = 0, cont = 0;

	for (; i <= last; i++) {
		uint64_t v = t[i];

		pte += v & PTE_VALID;
		cont += v & PTE_VALID & (v & PTE_CONT) / PTE_CONT;
	}
	s->pte += pte;
	s->pte_cont += cont;
}

static void shape_level(const struct arm64_mm *mm, int d, uint32_t tid,
			uint64_t addr, uint64_t end, struct arm64_shape *s)
{
	const struct arm64_geom *g = &mm->g;

	if (d == (int)g->levels - 1) {
		unsigned int i = arm64_index(g, d, addr), last = arm64_index(g, d, end - 1);

		if (mm->tbl[tid]) {
			shape_leaves(mm->tbl[tid], i, last, s);
			return;
		}
		/* a run table: extent by extent (a run's leaves are valid and
		 * share their CONT state; a gap is none) */
		while (i <= last) {
			uint64_t desc, n = arm64_entry_extent(mm, tid, i, &desc);

			if (n > last - i + 1)
				n = last - i + 1;
			if (desc) {
				s->pte += n;
				if (desc & PTE_CONT)
					s->pte_cont += n;
			}
			i += n;
		}
		return;
	}
	do {
		uint64_t next = arm64_addr_end(g, d, addr, end);
		uint64_t v = arm64_entry(mm, tid, arm64_index(g, d, addr));
		int hw = 4 - (int)g->levels + d;

		if (v & PTE_VALID) {
			if (arm64_desc_table(v)) {
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
