// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptool import: kernel recordings -> API-level trace events.
 *
 * Two front ends produce one normalised record (struct kev): the
 * trace-cmd .dat reader (libtracecmd iterates, libtraceevent reads the
 * fields by name) and a hand parser for ftrace text lines
 * ("comm-pid [cpu] flags ts: name: key=value ...", function tracer lines
 * "ts: func <-parent", and "trace-cmd report" output, whose
 * "[FAILED TO PARSE]" lines still carry the raw fields).  One back end
 * groups the records per task into vmap areas (vmalloc-paths.md 2-9).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/import/areas.h"


const char *const vt_import_mkind_names[VT_IMK__NR] = {
	[VT_IMK_VMALLOC] = "vmalloc",
	[VT_IMK_MODULES] = "module vmalloc",
	[VT_IMK_VMAP] = "vmap",
	[VT_IMK_VM_MAP_RAM] = "vm_map_ram",
	[VT_IMK_IOREMAP] = "ioremap",
	[VT_IMK_NESTED] = "nested page array",
	[VT_IMK_OTHER] = "other",
};

const struct kev_desc vt_im_kev_descs[KEV__NR] = {
	[KEV_ALLOC_VA] = { { "alloc_vmap_area" }, NULL, false,
		{ "va_start", "size", "align", "vstart", "vend", "failed" },
		{ "addr" }, 0x3f, false },
	[KEV_FREE_VA] = { { "free_vmap_area_noflush" }, NULL, false,
		{ "va_start", "nr_lazy", "nr_lazy_max" }, { NULL }, 0x1, false },
	[KEV_PURGE_TP] = { { "purge_vmap_area_lazy" }, NULL, false,
		{ "start", "end", "num_purged" },
		{ NULL, NULL, "npurged" }, 0x7, false },
	[KEV_PAGE_ALLOC] = { { "mm_page_alloc" }, NULL, false,
		{ "pfn", "order" }, { NULL }, 0x3, false },
	[KEV_PAGE_FREE] = { { "mm_page_free" }, NULL, false,
		{ "pfn", "order" }, { NULL }, 0x3, false },
	[KP_VMAP_PAGES] = { { "vmap_pages" }, "__vmap_pages_range_noflush",
		true, { "addr", "end", "page_shift" }, { NULL }, 0x7, false },
	[KP_VMAP_SMALL] = { { "vmap_small" },
		"vmap_small_pages_range_noflush", true, { "addr", "end" },
		{ NULL }, 0x3, false },
	[KP_VMAP_RANGE] = { { "vmap_range" }, "vmap_range_noflush", true,
		{ "addr", "end", "phys", "max_page_shift" }, { NULL }, 0x7, false },
	[KP_PMD_SET_HUGE] = { { "pmd_set_huge" }, "pmd_set_huge", true,
		{ "pmdp", "phys" }, { NULL }, 0, false },
	[KP_PUD_SET_HUGE] = { { "pud_set_huge" }, "pud_set_huge", true,
		{ "pudp", "phys" }, { NULL }, 0, false },
	[KP_PMD_FREE_PTE] = { { "pmd_free_pte" }, "pmd_free_pte_page", true,
		{ "pmdp", "addr" }, { NULL }, 0, false },
	[KP_PTE_ALLOC] = { { "pte_alloc_kernel" }, "__pte_alloc_kernel", true,
		{ "pmdp" }, { NULL }, 0, false },
	[KP_PMD_ALLOC] = { { "pmd_alloc" }, "__pmd_alloc", true,
		{ "pudp", "addr" }, { NULL }, 0, false },
	[KP_VUNMAP] = { { "vunmap_range" }, "__vunmap_range_noflush", true,
		{ "start", "end" }, { NULL }, 0x3, false },
	[KP_PURGE] = { { "purge_lazy" }, "__purge_vmap_area_lazy", true,
		{ "start", "end" }, { NULL }, 0, false },
	[KP_BULK] = { { "bulk" }, "alloc_pages_bulk_noprof", true,
		{ "nr" }, { NULL }, 0x1, false },
	[KP_FREE_PAGES] = { { "free_pages" }, "__free_pages", true,
		{ "page", "order" }, { NULL }, 0, false },
	/* __vmalloc_node_range_noprof(size, ...), __vmalloc_node_range
	 * before 6.10: found by the event name, the symbol differs */
	[KP_VMALLOC_NODE] = { { "vmalloc_node" }, "__vmalloc_node_range_noprof",
		true, { "size" }, { NULL }, 0x1, false },
	/*
	 * Before 6.2, in place of the vmalloc:* tracepoints (docs/recording.md):
	 * 6.1's alloc_vmap_area(size, align, vstart, vend, node, gfp_mask) at
	 * its entry, and at its return the area, va->va_start first in struct
	 * vmap_area (a kretprobe reads no $argN in 6.1: parse_probe_vars(),
	 * kernel/trace/trace_probe.c); free_vmap_area_noflush(va) at its entry;
	 * the return of __purge_vmap_area_lazy(start, end), which tells a
	 * purge's caller (mm/vmalloc.c, unifreq/linux-6.1.y @ 525d1212a677)
	 */
	[KP_ALLOC_VA] = { { "alloc_va" }, "alloc_vmap_area", true,
		{ "size", "align", "vstart", "vend" }, { NULL }, 0xf, false },
	[KP_ALLOC_VA_RET] = { { "alloc_va_ret" }, "alloc_vmap_area", true,
		{ "va", "va_start" }, { NULL }, 0x1, true },
	[KP_FREE_VA] = { { "free_va" }, "free_vmap_area_noflush", true,
		{ "va_start" }, { NULL }, 0x1, false },
	[KP_PURGE_RET] = { { "purge_ret" }, "__purge_vmap_area_lazy", true,
		{ "ret" }, { NULL }, 0, true },
	[KEV_FUNCTION] = { { "function" }, NULL, false, { NULL }, { NULL },
		0, false },
};

