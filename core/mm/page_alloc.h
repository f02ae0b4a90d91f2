/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The page allocator of mm/page_alloc.c as vmalloc meets it
 * (linux-mm/linux-mm @ 00cb34b034a5, with the vfree patch's free_pages_bulk()):
 * one zone, one CPU, per-CPU free lists (pcp) for the orders
 * pcp_allowed_order() accepts (0 .. PAGE_ALLOC_COSTLY_ORDER = 3, and
 * pageblock_order = HPAGE_PMD_ORDER with THP) in front of the buddy lists.
 *
 * Allocation: rmqueue() takes a pcp order from its list, refilling an
 * empty list with nr_pcp_alloc() blocks from the buddy (rmqueue_bulk(),
 * appended in order, all under one zone->lock hold); other orders come
 * from the buddy directly (rmqueue_buddy(): one hold per block).
 * Freeing: __free_frozen_pages() puts a pcp order at the head of its
 * list and drains batch pages from the list tails (free_pcppages_bulk())
 * once pcp->count reaches pcp->high; other orders go to the buddy.
 *
 * The buddy itself is taken as plentiful and unfragmented: it hands out
 * fresh naturally aligned blocks in ascending order (as __rmqueue_smallest()
 * with expand() does on an empty zone), and what returns to it is not
 * handed out again.  Not modelled: pcp->high's run-time tuning between
 * high_min and high_max, alloc_factor/free_count batch scaling,
 * migratetypes, other CPUs, watermarks and reclaim.
 */
#ifndef VT_PAGE_ALLOC_H
#define VT_PAGE_ALLOC_H

#include <stdbool.h>
#include <stdint.h>

#define VT_PAGE_ALLOC_COSTLY_ORDER 3

/* Counts of one allocator (folded into the metrics of interfaces.md 4). */
struct vt_page_alloc_stats {
	uint64_t pages_allocated;	/* pages handed out (alloc_pages, bulk) */
	uint64_t buddy_blocks;		/* blocks of order > 0 taken from the buddy */
	uint64_t rmqueue_locks;		/* zone->lock holds of rmqueue(): one per
					 * rmqueue_bulk() refill (any order), one
					 * per rmqueue_buddy() call */
	uint64_t free_calls;		/* __free_frozen_pages() calls */
	uint64_t pages_freed;		/* pages those released */
	uint64_t free_pcp;		/* ... of the calls, blocks put on a pcp list */
	uint64_t free_buddy;		/* ... blocks handed to the buddy (free_one_page()) */
	uint64_t pages_prepared;	/* free_pages_prepare() of single pages */
	uint64_t contig_range_calls;	/* __free_contig_range() calls */
	uint64_t pcp_drained;		/* blocks free_pcppages_bulk() moved to the buddy */
};

/* One per-CPU list: a deque of block pfns, head = most recently freed. */
struct vt_pcp_list {
	uint64_t *pfn;
	uint64_t head, nr, cap;		/* cap a power of two */
};

#define VT_PCP_LISTS (VT_PAGE_ALLOC_COSTLY_ORDER + 2)

struct vt_page_alloc {
	unsigned int max_order;		/* MAX_PAGE_ORDER */
	unsigned int pageblock_order;	/* HPAGE_PMD_ORDER */
	bool thp;			/* CONFIG_TRANSPARENT_HUGEPAGE */
	unsigned int batch;		/* pcp->batch = zone_batchsize() */
	uint64_t high;			/* pcp->high */
	uint64_t count;			/* pcp->count: pages on the lists */
	struct vt_pcp_list list[VT_PCP_LISTS];	/* orders 0-3, pageblock_order */
	uint64_t next_pfn, pfn_base, pfn_limit;	/* the buddy's fresh memory */
	struct vt_page_alloc_stats st;
};

/*
 * @page_shift, @max_order (MAX_PAGE_ORDER), @pmd_order (PMD_SHIFT -
 * PAGE_SHIFT), @cpus (pcp->high is split between them); fresh blocks are
 * taken from [@pfn_base, @pfn_limit) and wrap.  The lists grow on demand.
 */
void vt_page_alloc_init(struct vt_page_alloc *pa, unsigned int page_shift,
			unsigned int max_order, unsigned int pmd_order,
			unsigned int cpus, uint64_t pfn_base, uint64_t pfn_limit);
void vt_page_alloc_release(struct vt_page_alloc *pa);

/* pcp_allowed_order() */
bool vt_pcp_allowed_order(const struct vt_page_alloc *pa, unsigned int order);

/* alloc_pages(gfp, order): one naturally aligned block; 0 or -ENOMEM. */
int vt_alloc_pages(struct vt_page_alloc *pa, unsigned int order, uint64_t *pfn);
/* alloc_pages_bulk(gfp, nr, pages): @nr order-0 pages from the pcp list. */
int vt_alloc_pages_bulk(struct vt_page_alloc *pa, uint64_t nr, uint64_t *pfns);

/* __free_frozen_pages(page, order, fpi): one block; 0 or -ENOMEM. */
int vt___free_frozen_pages(struct vt_page_alloc *pa, uint64_t pfn, unsigned int order);
/* __free_page(page) of a refcounted order-0 page: put_page_testzero(),
 * __free_frozen_pages(page, 0) which prepares it (free_pages_prepare()). */
int vt___free_page(struct vt_page_alloc *pa, uint64_t pfn);
/*
 * free_pages_bulk(pages, nr) (the vfree patch): one __free_contig_range() per run
 * of array entries with consecutive pfns (num_pages_contiguous()); returns
 * the number of runs in *runs (= cond_resched() calls).
 */
int vt_free_pages_bulk(struct vt_page_alloc *pa, const uint64_t *pfns,
		       uint64_t nr, uint64_t *runs);
/* vt_free_pages_bulk() of the first @nr pages of a page array kept as
 * @nr_runs page runs (core/trace/trace.h): the same calls as over the
 * spelled-out array, whose touching runs are one stretch. */
struct vt_page_run;
int vt_free_pages_bulk_runs(struct vt_page_alloc *pa, const struct vt_page_run *r,
			    uint32_t nr_runs, uint64_t nr, uint64_t *runs);

#endif
