// SPDX-License-Identifier: GPL-2.0
/*
 * One simulated kernel address space per strategy: the vmap-area
 * allocator, the API flows of mm/vmalloc.c and mm/ioremap.c, lazy freeing
 * and purge (--verify is core/mm/verify.c).  Models linux-mm/linux-mm @ 00cc00cd1fb6
 * (mm/vmalloc.c) unless a function's comment says otherwise.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/mm/mm.h"
#include "core/siphash.h"



/* ---- ids ------------------------------------------------------------------ */

/*
 * The ids come from the trace: keyed (SipHash-1-3, a key per engine from
 * getrandom(2)), so that a trace cannot choose ids that share a bucket.
 * The hash only chooses buckets: vt_verify_all() (verify.c) visits areas
 * in VA order, never in bucket order, so the output does not depend on
 * the key.
 */
static uint64_t id_hash(const struct vt_engine *e, const struct vt_id *id)
{
	if (id->is_str)
		return vt_siphash(&e->hash_key, id->str, strlen(id->str));
	return vt_siphash_u64(&e->hash_key, id->num);
}

static bool id_eq(const struct vt_id *a, const struct vt_id *b)
{
	if (a->is_str != b->is_str)
		return false;
	return a->is_str ? !strcmp(a->str, b->str) : a->num == b->num;
}

/* The slot of @id (hash @h = id_hash()): the live area's link, or the
 * NULL link at the end of its chain. */
static inline struct vt_area **area_slot_h(struct vt_engine *e,
					   const struct vt_id *id, uint64_t h)
{
	struct vt_area **pp = &e->hash[h & (e->hash_size - 1)];

	e->hash_probes++;
	while (*pp && !id_eq(&(*pp)->id, id)) {
		pp = &(*pp)->hnext;
		e->hash_probes++;
	}
	return pp;
}

static struct vt_area **area_slot(struct vt_engine *e, const struct vt_id *id)
{
	return area_slot_h(e, id, id_hash(e, id));
}

/* @a (its id hashing to @h) into the table at @slot, the NULL link that
 * area_slot_h() found for it, or where it goes once the table doubled
 * (when full) */
static int area_insert(struct vt_engine *e, struct vt_area *a, uint64_t h,
		       struct vt_area **slot)
{
	if (e->nr_areas + 1 > e->hash_size) {
		uint64_t n = e->hash_size * 2;
		struct vt_area **t = calloc(n, sizeof(*t));

		if (!t)
			return -ENOMEM;
		for (uint64_t i = 0; i < e->hash_size; i++) {
			struct vt_area *x = e->hash[i], *nx;

			for (; x; x = nx) {
				nx = x->hnext;
				uint64_t b = id_hash(e, &x->id) & (n - 1);

				x->hnext = t[b];
				t[b] = x;
				e->hash_probes++;
			}
		}
		free(e->hash);
		e->hash = t;
		e->hash_size = n;
		slot = area_slot_h(e, &a->id, h);
	}
	if (e->o.verify && vt_verify_area_add(e, a))
		return -ENOMEM;
	a->hnext = NULL;
	*slot = a;
	e->nr_areas++;
	return 0;
}

/* A pooled area keeps a vmalloc's run buffer of up to this many runs;
 * any other goes back to libc when its area ends. */
#define AREA_RUNS_KEEP 64

/*
 * An area (and its nested page-array area) back to the pool, as the
 * kernel's vmap_area_cachep slab keeps freed vmap_areas: the next
 * area_new() takes it without an allocation.
 */
static void area_free_nested(struct vt_engine *e, struct vt_area *a);

static inline void area_free(struct vt_engine *e, struct vt_area *a)
{
	if (!a)
		return;
	if (a->nested)
		area_free_nested(e, a->nested);
	if (a->id.is_str)
		free(a->id.str);
	if (a->op != VT_OP_VMALLOC || a->runs_cap > AREA_RUNS_KEEP) {
		free(a->runs);
		a->runs = NULL;
		a->runs_cap = 0;
	}
	a->hnext = e->area_pool;
	e->area_pool = a;
}

/* area_free() of a nested page-array area (out of line: it recurses) */
static __attribute__((noinline)) void area_free_nested(struct vt_engine *e,
						       struct vt_area *a)
{
	area_free(e, a);
}

/* The pool and what it holds back to libc (vt_engine_free()). */
static void area_pool_release(struct vt_engine *e)
{
	while (e->area_pool) {
		struct vt_area *n = e->area_pool->hnext;

		free(e->area_pool->runs);
		free(e->area_pool);
		e->area_pool = n;
	}
}

/* The runs vt_vm_area_alloc_pages() appends a vmalloc's pages to. */
struct runs_buf {
	struct vt_page_run *r;
	uint64_t n, cap;
};