/* ---- the reconstruction rules -------------------------------------- */

static bool is_kworker(const char *comm)
{
	return comm && !strncmp(comm, "kworker/", 8);
}

/* VMAP_BLOCK_SIZE areas: aligned to their size, a power of two of
 * 2 * VMAP_MAX_ALLOC to VMAP_BBMAP_BITS_MAX (1024) pages */
static bool is_vblock_shape(const struct area *a)
{
	return a->vsize == a->align && !(a->vsize & (a->vsize - 1)) &&
	       a->vsize >= 128 * PAGE_SIZE_4K && a->vsize <= 1024 * PAGE_SIZE_4K;
}

/*
 * The live vmap block holding @addr, or -1.  A block is aligned to its
 * size (is_vblock_shape()), so only the four aligned starts below @addr
 * can hold it: four look-ups, not a scan of every block per mapping.
 */
static long vblock_of(struct vt_import *im, uint64_t addr)
{
	for (uint64_t size = 128 * PAGE_SIZE_4K; size <= 1024 * PAGE_SIZE_4K; size *= 2) {
		const struct area *b = vt_im_vatab_find(im, &im->blocks, addr & ~(size - 1),
							NULL);

		if (b && b->vsize == size)
			return b->idx;
	}
	return -1;
}

/* Make @a a live vmap block (an older block at its va is no longer one). */
static void block_add(struct vt_import *im, struct area *a)
{
	struct area *old = vt_im_vatab_del(im, &im->blocks, a->va);

	if (old) {
		old->in_block = false;
		vt_im_unpin(im, old);
	}
	if (vt_im_vatab_add(im, &im->blocks, a))
		a->in_block = true;
}

static void block_del(struct vt_import *im, struct area *a)
{
	size_t pos;

	if (vt_im_vatab_find(im, &im->blocks, a->va, &pos) == a)
		vt_im_vatab_del(im, &im->blocks, a->va);
	a->in_block = false;
}

/* The caller's pages of a vmap or vm_map_ram: what the task allocated
 * outside any area since its last mapping (used if they add up). */
static void take_loose(struct vt_import *im, struct task *t, struct area *a)
{
	for (size_t i = 0; i < t->loose.n; i++)
		vt_im_vec_push(im, &a->alloc, t->loose.v[i]);
	t->loose.n = 0;
}

/*
 * A vm_map_ram() of at most VMAP_MAX_ALLOC pages: vb_alloc() hands out
 * part of a vmap block, no alloc_vmap_area() of its own; the mapping is
 * vmap_pages_range(addr, addr + size, ..., PAGE_SHIFT).
 */
