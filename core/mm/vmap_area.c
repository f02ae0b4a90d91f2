// SPDX-License-Identifier: GPL-2.0
/*
 * VA areas of mm/vmalloc.c (linux-mm/linux-mm @ 00cc00cd1fb6): the
 * vmap-area allocator (alloc_vmap_area() and the free tree), and lazy
 * freeing with its purge (free_vmap_area_noflush(),
 * __purge_vmap_area_lazy(), purge_vmap_node()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/mm/mm.h"

/* ---- the vmap-area allocator (alloc_vmap_area(), free_vmap_area()) ------- */

/* Room for one more area in the lazy list. */
static __attribute__((noinline)) int lazy_grow(struct vt_engine *e)
{
	return VT_ALLOC_GROW(e->lazy, e->nr_lazy + 1, e->cap_lazy);
}

/* [start, end) appended to the lazy list */
static inline int lazy_push(struct vt_engine *e, uint64_t start, uint64_t end)
{
	if (e->nr_lazy >= e->cap_lazy && lazy_grow(e))
		return -ENOMEM;
	e->lazy[e->nr_lazy++] = (struct vt_vrange){ start, end };
	return 0;
}

/*
 * The free tree of the area holding @addr: the module area's
 * (MODULES_VADDR..MODULES_END) below VMALLOC_START, the vmalloc area's
 * from it.  The kernel keeps one tree over both (vmap_init_free_space());
 * here each area's free space is a tree of its own, which gives the same
 * fits (a search's window is one area, and a fit never crosses the
 * boundary between them), and a vmalloc's search never meets the module
 * area's long free range, which ends below its window (va_free.c
 * lowest_long(): one path from the root instead of three).
 */
static struct vt_va_free *va_tree(struct vt_engine *e, uint64_t addr)
{
	return addr < e->mm.g.vmalloc_start ? &e->free_modules : &e->free;
}

/* Return [start, end) to the free tree, merging neighbours. */
int vt_merge_or_add_vmap_area(struct vt_engine *e, uint64_t start, uint64_t end)
{
	uint64_t b = e->mm.g.vmalloc_start;

	if (start < b && end > b) {
		int err = vt_va_free_add(&e->free_modules, start, b);

		return err ? err : vt_va_free_add(&e->free, b, end);
	}
	return vt_va_free_add(va_tree(e, start), start, end);
}

/*
 * Lowest-address fit in [vstart, vend) honouring @align, as
 * find_vmap_lowest_match() does for one vmap node (the free tree spans
 * every range, vmap_init_free_space(); here that of the window, which is
 * the module area or the vmalloc area).  Deviation: the kernel prunes
 * subtrees by size + align - 1 on its augmented rbtree; this search
 * prunes by size and takes the exact lowest fit.
 */
static int vt_find_vmap_lowest_match(struct vt_engine *e, uint64_t size, uint64_t align,
				     uint64_t vstart, uint64_t vend, uint64_t *out)
{
	return vt_va_free_take_lowest(va_tree(e, vstart), size, align, vstart,
				      vend, out);
}

static int va_take_at(struct vt_engine *e, uint64_t a, uint64_t size,
		      uint64_t vstart, uint64_t vend)
{
	if (a < vstart || a + size > vend || a + size < a)
		return -ENOSPC;
	return vt_va_free_take_at(va_tree(e, a), a, size);
}

/* The [vstart, vend) an area's VA comes from: the module area for a
 * vmalloc given "range": "modules" (execmem), else VMALLOC_START..END. */
static void area_range(const struct vt_engine *e, const struct vt_area *a,
		       uint64_t *vstart, uint64_t *vend)
{
	*vstart = a && a->modules ? e->mm.g.modules_vaddr : e->mm.g.vmalloc_start;
	*vend = a && a->modules ? e->mm.g.vmalloc_start : e->mm.g.vmalloc_end;
}


/*
 * free_vmap_block(): the whole block's VA is freed lazily.  Here, beside
 * the VA it frees, because reclaim_and_purge_vmap_areas() below frees
 * fragmented blocks too (vmap_block.c builds on this file, not the
 * other way round).
 */