/*
 * Append @count pages from @pfn to the area's runs, merging a contiguous
 * order-0 continuation into the previous run.  The count and capacity
 * are 64-bit and the growth checked: a vmalloc of terabytes is valid
 * input and, should its pages ever come back scattered, would need more
 * than 2^31 runs, where a 32-bit doubling wraps.  The page array indexes
 * runs with 32 bits (struct vt_pages): beyond that the allocation fails
 * as runs_reserve() does.
 */
static __attribute__((noinline)) int runs_grow(struct runs_buf *b)
{
	if (b->n >= VT_RUNS_MAX)
		return -ENOMEM;
	return VT_ALLOC_GROW(b->r, b->n + 1, b->cap);
}

static inline int runs_append(struct runs_buf *b, uint64_t pfn, uint64_t count)
{
	struct vt_page_run *r = b->n ? &b->r[b->n - 1] : NULL;

	if (r && !r->order && r->pfn + r->count == pfn) {
		r->count += count;
		return 0;
	}
	if ((b->n >= b->cap || b->n >= VT_RUNS_MAX) && runs_grow(b))
		return -ENOMEM;
	b->r[b->n++] = (struct vt_page_run){ pfn, count, 0 };
	return 0;
}

/*
 * vm_area_alloc_pages() (mm/vmalloc.c, v6.19+ with a06157804399), through
 * the page-allocator model: blocks of min(MAX_PAGE_ORDER,
 * floor_log2(remaining)) pages while that is above @order, each
 * split_page()d to order 0; then for order 0 the bulk allocator in
 * requests of at most 100 pages; then 2^order blocks.  Before
 * a06157804399 order-0 pages come from the bulk allocator alone.  Plenty
 * of memory is assumed: no attempt fails.
 */
static inline __attribute__((always_inline)) int vt_vm_area_alloc_pages(
	struct vt_engine *e, struct vt_area *a, unsigned int order, uint64_t nr)
{
	unsigned int max_order = e->mm.g.max_page_order;
	/* a pooled area's buffer */
	struct runs_buf b = { .r = a->runs, .cap = a->runs_cap };
	uint64_t done = 0, pfn, bulk[100];
	int err = 0;

	while (e->o.vmalloc_high_order && !err && done < nr) {
		unsigned int large = 63 - __builtin_clzll(nr - done);

		if (large > max_order)
			large = max_order;
		if (large <= order)
			break;
		err = vt_alloc_pages(&e->pa, large, &pfn);
		if (!err)
			err = runs_append(&b, pfn, 1ull << large);
		done += 1ull << large;
	}
	while (!err && order == 0 && done < nr) {
		/* alloc_pages_bulk_node_noprof(gfp, nid, nr_pages_request, ...) */
		uint64_t req = nr - done > 100 ? 100 : nr - done;

		err = vt_alloc_pages_bulk(&e->pa, req, bulk);
		for (uint64_t i = 0; !err && i < req; i++)
			err = runs_append(&b, bulk[i], 1);
		done += req;
	}
	while (!err && done < nr) {
		err = vt_alloc_pages(&e->pa, order, &pfn);
		if (!err)
			err = runs_append(&b, pfn, 1ull << order);
		done += 1ull << order;
	}
	a->runs = b.r;		/* freed with the area, as on success */
	a->runs_cap = b.cap;
	if (err)
		return err;
	a->nr_runs = (uint32_t)b.n;	/* <= VT_RUNS_MAX */
	return vt_pages_from_runs(e, b.r, a->nr_runs, nr);
}

/*
 * vfree()'s page release after remove_vm_area(): per page __free_page()
 * and cond_resched() (vfree-perpage, v6.16 and older), or
 * vm_area_free_pages()'s free_pages_bulk() (vfree-bulk, the free_pages_bulk() patch; v7.2,
 * mainline): which one the engine decided (vt_engine_new(): the
 * strategy's +vfree-bulk or +vfree-perpage, else what the --kernel
 * generation does, vt_axes_resolve()).  vm->pages holds order-0
 * pointers: a run's compound order is irrelevant here.
 */
static inline int vt_vfree_pages(struct vt_engine *e, struct vt_area *a)
{
	uint64_t runs;
	int err;

	if (!e->vfree_bulk) {
		for (uint32_t r = 0; r < a->nr_runs; r++) {
			uint64_t c = a->runs[r].count << a->runs[r].order;

			for (uint64_t i = 0; i < c; i++) {
				err = vt___free_page(&e->pa, a->runs[r].pfn + i);
				if (err)
					return err;
				EST(e, cond_resched)++;
			}
		}
		return 0;
	}
	/*
	 * free_pages_bulk(vm->pages, vm->nr_pages) (the vfree patch): one
	 * __free_contig_range() and one cond_resched() per stretch of entries
	 * whose pfns follow each other (num_pages_contiguous()), over the
	 * runs vm->pages is kept as.
	 */
	err = vt_free_pages_bulk_runs(&e->pa, a->runs, a->nr_runs, a->nr_pages,
				      &runs);
	if (err)
		return err;
	EST(e, cond_resched) += runs;
	return 0;
}