static void vmr_small_new(struct vt_import *im, struct task *t,
			  const struct kev *k, long block)
{
	struct area *a = vt_im_area_new(im), *old;
	long idx;

	if (!a)
		return;
	idx = a->idx;
	a->va = k->f[0];
	a->map_size = k->f[1] - k->f[0];
	a->vsize = a->map_size;
	if (block >= 0) {
		a->vstart = vt_im_area_at(im, block)->vstart;
		a->vend = vt_im_area_at(im, block)->vend;
	}
	a->t = k->t;
	a->cpu = k->cpu;
	a->pid = k->pid;
	a->kind = AK_VM_MAP_RAM;
	a->vmr_small = true;
	a->state = AS_MAPPED;
	a->page_shift = PAGE_SHIFT_4K;
	a->outer = -1;
	a->map_slot = vt_im_slot_new(im, VT_OP_VM_MAP_RAM, k, idx);
	take_loose(im, t, a);
	old = vt_im_vatab_del(im, &im->vmr_live, a->va);
	if (old) {	/* a stale mapping at the same va loses */
		old->in_vmr = false;
		vt_im_unpin(im, old);
	}
	if (vt_im_vatab_add(im, &im->vmr_live, a))
		a->in_vmr = true;
	im->sum.vm_map_ram++;
}

/* vb_free(): __vunmap_range_noflush(addr, addr + size) of a live
 * vm_map_ram mapping, with no free_vmap_area_noflush() */
static void on_vunmap_range(struct vt_import *im, const struct kev *k)
{
	/* by its va: a scan of every live mapping per unmap was quadratic */
	struct area *a = vt_im_vatab_find(im, &im->vmr_live, k->f[0], NULL);

	if (!a || a->va + a->map_size != k->f[1])
		return;
	vt_im_vatab_del(im, &im->vmr_live, a->va);
	a->state = AS_FREED;
	a->has_unmap = true;
	a->unmap_slot = vt_im_slot_new(im, VT_OP_VM_UNMAP_RAM, k, a->idx);
	vt_im_fill_unmap(im, a);
	a->in_vmr = false;
	vt_im_unpin(im, a);
}

/*
 * A new area.  It is the nested page array of vmalloc-paths.md 5.2 when
 * the same task has an unmapped vmalloc open whose array does not fit a
 * page (nr_pages * 8 > PAGE_SIZE) and this area has exactly the array's
 * size (PAGE_ALIGN(nr_pages * 8) plus the guard page).
 */
static void on_alloc_va(struct vt_import *im, struct task *t,
			const struct kev *k)
{
	struct area *a, *outer;
	long idx;

	im->sum.alloc_vmap_area++;
	if (k->f[5]) {
		im->sum.alloc_failed++;
		t->pend_caller = NULL;
		t->pend_size = 0;
		return;
	}
	/* alloc_vmap_area() BUG()s on an align that is not a power of two
	 * and only hands out page-aligned areas: anything else is corrupt */
	if (!k->f[2] || (k->f[2] & (k->f[2] - 1)) || !k->f[1] ||
	    ((k->f[0] | k->f[1]) & (PAGE_SIZE_4K - 1))) {
		im->sum.bad_fields++;
		t->pend_caller = NULL;
		t->pend_size = 0;
		return;
	}
	vt_im_see_pointer(im, k->f[3]);
	a = vt_im_area_new(im);
	if (!a)
		return;
	idx = a->idx;
	a->va = k->f[0];
	a->vsize = k->f[1];
	a->align = k->f[2];
	a->vstart = k->f[3];
	a->vend = k->f[4];
	a->t = k->t;
	a->cpu = k->cpu;
	a->pid = k->pid;
	a->caller = t->pend_caller;
	a->huge_caller = t->pend_huge;
	a->page_shift = PAGE_SHIFT_4K;
	a->outer = -1;
	a->req_size = t->pend_size;
	t->pend_caller = NULL;
	t->pend_huge = false;
	t->pend_size = 0;
	im->sum.areas++;

	/* the widest range asked for is the vmalloc range (pass 2 knows
	 * it from pass 1 and decides areas with it as they end) */
	if (im->pass != 2 && a->vend - a->vstart > im->vm_end - im->vm_start) {
		im->vm_start = a->vstart;
		im->vm_end = a->vend;
	}

	/*
	 * Inside vm_map_ram(): new_vmap_block()'s alloc_vmap_area(
	 * VMAP_BLOCK_SIZE, VMAP_BLOCK_SIZE, ...), or the area of a
	 * vm_map_ram() of more than VMAP_MAX_ALLOC pages (PAGE_SIZE aligned,
	 * no guard page).
	 */
	if (t->in_vmr) {
		if (is_vblock_shape(a)) {
			a->kind = AK_VBLOCK;
			a->map_slot = vt_im_slot_new(im, VT_OP_VMALLOC, k, idx);
			vt_im_live_va_add(im, a);
			block_add(im, a);
			return;
		}
		a->vmr_large = true;
	}
	outer = vt_im_top_open(im, t);
	if (outer && outer->state == AS_OPEN && !outer->nested &&
	    outer->vsize > PAGE_SIZE_4K) {
		uint64_t nr = (outer->vsize - PAGE_SIZE_4K) >> PAGE_SHIFT_4K;
		uint64_t arr = nr * 8;

		if (arr > PAGE_SIZE_4K &&
		    a->vsize == ((arr + PAGE_SIZE_4K - 1) & ~(PAGE_SIZE_4K - 1)) +
				PAGE_SIZE_4K) {
			a->nested = true;
			a->outer = t->open[t->nopen - 1];
			outer->kids++;	/* its decision is read at ours */
			im->sum.nested_dropped++;
		}
	}
	a->map_slot = vt_im_slot_new(im, VT_OP_VMALLOC, k, idx);
	vt_im_push_open(im, t, a);
	vt_im_live_va_add(im, a);
}

