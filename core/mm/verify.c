// SPDX-License-Identifier: GPL-2.0
/*
 * --verify: after each event, the live areas a walk wrote under are
 * translated again and their CONT groups checked (arch/arm64/verify.c,
 * translate.c).  No kernel function: the kernel trusts its page tables;
 * this is the model checking itself.  Called by the engine
 * (core/mm/vmalloc.c) and calls no other file of core/mm/.
 */
#include <stdlib.h>

#include "core/alloc.h"
#include "core/mm/mm.h"

/* Pages of @a whose translation differs from the page asked for. */
static uint64_t verify_area(struct vt_engine *e, struct vt_area *a,
			    uint64_t *first_va, uint64_t *want, uint64_t *got)
{
	const struct arm64_geom *g = &e->mm.g;
	uint64_t va = a->va_start, bad = 0;

	for (uint32_t r = 0; r < a->nr_runs; r++) {
		uint64_t n = a->runs[r].count << a->runs[r].order;
		uint64_t fva, w, x;
		uint64_t b = arm64_verify_pages(&e->mm, va, a->runs[r].pfn, n,
						&fva, &w, &x);

		if (b && !bad) {
			*first_va = fva;
			*want = w;
			*got = x;
		}
		bad += b;
		va += n << g->page_shift;
	}
	return bad;
}

/*
 * --verify is incremental: the walkers note the VA ranges they write under
 * (vt_walk_note()); after the event only the live areas that overlap one
 * are checked again.  An area no walk wrote under translates as it did
 * after the last event, so it would add no mismapped pages, and its CONT
 * groups passed then (a broken one stops the replay).  Both checks scan
 * each PTE table linearly (arm64_verify_pages(), arm64_check_cont()).
 */
static bool area_written(const struct vt_engine *e, const struct vt_area *a)
{
	uint64_t end = a->va_start + a->size;

	for (uint64_t i = 0; i < e->written.nr; i++)
		if (e->written.v[i].start < end && a->va_start < e->written.v[i].end)
			return true;
	return false;
}

static int area_va_cmp(const void *x, const void *y)
{
	const struct vt_area *a = *(struct vt_area *const *)x;
	const struct vt_area *b = *(struct vt_area *const *)y;

	return a->va_start < b->va_start ? -1 : a->va_start > b->va_start;
}

/* The live areas a walk of this event wrote under, in VA order: the order
 * of the mismap reports and of the first CONT error must not depend on
 * the hash key (live areas never share a va_start). */
static int written_areas(struct vt_engine *e, uint64_t *nr)
{
	*nr = 0;
	for (uint64_t h = 0; h < e->hash_size && e->written.nr; h++)
		for (struct vt_area *a = e->hash[h]; a; a = a->hnext) {
			if (!area_written(e, a))
				continue;
			if (VT_ALLOC_GROW(e->vsort, *nr + 1, e->vsort_cap))
				return vt_err_oom(e->err);
			e->vsort[(*nr)++] = a;
		}
	if (*nr > 1)	/* qsort()'s base may not be NULL, even for 0 */
		qsort(e->vsort, *nr, sizeof(*e->vsort), area_va_cmp);
	return 0;
}

/* --verify after one event: mismapped pages counted, a broken CONT group an error. */
int vt_verify_all(struct vt_engine *e)
{
	uint64_t cont_va = 0, nr;
	int ret;

	if (e->written.err)
		return vt_error_set(e->err, e->written.err, "out of memory");
	ret = written_areas(e, &nr);
	if (ret)
		return ret;
	for (uint64_t i = 0; i < nr; i++) {
		struct vt_area *a = e->vsort[i];
		uint64_t fva = 0, want = 0, got = 0, bad;

		bad = verify_area(e, a, &fva, &want, &got);
		if (bad > a->bad) {
			EST(e, mismapped_pages) += bad - a->bad;
			if (e->cb && e->cb->mismap)
				e->cb->mismap(e->cb->ctx, e->cur_index,
					      e->strat_idx, fva, want,
					      got, bad - a->bad);
		}
		a->bad = bad;
		if (arm64_check_cont(&e->mm, a->va_start,
				     a->va_start + a->size, &cont_va))
			return vt_error_set(e->err, VT_ERR_INVARIANT,
					    "contiguous-hint invariant broken at 0x%llx",
					    (unsigned long long)cont_va);
	}
	return 0;
}
