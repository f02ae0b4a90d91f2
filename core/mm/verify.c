// SPDX-License-Identifier: GPL-2.0
/*
 * --verify: after each event, the live areas a walk wrote under are
 * translated again and their CONT groups checked (arch/arm64/verify.c,
 * translate.c).  No kernel function: the kernel trusts its page tables;
 * this is the model checking itself.  Called by the engine
 * (core/mm/vmalloc.c) and calls no other file of core/mm/.
 */
#include <errno.h>
#include <stdint.h>
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
 * The live areas are found through a treap by VA (struct vt_vbusy) as the
 * kernel's vmap_area_root is an rbtree of busy areas (mm/vmalloc.c,
 * linux-mm/linux-mm @ 00cc00cd1fb6); a scan of every live area per event
 * made test_vmalloc --test=all (65,538 live areas) quadratic.
 */
static bool vb_less(const struct vt_vbusy_node *x, uint64_t start,
		    uintptr_t a)
{
	return x->start < start || (x->start == start && (uintptr_t)x->a < a);
}

static void vb_pull(struct vt_vbusy *t, uint32_t x)
{
	struct vt_vbusy_node *n = &t->n[x];

	n->max = n->end;
	if (n->l && t->n[n->l].max > n->max)
		n->max = t->n[n->l].max;
	if (n->r && t->n[n->r].max > n->max)
		n->max = t->n[n->r].max;
}

/* @x split into the keys before (start, a) (*l) and the rest (*r) */
static void vb_split(struct vt_vbusy *t, uint32_t x, uint64_t start,
		     uintptr_t a, uint32_t *l, uint32_t *r)
{
	if (!x) {
		*l = *r = 0;
		return;
	}
	t->steps++;
	if (vb_less(&t->n[x], start, a)) {
		vb_split(t, t->n[x].r, start, a, &t->n[x].r, r);
		*l = x;
	} else {
		vb_split(t, t->n[x].l, start, a, l, &t->n[x].l);
		*r = x;
	}
	vb_pull(t, x);
}

static uint32_t vb_merge(struct vt_vbusy *t, uint32_t l, uint32_t r)
{
	if (!l || !r)
		return l | r;
	t->steps++;
	if (t->n[l].prio > t->n[r].prio) {
		t->n[l].r = vb_merge(t, t->n[l].r, r);
		vb_pull(t, l);
		return l;
	}
	t->n[r].l = vb_merge(t, l, t->n[r].l);
	vb_pull(t, r);
	return r;
}

int vt_verify_area_add(struct vt_engine *e, struct vt_area *a)
{
	struct vt_vbusy *t = &e->vbusy;
	uint32_t x, l, r;

	if (t->spare) {
		x = t->spare;
		t->spare = t->n[x].l;
	} else {
		if (!t->used)
			t->used = 1;
		if (t->used == UINT32_MAX ||
		    VT_ALLOC_GROW(t->n, (uint64_t)t->used + 1, t->cap))
			return -ENOMEM;
		x = t->used++;
	}
	t->seed = t->seed * 1103515245u + 12345u;	/* fixed: runs repeat */
	t->n[x] = (struct vt_vbusy_node){ .a = a, .start = a->va_start,
		.end = a->va_start + a->size, .max = a->va_start + a->size,
		.prio = t->seed };
	vb_split(t, t->root, a->va_start, (uintptr_t)a, &l, &r);
	t->root = vb_merge(t, vb_merge(t, l, x), r);
	return 0;
}

void vt_verify_area_del(struct vt_engine *e, struct vt_area *a)
{
	struct vt_vbusy *t = &e->vbusy;
	uint32_t l, m, r;

	/* m: the keys from (va_start, a) on, r: those after it */
	vb_split(t, t->root, a->va_start, (uintptr_t)a, &l, &m);
	vb_split(t, m, a->va_start, (uintptr_t)a + 1, &m, &r);
	if (m) {
		t->n[m].l = t->spare;
		t->spare = m;
	}
	t->root = vb_merge(t, l, r);
}

void vt_verify_release(struct vt_engine *e)
{
	free(e->vbusy.n);
	e->vbusy = (struct vt_vbusy){ 0 };
}

/* The areas under @x that [s, end) overlaps, in VA order, onto vsort. */
static int vb_find(struct vt_engine *e, uint32_t x, uint64_t s, uint64_t end,
		   uint64_t *nr)
{
	struct vt_vbusy *t = &e->vbusy;
	int ret;

	while (x && t->n[x].max > s) {
		t->steps++;
		ret = vb_find(e, t->n[x].l, s, end, nr);
		if (ret)
			return ret;
		if (t->n[x].start >= end)
			return 0;
		if (s < t->n[x].end) {
			if (VT_ALLOC_GROW(e->vsort, *nr + 1, e->vsort_cap))
				return vt_err_oom(e->err);
			e->vsort[(*nr)++] = t->n[x].a;
		}
		x = t->n[x].r;
	}
	return 0;
}

static int area_va_cmp(const void *x, const void *y)
{
	const struct vt_area *a = *(struct vt_area *const *)x;
	const struct vt_area *b = *(struct vt_area *const *)y;

	return a->va_start < b->va_start ? -1 : a->va_start > b->va_start;
}

/* The live areas a walk of this event wrote under, each once, in VA order:
 * the order of the mismap reports and of the first CONT error must not
 * depend on the hash key (live areas never share a va_start). */
static int written_areas(struct vt_engine *e, uint64_t *nr)
{
	uint64_t k = 0;

	*nr = 0;
	for (uint64_t i = 0; i < e->written.nr; i++) {
		int ret = vb_find(e, e->vbusy.root, e->written.v[i].start,
				  e->written.v[i].end, nr);

		if (ret)
			return ret;
	}
	if (e->written.nr < 2 || *nr < 2)
		return 0;
	qsort(e->vsort, *nr, sizeof(*e->vsort), area_va_cmp);
	for (uint64_t i = 0; i < *nr; i++)	/* an area two ranges overlap */
		if (!k || e->vsort[k - 1] != e->vsort[i])
			e->vsort[k++] = e->vsort[i];
	*nr = k;
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