/* The area is unmapped: vfree/vunmap/iounmap by what it was mapped as. */
static void on_free_va(struct vt_import *im, struct task *t,
		       const struct kev *k)
{
	struct area *a;
	long idx;

	im->sum.free_vmap_area++;
	vt_im_see_pointer(im, k->f[0]);
	idx = vt_im_live_find(im, k->f[0], NULL);
	if (idx < 0) {
		im->sum.unmatched_frees++;
		return;
	}
	a = vt_im_area_at(im, idx);
	vt_im_live_del(im, a->va);
	vt_im_pop_open(im, t, a);
	if (a->kind == AK_VBLOCK) {
		/* free_vmap_block(): the engine frees its own blocks */
		a->state = AS_FREED;
		vt_im_unpin(im, a);
		if (a->in_block)
			block_del(im, a);
		return;
	}
	if (a->nested)
		im->sum.nested_frees_dropped++;
	a->state = AS_FREED;
	a->has_unmap = true;
	a->unmap_slot = vt_im_slot_new(im, VT_OP_VFREE, k, idx);
	vt_im_fill_unmap(im, a);
	vt_im_unpin(im, a);	/* no longer open */
	if (t->mapping == idx)
		vt_im_set_ref(im, &t->mapping, -1);
	/* vfree frees vm->pages[0..nr_pages) next, each as order 0 */
	if (a->kind == AK_VMALLOC && a->vsize > PAGE_SIZE_4K) {
		vt_im_set_ref(im, &t->collect, idx);
		t->collect_left = (a->vsize - PAGE_SIZE_4K) >> PAGE_SHIFT_4K;
		t->collect_paused = false;
		t->skip_next_free = false;
	} else {
		vt_im_set_ref(im, &t->collect, -1);
	}
}

static void on_page_alloc(struct vt_import *im, struct task *t,
			  const struct kev *k)
{
	struct area *a = vt_im_top_open(im, t);

	im->sum.page_alloc++;
	if (k->f[0] == UINT64_MAX || k->f[1] > 20 || k->irq)
		return;		/* failed allocation */
	if (!a || a->state != AS_OPEN) {
		/* perhaps the pages of a later vmap/vm_map_ram (bounded) */
		if (t->loose.n >= (1u << 20))
			t->loose.n = 0;
		vt_im_vec_push(im, &t->loose, k->f[0]);
		vt_im_vec_push(im, &t->loose, k->f[1]);
		return;
	}
	a->saw_alloc = true;
	vt_im_vec_push(im, &a->alloc, k->f[0]);
	vt_im_vec_push(im, &a->alloc, k->f[1]);
}

static void on_page_free(struct vt_import *im, struct task *t,
			 const struct kev *k)
{
	struct area *a;

	im->sum.page_free++;
	/* vfree's loop runs in task context; an interrupt's free is not it */
	if (t->collect < 0 || t->collect_paused || k->irq)
		return;
	if (t->skip_next_free) {
		t->skip_next_free = false;
		return;
	}
	a = vt_im_area_at(im, t->collect);
	if (k->f[1] != 0) {
		vt_im_set_ref(im, &t->collect, -1);	/* not vfree's per-page loop */
		return;
	}
	vt_im_vec_push(im, &a->freed, k->f[0]);
	if (--t->collect_left == 0)
		vt_im_set_ref(im, &t->collect, -1);
}

/*
 * The kernel maps whole pages: a range that is empty or not page aligned is
 * a damaged record (it would make an event the trace reader refuses).
 */
static bool map_range_ok(uint64_t addr, uint64_t end)
{
	return end > addr && !((addr | end) & (PAGE_SIZE_4K - 1));
}