int vt_free_vmap_block(struct vt_engine *e, struct vt_vmap_block *vb)
{
	struct vt_vmap_block **pp = &e->blocks;
	uint64_t start = vb->va_start;

	while (*pp != vb)
		pp = &(*pp)->next;
	*pp = vb->next;
	if (e->blocks_tail == &vb->next)
		e->blocks_tail = pp;
	free(vb);
	return vt_free_vmap_area_noflush(e, start,
				      start + (e->vmap_bbmap_bits << e->mm.g.page_shift));
}

/*
 * reclaim_and_purge_vmap_areas(): purge_fragmented_blocks_allcpus() (every
 * block on a free list whose free and dirty pages fill it, forced), then
 * __purge_vmap_area_lazy().
 */
int vt_reclaim_and_purge_vmap_areas(struct vt_engine *e)
{
	int err = vt_purge_fragmented_blocks(e);

	return err ? err : vt___purge_vmap_area_lazy(e, UINT64_MAX, 0, false, true);
}

/*
 * purge_fragmented_blocks(): free every block on a free list whose free
 * and dirty pages fill it (free + dirty == VMAP_BBMAP_BITS), but not a
 * wholly dirty one.
 */
int vt_purge_fragmented_blocks(struct vt_engine *e)
{
	uint64_t bits = e->vmap_bbmap_bits;
	struct vt_vmap_block *vb, *next;
	int err;

	for (vb = e->blocks; vb; vb = next) {
		next = vb->next;
		if (vb->on_free_list && vb->free + vb->dirty == bits &&
		    vb->dirty != bits) {
			err = vt_free_vmap_block(e, vb);
			if (err)
				return err;
		}
	}
	return 0;
}

/* alloc_vmap_area() with --use-trace-va: @ev's area where the recorded
 * kernel put it */
static __attribute__((noinline)) int
alloc_vmap_area_at(struct vt_engine *e, uint64_t size, uint64_t vstart,
		   uint64_t vend, const struct vt_event *ev, uint64_t *out)
{
	int err;

	if (ev->va & (e->mm.g.page_size - 1))
		return vt_error_set(e->err, VT_ERR_BAD_REQUEST,
				    "trace va 0x%llx is not page aligned",
				    (unsigned long long)ev->va);
	err = va_take_at(e, ev->va, size, vstart, vend);
	if (err == -ENOSPC) {
		err = vt_reclaim_and_purge_vmap_areas(e);
		if (!err)
			err = va_take_at(e, ev->va, size, vstart, vend);
	}
	if (err == -ENOSPC)
		return vt_error_set(e->err, VT_ERR_VA_OVERLAP,
				    "trace va 0x%llx + %llu bytes overlaps a live area or lies outside the %s area",
				    (unsigned long long)ev->va,
				    (unsigned long long)size,
				    vstart == e->mm.g.modules_vaddr ?
				    "module" : "vmalloc");
	*out = ev->va;
	return err;
}

/* alloc_vmap_area() after a search found no fit: "overflow:"
 * reclaim_and_purge_vmap_areas() and the search again, then fail */
static __attribute__((noinline)) int
alloc_vmap_area_retry(struct vt_engine *e, uint64_t size, uint64_t align,
		      uint64_t vstart, uint64_t vend, uint64_t *out)
{
	int err = vt_reclaim_and_purge_vmap_areas(e);

	if (!err)
		err = vt_find_vmap_lowest_match(e, size, align, vstart, vend, out);
	if (err == -ENOSPC)
		return vt_error_set(e->err, VT_ERR_VA_EXHAUSTED,
				    "vmalloc area exhausted: no %llu-byte area with alignment %llu",
				    (unsigned long long)size,
				    (unsigned long long)align);
	return err;
}

/*
 * alloc_vmap_area(): lowest fit; on failure reclaim_and_purge_vmap_areas()
 * and retry once, then fail.  With --use-trace-va the area of @ev goes
 * where the recorded kernel put it.
 */