/* The page allocator's counts of this event into its metrics. */
static void vt_page_alloc_account(struct vt_engine *e)
{
	struct vt_page_alloc_stats *s = &e->pa.st;

	/* only those it counted: an untouched metric costs the accounting
	 * nothing (core/stats.h) */
#define PA(x) if (s->x) EST(e, x) += s->x;
	PA(pages_allocated) PA(buddy_blocks) PA(rmqueue_locks)
	PA(free_calls) PA(pages_freed) PA(free_pcp) PA(free_buddy)
	PA(contig_range_calls) PA(pages_prepared)
#undef PA
	memset(s, 0, sizeof(*s));
}

/* ---- the API flows -------------------------------------------------------- */

/*
 * *@a cleared in sixteen-byte stores: GCC makes memset() of the area a
 * "rep stos" of 18 counted steps.  The loop is unrolled before it could
 * be seen as a memset().
 */
typedef uint64_t area_v2 __attribute__((vector_size(16), may_alias, aligned(8)));
static inline void area_clear(struct vt_area *a)
{
	_Static_assert(sizeof(*a) % sizeof(area_v2) == 0, "the area is whole stores");
#pragma GCC unroll 16
	for (size_t i = 0; i < sizeof(*a) / sizeof(area_v2); i++)
		((area_v2 *)a)[i] = (area_v2){ 0, 0 };
}

/*
 * A zeroed area from the pool (area_free()) or libc.  A vmalloc keeps the
 * pooled run buffer (vt_vm_area_alloc_pages() appends to it); the other
 * ops set their runs with vt_area_keep_runs(), which allocates its own.
 */
/* area_new()'s string id, copied (out of line: no bundled or generated
 * trace has one); the area freed if there is no memory for it */
static __attribute__((noinline)) struct vt_area *area_str_id(struct vt_engine *e,
							     struct vt_area *a)
{
	a->id.str = strdup(a->id.str);
	if (!a->id.str) {
		a->id.is_str = false;	/* nothing to free */
		area_free(e, a);
		return NULL;
	}
	return a;
}

static inline struct vt_area *area_new(struct vt_engine *e, const struct vt_event *ev,
				       enum vt_op op)
{
	struct vt_area *a = e->area_pool;