/* __vmap_pages_range_noflush(): vmalloc's or vmap's page-array mapping. */
static void on_vmap_pages(struct vt_import *im, struct task *t,
			  const struct kev *k)
{
	struct area *a = vt_im_top_open(im, t);

	if (!map_range_ok(k->f[0], k->f[1])) {
		im->sum.bad_fields++;
		return;
	}
	t->pages_addr = k->f[0];
	t->pages_end = k->f[1];
	if (a && a->va == k->f[0] && a->state == AS_OPEN &&
	    k->f[2] == PAGE_SHIFT_4K && is_vblock_shape(a) &&
	    k->f[1] - k->f[0] < a->vsize - PAGE_SIZE_4K) {
		/* without the function tracer: the first vm_map_ram() in a
		 * new vmap block maps part of an area without a guard */
		a->kind = AK_VBLOCK;
		block_add(im, a);
		vt_im_pop_open(im, t, a);
		a = NULL;
	}
	if (!a || a->va != k->f[0] || a->state != AS_OPEN) {
		long b = vblock_of(im, k->f[0]);

		vt_im_set_ref(im, &t->mapping, -1);
		/*
		 * vb_alloc() hands out at most VMAP_MAX_ALLOC (BITS_PER_LONG)
		 * pages of a block (mm/vmalloc.c, linux-mm 2025): a larger
		 * mapping there is not a vm_map_ram()
		 */
		if ((b >= 0 || t->in_vmr) && k->f[2] == PAGE_SHIFT_4K &&
		    k->f[1] - k->f[0] <= (64ull << PAGE_SHIFT_4K)) {
			t->in_vmr = false;
			vmr_small_new(im, t, k, b);
			return;
		}
		im->sum.unmatched_maps++;
		return;
	}
	if (k->f[1] - k->f[0] > a->vsize) {
		/*
		 * __vmap_pages_range_noflush() maps inside the area
		 * alloc_vmap_area() returned: a larger range is a damaged
		 * record (it would be emitted as a mapping larger than its
		 * area, with a page for each page of it)
		 */
		im->sum.maps_beyond_area++;
		return;
	}
	a->state = AS_MAPPED;
	a->page_shift = (unsigned int)k->f[2];
	a->map_size = k->f[1] - k->f[0];
	if (a->vmr_large || (!a->saw_alloc && a->page_shift == PAGE_SHIFT_4K &&
			     a->align == PAGE_SIZE_4K && a->map_size == a->vsize &&
			     !a->caller)) {
		/* vm_map_ram() of more than VMAP_MAX_ALLOC pages: its own
		 * area, PAGE_SIZE aligned, no guard page */
		t->in_vmr = false;
		a->kind = AK_VM_MAP_RAM;
		take_loose(im, t, a);
		vt_im_pop_open(im, t, a);
		vt_im_set_ref(im, &t->mapping, -1);
		im->sum.vm_map_ram++;
		return;
	}
	/*
	 * vmalloc allocates its pages between the VA and the mapping
	 * (bulk kprobe or mm_page_alloc); vmap() maps the caller's pages.
	 */
	if (a->saw_alloc || a->page_shift > PAGE_SHIFT_4K ||
	    (a->caller && strstr(a->caller, "alloc")))
		a->kind = AK_VMALLOC;
	else
		a->kind = AK_VMAP;
	if (a->kind == AK_VMAP)
		take_loose(im, t, a);
	if (a->page_shift > PAGE_SHIFT_4K)
		im->sum.huge_areas++;
	vt_im_pop_open(im, t, a);
	vt_im_set_ref(im, &t->mapping, a->idx);
}

/*
 * vmap_range_noflush(): one chunk of a huge vmalloc (after vmap_pages
 * with page_shift > PAGE_SHIFT), or the whole of an ioremap.
 */
static void on_vmap_range(struct vt_import *im, struct task *t,
			  const struct kev *k)
{
	struct area *a;

	if (!map_range_ok(k->f[0], k->f[1])) {
		im->sum.bad_fields++;
		return;
	}
	if (t->mapping >= 0) {
		a = vt_im_area_at(im, t->mapping);
		if (a->kind == AK_VMALLOC && a->page_shift > PAGE_SHIFT_4K &&
		    k->f[0] >= a->va && k->f[1] <= a->va + a->map_size) {
			vt_im_vec_push(im, &a->chunks, k->f[2] >> PAGE_SHIFT_4K);
			return;
		}
	}
	a = vt_im_top_open(im, t);
	if (!a || a->va != k->f[0] || a->state != AS_OPEN) {
		im->sum.unmatched_maps++;
		return;
	}
	if (k->f[1] - k->f[0] > a->vsize) {
		/* ioremap maps inside its area: a damaged record */
		im->sum.maps_beyond_area++;
		return;
	}
	a->state = AS_MAPPED;
	a->kind = AK_IOREMAP;
	a->phys = k->f[2];
	a->map_size = k->f[1] - k->f[0];
	vt_im_pop_open(im, t, a);
	vt_im_set_ref(im, &t->mapping, -1);
}