static inline int alloc_vmap_area(struct vt_engine *e, uint64_t size, uint64_t align,
				  uint64_t vstart, uint64_t vend,
				  const struct vt_event *ev, uint64_t *out)
{
	int err;

	if (e->o.use_trace_va && ev && ev->has_va)
		return alloc_vmap_area_at(e, size, vstart, vend, ev, out);
	err = vt_find_vmap_lowest_match(e, size, align, vstart, vend, out);
	return err == -ENOSPC ?
	       alloc_vmap_area_retry(e, size, align, vstart, vend, out) : err;
}

int vt_alloc_vmap_area(struct vt_engine *e, uint64_t size, uint64_t align,
		       uint64_t vstart, uint64_t vend,
		       const struct vt_event *ev, uint64_t *out)
{
	return alloc_vmap_area(e, size, align, vstart, vend, ev, out);
}

/*
 * __get_vm_area_node(): size aligned to the mapping granule, VM_IOREMAP
 * alignment, a guard page unless VM_NO_GUARD.
 */
int vt___get_vm_area_node(struct vt_engine *e, struct vt_area *a, uint64_t size,
		   uint64_t align, unsigned int shift)
{
	const struct arm64_geom *g = &e->mm.g;
	uint64_t va, vstart, vend;
	int err;

	area_range(e, a, &vstart, &vend);
	/* __get_vm_area_node(): an ALIGN() that wraps to 0 is refused */
	if (size > vend - vstart)
		return vt_error_set(e->err, VT_ERR_VA_EXHAUSTED,
				    "size %llu is beyond the %s area",
				    (unsigned long long)size,
				    a->modules ? "module" : "vmalloc");
	size = align_up(size, 1ull << shift);
	if (a->flags & VT_FLAG(VM_IOREMAP)) {
		unsigned int o = size > 1 ? 64 - __builtin_clzll(size - 1) : 0;

		if (o < g->page_shift)
			o = g->page_shift;
		if (o > g->ioremap_max_order)
			o = g->ioremap_max_order;
		align = 1ull << o;
	}
	if (align < g->page_size)
		align = g->page_size;
	a->size = size;
	if (!(a->flags & VT_FLAG(VM_NO_GUARD)))
		size += g->page_size;
	if (size > vend - vstart)
		return vt_error_set(e->err, VT_ERR_VA_EXHAUSTED,
				    "size %llu is beyond the %s area",
				    (unsigned long long)a->size,
				    a->modules ? "module" : "vmalloc");
	err = alloc_vmap_area(e, size, align, vstart, vend, e->place_ev, &va);
	e->place_ev = NULL;
	if (err)
		return err;
	a->va_start = va;
	a->va_end = va + size;
	a->page_shift = shift;
	return 0;
}

/* ---- lazy freeing and purge ---------------------------------------------- */

/* One range of the purge back to the free tree: merged at once
 * (merge_or_add_vmap_area()), or staged with the others when @few is not
 * set (in each area's tree: a range across VMALLOC_START in two). */
static int purge_range(struct vt_engine *e, bool few, uint64_t start, uint64_t end)
{
	uint64_t b = e->mm.g.vmalloc_start;
	int err;

	if (few)
		return vt_merge_or_add_vmap_area(e, start, end);
	if (start < b && end > b) {
		err = vt_va_free_stage(&e->free_modules, start, b);
		return err ? err : vt_va_free_stage(&e->free, b, end);
	}
	return vt_va_free_stage(va_tree(e, start), start, end);
}

/*
 * __purge_vmap_area_lazy(): one flush_tlb_kernel_range() over the merged
 * span of every lazily freed area (gaps included) and [start, end); the
 * areas go back to the free tree.  Returns true if anything was purged;
 * _vm_unmap_aliases() flushes [start, end) alone when nothing was lazy.
 * An automatic purge (lazy_max_pages exceeded, or an allocation failure)
 * is counted apart from the event that triggered it.
 */
