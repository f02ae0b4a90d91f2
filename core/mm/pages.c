// SPDX-License-Identifier: GPL-2.0
/*
 * The struct page * arrays of vmap(), vm_map_ram() and vmalloc(), kept as
 * page runs (struct vt_page_run): O(runs), not O(pages) (docs/performance.md).
 * Below vmalloc.c and vmap_block.c, which both build them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/alloc.h"
#include "core/mm/mm.h"

/*
 * Make room for @n page runs.  The arithmetic is checked (issue 12): a run
 * count beyond VT_RUNS_MAX + 1 or whose byte size overflows size_t is
 * refused before realloc() sees it.
 */
static __attribute__((noinline)) int runs_grow(struct vt_pages *p, uint64_t n)
{
	size_t c;

	if (n > (uint64_t)VT_RUNS_MAX + 1)
		return -ENOMEM;
	c = vt_alloc_nr(p->cap, n);
	if (c > UINT32_MAX)
		c = n;
	/* the two arrays in step, each size checked (core/alloc.h) */
	if (VT_REALLOC_ARRAY(p->runs, c) || VT_REALLOC_ARRAY(p->start, c))
		return -ENOMEM;
	p->cap = c;
	return 0;
}

static inline int runs_reserve(struct vt_pages *p, uint64_t n)
{
	return n <= p->cap ? 0 : runs_grow(p, n);
}

/* vt_pages_from_runs()'s refusals: no room for @nr_runs runs (@err from
 * runs_reserve()), else more than 2^64 pages (@over), else @k pages in
 * all for @nr_pages */
static __attribute__((noinline, cold)) int pages_error(struct vt_engine *e, int err,
						       bool over, uint32_t nr_runs,
						       uint64_t k, uint64_t nr_pages)
{
	if (err)
		return vt_error_set(e->err, err,
				    "cannot allocate the page array of %llu runs (%llu pages)",
				    (unsigned long long)nr_runs,
				    (unsigned long long)nr_pages);
	if (over)
		return vt_error_set(e->err, VT_ERR_INVARIANT,
				    "page runs of more than 2^64 pages");
	return vt_error_set(e->err, VT_ERR_INVARIANT,
			    "page runs of %llu pages for %llu",
			    (unsigned long long)k,
			    (unsigned long long)nr_pages);
}

/*
 * The struct page * array a caller builds from page runs, kept as the runs
 * (core/mm/walk.h struct vt_pages): O(runs), not O(pages).  Callers have
 * bounded @nr_pages by the vmalloc area (engine_apply()); the page totals
 * are checked here too.
 */
int vt_pages_from_runs(struct vt_engine *e, const struct vt_page_run *r,
		       uint32_t nr_runs, uint64_t nr_pages)
{
	struct vt_pages *p = &e->pages;
	uint64_t k = 0;
	int err = runs_reserve(p, (uint64_t)nr_runs + 1);

	if (err)
		return pages_error(e, err, false, nr_runs, 0, nr_pages);
	for (uint32_t i = 0; i < nr_runs; i++) {
		uint64_t n;

		if (r[i].order > 63 || r[i].count > (UINT64_MAX >> r[i].order) ||
		    __builtin_add_overflow(k, r[i].count << r[i].order, &n))
			return pages_error(e, 0, true, nr_runs, 0, nr_pages);
		p->runs[i] = r[i];
		p->start[i] = k;
		k = n;
	}
	p->start[nr_runs] = k;
	p->nr_runs = nr_runs;
	p->cur = 0;
	p->nr = k;
	if (k != nr_pages)
		return pages_error(e, 0, false, nr_runs, k, nr_pages);
	return 0;
}

int vt_area_keep_runs(struct vt_area *a, const struct vt_page_run *r, uint32_t n)
{
	a->runs = malloc((n ? n : 1) * sizeof(*r));
	if (!a->runs)
		return -ENOMEM;
	memcpy(a->runs, r, n * sizeof(*r));
	a->nr_runs = n;
	return 0;
}