static bool purge_parent_explicit(const char *parent)
{
	/* vm_unmap_aliases() and vm_reset_perms() of VM_FLUSH_RESET_PERMS;
	 * gcc's clones keep the name before a '.' (6.1's
	 * "_vm_unmap_aliases.part.0"), an offset follows a '+' (strchr()
	 * finds the terminating NUL too: the name alone) */
	static const char name[] = "_vm_unmap_aliases";

	return parent && !strncmp(parent, name, sizeof(name) - 1) &&
	       strchr(".+", parent[sizeof(name) - 1]);
}

/*
 * A purge is emitted only when it was explicit (_vm_unmap_aliases); the
 * drain worker's lazy purge and the purge on VA exhaustion are made by
 * the engine itself.  Without the function tracer a purge in a kworker
 * is taken as the drain worker.
 */
static void purge_begin(struct vt_import *im, struct task *t,
			const struct kev *k)
{
	struct slot *s;

	if (t->purge_slot >= 0)
		return;
	t->purge_slot = vt_im_slot_new(im, VT_OP_PURGE, k, -1);
	t->purge_from_func = false;
	if (t->purge_slot < 0)
		return;
	s = vt_im_slot_at(im, t->purge_slot);
	s->drop = is_kworker(k->comm);
	/* vfree's page loop comes after the purge of vm_reset_perms() */
	if (t->collect >= 0)
		t->collect_paused = true;
}

