/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The page-table walkers of mm/vmalloc.c (core/mm/walk.c) and the narrow
 * context they run in: the arch mm, the page array being mapped, where the
 * walk counters go and where an error is described.  They know nothing of
 * the engine, its VA areas or its strategies.
 */
#ifndef VT_MM_WALK_H
#define VT_MM_WALK_H

#include "arch/arch.h"
#include "core/error.h"
#include "core/stats.h"

/* The page array the kernel is handed: one entry per PAGE_SIZE page. */
struct vt_pages {
	uint64_t *pfn;
	uint8_t *head_order;	/* compound order of a head page, else 0 */
	uint64_t nr, cap;
};

/* compound_nr(pages[i]): 1 for tail pages and non-compound pages */
static inline uint64_t vt_compound_nr(const struct vt_pages *p, uint64_t i)
{
	return 1ull << p->head_order[i];
}
/* num_pages_contiguous(&pages[i], max) */
uint64_t vt_num_pages_contiguous(const struct vt_pages *p, uint64_t i,
				 uint64_t max);

struct vt_walk {
	struct arm64_mm *mm;
	const struct vt_pages *pages;
	struct vt_stats *st;	/* table_walks, walk_steps, batch_overrun */
	struct vt_error *err;
};

/* vmap_range_noflush(): one top-down walk mapping phys-contiguous memory */
int vt_vmap_range_noflush(struct vt_walk *w, uint64_t addr, uint64_t end,
			  uint64_t phys, uint64_t prot, unsigned int max_page_shift);
/* vmap_small_pages_range_noflush(): one walk over pages[idx..]; @shift is
 * PAGE_SHIFT in mainline, larger with Barry Song's RFC 3/8 */
int vt_vmap_small_pages_range_noflush(struct vt_walk *w, uint64_t addr,
				      uint64_t end, uint64_t prot, uint64_t idx,
				      unsigned int shift);
/* __vunmap_range_noflush() */
int vt___vunmap_range_noflush(struct vt_walk *w, uint64_t start, uint64_t end);

#endif