	if (a) {
		struct vt_page_run *runs = a->runs;
		uint64_t cap = a->runs_cap;

		e->area_pool = a->hnext;
		if (op != VT_OP_VMALLOC) {
			free(runs);
			runs = NULL;
			cap = 0;
		}
		area_clear(a);
		a->runs = runs;
		a->runs_cap = cap;
	} else {
		a = calloc(1, sizeof(*a));
		if (!a)
			return NULL;
	}
	a->op = op;
	a->flags = ev ? ev->flags : 0;
	a->prot = ev ? ev->prot : VT_PROT_KERNEL;
	a->modules = ev && ev->range == VT_RANGE_MODULES;
	if (ev && ev->id.present) {
		a->id = ev->id;
		if (ev->id.is_str)
			return area_str_id(e, a);
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
 * Could vm_area_alloc_pages() at @order have handed out these pages?  It
 * only hands out naturally aligned buddy blocks of 2^order pages or more
 * (split_page()d), so every 2^order chunk of the array is physically
 * contiguous and starts at a pfn aligned to 2^order.  Runs whose pfns
 * touch are contiguous here, as num_pages_contiguous() would see them.
 */
static bool runs_fit_order(const struct vt_page_run *r, uint32_t n,
			   unsigned int order)
{
	uint64_t c = 1ull << order, pos = 0, next = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (pos & (c - 1) ? r[i].pfn != next : r[i].pfn & (c - 1))
			return false;
		pos += r[i].count << r[i].order;
		next = r[i].pfn + (r[i].count << r[i].order);
	}
	return !(pos & (c - 1));
}

/* the page-pointer array of vmalloc_page_array() that a nested vmalloc holds */
static __attribute__((noinline)) int vmalloc_page_array_nested(struct vt_engine *e,
							       struct vt_area *a,
							       uint64_t array_size)
{
	a->nested = area_new(e, NULL, VT_OP_VMALLOC);
	if (!a->nested)
		return -ENOMEM;
	return vt___vmalloc_node_range_noprof(e, NULL, a->nested, array_size, 1);
}

/* __vmalloc_area_node(): the page-pointer array, kmalloc'd up to a page,
 * else a nested __vmalloc_node(array_size, 1, ...), never huge */
static inline int vmalloc_page_array(struct vt_engine *e, struct vt_area *a)
{
	uint64_t array_size = (a->size >> e->mm.g.page_shift) * sizeof(void *);

	if (array_size <= e->mm.g.page_size)
		return 0;
	return vmalloc_page_array_nested(e, a, array_size);
}

static int vt_vfree_unmap(struct vt_engine *e, struct vt_area *a);

/* The pages a kernel that allows huge vmalloc maps for a
 * VM_ALLOW_HUGE_VMAP vmalloc of @size: the size rounded to its shift */
static uint64_t vmalloc_huge_nr(struct vt_engine *e, uint32_t flags,
				uint64_t size)
{
	const struct arm64_geom *g = &e->mm.g;
	unsigned int shift;

	if (!(flags & VT_FLAG(VM_ALLOW_HUGE_VMAP)))
		return 0;
	shift = size >= g->pmd_size ? g->pmd_shift :
		arm64_vmap_pte_supported_shift(&e->mm, size);
	return align_up(size, 1ull << shift) >> g->page_shift;
}

/* vt_area_keep_runs() of the first @nr pages of @r */
static int area_keep_runs_prefix(struct vt_area *a, const struct vt_page_run *r,
				 uint32_t n, uint64_t nr)
{
	uint64_t k = 0;
	uint32_t i;

	/* a cut inside a block of run i leaves at most i + 2 runs */
	free(a->runs);
	a->runs_cap = 0;
	a->runs = malloc(((uint64_t)n + 1) * sizeof(*r));
	if (!a->runs)
		return -ENOMEM;
	a->runs_cap = (uint64_t)n + 1;
	for (i = 0; i < n && nr; i++) {
		uint64_t pages = r[i].count << r[i].order;

		if (pages <= nr) {
			a->runs[k++] = r[i];
			nr -= pages;
			continue;
		}
		/* whole blocks, then order-0 pages of the next block */
		if (nr >> r[i].order)
			a->runs[k++] = (struct vt_page_run){ r[i].pfn,
				nr >> r[i].order, r[i].order };
		if (nr & ((1ull << r[i].order) - 1))
			a->runs[k++] = (struct vt_page_run){
				r[i].pfn + (nr & ~((1ull << r[i].order) - 1)),
				nr & ((1ull << r[i].order) - 1), 0 };
		nr = 0;
	}
	if (k > VT_RUNS_MAX)
		return -ENOMEM;	/* a->runs freed with the area */
	a->nr_runs = (uint32_t)k;
	return 0;
}

/*
 * The attempt at the huge shift that __vmalloc_node_range_noprof() makes
 * before its "fail:" retry when the pages a trace gives cannot be what
 * vm_area_alloc_pages() returns at that order: __get_vm_area_node() at
 * the huge size and alignment, then __vmalloc_area_node()'s page array;
 * vm_area_alloc_pages() comes up short, the area goes to
 * defer_vm_area_cleanup() and stays busy while the retry takes its VA.
 * *out is that area, or NULL if its VA allocation failed (the same
 * "fail:", with nothing to clean up).
 */
static int vmalloc_failed_attempt(struct vt_engine *e, struct vt_area *a,
				  uint64_t size, uint64_t align,
				  unsigned int shift, struct vt_area **out)
{
	struct vt_area *f = area_new(e, NULL, VT_OP_VMALLOC);
	int err;

	*out = NULL;
	if (!f)
		return -ENOMEM;
	f->flags = a->flags;
	f->modules = a->modules;
	e->place_ev = NULL;	/* a recorded va is the retry's */
	err = vt___get_vm_area_node(e, f, size, align, shift);
	if (err) {
		area_free(e, f);
		return err == VT_ERR_VA_EXHAUSTED ? 0 : err;
	}
	err = vmalloc_page_array(e, f);
	if (err == VT_ERR_VA_EXHAUSTED) {
		/* no page array: cleanup_vm_area_work() runs free_vm_area(),
		 * the same unmap walk and lazy free without a kvfree() */
		area_free(e, f->nested);
		f->nested = NULL;
		err = 0;
	}
	if (err) {
		area_free(e, f);
		return err;
	}
	*out = f;
	return 0;
}

/*
 * __vmalloc_node_range_noprof() and __vmalloc_area_node(): choose the
 * mapping shift from the caller's size, get the area, vmalloc the
 * page-pointer array when it is larger than a page, allocate the pages,
 * map them; on failure at a huge shift, "fail:" retries once with
 * PAGE_SHIFT and the caller's alignment.
 */
static int vt___vmalloc_node_range_noprof(struct vt_engine *e, const struct vt_event *ev,
		      struct vt_area *a, uint64_t size, uint64_t align)
{
	const struct arm64_geom *g = &e->mm.g;
	unsigned int shift = g->page_shift;
	uint64_t nr, original_align = align ? align : 1;
	struct vt_area *failed = NULL;
	int err;

