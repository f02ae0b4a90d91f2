// SPDX-License-Identifier: GPL-2.0
/*
 * One simulated kernel address space per strategy: the vmap-area
 * allocator, the API flows of mm/vmalloc.c and mm/ioremap.c, lazy freeing
 * and purge, and --verify.  Models linux-mm/linux-mm @ 00cc00cd1fb6
 * (mm/vmalloc.c) unless a function's comment says otherwise.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"

#define EST(e, x) ((e)->w.st->m[VT_M_##x])


static uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* ---- ids ------------------------------------------------------------------ */

static uint64_t id_hash(const struct vt_id *id)
{
	uint64_t h = 1469598103934665603ull;

	if (id->is_str) {
		for (const char *s = id->str; *s; s++)
			h = (h ^ (unsigned char)*s) * 1099511628211ull;
		return h ^ 0x5bd1e995;
	}
	h = id->num * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static bool id_eq(const struct vt_id *a, const struct vt_id *b)
{
	if (a->is_str != b->is_str)
		return false;
	return a->is_str ? !strcmp(a->str, b->str) : a->num == b->num;
}

static struct vt_area **area_slot(struct vt_engine *e, const struct vt_id *id)
{
	struct vt_area **pp = &e->hash[id_hash(id) & (e->hash_size - 1)];

	while (*pp && !id_eq(&(*pp)->id, id))
		pp = &(*pp)->hnext;
	return pp;
}

static int area_insert(struct vt_engine *e, struct vt_area *a)
{
	if (e->nr_areas + 1 > e->hash_size) {
		uint64_t n = e->hash_size * 2;
		struct vt_area **h = calloc(n, sizeof(*h));

		if (!h)
			return -ENOMEM;
		for (uint64_t i = 0; i < e->hash_size; i++) {
			struct vt_area *x = e->hash[i], *nx;

			for (; x; x = nx) {
				nx = x->hnext;
				x->hnext = h[id_hash(&x->id) & (n - 1)];
				h[id_hash(&x->id) & (n - 1)] = x;
			}
		}
		free(e->hash);
		e->hash = h;
		e->hash_size = n;
	}
	a->hnext = NULL;
	*area_slot(e, &a->id) = a;
	e->nr_areas++;
	return 0;
}

static void area_free(struct vt_area *a)
{
	if (!a)
		return;
	area_free(a->nested);
	if (a->id.is_str)
		free(a->id.str);
	free(a->runs);
	free(a);
}

/* ---- the vmap-area allocator (alloc_vmap_area(), free_vmap_area()) ------- */

static int vrange_push(struct vt_vrange **v, uint64_t *nr, uint64_t *cap,
		       uint64_t at, struct vt_vrange r)
{
	if (*nr == *cap) {
		uint64_t c = *cap ? *cap * 2 : 16;
		struct vt_vrange *n = realloc(*v, c * sizeof(*n));

		if (!n)
			return -ENOMEM;
		*v = n;
		*cap = c;
	}
	memmove(&(*v)[at + 1], &(*v)[at], (*nr - at) * sizeof(**v));
	(*v)[at] = r;
	(*nr)++;
	return 0;
}

/* Return [start, end) to the free tree, merging neighbours. */
static int va_free(struct vt_engine *e, uint64_t start, uint64_t end)
{
	uint64_t lo = 0, hi = e->nr_free;

	while (lo < hi) {
		uint64_t mid = (lo + hi) / 2;

		if (e->free[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && e->free[lo - 1].end == start) {
		e->free[lo - 1].end = end;
		if (lo < e->nr_free && e->free[lo].start == end) {
			e->free[lo - 1].end = e->free[lo].end;
			memmove(&e->free[lo], &e->free[lo + 1],
				(e->nr_free - lo - 1) * sizeof(*e->free));
			e->nr_free--;
		}
		return 0;
	}
	if (lo < e->nr_free && e->free[lo].start == end) {
		e->free[lo].start = start;
		return 0;
	}
	return vrange_push(&e->free, &e->nr_free, &e->cap_free, lo,
			   (struct vt_vrange){ start, end });
}

/* Take [a, a + size) out of free range i. */
static int va_take(struct vt_engine *e, uint64_t i, uint64_t a, uint64_t size)
{
	struct vt_vrange r = e->free[i];

	if (a == r.start && a + size == r.end) {
		memmove(&e->free[i], &e->free[i + 1],
			(e->nr_free - i - 1) * sizeof(*e->free));
		e->nr_free--;
		return 0;
	}
	if (a == r.start) {
		e->free[i].start = a + size;
		return 0;
	}
	e->free[i].end = a;
	if (a + size != r.end)
		return vrange_push(&e->free, &e->nr_free, &e->cap_free, i + 1,
				   (struct vt_vrange){ a + size, r.end });
	return 0;
}

/*
 * Lowest-address fit honouring @align, as find_vmap_lowest_match() does
 * for one vmap node.  Deviation: the kernel prunes subtrees by size +
 * align - 1 on its augmented rbtree; this scan takes the exact lowest fit.
 */
static int vt_find_vmap_lowest_match(struct vt_engine *e, uint64_t size, uint64_t align,
		   uint64_t *out)
{
	for (uint64_t i = 0; i < e->nr_free; i++) {
		uint64_t a = align_up(e->free[i].start, align);

		if (a >= e->free[i].start && a + size > a && a + size <= e->free[i].end) {
			*out = a;
			return va_take(e, i, a, size);
		}
	}
	return -ENOSPC;
}

static int va_take_at(struct vt_engine *e, uint64_t a, uint64_t size)
{
	for (uint64_t i = 0; i < e->nr_free; i++)
		if (a >= e->free[i].start && a + size <= e->free[i].end)
			return va_take(e, i, a, size);
	return -ENOSPC;
}

static int vt___purge_vmap_area_lazy(struct vt_engine *e, uint64_t start, uint64_t end,
				     bool flush_extra, bool automatic);
static int vt_free_vmap_block(struct vt_engine *e, struct vt_vmap_block *vb);

/*
 * reclaim_and_purge_vmap_areas(): purge_fragmented_blocks_allcpus() (every
 * block on a free list whose free and dirty pages fill it, forced), then
 * __purge_vmap_area_lazy().
 */
static int vt_reclaim_and_purge_vmap_areas(struct vt_engine *e)
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
	return vt___purge_vmap_area_lazy(e, UINT64_MAX, 0, false, true);
}

/*
 * alloc_vmap_area(): lowest fit; on failure reclaim_and_purge_vmap_areas()
 * and retry once, then fail.  With --use-trace-va the area of @ev goes
 * where the recorded kernel put it.
 */
static int vt_alloc_vmap_area(struct vt_engine *e, uint64_t size, uint64_t align,
			   const struct vt_event *ev, uint64_t *out)
{
	int err;

	if (e->o.use_trace_va && ev && ev->has_va) {
		if (ev->va & (e->mm.g.page_size - 1))
			return vt_error_set(e->err, VT_ERR_BAD_REQUEST,
					    "trace va 0x%llx is not page aligned",
					    (unsigned long long)ev->va);
		err = va_take_at(e, ev->va, size);
		if (err == -ENOSPC) {
			err = vt_reclaim_and_purge_vmap_areas(e);
			if (!err)
				err = va_take_at(e, ev->va, size);
		}
		if (err == -ENOSPC)
			return vt_error_set(e->err, VT_ERR_VA_OVERLAP,
					    "trace va 0x%llx..0x%llx overlaps a live area or lies outside the vmalloc area",
					    (unsigned long long)ev->va,
					    (unsigned long long)(ev->va + size));
		*out = ev->va;
		return err;
	}
	err = vt_find_vmap_lowest_match(e, size, align, out);
	if (err == -ENOSPC) {
		err = vt_reclaim_and_purge_vmap_areas(e);
		if (!err)
			err = vt_find_vmap_lowest_match(e, size, align, out);
	}
	if (err == -ENOSPC)
		return vt_error_set(e->err, VT_ERR_VA_EXHAUSTED,
				    "vmalloc area exhausted: no %llu-byte area with alignment %llu",
				    (unsigned long long)size,
				    (unsigned long long)align);
	return err;
}

/*
 * __get_vm_area_node(): size aligned to the mapping granule, VM_IOREMAP
 * alignment, a guard page unless VM_NO_GUARD.
 */
int vt___get_vm_area_node(struct vt_engine *e, struct vt_area *a, uint64_t size,
		   uint64_t align, unsigned int shift)
{
	const struct arm64_geom *g = &e->mm.g;
	uint64_t va;
	int err;

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
	if (size > e->mm.g.vmalloc_end - e->mm.g.vmalloc_start)
		return vt_error_set(e->err, VT_ERR_VA_EXHAUSTED,
				    "size %llu is beyond the vmalloc area",
				    (unsigned long long)a->size);
	err = vt_alloc_vmap_area(e, size, align, e->place_ev, &va);
	e->place_ev = NULL;
	if (err)
		return err;
	a->va_start = va;
	a->va_end = va + size;
	a->page_shift = shift;
	return 0;
}

/* ---- lazy freeing and purge ---------------------------------------------- */

/*
 * __purge_vmap_area_lazy(): one flush_tlb_kernel_range() over the merged
 * span of every lazily freed area (gaps included) and [start, end); the
 * areas go back to the free tree.  Returns true if anything was purged;
 * _vm_unmap_aliases() flushes [start, end) alone when nothing was lazy.
 * An automatic purge (lazy_max_pages exceeded, or an allocation failure)
 * is counted apart from the event that triggered it.
 */
/* purge_vmap_node(): the purged areas go back to the free tree (one vmap
 * node modelled); their pages are added to *pages */
static int vt_purge_vmap_node(struct vt_engine *e, uint64_t *pages)
{
	int err = 0;

	for (uint64_t i = 0; i < e->nr_lazy && !err; i++) {
		*pages += (e->lazy[i].end - e->lazy[i].start) >> e->mm.g.page_shift;
		err = va_free(e, e->lazy[i].start, e->lazy[i].end);
	}
	e->nr_lazy = 0;
	return err;
}

static int vt___purge_vmap_area_lazy(struct vt_engine *e, uint64_t start, uint64_t end,
				     bool flush_extra, bool automatic)
{
	struct arm64_counters *saved_arch = e->mm.st;
	struct vt_stats *saved = e->w.st;
	uint64_t pages = 0;
	int err = 0;

	if (automatic) {
		e->mm.st = &e->apg;
		e->w.st = &e->pg;
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
static int vt_free_vmap_area_noflush(struct vt_engine *e, uint64_t start, uint64_t end)
{
	int err = vrange_push(&e->lazy, &e->nr_lazy, &e->cap_lazy, e->nr_lazy,
			      (struct vt_vrange){ start, end });

	if (err)
		return err;
	e->vmap_lazy_nr += (end - start) >> e->mm.g.page_shift;
	if (e->o.purge_immediate || e->vmap_lazy_nr > e->lazy_max_pages)
		return vt___purge_vmap_area_lazy(e, UINT64_MAX, 0, false, true);
	return 0;
}

/* remove_vm_area() -> free_unmap_vmap_area(): one unmap walk over the whole
 * vmap_area, guard page included; no TLB maintenance until the purge */
static int vt_free_unmap_vmap_area(struct vt_engine *e, uint64_t start, uint64_t end)
{
	int err = vt___vunmap_range_noflush(&e->w, start, end);

	return err ? err : vt_free_vmap_area_noflush(e, start, end);
}

/* ---- the page array -------------------------------------------------------- */

static int pages_reserve(struct vt_pages *p, uint64_t n)
{
	if (n <= p->cap)
		return 0;
	uint64_t c = p->cap ? p->cap : 1024;

	while (c < n)
		c *= 2;
	uint64_t *pf = realloc(p->pfn, c * sizeof(*pf));

	if (!pf)
		return -ENOMEM;
	p->pfn = pf;
	uint8_t *ho = realloc(p->head_order, c);

	if (!ho)
		return -ENOMEM;
	p->head_order = ho;
	p->cap = c;
	return 0;
}

/* The struct page * array a caller builds from page runs. */
static int pages_from_runs(struct vt_engine *e, const struct vt_page_run *r,
			   uint32_t nr_runs, uint64_t nr_pages)
{
	struct vt_pages *p = &e->pages;
	uint64_t k = 0;
	int err = pages_reserve(p, nr_pages);

	if (err)
		return err;
	for (uint32_t i = 0; i < nr_runs; i++) {
		uint64_t bs = 1ull << r[i].order;

		for (uint64_t b = 0; b < r[i].count; b++) {
			uint64_t pfn = r[i].pfn + b * bs;

			for (uint64_t j = 0; j < bs; j++) {
				p->pfn[k] = pfn + j;
				p->head_order[k] = 0;
				k++;
			}
			if (r[i].order)
				p->head_order[k - bs] = r[i].order;
		}
	}
	p->nr = k;
	return 0;
}

static int area_keep_runs(struct vt_area *a, const struct vt_page_run *r, uint32_t n)
{
	a->runs = malloc((n ? n : 1) * sizeof(*r));
	if (!a->runs)
		return -ENOMEM;
	memcpy(a->runs, r, n * sizeof(*r));
	a->nr_runs = n;
	return 0;
}

/*
 * vm_area_alloc_pages() (mm/vmalloc.c, v6.19+ with a06157804399): blocks of
 * floor_log2(remaining) pages above @order, split to order 0, then
 * 2^order blocks; before a06157804399 order-0 pages come from the bulk
 * allocator.  Plenty of memory is assumed: no attempt fails.  Physical
 * placement: naturally aligned blocks from an engine pool; bulk order-0
 * pages are not adjacent to each other (per-CPU lists hand out scattered
 * pages), so nothing looks contiguous that the kernel would not see so.
 */
static int vt_vm_area_alloc_pages(struct vt_engine *e, struct vt_area *a,
			       unsigned int order, uint64_t nr)
{
	const struct arm64_geom *g = &e->mm.g;
	struct vt_page_run *runs = NULL;
	uint32_t n = 0, cap = 0;
	uint64_t done = 0;
	int err = 0;

	while (done < nr) {
		unsigned int o;
		uint64_t count = 1;

		if (order == 0 && !e->o.vmalloc_high_order) {
			o = 0;
			count = nr - done;
		} else if (e->o.vmalloc_high_order &&
			   (o = 63 - __builtin_clzll(nr - done)) > order) {
			if (o > g->max_page_order)
				o = g->max_page_order;
		} else {
			o = order;
			count = (nr - done) >> order;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			struct vt_page_run *r = realloc(runs, cap * sizeof(*r));

			if (!r) {
				free(runs);
				return -ENOMEM;
			}
			runs = r;
		}
		if (o == 0) {
			/* bulk order-0 pages: every other pfn */
			e->next_pfn = align_up(e->next_pfn, 2);
			for (uint64_t i = 0; i < count; i++) {
				if (n == cap) {
					cap *= 2;
					struct vt_page_run *r = realloc(runs, cap * sizeof(*r));

					if (!r) {
						free(runs);
						return -ENOMEM;
					}
					runs = r;
				}
				runs[n++] = (struct vt_page_run){ e->next_pfn, 1, 0 };
				e->next_pfn += 2;
			}
			done += count;
			continue;
		}
		e->next_pfn = align_up(e->next_pfn, 1ull << o);
		/* split_page(): order-0 pages, contiguous but not compound */
		runs[n++] = (struct vt_page_run){ e->next_pfn, count << o, 0 };
		e->next_pfn += count << o;
		done += count << o;
	}
	if (e->next_pfn >> (g->pa_bits - g->page_shift))
		e->next_pfn = 0x100000;	/* wrap the pool inside the PA space */
	a->runs = runs;
	a->nr_runs = n;
	err = pages_from_runs(e, runs, n, nr);
	return err;
}

/* ---- the API flows -------------------------------------------------------- */

static struct vt_area *area_new(const struct vt_event *ev, enum vt_op op)
{
	struct vt_area *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->op = op;
	a->flags = ev ? ev->flags : 0;
	a->prot = ev ? ev->prot : VT_PROT_KERNEL;
	if (ev && ev->id.present) {
		a->id = ev->id;
		if (ev->id.is_str) {
			a->id.str = strdup(ev->id.str);
			if (!a->id.str) {
				free(a);
				return NULL;
			}
		}
	}
	return a;
}

/* clear_vm_uninitialized_flag(): smp_wmb() */
static void vt_clear_vm_uninitialized_flag(struct vt_engine *e)
{
	smp_wmb(&e->mm);
}

static int vt___vmalloc_node_range_noprof(struct vt_engine *e, const struct vt_event *ev,
		      struct vt_area *a, uint64_t size, uint64_t align);

/*
 * __vmalloc_node_range_noprof() and __vmalloc_area_node(): choose the
 * mapping shift, get the area, vmalloc the page-pointer array when it is
 * larger than a page, allocate the pages, map them.
 */
static int vt___vmalloc_node_range_noprof(struct vt_engine *e, const struct vt_event *ev,
		      struct vt_area *a, uint64_t size, uint64_t align)
{
	const struct arm64_geom *g = &e->mm.g;
	unsigned int shift = g->page_shift;
	uint64_t nr, array_size;
	int err;

	size = align_up(size, g->page_size);
	if (!align)
		align = 1;
	if (e->spec.strat->huge_vmalloc && !e->o.nohugevmalloc &&
	    (a->flags & VT_FLAG(VM_ALLOW_HUGE_VMAP))) {
		if (size >= g->pmd_size)
			shift = g->pmd_shift;
		else
			shift = arm64_vmap_pte_supported_shift(&e->mm, size);
		if (align < (1ull << shift))
			align = 1ull << shift;
	}
	a->flags |= VT_FLAG(VM_ALLOC) | VT_FLAG(VM_UNINITIALIZED);
	err = vt___get_vm_area_node(e, a, size, align, shift);
	if (err == VT_ERR_VA_EXHAUSTED && shift > g->page_shift) {
		/* retry once with PAGE_SHIFT and the caller's alignment */
		shift = g->page_shift;
		e->place_ev = ev;
		err = vt___get_vm_area_node(e, a, size, ev && ev->align ? ev->align : 1,
				     shift);
	}
	if (err)
		return err;
	nr = a->size >> g->page_shift;
	a->nr_pages = nr;
	array_size = nr * sizeof(void *);
	if (array_size > g->page_size) {
		/* __vmalloc_node(array_size, 1, ...): a nested, non-huge vmalloc */
		a->nested = area_new(NULL, VT_OP_VMALLOC);
		if (!a->nested)
			return -ENOMEM;
		err = vt___vmalloc_node_range_noprof(e, NULL, a->nested, array_size, 1);
		if (err)
			return err;
	}
	if (ev && ev->has_pages) {
		if (ev->nr_pages != nr)
			return vt_error_set(e->err, VT_ERR_BAD_REQUEST,
					    "vmalloc of %llu pages given %llu pages",
					    (unsigned long long)nr,
					    (unsigned long long)ev->nr_pages);
		err = area_keep_runs(a, ev->runs, ev->nr_runs);
		if (!err)
			err = pages_from_runs(e, ev->runs, ev->nr_runs, nr);
	} else {
		err = vt_vm_area_alloc_pages(e, a, shift - g->page_shift, nr);
	}
	if (err)
		return err;
	err = e->spec.strat->vmap_pages_range(e, a->va_start, a->va_start + a->size,
					      0, shift);
	if (err)
		return err;
	vt_clear_vm_uninitialized_flag(e);
	return 0;
}

/*
 * Mainline __vmap_pages_range_noflush(): one page-array walk at PAGE_SHIFT,
 * or one vmap_range_noflush() per 2^page_shift chunk, reading only the
 * chunk's first page ("zigzag").
 */
int vt___vmap_pages_range_noflush(struct vt_engine *e, uint64_t addr, uint64_t end,
				  uint64_t idx, unsigned int page_shift)
{
	const struct arm64_geom *g = &e->mm.g;
	uint64_t step = 1ull << (page_shift - g->page_shift);

	if (page_shift == g->page_shift)
		return vt_vmap_small_pages_range_noflush(&e->w, addr, end,
							 e->prot_kernel, idx,
							 g->page_shift);
	for (; addr < end; addr += 1ull << page_shift, idx += step) {
		int err = vt_vmap_range_noflush(&e->w, addr, addr + (1ull << page_shift),
						e->pages.pfn[idx] << g->page_shift,
						e->prot_kernel, page_shift);
		if (err)
			return err;
	}
	return 0;
}

/* vmap() (mainline): the area at PAGE_SHIFT, one page-array walk */
int vt_vmap_mainline(struct vt_engine *e, struct vt_area *a)
{
	const struct arm64_geom *g = &e->mm.g;
	int err = vt___get_vm_area_node(e, a, a->nr_pages << g->page_shift, 1,
				 g->page_shift);

	if (err)
		return err;
	return vt_vmap_small_pages_range_noflush(&e->w, a->va_start,
						 a->va_start + a->size,
						 e->prot_kernel, 0, g->page_shift);
}

/* vmap(): VM_NO_GUARD is stripped (with a WARN); the strategy places and maps */
static int vt_vmap(struct vt_engine *e, const struct vt_event *ev, struct vt_area *a)
{
	int err;

	/* vmap(): WARN_ON_ONCE(flags & VM_FLUSH_RESET_PERMS) and NULL */
	if (a->flags & VT_FLAG(VM_FLUSH_RESET_PERMS))
		return vt_error_set(e->err, VT_ERR_BAD_REQUEST,
				    "vmap() refuses VM_FLUSH_RESET_PERMS");
	a->flags &= ~VT_FLAG(VM_NO_GUARD);
	a->nr_pages = ev->nr_pages;
	err = area_keep_runs(a, ev->runs, ev->nr_runs);
	if (!err)
		err = pages_from_runs(e, ev->runs, ev->nr_runs, ev->nr_pages);
	if (!err)
		err = e->spec.strat->vmap(e, a);
	return err;
}

/*
 * generic_ioremap_prot() -> ioremap_page_range(): the area is VM_IOREMAP
 * aligned; one vmap_range_noflush() with ioremap_max_page_shift.
 */
static int vt_generic_ioremap_prot(struct vt_engine *e, const struct vt_event *ev, struct vt_area *a)
{
	const struct arm64_geom *g = &e->mm.g;
	uint64_t offset = ev->phys & (g->page_size - 1);
	uint64_t phys = ev->phys - offset, size;
	unsigned int max_shift = e->o.nohugeiomap ? g->page_shift : 63;
	int err;

	if (!ev->size || ev->phys + ev->size < ev->phys)
		return vt_error_set(e->err, VT_ERR_BAD_REQUEST,
				    "ioremap of an empty or wrapping range");
	size = align_up(ev->size + offset, g->page_size);
	a->flags |= VT_FLAG(VM_IOREMAP);
	a->phys = phys;
	a->nr_pages = size >> g->page_shift;
	err = vt___get_vm_area_node(e, a, size, 1, g->page_shift);
	if (err)
		return err;
	err = area_keep_runs(a, &(struct vt_page_run){ phys >> g->page_shift,
						       a->nr_pages, 0 }, 1);
	if (err)
		return err;
	a->prot = VT_PROT_DEVICE;
	return vt_vmap_range_noflush(&e->w, a->va_start, a->va_start + size, phys,
				     e->prot_device, max_shift);
}

/* ---- vm_map_ram: per-CPU vmap blocks (one CPU modelled) ------------------- */

#define VMAP_MAX_ALLOC 64	/* BITS_PER_LONG */

static unsigned int get_order_pages(uint64_t n)
{
	return n <= 1 ? 0 : 64 - __builtin_clzll(n - 1);
}

/* new_vmap_block() / vb_alloc() */
static int vt_vb_alloc(struct vt_engine *e, struct vt_area *a, uint64_t count)
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

		err = vt_alloc_vmap_area(e, bsz, bsz, NULL, &va);
		if (err)
			return err;
		vb = calloc(1, sizeof(*vb));
		if (!vb)
			return -ENOMEM;
		vb->va_start = va;
		vb->free = e->vmap_bbmap_bits;
		vb->dirty_min = e->vmap_bbmap_bits;
		vb->on_free_list = true;
		vb->next = e->blocks;
		e->blocks = vb;
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

/* free_vmap_block(): the whole block's VA is freed lazily */
static int vt_free_vmap_block(struct vt_engine *e, struct vt_vmap_block *vb)
{
	struct vt_vmap_block **pp = &e->blocks;
	uint64_t start = vb->va_start;

	while (*pp != vb)
		pp = &(*pp)->next;
	*pp = vb->next;
	free(vb);
	return vt_free_vmap_area_noflush(e, start,
				      start + (e->vmap_bbmap_bits << e->mm.g.page_shift));
}

/* vb_free(): clear the PTEs, record the dirty range; free a full block */
static int vt_vb_free(struct vt_engine *e, struct vt_area *a)
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

static int vt_vm_map_ram(struct vt_engine *e, const struct vt_event *ev,
			 struct vt_area *a)
{
	const struct arm64_geom *g = &e->mm.g;
	int err;

	a->nr_pages = ev->nr_pages;
	err = area_keep_runs(a, ev->runs, ev->nr_runs);
	if (!err)
		err = pages_from_runs(e, ev->runs, ev->nr_runs, ev->nr_pages);
	if (err)
		return err;
	if (ev->nr_pages <= VMAP_MAX_ALLOC) {
		err = vt_vb_alloc(e, a, ev->nr_pages);
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
 * vm_unmap_aliases() -> _vm_unmap_aliases(ULONG_MAX, 0, 0): fragmented
 * vmap blocks are freed, dirty block ranges merge into the purge's flush.
 */
static int vt__vm_unmap_aliases(struct vt_engine *e)
{
	const struct arm64_geom *g = &e->mm.g;
	uint64_t start = UINT64_MAX, end = 0, bits = e->vmap_bbmap_bits;
	struct vt_vmap_block *vb, *next;
	bool flush = false;
	int err;

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

/* ---- unmap ops ------------------------------------------------------------ */

static int vt_vfree_unmap(struct vt_engine *e, struct vt_area *a)
{
	int err;

	if (a->vb)
		return vt_vb_free(e, a);
	err = vt_free_unmap_vmap_area(e, a->va_start, a->va_end);
	if (err)
		return err;
	/* vfree(): the pages go (page-allocator model: a later issue), then
	 * kvfree(vm->pages) frees a vmalloc'd page array */
	if (a->nested)
		err = vt_vfree_unmap(e, a->nested);
	return err;
}

/* ---- verify ------------------------------------------------------------------ */

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

static int verify_all(struct vt_engine *e)
{
	uint64_t cont_va = 0;

	for (uint64_t h = 0; h < e->hash_size; h++) {
		for (struct vt_area *a = e->hash[h]; a; a = a->hnext) {
			uint64_t fva = 0, want = 0, got = 0;
			uint64_t bad = verify_area(e, a, &fva, &want, &got);

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
	}
	return 0;
}

/* ---- engine ------------------------------------------------------------------ */

int vt_engine_new(const struct vt_strategy_spec *spec,
		  const struct vt_model_opts *o, struct vt_engine **out)
{
	struct vt_engine *e = calloc(1, sizeof(*e));
	struct arm64_mm_opts mo = {
		.eager_barriers = o->eager_barriers,
		.tlbi_range = o->tlbi_range,
		.initial_empty = o->initial_empty,
		.vmap_cont = o->vmap_cont,
		.flush_per_page = o->flush_per_page,
	};
	uint64_t vm_pages;
	int err;

	if (!e)
		return -ENOMEM;
	if (spec->strat->mm_opts)
		spec->strat->mm_opts(spec, &mo);
	e->spec = *spec;
	e->o = *o;
	err = arm64_mm_init(&e->mm, o->page_shift, o->va_bits, &mo);
	if (err) {
		free(e);
		return err == -EINVAL ? VT_ERR_GEOMETRY : err;
	}
	e->mm.st = &e->aev;
	e->w = (struct vt_walk){ .mm = &e->mm, .pages = &e->pages, .st = &e->ev };
	/* vmap() and ioremap pass pgprot_nx(prot): a no-op for these */
	e->prot_kernel = arm64_prot_bits(&e->mm.g, ARM64_PAGE_KERNEL);
	e->prot_device = arm64_prot_bits(&e->mm.g, ARM64_PROT_DEVICE_nGnRE);
	/* lazy_max_pages() = fls(num_online_cpus()) * (32 MiB / PAGE_SIZE) */
	e->lazy_max_pages = (uint64_t)(32 - __builtin_clz(o->cpus ? o->cpus : 1)) *
			    ((32ull << 20) >> o->page_shift);
	/* VMAP_BBMAP_BITS = min(1024, max(2 * VMAP_MAX_ALLOC,
	 * VMALLOC_PAGES / roundup_pow_of_two(NR_CPUS) / 16)) with the
	 * kernel's 64-bit guess VMALLOC_SPACE = 128 GiB and arm64's default
	 * NR_CPUS = 512: 1024 pages on 4K and 16K, 256 on 64K */
	vm_pages = (128ull << 30) >> o->page_shift;
	e->vmap_bbmap_bits = vm_pages / 512 / 16;
	if (e->vmap_bbmap_bits < 2 * VMAP_MAX_ALLOC)
		e->vmap_bbmap_bits = 2 * VMAP_MAX_ALLOC;
	if (e->vmap_bbmap_bits > 1024)
		e->vmap_bbmap_bits = 1024;
	e->hash_size = 64;
	e->hash = calloc(e->hash_size, sizeof(*e->hash));
	e->next_pfn = 0x100000;
	if (!e->hash || va_free(e, e->mm.g.vmalloc_start, e->mm.g.vmalloc_end)) {
		vt_engine_free(e);
		return -ENOMEM;
	}
	*out = e;
	return 0;
}

void vt_engine_free(struct vt_engine *e)
{
	if (!e)
		return;
	for (uint64_t h = 0; h < e->hash_size && e->hash; h++) {
		struct vt_area *a = e->hash[h], *n;

		for (; a; a = n) {
			n = a->hnext;
			area_free(a);
		}
	}
	while (e->blocks) {
		struct vt_vmap_block *n = e->blocks->next;

		free(e->blocks);
		e->blocks = n;
	}
	free(e->hash);
	free(e->free);
	free(e->lazy);
	free(e->pages.pfn);
	free(e->pages.head_order);
	arm64_mm_release(&e->mm);
	free(e);
}

static void id_text(const struct vt_id *id, char *buf, size_t n)
{
	if (!id->present)
		snprintf(buf, n, "(none)");
	else if (id->is_str)
		snprintf(buf, n, "\"%.64s\"", id->str);
	else
		snprintf(buf, n, "%llu", (unsigned long long)id->num);
}

/* Fold what the arch model counted into the engine's metrics of the same
 * names (ev, and pg for an automatic purge) and start again from zero. */
static void fold_arch_counters(struct vt_engine *e)
{
#define FOLD(name)							\
	e->ev.m[VT_M_##name] += e->aev.c[ARCH_C(name)];			\
	e->pg.m[VT_M_##name] += e->apg.c[ARCH_C(name)];
	ARCH_COUNTERS(FOLD)
#undef FOLD
	memset(&e->aev, 0, sizeof(e->aev));
	memset(&e->apg, 0, sizeof(e->apg));
}

static int engine_apply(struct vt_engine *e, long index, const struct vt_event *ev,
			uint64_t *va, struct vt_error *err);

int vt_engine_apply(struct vt_engine *e, long index, const struct vt_event *ev,
		    uint64_t *va, struct vt_error *err)
{
	int ret = engine_apply(e, index, ev, va, err);

	fold_arch_counters(e);
	return ret;
}

static int engine_apply(struct vt_engine *e, long index, const struct vt_event *ev,
			uint64_t *va, struct vt_error *err)
{
	struct vt_area *a = NULL, **slot;
	char idb[80];
	int ret = 0;

	e->err = err;
	e->w.err = err;
	e->cur_index = index;
	e->purged_in_event = false;
	*va = 0;
	id_text(&ev->id, idb, sizeof(idb));
	switch (ev->op) {
	case VT_OP_VMAP:
	case VT_OP_VMALLOC:
	case VT_OP_VM_MAP_RAM:
	case VT_OP_IOREMAP:
		if (!ev->id.present)
			return vt_error_set(err, VT_ERR_TRACE_SCHEMA,
					    "%s without an id", vt_op_names[ev->op]);
		if (*area_slot(e, &ev->id))
			return vt_error_set(err, VT_ERR_ID_LIVE,
					    "%s with id %s that is live",
					    vt_op_names[ev->op], idb);
		if (ev->op != VT_OP_VMALLOC && ev->op != VT_OP_IOREMAP &&
		    (!ev->has_pages || !ev->nr_pages))
			return vt_error_set(err, VT_ERR_EMPTY_PAGES,
					    "%s without pages", vt_op_names[ev->op]);
		a = area_new(ev, ev->op);
		if (!a)
			return -ENOMEM;
		e->place_ev = ev;
		if (ev->op == VT_OP_VMAP)
			ret = vt_vmap(e, ev, a);
		else if (ev->op == VT_OP_VMALLOC)
			ret = ev->size ? vt___vmalloc_node_range_noprof(e, ev, a, ev->size, ev->align)
				       : vt_error_set(err, VT_ERR_BAD_REQUEST,
						      "vmalloc of size 0");
		else if (ev->op == VT_OP_VM_MAP_RAM)
			ret = vt_vm_map_ram(e, ev, a);
		else
			ret = vt_generic_ioremap_prot(e, ev, a);
		e->place_ev = NULL;
		if (!ret)
			ret = area_insert(e, a);
		if (ret) {
			area_free(a);
			return ret;
		}
		*va = a->va_start;
		break;
	case VT_OP_VUNMAP:
	case VT_OP_VFREE:
	case VT_OP_VM_UNMAP_RAM:
	case VT_OP_IOUNMAP:
		if (!ev->id.present)
			return vt_error_set(err, VT_ERR_TRACE_SCHEMA,
					    "%s without an id", vt_op_names[ev->op]);
		slot = area_slot(e, &ev->id);
		a = *slot;
		if (!a)
			return vt_error_set(err, VT_ERR_ID_UNKNOWN,
					    "%s of id %s that is not live",
					    vt_op_names[ev->op], idb);
		if ((int)a->op != vt_op_map_of(ev->op))
			return vt_error_set(err, VT_ERR_BAD_REQUEST,
					    "%s of id %s that was made by %s",
					    vt_op_names[ev->op], idb,
					    vt_op_names[a->op]);
		*slot = a->hnext;
		e->nr_areas--;
		*va = a->va_start;
		ret = vt_vfree_unmap(e, a);
		area_free(a);
		break;
	case VT_OP_PURGE:
		ret = vt__vm_unmap_aliases(e);
		break;
	case VT_OP_LINEAR_MAP:
		return vt_error_set(err, VT_ERR_UNSUPPORTED,
				    "linear_map events are not modelled in this version");
	case VT_OP__NR:
	default:
		return vt_error_set(err, VT_ERR_UNKNOWN_OP, "unknown op");
	}
	if (!ret && e->o.verify)
		ret = verify_all(e);
	return ret;
}

int vt_engine_finish(struct vt_engine *e, struct vt_error *err)
{
	int ret = 0;

	e->err = err;
	e->w.err = err;
	e->purged_in_event = false;
	if (e->o.purge_at_end && e->nr_lazy)
		ret = vt___purge_vmap_area_lazy(e, UINT64_MAX, 0, false, true);
	fold_arch_counters(e);
	return ret;
}

int vt_engine_shape(struct vt_engine *e, const struct vt_event *ev,
		    struct vt_shape *s)
{
	struct vt_area *a;

	memset(s, 0, sizeof(*s));
	if (!vt_op_is_map(ev->op) || !ev->id.present)
		return 0;
	a = *area_slot(e, &ev->id);
	if (a && a->size) {
		struct arm64_shape as;

		arm64_leaf_shape(&e->mm, a->va_start, a->va_start + a->size, &as);
		*s = (struct vt_shape){ .pte = as.pte, .pte_cont = as.pte_cont,
					.pmd_block = as.pmd_block,
					.pud_block = as.pud_block };
	}
	return 0;
}

struct ptdump_ctx {
	int (*fn)(void *ctx, const struct vt_ptdump_range *r);
	void *ctx;
};

static int ptdump_one(void *ctx, const struct arm64_ptdump_range *r)
{
	struct ptdump_ctx *p = ctx;
	struct vt_ptdump_range v = {
		.va_start = r->va_start, .va_end = r->va_end,
		.pa_start = r->pa_start, .level = r->level,
		.lvl_name = r->lvl_name, .kind = r->kind, .attrs = r->attrs,
		.nr = r->nr,
	};

	return p->fn(p->ctx, &v);
}

int vt_engine_ptdump(struct vt_engine *e,
		     int (*fn)(void *ctx, const struct vt_ptdump_range *r),
		     void *ctx)
{
	struct ptdump_ctx p = { fn, ctx };

	return arm64_ptdump(&e->mm, ptdump_one, &p);
}