/*
 * purge_vmap_node(): the purged areas go back to the free tree (one vmap
 * node modelled); their pages are added to *pages.  Areas that follow one
 * another in the lazy list and touch (an area and the one allocated right
 * after it, the usual case) go back as one range: the free tree comes out
 * the same as with one merge_or_add_vmap_area() each, which would merge
 * them anyway, for one tree update instead of one per area.  The ranges
 * go back at once (vt_va_free_stage()): many are merged with the free
 * tree's ranges in one pass and the tree rebuilt, as the kernel's purge
 * of a whole lazy list does many merges in a row.
 */
static int vt_purge_vmap_node(struct vt_engine *e, uint64_t *pages)
{
	/* (a few areas: merged one by one, as vt_va_free_add_staged() would) */
	const struct vt_vrange *lazy = e->lazy;
	uint64_t nr = e->nr_lazy, start = 0, end = 0, n = 0;
	unsigned int shift = e->mm.g.page_shift;
	bool few = nr < 8;
	int err = 0;

	for (uint64_t i = 0; i < nr && !err; i++) {
		const struct vt_vrange *r = &lazy[i];

		n += (r->end - r->start) >> shift;
		if (i && r->start == end) {
			end = r->end;
		} else if (i && r->end == start) {
			start = r->start;
		} else {
			if (i)
				err = purge_range(e, few, start, end);
			start = r->start;
			end = r->end;
		}
	}
	if (nr && !err)
		err = purge_range(e, few, start, end);
	*pages += n;
	if (!err && !few)
		err = vt_va_free_add_staged(&e->free_modules);
	if (!err && !few)
		err = vt_va_free_add_staged(&e->free);
	e->nr_lazy = 0;
	return err;
}

int vt___purge_vmap_area_lazy(struct vt_engine *e, uint64_t start, uint64_t end,
				     bool flush_extra, bool automatic)
{
	struct arm64_counters *saved_arch = e->mm.st;
	struct vt_stats *saved = e->w.st;
	uint64_t pages = 0;
	int err = 0;

	if (automatic) {
		e->mm.st = &e->apg;
		e->w.st = &e->pg;
		e->apg_used = true;	/* fold_arch_counters() folds it */
	}
	if (e->nr_lazy) {
		for (uint64_t i = 0; i < e->nr_lazy; i++) {
			if (e->lazy[i].start < start)
				start = e->lazy[i].start;
			if (e->lazy[i].end > end)
				end = e->lazy[i].end;
		}
		flush_tlb_kernel_range(&e->mm, start, end);
		err = vt_purge_vmap_node(e, &pages);
		e->vmap_lazy_nr -= pages;
		/* purges: a call that found lazy areas (nr_purge_nodes > 0) */
		EST(e, purges)++;
		EST(e, purged_pages) += pages;
		if (automatic)
			e->purged_in_event = true;
	} else if (flush_extra) {
		flush_tlb_kernel_range(&e->mm, start, end);
	}
	e->mm.st = saved_arch;
	e->w.st = saved;
	return err;
}

/* free_vmap_area_noflush(): lazy; a purge once lazy_max_pages is exceeded */
static inline int free_vmap_area_noflush(struct vt_engine *e, uint64_t start,
					 uint64_t end)
{
	int err = lazy_push(e, start, end);

	if (err)
		return err;
	e->vmap_lazy_nr += (end - start) >> e->mm.g.page_shift;
	if (e->o.purge_immediate || e->vmap_lazy_nr > e->lazy_max_pages)
		return vt___purge_vmap_area_lazy(e, UINT64_MAX, 0, false, true);
	return 0;
}

int vt_free_vmap_area_noflush(struct vt_engine *e, uint64_t start, uint64_t end)
{
	return free_vmap_area_noflush(e, start, end);
}

/* remove_vm_area() -> free_unmap_vmap_area(): one unmap walk over the whole
 * vmap_area, guard page included; no TLB maintenance until the purge */
int vt_free_unmap_vmap_area(struct vt_engine *e, uint64_t start, uint64_t end)
{
	int err = vt___vunmap_range_noflush(&e->w, start, end);

	return err ? err : free_vmap_area_noflush(e, start, end);
}