	align = original_align;
	if (e->spec.strat->huge_vmalloc && !e->o.nohugevmalloc &&
	    (a->flags & VT_FLAG(VM_ALLOW_HUGE_VMAP))) {
		/* the raw size: rounding comes later, in __get_vm_area_node() */
		if (size >= g->pmd_size)
			shift = g->pmd_shift;
		else
			shift = arm64_vmap_pte_supported_shift(&e->mm, size);
		if (align < (1ull << shift))
			align = 1ull << shift;
	}
	a->flags |= VT_FLAG(VM_ALLOC) | VT_FLAG(VM_UNINITIALIZED);
	if (shift > g->page_shift && ev && ev->has_pages) {
		uint64_t huge_nr = align_up(size, 1ull << shift) >> g->page_shift;
		uint64_t small_nr = align_up(size, g->page_size) >> g->page_shift;

		if (ev->nr_pages != huge_nr && ev->nr_pages != small_nr)
			return vt_error_set(e->err, VT_ERR_BAD_REQUEST,
					    "vmalloc of %llu pages (%llu at its huge order) given %llu pages",
					    (unsigned long long)small_nr,
					    (unsigned long long)huge_nr,
					    (unsigned long long)ev->nr_pages);
		if (ev->nr_pages != huge_nr ||
		    !runs_fit_order(ev->runs, ev->nr_runs, shift - g->page_shift)) {
			if (ev->nr_pages != small_nr)
				return vt_error_set(e->err, VT_ERR_BAD_REQUEST,
						    "vmalloc given %llu pages that are not order-%u blocks: the kernel falls back to %llu pages",
						    (unsigned long long)ev->nr_pages,
						    shift - g->page_shift,
						    (unsigned long long)small_nr);
			err = vmalloc_failed_attempt(e, a, size, align, shift,
						     &failed);
			if (err)
				return err;
			shift = g->page_shift;
			align = original_align;
			a->huge_fallback = true;
			e->place_ev = ev;
		}
	}
	err = vt___get_vm_area_node(e, a, size, align, shift);
	if (err == VT_ERR_VA_EXHAUSTED && shift > g->page_shift) {
		/* "fail:": retry once with PAGE_SHIFT and the caller's alignment */
		shift = g->page_shift;
		a->huge_fallback = true;
		e->place_ev = ev;
		err = vt___get_vm_area_node(e, a, size, original_align, shift);
	}
	if (!err) {
		nr = a->size >> g->page_shift;
		a->nr_pages = nr;
		err = vmalloc_page_array(e, a);
	}
	if (err)
		goto out;
	if (ev && ev->has_pages) {
		/* pages recorded from a kernel that mapped this vmalloc huge,
		 * replayed at PAGE_SHIFT (pagewise, --nohugevmalloc): that
		 * kernel maps the first nr of them */
		if (ev->nr_pages != nr &&
		    !(ev->nr_pages > nr &&
		      ev->nr_pages == vmalloc_huge_nr(e, a->flags, size))) {
			err = vt_error_set(e->err, VT_ERR_BAD_REQUEST,
					   "vmalloc of %llu pages given %llu pages",
					   (unsigned long long)nr,
					   (unsigned long long)ev->nr_pages);
			goto out;
		}
		err = area_keep_runs_prefix(a, ev->runs, ev->nr_runs, nr);
		if (!err)
			err = vt_pages_from_runs(e, ev->runs, ev->nr_runs,
						 ev->nr_pages);
		e->pages.nr = nr;
	} else {
		err = vt_vm_area_alloc_pages(e, a, shift - g->page_shift, nr);
	}
	if (!err)
		err = e->spec.strat->vmap_pages_range(e, a->va_start,
						      a->va_start + a->size, 0,
						      shift);
	if (!err)
		vt_clear_vm_uninitialized_flag(e);
out:
	/* cleanup_vm_area_work() -> vfree() of the failed attempt, modelled
	 * at the end of the event: unmap walk, lazy VA, kvfree(array) */
	if (failed) {
		int e2 = vt_vfree_unmap(e, failed);

		area_free(e, failed);
		if (!err)
			err = e2;
	}
	return err;
}

/* __vmap_pages_range_noflush()'s loop of vmap_range_noflush() per
 * 2^page_shift chunk, reading only the chunk's first page ("zigzag");
 * out of line, so that the page-array walk is a plain tail call */
static __attribute__((noinline)) int
vmap_chunks(struct vt_engine *e, uint64_t addr, uint64_t end, uint64_t idx,
	    unsigned int page_shift)
{
	const struct arm64_geom *g = &e->mm.g;
	uint64_t step = 1ull << (page_shift - g->page_shift);

	for (; addr < end; addr += 1ull << page_shift, idx += step) {
		int err = vt_vmap_range_noflush(&e->w, addr, addr + (1ull << page_shift),
						vt_pages_pfn(&e->pages, idx) << g->page_shift,
						e->prot_kernel, page_shift);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Mainline __vmap_pages_range_noflush(): one page-array walk at PAGE_SHIFT,
 * or one vmap_range_noflush() per 2^page_shift chunk (vmap_chunks()).
 */
int vt___vmap_pages_range_noflush(struct vt_engine *e, uint64_t addr, uint64_t end,
				  uint64_t idx, unsigned int page_shift)
{
	if (page_shift != e->mm.g.page_shift)
		return vmap_chunks(e, addr, end, idx, page_shift);
	return vt_vmap_small_pages_range_noflush(&e->w, addr, end, e->prot_kernel,
						 idx, page_shift);
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
	err = vt_area_keep_runs(a, ev->runs, ev->nr_runs);
	if (!err)
		err = vt_pages_from_runs(e, ev->runs, ev->nr_runs, ev->nr_pages);
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
	err = vt_area_keep_runs(a, &(struct vt_page_run){ phys >> g->page_shift,
						       a->nr_pages, 0 }, 1);
	if (err)
		return err;
	a->prot = VT_PROT_DEVICE;
	return vt_vmap_range_noflush(&e->w, a->va_start, a->va_start + size, phys,
				     e->prot_device, max_shift);
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
	/* vfree(): the pages go back to the page allocator, then
	 * kvfree(vm->pages) frees a vmalloc'd page array */
	if (a->op == VT_OP_VMALLOC) {
		err = vt_vfree_pages(e, a);
		if (err)
			return err;
	}
	if (a->nested)
		err = vt_vfree_unmap(e, a->nested);
	return err;
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
		.modules_128m = o->modules_128m,
		.vmalloc_end_256m = o->vmalloc_end_256m,
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
	e->w = (struct vt_walk){ .mm = &e->mm, .pages = &e->pages, .st = &e->ev,
				 .written = o->verify ? &e->written : NULL };
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
	vt_siphash_key_random(&e->hash_key);
	e->blocks_tail = &e->blocks;
	vt_va_free_init(&e->free);
	vt_va_free_init(&e->free_modules);
	e->vfree_bulk = vt_axes_resolve(spec->axes, o->kernel) & VT_AXIS_VFREE_BULK;
	vt_page_alloc_init(&e->pa, o->page_shift, e->mm.g.max_page_order,
			   e->mm.g.pmd_shift - o->page_shift, o->cpus, 0x100000,
			   1ull << (e->mm.g.pa_bits - o->page_shift));
	/* the free space of the module and vmalloc areas (adjacent) */
	if (!e->hash || vt_merge_or_add_vmap_area(e, e->mm.g.modules_vaddr,
						  e->mm.g.vmalloc_end)) {
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
			area_free(e, a);
		}
	}
	while (e->blocks) {
		struct vt_vmap_block *n = e->blocks->next;

		free(e->blocks);
		e->blocks = n;
	}
	area_pool_release(e);
	free(e->hash);
	free(e->vsort);
	vt_verify_release(e);
	vt_va_free_release(&e->free);
	vt_va_free_release(&e->free_modules);
	free(e->lazy);
	free(e->pages.runs);
	free(e->pages.start);
	free(e->written.v);
	vt_page_alloc_release(&e->pa);
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

/* The engine's metric of each arch counter, by name (a counter without
 * its metric does not compile). */
#define METRIC_OF(name) [ARCH_C(name)] = VT_M_##name,
static const uint8_t arch_metric[ARCH_C__NR] = { ARCH_COUNTERS(METRIC_OF) };
#undef METRIC_OF

/* Add the counters @c moved to @s and zero them: only those whose touched
 * bit is set (a small event moves five to ten of the 31). */
static void fold_counters(struct vt_stats *s, struct arm64_counters *c)
{
	for (uint32_t t = c->touched; t; t &= t - 1) {
		int i = __builtin_ctz(t);

		*vt_stats_at(s, arch_metric[i]) += c->c[i];
		c->c[i] = 0;
	}
	c->touched = 0;
}

#ifndef NDEBUG
/* Whether no arch counter is left and every metric moved has its bit. */
static bool counts_touched(const struct vt_engine *e)
{
	for (int i = 0; i < ARCH_C__NR; i++)
		if (e->aev.c[i] || e->apg.c[i])
			return false;
	return vt_stats_touched_ok(&e->ev) && vt_stats_touched_ok(&e->pg);
}
#endif

/*
 * Fold what the arch model counted into the engine's metrics of the same
 * names (ev, and pg for an automatic purge) and start again from zero.
 * apg is touched only by an automatic purge (apg_used).  Returns @ret, or
 * in debug builds (the asan preset's suite) an error if a count of @what
 * was made without going through vt_stats_at() or arm64_ctr(): a counter
 * moved without its touched bit would be lost by the fold and the
 * accounting.
 */
static int fold_arch_counters(struct vt_engine *e, int ret, const char *what)
{
	fold_counters(&e->ev, &e->aev);
	if (e->apg_used) {
		fold_counters(&e->pg, &e->apg);
		e->apg_used = false;
	}
#ifndef NDEBUG
	if (!ret && !counts_touched(e))
		return vt_error_set(e->err, VT_ERR_INVARIANT,
				    "%s: a count was made without its touched bit", what);
#else
	(void)what;
#endif
	return ret;
}

static int engine_apply(struct vt_engine *e, long index, const struct vt_event *ev,
			uint64_t *va, struct vt_error *err);

int vt_engine_apply(struct vt_engine *e, long index, const struct vt_event *ev,
		    uint64_t *va, struct vt_error *err)
{
	int ret = engine_apply(e, index, ev, va, err);

	/*
	 * Out of memory with no message: since the page array is kept as
	 * runs (O(runs)), what a mapping that fits the vmalloc area but not
	 * this machine runs out of is the modelled page tables (arm64_mm's
	 * table pool); name the request and their size (docs/reliability.md).
	 */
	if (ret == -ENOMEM && !err->msg[0])
		vt_error_set(err, ret,
			     "cannot allocate the page tables of a %s of %llu pages (%llu tables, %llu MiB, allocated)",
			     vt_op_names[ev->op], (unsigned long long)ev->nr_pages,
			     (unsigned long long)e->mm.nr_tbl,
			     (unsigned long long)((uint64_t)e->mm.nr_tbl *
						  e->mm.g.ptrs_per_pte * 8 >> 20));
	return fold_arch_counters(e, ret, vt_op_names[ev->op]);
}

/*
 * A map request larger than the whole vmalloc area can never be placed:
 * refuse it (input error, VT_ERR_VA_EXHAUSTED) before any page array, run
 * list or area is allocated for it, and before align_up() can wrap.  The
 * kernel refuses such requests up front too: vmap() and
 * __vmalloc_node_range_noprof() compare the page count with
 * totalram_pages(), and __get_vm_area_node() fails an ALIGN() that wraps
 * to 0 (mm/vmalloc.c).
 */
static int vt_request_fits(struct vt_engine *e, const struct vt_event *ev)
{
	const struct arm64_geom *g = &e->mm.g;
	uint64_t area = g->vmalloc_end - g->vmalloc_start;
	uint64_t bytes;

	switch (ev->op) {
	case VT_OP_VMAP:
	case VT_OP_VM_MAP_RAM:
		if (ev->nr_pages > area >> g->page_shift)
			return vt_error_set(e->err, VT_ERR_VA_EXHAUSTED,
					    "%s of %llu pages is larger than the %llu-byte vmalloc area",
					    vt_op_names[ev->op],
					    (unsigned long long)ev->nr_pages,
					    (unsigned long long)area);
		return 0;
	case VT_OP_VMALLOC:
		bytes = ev->size;
		break;
	case VT_OP_IOREMAP:
		bytes = ev->size + (ev->phys & (g->page_size - 1));
		if (bytes < ev->size)
			bytes = UINT64_MAX;
		break;
	default:
		return 0;
	}
	if (bytes > area)
		return vt_error_set(e->err, VT_ERR_VA_EXHAUSTED,
				    "%s of %llu bytes is larger than the %llu-byte vmalloc area",
				    vt_op_names[ev->op], (unsigned long long)ev->size,
				    (unsigned long long)area);
	return 0;
}

static int engine_apply(struct vt_engine *e, long index, const struct vt_event *ev,
			uint64_t *va, struct vt_error *err)
{
	struct vt_area *a = NULL, **slot;
	char idb[80];
	uint64_t h;
	int ret = 0;

	e->err = err;
	e->w.err = err;
	e->cur_index = index;
	e->purged_in_event = false;
	e->written.nr = 0;
	*va = 0;
	switch (ev->op) {
	case VT_OP_VMAP:
	case VT_OP_VMALLOC:
	case VT_OP_VM_MAP_RAM:
	case VT_OP_IOREMAP:
		if (!ev->id.present)
			return vt_error_set(err, VT_ERR_TRACE_SCHEMA,
					    "%s without an id", vt_op_names[ev->op]);
		h = id_hash(e, &ev->id);	/* once: the check and the insert */
		slot = area_slot_h(e, &ev->id, h);
		if (*slot) {
			/* the id is formatted only for the message */
			id_text(&ev->id, idb, sizeof(idb));
			return vt_error_set(err, VT_ERR_ID_LIVE,
					    "%s with id %s that is live",
					    vt_op_names[ev->op], idb);
		}
		/* the op's rules: core/trace/ops.def */
		if ((vt_ops[ev->op].rules & VT_OPR_PAGES) &&
		    (!ev->has_pages || !ev->nr_pages))
			return vt_error_set(err, VT_ERR_EMPTY_PAGES,
					    "%s without pages", vt_op_names[ev->op]);
		ret = vt_request_fits(e, ev);
		if (ret)
			return ret;
		a = area_new(e, ev, ev->op);
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
		/* (no area went in or out of the table since: *slot is
		 * still the end of the id's chain) */
		if (!ret)
			ret = area_insert(e, a, h, slot);
		if (ret) {
			area_free(e, a);
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
		if (!a) {
			id_text(&ev->id, idb, sizeof(idb));
			return vt_error_set(err, VT_ERR_ID_UNKNOWN,
					    "%s of id %s that is not live",
					    vt_op_names[ev->op], idb);
		}
		/* vfree() takes a vmap made with VM_MAP_PUT_PAGES: the area
		 * owns the page array and the page references (vmap()) */
		if ((int)a->op != vt_ops[ev->op].undoes &&
		    !(ev->op == VT_OP_VFREE && a->op == VT_OP_VMAP &&
		      (a->flags & VT_FLAG(VM_MAP_PUT_PAGES)))) {
			id_text(&ev->id, idb, sizeof(idb));
			return vt_error_set(err, VT_ERR_BAD_REQUEST,
					    "%s of id %s that was made by %s",
					    vt_op_names[ev->op], idb,
					    vt_op_names[a->op]);
		}
		*slot = a->hnext;
		e->nr_areas--;
		if (e->o.verify)
			vt_verify_area_del(e, a);
		*va = a->va_start;
		ret = vt_vfree_unmap(e, a);
		/* vfree() of a VM_MAP_PUT_PAGES vmap: vmap() handed the array
		 * to the area (area->pages, area->nr_pages), so
		 * vm_area_free_pages() releases its pages (vunmap() does not) */
		if (!ret && ev->op == VT_OP_VFREE && a->op == VT_OP_VMAP)
			ret = vt_vfree_pages(e, a);
		area_free(e, a);
		break;
	case VT_OP_PURGE:
		ret = vt__vm_unmap_aliases(e);
		break;
	case VT_OP_LINEAR_MAP:
		ret = vt_map_mem(e, ev, va);
		break;
	case VT_OP__NR:
	default:
		return vt_error_set(err, VT_ERR_UNKNOWN_OP, "unknown op");
	}
	vt_page_alloc_account(e);
	if (!ret && e->o.verify)
		ret = vt_verify_all(e);
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
	return fold_arch_counters(e, ret, "the purge at the end");
}

int vt_engine_shape(struct vt_engine *e, const struct vt_event *ev,
		    struct vt_shape *s)
{
	struct vt_area *a;

	memset(s, 0, sizeof(*s));
	if (ev->op == VT_OP_LINEAR_MAP) {
		const struct arm64_geom *g = &e->mm.g;
		struct arm64_shape as;
		uint64_t start, end;

		if (!e->memstart_set || !ev->size)
			return 0;
		start = arm64_linear_virt(g, e->memstart, ev->phys) & ~(g->page_size - 1);
		end = (arm64_linear_virt(g, e->memstart, ev->phys + ev->size) +
		       g->page_size - 1) & ~(g->page_size - 1);
		arm64_leaf_shape(vt_linear_mm(e), start, end, &as);
		*s = (struct vt_shape){ .pte = as.pte, .pte_cont = as.pte_cont,
					.pmd_block = as.pmd_block,
					.pud_block = as.pud_block };
		return 0;
	}
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
	if (a)
		s->huge_fallback = a->huge_fallback;
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

void vt_engine_layout(const struct vt_engine *e, struct vt_layout *l)
{
	const struct arm64_geom *g = &e->mm.g;

	*l = (struct vt_layout){
		.page_offset = g->page_offset, .page_end = g->modules_vaddr,
		.vmalloc_start = g->vmalloc_start, .vmalloc_end = g->vmalloc_end,
	};
}