/* A caller as ftrace prints it: a symbol (+offset/size) or an address. */
static bool symbol_ok(const char *p)
{
	if (!p || !*p)
		return false;
	for (; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.$+/", *p))
			return false;
	return true;
}

/*
 * An address where the recording has no symbol (trace-cmd without the
 * kernel's kallsyms prints "0xffff800080123456"), resolved through
 * opts.symbolize (import --vmlinux) into @buf; anything else unchanged.
 */
static const char *symbolize_name(struct vt_import *im, const char *s, bool offset,
				  char *buf, size_t len)
{
	const char *h;
	uint64_t a = 0;

	if (!s || !im->opts.symbolize || s[0] != '0' || (s[1] | 0x20) != 'x' || !s[2])
		return s;
	for (h = s + 2; *h; h++) {
		if (!isxdigit((unsigned char)*h) || h - s > 17)
			return s;
		a = a << 4 | (uint64_t)(isdigit((unsigned char)*h) ? *h - '0' :
					(*h | 0x20) - 'a' + 10);
	}
	if (!im->opts.symbolize(im->opts.symbolize_ctx, a, offset, buf, len)) {
		if (im->opts.unsymbolized)
			(*im->opts.unsymbolized)++;
		return s;
	}
	if (im->opts.symbolized)
		(*im->opts.symbolized)++;
	return buf;
}

static void on_function(struct vt_import *im, struct task *t,
			const struct kev *k)
{
	char fbuf[128], pbuf[160];
	/* the traced function by its name, the caller as name+0xoff */
	const char *f = symbolize_name(im, k->func, false, fbuf, sizeof(fbuf));
	const char *p = symbolize_name(im, k->parent, true, pbuf, sizeof(pbuf));

	im->sum.functions++;
	if (!f)
		return;
	if (!strcmp(f, "__vmalloc_node_range_noprof") ||
	    !strcmp(f, "__vmalloc_node_range")) {
		t->pend_caller = symbol_ok(p) ? vt_im_intern(im, p) : NULL;
		t->pend_huge = p && strstr(p, "vmalloc_huge");
	} else if (!strcmp(f, "vm_map_ram")) {
		t->in_vmr = true;
	} else if (!strcmp(f, "__purge_vmap_area_lazy")) {
		if (t->purge_slot < 0) {
			purge_begin(im, t, k);
			if (t->purge_slot >= 0)
				vt_im_slot_at(im, t->purge_slot)->drop = true;
		}
		/* "[unknown/kretprobe'd]": a kretprobe (kp/purge_ret) took
		 * the return address, and it names the caller instead */
		if (t->purge_slot >= 0 && p && p[0] != '[') {
			vt_im_slot_at(im, t->purge_slot)->drop =
				!purge_parent_explicit(p);
			t->purge_from_func = true;
		}
	} else if (!strcmp(f, "__free_pages") && p && t->collect >= 0 &&
		   !k->irq && strcmp(p, "vfree") && strcmp(p, "__free_page") &&
		   strcmp(p, "__vunmap")) {
		/* vfree's own loop: in vfree() (6.12), in __vunmap() (6.1,
		 * mm/vmalloc.c, unifreq/linux-6.1.y @ 525d1212a677) */
		t->skip_next_free = true;
	}
}

/*
 * kp/alloc_va_ret: the return of alloc_vmap_area(), with the arguments
 * its entry (kp/alloc_va) left in the task: one vmalloc:alloc_vmap_area
 * as 6.2+ emits it, after the area is inserted.  An ERR_PTR() (the last
 * MAX_ERRNO values) is a failed allocation, whose va_start was not read.
 */
static void on_alloc_va_ret(struct vt_import *im, struct task *t,
			    const struct kev *k)
{
	struct kev a = *k;

	if (!t->pend_va_set) {
		im->sum.alloc_va_unpaired++;
		return;
	}
	t->pend_va_set = false;
	a.kind = KEV_ALLOC_VA;
	a.f[5] = k->f[0] >= (uint64_t)-4095;
	if (!a.f[5] && !(k->have & 2)) {
		im->sum.bad_fields++;
		return;
	}
	a.f[0] = k->f[1];
	memcpy(&a.f[1], t->pend_va, sizeof(t->pend_va));
	a.have = 0x3f;
	on_alloc_va(im, t, &a);
}

/*
 * kp/purge_ret: the end of a purge, as vmalloc:purge_vmap_area_lazy.  The
 * kretprobe names the function __purge_vmap_area_lazy() returned to,
 * which tells an explicit purge (_vm_unmap_aliases) from the drain
 * worker's (drain_vmap_area_work); the function tracer cannot, its parent
 * is "[unknown/kretprobe'd]".
 */
static void on_purge_ret(struct vt_import *im, struct task *t,
			 const struct kev *k)
{
	char pbuf[160];
	const char *p = symbolize_name(im, k->parent, true, pbuf, sizeof(pbuf));

	purge_begin(im, t, k);
	if (t->purge_slot >= 0 && symbol_ok(p))
		vt_im_slot_at(im, t->purge_slot)->drop = !purge_parent_explicit(p);
	vt_im_purge_end(im, t);
}

/* The kprobes that stand in for the vmalloc:* tracepoints before 6.2. */
static void on_va_kprobe(struct vt_import *im, struct task *t,
			 const struct kev *k)
{
	im->sum.kprobes++;
	if (im->va_tracepoints)
		return;		/* the tracepoints say it (6.2+) */
	switch (k->kind) {
	case KP_ALLOC_VA:
		if (t->pend_va_set)
			im->sum.alloc_va_unpaired++;
		memcpy(t->pend_va, k->f, sizeof(t->pend_va));
		t->pend_va_set = true;
		break;
	case KP_ALLOC_VA_RET:
		on_alloc_va_ret(im, t, k);
		break;
	case KP_FREE_VA:
		on_free_va(im, t, k);
		break;
	default:
		on_purge_ret(im, t, k);
		break;
	}
}

void vt_im_handle(struct vt_import *im, const struct kev *k)
{
	struct task *t = vt_im_task_get(im, k->pid);

	if (!t)
		return;
	if (k->kind != KEV_FUNCTION)
		im->sum.records++;
	switch (k->kind) {
	case KEV_ALLOC_VA:
		im->va_tracepoints = true;
		on_alloc_va(im, t, k);
		break;
	case KEV_FREE_VA:
		im->va_tracepoints = true;
		on_free_va(im, t, k);
		break;
	case KEV_PURGE_TP:
		im->va_tracepoints = true;
		im->sum.purge_tp++;
		if (k->f[0] != UINT64_MAX)
			vt_im_see_pointer(im, k->f[0]);
		purge_begin(im, t, k);
		vt_im_purge_end(im, t);
		break;
	case KEV_PAGE_ALLOC:
		on_page_alloc(im, t, k);
		break;
	case KEV_PAGE_FREE:
		on_page_free(im, t, k);
		break;
	case KP_VMAP_PAGES:
		im->sum.kprobes++;
		on_vmap_pages(im, t, k);
		break;
	case KP_VMAP_RANGE:
		im->sum.kprobes++;
		if (map_range_ok(k->f[0], k->f[1]))
			im->sum.walker_pages += (k->f[1] - k->f[0]) >> PAGE_SHIFT_4K;
		on_vmap_range(im, t, k);
		break;
	case KP_BULK:
		im->sum.kprobes++;
		if (vt_im_top_open(im, t) && vt_im_top_open(im, t)->state == AS_OPEN) {
			vt_im_top_open(im, t)->saw_alloc = true;
			if (k->f[0] < (1ULL << 31))
				im->sum.bulk_pages += k->f[0];
		}
		break;
	case KP_PURGE:
		im->sum.kprobes++;
		/* a second entry without the tracepoint closes the first */
		vt_im_purge_end(im, t);
		purge_begin(im, t, k);
		break;
	case KP_PMD_SET_HUGE:
	case KP_PUD_SET_HUGE:
		if (k->kind == KP_PMD_SET_HUGE)
			im->sum.walker_pmd_blocks++;
		else
			im->sum.walker_pud_blocks++;
		/* fallthrough */
	case KP_PMD_FREE_PTE:
	case KP_PTE_ALLOC:
	case KP_PMD_ALLOC:
		im->sum.kprobes++;
		if (k->have & 1)
			vt_im_see_pointer(im, k->f[0]);
		break;
	case KP_VUNMAP:
		im->sum.kprobes++;
		on_vunmap_range(im, k);
		break;
	case KP_VMAP_SMALL:
		im->sum.kprobes++;
		if (!map_range_ok(k->f[0], k->f[1]))
			break;
		im->sum.walker_pages += (k->f[1] - k->f[0]) >> PAGE_SHIFT_4K;
		/*
		 * The page-array walk of the __vmap_pages_range_noflush() just
		 * seen; or a mapping whose call of it the compiler inlined
		 * (6.12's vmap() and vm_map_ram() through the static
		 * vmap_pages_range(): no kprobe hit), at PAGE_SHIFT.
		 */
		if (t->pages_addr == k->f[0] && t->pages_end == k->f[1]) {
			t->pages_addr = t->pages_end = 0;
		} else {
			struct kev k2 = *k;

			k2.f[2] = PAGE_SHIFT_4K;
			k2.have |= 1u << 2;
			on_vmap_pages(im, t, &k2);
			t->pages_addr = t->pages_end = 0;
		}
		break;
	case KP_FREE_PAGES:
		im->sum.kprobes++;
		break;
	case KP_VMALLOC_NODE:
		/* the next alloc_vmap_area() of this task is its area
		 * (__get_vm_area_node(), mm/vmalloc.c) */
		im->sum.kprobes++;
		t->pend_size = k->f[0];
		break;
	case KP_ALLOC_VA:
	case KP_ALLOC_VA_RET:
	case KP_FREE_VA:
	case KP_PURGE_RET:
		on_va_kprobe(im, t, k);
		break;
	case KEV_FUNCTION:
		on_function(im, t, k);
		break;
	case KEV__NR:
		break;
	}
}

void vt_im_count_unknown(struct vt_import *im, const char *name)
{
	int i;

	im->sum.unknown_events++;
	for (i = 0; i < MAX_UNKNOWN_NAMES; i++) {
		if (!im->unknown_names[i][0]) {
			size_t n = strnlen(name, sizeof(im->unknown_names[i]) - 1);

			memcpy(im->unknown_names[i], name, n);
			im->unknown_names[i][n] = '\0';
			im->unknown_counts[i] = 1;
			return;
		}
		if (!strcmp(im->unknown_names[i], name)) {
			im->unknown_counts[i]++;
			return;
		}
	}
}

/*
 * Find the kind for an event name and, for kprobes, its probed symbol;
 * @ret: the record is a kretprobe's (a function's entry and its return
 * are kinds of their own).
 */
int vt_im_kind_of(const char *name, const char *sym, bool ret)
{
	int i, j;

	if (sym && *sym)
		for (i = 0; i < KEV__NR; i++)
			if (vt_im_kev_descs[i].sym && vt_im_kev_descs[i].ret == ret &&
			    !strcmp(vt_im_kev_descs[i].sym, sym))
				return i;
	for (i = 0; i < KEV__NR; i++)
		for (j = 0; j < 3 && vt_im_kev_descs[i].names[j]; j++)
			if (vt_im_kev_descs[i].ret == ret &&
			    !strcmp(vt_im_kev_descs[i].names[j], name))
				return i;
	if (sym && *sym)
		return -1;
	for (i = 0; i < KEV__NR; i++)
		if (vt_im_kev_descs[i].sym && vt_im_kev_descs[i].ret == ret &&
		    !strcmp(vt_im_kev_descs[i].sym, name))
			return i;
	return -1;
}
