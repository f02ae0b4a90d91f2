// SPDX-License-Identifier: GPL-2.0
/*
 * vm_map_ram() and the per-CPU vmap blocks of mm/vmalloc.c
 * (linux-mm/linux-mm @ 00cc00cd1fb6), one CPU modelled, and
 * _vm_unmap_aliases().
 */
#include <errno.h>
#include <stdlib.h>

#include "core/mm/mm.h"

/* ---- vm_map_ram: per-CPU vmap blocks (one CPU modelled) ------------------- */

static unsigned int get_order_pages(uint64_t n)
{
	return n <= 1 ? 0 : 64 - __builtin_clzll(n - 1);
}

/* new_vmap_block() / vb_alloc() */
static int vt_vb_alloc(struct vt_engine *e, struct vt_area *a, uint64_t count,
		       const struct vt_event *ev)
{
	const struct arm64_geom *g = &e->mm.g;
	uint64_t need = 1ull << get_order_pages(count);
	struct vt_vmap_block *vb;
	int err;

	for (vb = e->blocks; vb; vb = vb->next)
		if (vb->on_free_list && vb->free >= need)
			break;
	if (!vb) {
		uint64_t bsz = e->vmap_bbmap_bits << g->page_shift, va;
		/* --use-trace-va: the block is VMAP_BLOCK_SIZE aligned, so
		 * the recorded mapping names it */
		struct vt_event blk = {
			.has_va = ev && ev->has_va,
			.va = ev ? ev->va & ~(bsz - 1) : 0,
		};

		err = vt_alloc_vmap_area(e, bsz, bsz, g->vmalloc_start,
					 g->vmalloc_end, &blk, &va);
		if (err)
			return err;
		vb = calloc(1, sizeof(*vb));
		if (!vb)
			return -ENOMEM;
		vb->va_start = va;
		vb->free = e->vmap_bbmap_bits;
		vb->dirty_min = e->vmap_bbmap_bits;
		vb->on_free_list = true;
		/* list_add_tail_rcu(): vb_alloc() tries the oldest block first */
		*e->blocks_tail = vb;
		e->blocks_tail = &vb->next;
	}
	a->va_start = vb->va_start +
		      ((e->vmap_bbmap_bits - vb->free) << g->page_shift);
	a->size = count << g->page_shift;
	a->va_end = a->va_start + a->size;
	vb->free -= need;
	if (!vb->free)
		vb->on_free_list = false;
	a->vb = vb;
	return 0;
}

/* vb_free(): clear the PTEs, record the dirty range; free a full block */
int vt_vb_free(struct vt_engine *e, struct vt_area *a)
{
	const struct arm64_geom *g = &e->mm.g;
	struct vt_vmap_block *vb = a->vb;
	uint64_t order_pages = 1ull << get_order_pages(a->nr_pages);
	uint64_t off = (a->va_start - vb->va_start) >> g->page_shift;
	int err = vt___vunmap_range_noflush(&e->w, a->va_start, a->va_start + a->size);

	if (err)
		return err;
	if (off < vb->dirty_min)
		vb->dirty_min = off;
	if (off + order_pages > vb->dirty_max)
		vb->dirty_max = off + order_pages;
	vb->dirty += order_pages;
	if (vb->dirty == e->vmap_bbmap_bits)
		return vt_free_vmap_block(e, vb);
	return 0;
}

int vt_vm_map_ram(struct vt_engine *e, const struct vt_event *ev,
			 struct vt_area *a)
{
	const struct arm64_geom *g = &e->mm.g;
	int err;

	a->nr_pages = ev->nr_pages;
	err = vt_area_keep_runs(a, ev->runs, ev->nr_runs);
	if (!err)
		err = vt_pages_from_runs(e, ev->runs, ev->nr_runs, ev->nr_pages);
	if (err)
		return err;
	if (ev->nr_pages <= VMAP_MAX_ALLOC) {
		err = vt_vb_alloc(e, a, ev->nr_pages, ev);
	} else {
		/* alloc_vmap_area(size, PAGE_SIZE, ...): no guard page */
		a->flags |= VT_FLAG(VM_NO_GUARD);
		err = vt___get_vm_area_node(e, a, ev->nr_pages << g->page_shift, 1,
				     g->page_shift);
	}
	if (err)
		return err;
	return vt_vmap_small_pages_range_noflush(&e->w, a->va_start,
						 a->va_start + a->size,
						 e->prot_kernel, 0, g->page_shift);
}

/*
 * _vm_unmap_aliases() of 6.1 (--vb-dirty=keep): the dirty range of every
 * block on the free list with dirty pages joins the flush and is kept, so
 * the next call flushes it again; then purge_fragmented_blocks_allcpus()
 * frees every block whose pages are all free or dirty (no
 * VMAP_PURGE_THRESHOLD yet), and __purge_vmap_area_lazy() flushes
 * (mm/vmalloc.c of 6.1: list_for_each_entry_rcu(vb, &vbq->free, ...),
 * "if (vb->dirty && vb->dirty != VMAP_BBMAP_BITS)").
 */
static int vt__vm_unmap_aliases_keep(struct vt_engine *e)
{
	const struct arm64_geom *g = &e->mm.g;
	uint64_t start = UINT64_MAX, end = 0, bits = e->vmap_bbmap_bits, s, x;
	struct vt_vmap_block *vb;
	bool flush = false;
	int err;

	for (vb = e->blocks; vb; vb = vb->next) {
		if (!vb->on_free_list || !vb->dirty || vb->dirty == bits)
			continue;
		s = vb->va_start + (vb->dirty_min << g->page_shift);
		x = vb->va_start + (vb->dirty_max << g->page_shift);
		if (s < start)
			start = s;
		if (x > end)
			end = x;
		flush = true;
	}
	err = vt_purge_fragmented_blocks(e);
	if (err)
		return err;
	return vt___purge_vmap_area_lazy(e, start, end, flush, false);
}

/*
 * vm_unmap_aliases() -> _vm_unmap_aliases(ULONG_MAX, 0, 0): fragmented
 * vmap blocks are freed, dirty block ranges merge into the purge's flush.
 */
int vt__vm_unmap_aliases(struct vt_engine *e)
{
	const struct arm64_geom *g = &e->mm.g;
	uint64_t start = UINT64_MAX, end = 0, bits = e->vmap_bbmap_bits;
	struct vt_vmap_block *vb, *next;
	bool flush = false;
	int err;

	if (e->o.vb_dirty_keep)
		return vt__vm_unmap_aliases_keep(e);
	for (vb = e->blocks; vb; vb = next) {
		next = vb->next;
		/* purge_fragmented_block(vb, ..., false): VMAP_PURGE_THRESHOLD
		 * is VMAP_BBMAP_BITS / 4 */
		if (vb->free + vb->dirty == bits && vb->dirty != bits &&
		    vb->free < bits / 4) {
			err = vt_free_vmap_block(e, vb);
			if (err)
				return err;
			continue;
		}
		if (vb->dirty_max && vb->dirty != bits) {
			uint64_t s = vb->va_start + (vb->dirty_min << g->page_shift);
			uint64_t x = vb->va_start + (vb->dirty_max << g->page_shift);

			if (s < start)
				start = s;
			if (x > end)
				end = x;
			vb->dirty_min = bits;
			vb->dirty_max = 0;
			flush = true;
		}
	}
	return vt___purge_vmap_area_lazy(e, start, end, flush, false);
}
