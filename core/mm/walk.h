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
#include "core/trace/trace.h"

/*
 * The page array the kernel is handed (struct page *pages[], one entry per
 * PAGE_SIZE page), kept as the page runs it is made of: run r holds pages
 * [start[r], start[r + 1]) of the array, physically contiguous, with a
 * compound head every 2^order pages when order > 0.  Lookups by array
 * index are O(1) for the walkers' sequential access (a cursor); nothing is
 * per page.
 */
struct vt_pages {
	struct vt_page_run *runs;
	uint64_t *start;	/* nr_runs + 1 entries */
	uint32_t nr_runs, cap;
	uint32_t cur;		/* the run of the last lookup */
	uint64_t nr;
};
/* The most runs a page array holds (start[] has one entry more, and a
 * capacity of 32 bits). */
#define VT_RUNS_MAX (UINT32_MAX - 1)

/* The run holding page @i of the array (i < p->nr). */
static inline uint32_t vt_pages_run(struct vt_pages *p, uint64_t i)
{
	uint32_t r = p->cur, lo, hi;

	if (i >= p->start[r] && i < p->start[r + 1])
		return r;
	if (r + 1 < p->nr_runs && i >= p->start[r + 1] && i < p->start[r + 2])
		return p->cur = r + 1;
	lo = 0;
	hi = p->nr_runs - 1;
	while (lo < hi) {
		uint32_t mid = (lo + hi + 1) / 2;

		if (p->start[mid] <= i)
			lo = mid;
		else
			hi = mid - 1;
	}
	return p->cur = lo;
}

/* page_to_pfn(pages[i]) */
static inline uint64_t vt_pages_pfn(struct vt_pages *p, uint64_t i)
{
	uint32_t r = vt_pages_run(p, i);

	return p->runs[r].pfn + (i - p->start[r]);
}

/* compound_nr(pages[i]): 1 for tail pages and non-compound pages */
static inline uint64_t vt_compound_nr(struct vt_pages *p, uint64_t i)
{
	uint32_t r = vt_pages_run(p, i);
	uint32_t o = p->runs[r].order;

	if (!o || ((i - p->start[r]) & ((1ull << o) - 1)))
		return 1;
	return 1ull << o;
}
/* compound_order(pages[i]) of a head page, else 0 */
static inline unsigned int vt_head_order(struct vt_pages *p, uint64_t i)
{
	return __builtin_ctzll(vt_compound_nr(p, i));
}
/* num_pages_contiguous(&pages[i], max) */
uint64_t vt_num_pages_contiguous(struct vt_pages *p, uint64_t i, uint64_t max);

/*
 * --verify: the VA ranges the walks of an event wrote under (each walk's
 * range, and a CONT block an unmap clears beyond it), so that only the
 * mappings there are checked again.
 */
struct vt_written {
	struct { uint64_t start, end; } *v;
	uint64_t nr, cap;
	int err;		/* -ENOMEM while noting */
};

struct vt_walk {
	struct arm64_mm *mm;
	struct vt_pages *pages;
	struct vt_written *written;	/* --verify, else NULL */
	struct vt_stats *st;	/* table_walks, walk_steps, batch_overrun */
	struct vt_error *err;
};

/* --verify: note that a walk writes under [start, end) */
void vt_walk_note(struct vt_walk *w, uint64_t start, uint64_t end);

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
