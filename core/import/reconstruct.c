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
#include <lzma.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>
#include <traceevent/event-parse.h>

#include "core/import/internal.h"


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
		{ "addr" }, 0x3f },
	[KEV_FREE_VA] = { { "free_vmap_area_noflush" }, NULL, false,
		{ "va_start", "nr_lazy", "nr_lazy_max" }, { NULL }, 0x1 },
	[KEV_PURGE_TP] = { { "purge_vmap_area_lazy" }, NULL, false,
		{ "start", "end", "num_purged" },
		{ NULL, NULL, "npurged" }, 0x7 },
	[KEV_PAGE_ALLOC] = { { "mm_page_alloc" }, NULL, false,
		{ "pfn", "order" }, { NULL }, 0x3 },
	[KEV_PAGE_FREE] = { { "mm_page_free" }, NULL, false,
		{ "pfn", "order" }, { NULL }, 0x3 },
	[KP_VMAP_PAGES] = { { "vmap_pages" }, "__vmap_pages_range_noflush",
		true, { "addr", "end", "page_shift" }, { NULL }, 0x7 },
	[KP_VMAP_SMALL] = { { "vmap_small" },
		"vmap_small_pages_range_noflush", true, { "addr", "end" },
		{ NULL }, 0x3 },
	[KP_VMAP_RANGE] = { { "vmap_range" }, "vmap_range_noflush", true,
		{ "addr", "end", "phys", "max_page_shift" }, { NULL }, 0x7 },
	[KP_PMD_SET_HUGE] = { { "pmd_set_huge" }, "pmd_set_huge", true,
		{ "pmdp", "phys" }, { NULL }, 0 },
	[KP_PUD_SET_HUGE] = { { "pud_set_huge" }, "pud_set_huge", true,
		{ "pudp", "phys" }, { NULL }, 0 },
	[KP_PMD_FREE_PTE] = { { "pmd_free_pte" }, "pmd_free_pte_page", true,
		{ "pmdp", "addr" }, { NULL }, 0 },
	[KP_PTE_ALLOC] = { { "pte_alloc_kernel" }, "__pte_alloc_kernel", true,
		{ "pmdp" }, { NULL }, 0 },
	[KP_PMD_ALLOC] = { { "pmd_alloc" }, "__pmd_alloc", true,
		{ "pudp", "addr" }, { NULL }, 0 },
	[KP_VUNMAP] = { { "vunmap_range" }, "__vunmap_range_noflush", true,
		{ "start", "end" }, { NULL }, 0x3 },
	[KP_PURGE] = { { "purge_lazy" }, "__purge_vmap_area_lazy", true,
		{ "start", "end" }, { NULL }, 0 },
	[KP_BULK] = { { "bulk" }, "alloc_pages_bulk_noprof", true,
		{ "nr" }, { NULL }, 0x1 },
	[KP_FREE_PAGES] = { { "free_pages" }, "__free_pages", true,
		{ "page", "order" }, { NULL }, 0 },
	[KEV_FUNCTION] = { { "function" }, NULL, false, { NULL }, { NULL },
		0 },
};

/* ---- small helpers ------------------------------------------------- */

bool vt_im_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *np;

	if (need <= *cap)
		return true;
	ncap = *cap ? *cap * 2 : 16;
	while (ncap < need)
		ncap *= 2;
	np = realloc(*p, ncap * elem);
	if (!np)
		return false;
	*p = np;
	*cap = ncap;
	return true;
}

static bool vec_push(struct vt_import *im, struct u64vec *v, uint64_t x)
{
	if (!vt_im_grow((void **)&v->v, &v->cap, v->n + 1, sizeof(*v->v))) {
		im->oom = true;
		return false;
	}
	v->v[v->n++] = x;
	return true;
}

static const char *intern(struct vt_import *im, const char *s)
{
	size_t i;
	char *d;

	if (!s || !*s)
		return NULL;
	for (i = 0; i < im->strs.n; i++)
		if (!strcmp(im->strs.s[i], s))
			return im->strs.s[i];
	if (!vt_im_grow((void **)&im->strs.s, &im->strs.cap, im->strs.n + 1,
		  sizeof(char *))) {
		im->oom = true;
		return NULL;
	}
	d = strdup(s);
	if (!d) {
		im->oom = true;
		return NULL;
	}
	im->strs.s[im->strs.n++] = d;
	return d;
}

static void warnf(struct vt_import *im, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warnf(struct vt_import *im, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !vt_im_grow((void **)&im->warnings, &im->warn_cap,
			   im->warn_len + n + 2, 1)) {
		im->oom = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(im->warnings + im->warn_len, n + 1, fmt, ap);
	va_end(ap);
	im->warn_len += n;
	im->warnings[im->warn_len++] = '\n';
	im->warnings[im->warn_len] = '\0';
}

/* Note a kernel pointer: the lowest linear-map one tells VA_BITS. */
static void see_pointer(struct vt_import *im, uint64_t p)
{
	if (p >> 63 && p != UINT64_MAX && p < im->min_linear)
		im->min_linear = p;
}

/* ---- live-area table: va -> area index ----------------------------- */

#define LIVE_EMPTY (-1)
#define LIVE_TOMB (-2)

static size_t live_hash(uint64_t va, size_t cap)
{
	return (size_t)((va >> 12) * 0x9e3779b97f4a7c15ULL) & (cap - 1);
}

static bool live_rehash(struct vt_import *im, size_t ncap)
{
	int64_t *old = im->live;
	size_t ocap = im->live_cap, i;

	im->live = malloc(ncap * sizeof(*im->live));
	if (!im->live) {
		im->live = old;
		im->oom = true;
		return false;
	}
	for (i = 0; i < ncap; i++)
		im->live[i] = LIVE_EMPTY;
	im->live_cap = ncap;
	im->live_used = 0;
	for (i = 0; i < ocap; i++) {
		int64_t a = old[i];
		size_t h;

		if (a < 0)
			continue;
		h = live_hash(im->areas[a].va, ncap);
		while (im->live[h] != LIVE_EMPTY)
			h = (h + 1) & (ncap - 1);
		im->live[h] = a;
		im->live_used++;
	}
	free(old);
	return true;
}

static long live_find(const struct vt_import *im, uint64_t va, size_t *pos)
{
	size_t h, n;

	if (!im->live_cap)
		return -1;
	h = live_hash(va, im->live_cap);
	for (n = 0; n < im->live_cap; n++) {
		int64_t a = im->live[h];

		if (a == LIVE_EMPTY)
			return -1;
		if (a >= 0 && im->areas[a].va == va) {
			if (pos)
				*pos = h;
			return a;
		}
		h = (h + 1) & (im->live_cap - 1);
	}
	return -1;
}

static void live_del(struct vt_import *im, uint64_t va)
{
	size_t pos;

	if (live_find(im, va, &pos) >= 0)
		im->live[pos] = LIVE_TOMB;
}

static bool live_add(struct vt_import *im, long a)
{
	size_t h;

	live_del(im, im->areas[a].va);	/* a stale entry loses */
	if ((im->live_used + 1) * 2 > im->live_cap &&
	    !live_rehash(im, im->live_cap ? im->live_cap * 2 : 256))
		return false;
	h = live_hash(im->areas[a].va, im->live_cap);
	while (im->live[h] >= 0)
		h = (h + 1) & (im->live_cap - 1);
	if (im->live[h] == LIVE_EMPTY)
		im->live_used++;
	im->live[h] = a;
	return true;
}

/* ---- tasks --------------------------------------------------------- */

static struct task *task_get(struct vt_import *im, int pid)
{
	struct task *t;
	size_t i;

	if (im->last_task < im->ntasks && im->tasks[im->last_task].pid == pid)
		return &im->tasks[im->last_task];
	for (i = 0; i < im->ntasks; i++)
		if (im->tasks[i].pid == pid) {
			im->last_task = i;
			return &im->tasks[i];
		}
	if (!vt_im_grow((void **)&im->tasks, &im->tasks_cap, im->ntasks + 1,
		  sizeof(*im->tasks))) {
		im->oom = true;
		return NULL;
	}
	t = &im->tasks[im->ntasks];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->mapping = -1;
	t->collect = -1;
	t->purge_slot = -1;
	im->last_task = im->ntasks++;
	return t;
}

static long slot_new(struct vt_import *im, enum vt_op op,
		     const struct kev *k, long area)
{
	struct slot *s;

	if (!vt_im_grow((void **)&im->slots, &im->slots_cap, im->nslots + 1,
		  sizeof(*im->slots))) {
		im->oom = true;
		return -1;
	}
	s = &im->slots[im->nslots];
	memset(s, 0, sizeof(*s));
	s->ev.op = op;
	s->ev.has_t = true;
	s->ev.t = k->t;
	s->ev.cpu = k->cpu;
	s->ev.line = k->line;
	s->area = area;
	return (long)im->nslots++;
}

static struct area *top_open(struct vt_import *im, struct task *t)
{
	if (!t->nopen)
		return NULL;
	return &im->areas[t->open[t->nopen - 1]];
}

static void pop_open(struct task *t, int a)
{
	int i;

	for (i = t->nopen - 1; i >= 0; i--)
		if (t->open[i] == a) {
			memmove(&t->open[i], &t->open[i + 1],
				(t->nopen - i - 1) * sizeof(t->open[0]));
			t->nopen--;
			return;
		}
}

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

/* The live vmap block holding @addr, or -1. */
static long vblock_of(const struct vt_import *im, uint64_t addr)
{
	for (size_t i = 0; i < im->blocks.n; i++) {
		const struct area *b = &im->areas[im->blocks.v[i]];

		if (addr >= b->va && addr - b->va < b->vsize)
			return (long)im->blocks.v[i];
	}
	return -1;
}

static void vec_del(struct u64vec *v, uint64_t x)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i] == x) {
			v->v[i] = v->v[--v->n];
			return;
		}
}

/* The caller's pages of a vmap or vm_map_ram: what the task allocated
 * outside any area since its last mapping (used if they add up). */
static void take_loose(struct vt_import *im, struct task *t, struct area *a)
{
	for (size_t i = 0; i < t->loose.n; i++)
		vec_push(im, &a->alloc, t->loose.v[i]);
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
	struct area *a;
	long idx;

	if (!vt_im_grow((void **)&im->areas, &im->areas_cap, im->nareas + 1,
		  sizeof(*im->areas))) {
		im->oom = true;
		return;
	}
	idx = (long)im->nareas++;
	a = &im->areas[idx];
	memset(a, 0, sizeof(*a));
	a->va = k->f[0];
	a->map_size = k->f[1] - k->f[0];
	a->vsize = a->map_size;
	if (block >= 0) {
		a->vstart = im->areas[block].vstart;
		a->vend = im->areas[block].vend;
	}
	a->t = k->t;
	a->cpu = k->cpu;
	a->pid = k->pid;
	a->kind = AK_VM_MAP_RAM;
	a->vmr_small = true;
	a->state = AS_MAPPED;
	a->page_shift = PAGE_SHIFT_4K;
	a->outer = -1;
	a->map_slot = slot_new(im, VT_OP_VM_MAP_RAM, k, idx);
	take_loose(im, t, a);
	vec_push(im, &im->vmr_live, (uint64_t)idx);
	im->sum.vm_map_ram++;
}

/* vb_free(): __vunmap_range_noflush(addr, addr + size) of a live
 * vm_map_ram mapping, with no free_vmap_area_noflush() */
static void on_vunmap_range(struct vt_import *im, const struct kev *k)
{
	for (size_t i = 0; i < im->vmr_live.n; i++) {
		struct area *a = &im->areas[im->vmr_live.v[i]];

		if (a->va != k->f[0] || a->va + a->map_size != k->f[1])
			continue;
		a->state = AS_FREED;
		a->has_unmap = true;
		a->unmap_slot = slot_new(im, VT_OP_VM_UNMAP_RAM, k,
					 (long)im->vmr_live.v[i]);
		im->vmr_live.v[i] = im->vmr_live.v[--im->vmr_live.n];
		return;
	}
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
		return;
	}
	/* alloc_vmap_area() BUG()s on an align that is not a power of two
	 * and only hands out page-aligned areas: anything else is corrupt */
	if (!k->f[2] || (k->f[2] & (k->f[2] - 1)) || !k->f[1] ||
	    ((k->f[0] | k->f[1]) & (PAGE_SIZE_4K - 1))) {
		im->sum.bad_fields++;
		t->pend_caller = NULL;
		return;
	}
	see_pointer(im, k->f[3]);
	if (!vt_im_grow((void **)&im->areas, &im->areas_cap, im->nareas + 1,
		  sizeof(*im->areas))) {
		im->oom = true;
		return;
	}
	idx = (long)im->nareas++;
	a = &im->areas[idx];
	memset(a, 0, sizeof(*a));
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
	t->pend_caller = NULL;
	t->pend_huge = false;
	im->sum.areas++;

	/* the widest range asked for is the vmalloc range */
	if (a->vend - a->vstart > im->vm_end - im->vm_start) {
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
			a->map_slot = slot_new(im, VT_OP_VMALLOC, k, idx);
			live_add(im, idx);
			vec_push(im, &im->blocks, (uint64_t)idx);
			return;
		}
		a->vmr_large = true;
	}
	outer = top_open(im, t);
	if (outer && outer->state == AS_OPEN && !outer->nested &&
	    outer->vsize > PAGE_SIZE_4K) {
		uint64_t nr = (outer->vsize - PAGE_SIZE_4K) >> PAGE_SHIFT_4K;
		uint64_t arr = nr * 8;

		if (arr > PAGE_SIZE_4K &&
		    a->vsize == ((arr + PAGE_SIZE_4K - 1) & ~(PAGE_SIZE_4K - 1)) +
				PAGE_SIZE_4K) {
			a->nested = true;
			a->outer = t->open[t->nopen - 1];
			im->sum.nested_dropped++;
		}
	}
	a->map_slot = slot_new(im, VT_OP_VMALLOC, k, idx);
	if (t->nopen == MAX_TASK_STACK)
		memmove(&t->open[0], &t->open[1],
			(MAX_TASK_STACK - 1) * sizeof(t->open[0]));
	else
		t->nopen++;
	t->open[t->nopen - 1] = (int)idx;
	live_add(im, idx);
}

/* The area is unmapped: vfree/vunmap/iounmap by what it was mapped as. */
static void on_free_va(struct vt_import *im, struct task *t,
		       const struct kev *k)
{
	struct area *a;
	long idx;

	im->sum.free_vmap_area++;
	see_pointer(im, k->f[0]);
	idx = live_find(im, k->f[0], NULL);
	if (idx < 0) {
		im->sum.unmatched_frees++;
		return;
	}
	a = &im->areas[idx];
	live_del(im, a->va);
	pop_open(t, (int)idx);
	if (a->kind == AK_VBLOCK) {
		/* free_vmap_block(): the engine frees its own blocks */
		a->state = AS_FREED;
		vec_del(&im->blocks, (uint64_t)idx);
		return;
	}
	if (a->nested)
		im->sum.nested_frees_dropped++;
	a->state = AS_FREED;
	a->has_unmap = true;
	a->unmap_slot = slot_new(im, VT_OP_VFREE, k, idx);
	if (t->mapping == idx)
		t->mapping = -1;
	/* vfree frees vm->pages[0..nr_pages) next, each as order 0 */
	if (a->kind == AK_VMALLOC && a->vsize > PAGE_SIZE_4K) {
		t->collect = (int)idx;
		t->collect_left = (a->vsize - PAGE_SIZE_4K) >> PAGE_SHIFT_4K;
		t->collect_paused = false;
		t->skip_next_free = false;
	} else {
		t->collect = -1;
	}
}

static void on_page_alloc(struct vt_import *im, struct task *t,
			  const struct kev *k)
{
	struct area *a = top_open(im, t);

	im->sum.page_alloc++;
	if (k->f[0] == UINT64_MAX || k->f[1] > 20 || k->irq)
		return;		/* failed allocation */
	if (!a || a->state != AS_OPEN) {
		/* perhaps the pages of a later vmap/vm_map_ram (bounded) */
		if (t->loose.n >= (1u << 20))
			t->loose.n = 0;
		vec_push(im, &t->loose, k->f[0]);
		vec_push(im, &t->loose, k->f[1]);
		return;
	}
	a->saw_alloc = true;
	vec_push(im, &a->alloc, k->f[0]);
	vec_push(im, &a->alloc, k->f[1]);
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
	a = &im->areas[t->collect];
	if (k->f[1] != 0) {
		t->collect = -1;	/* not vfree's per-page loop */
		return;
	}
	vec_push(im, &a->freed, k->f[0]);
	if (--t->collect_left == 0)
		t->collect = -1;
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
	struct area *a = top_open(im, t);

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
		long idx = (long)(a - im->areas);

		a->kind = AK_VBLOCK;
		pop_open(t, (int)idx);
		vec_push(im, &im->blocks, (uint64_t)idx);
		a = NULL;
	}
	if (!a || a->va != k->f[0] || a->state != AS_OPEN) {
		long b = vblock_of(im, k->f[0]);

		t->mapping = -1;
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
		pop_open(t, (int)(a - im->areas));
		t->mapping = -1;
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
	pop_open(t, (int)(a - im->areas));
	t->mapping = (int)(a - im->areas);
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
		a = &im->areas[t->mapping];
		if (a->kind == AK_VMALLOC && a->page_shift > PAGE_SHIFT_4K &&
		    k->f[0] >= a->va && k->f[1] <= a->va + a->map_size) {
			vec_push(im, &a->chunks, k->f[2] >> PAGE_SHIFT_4K);
			return;
		}
	}
	a = top_open(im, t);
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
	pop_open(t, (int)(a - im->areas));
	t->mapping = -1;
}

static bool purge_parent_explicit(const char *parent)
{
	/* vm_unmap_aliases() and vm_reset_perms() of VM_FLUSH_RESET_PERMS */
	return parent && !strcmp(parent, "_vm_unmap_aliases");
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
	t->purge_slot = slot_new(im, VT_OP_PURGE, k, -1);
	t->purge_from_func = false;
	if (t->purge_slot < 0)
		return;
	s = &im->slots[t->purge_slot];
	s->drop = is_kworker(k->comm);
	/* vfree's page loop comes after the purge of vm_reset_perms() */
	if (t->collect >= 0)
		t->collect_paused = true;
}

static void purge_end(struct vt_import *im, struct task *t)
{
	struct slot *s;

	if (t->purge_slot < 0)
		return;
	s = &im->slots[t->purge_slot];
	if (s->drop || !im->opts.explicit_purges) {
		s->drop = true;
		im->sum.purges_lazy++;
	} else {
		im->sum.purges_explicit++;
	}
	t->purge_slot = -1;
	t->collect_paused = false;
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
static const char *resolve(struct vt_import *im, const char *s, bool offset,
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
	const char *f = resolve(im, k->func, false, fbuf, sizeof(fbuf));
	const char *p = resolve(im, k->parent, true, pbuf, sizeof(pbuf));

	im->sum.functions++;
	if (!f)
		return;
	if (!strcmp(f, "__vmalloc_node_range_noprof") ||
	    !strcmp(f, "__vmalloc_node_range")) {
		t->pend_caller = symbol_ok(p) ? intern(im, p) : NULL;
		t->pend_huge = p && strstr(p, "vmalloc_huge");
	} else if (!strcmp(f, "vm_map_ram")) {
		t->in_vmr = true;
	} else if (!strcmp(f, "__purge_vmap_area_lazy")) {
		if (t->purge_slot < 0) {
			purge_begin(im, t, k);
			if (t->purge_slot >= 0)
				im->slots[t->purge_slot].drop = true;
		}
		if (t->purge_slot >= 0 && p) {
			im->slots[t->purge_slot].drop =
				!purge_parent_explicit(p);
			t->purge_from_func = true;
		}
	} else if (!strcmp(f, "__free_pages") && p && t->collect >= 0 &&
		   !k->irq &&
		   strcmp(p, "vfree") && strcmp(p, "__free_page")) {
		t->skip_next_free = true;
	}
}

void vt_im_handle(struct vt_import *im, const struct kev *k)
{
	struct task *t = task_get(im, k->pid);

	if (!t)
		return;
	if (k->kind != KEV_FUNCTION)
		im->sum.records++;
	switch (k->kind) {
	case KEV_ALLOC_VA:
		on_alloc_va(im, t, k);
		break;
	case KEV_FREE_VA:
		on_free_va(im, t, k);
		break;
	case KEV_PURGE_TP:
		im->sum.purge_tp++;
		if (k->f[0] != UINT64_MAX)
			see_pointer(im, k->f[0]);
		purge_begin(im, t, k);
		purge_end(im, t);
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
		if (top_open(im, t) && top_open(im, t)->state == AS_OPEN) {
			top_open(im, t)->saw_alloc = true;
			if (k->f[0] < (1ULL << 31))
				im->sum.bulk_pages += k->f[0];
		}
		break;
	case KP_PURGE:
		im->sum.kprobes++;
		/* a second entry without the tracepoint closes the first */
		purge_end(im, t);
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
			see_pointer(im, k->f[0]);
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

/* Find the kind for an event name and, for kprobes, its probed symbol. */
int vt_im_kind_of(const char *name, const char *sym)
{
	int i, j;

	if (sym && *sym)
		for (i = 0; i < KEV__NR; i++)
			if (vt_im_kev_descs[i].sym && !strcmp(vt_im_kev_descs[i].sym, sym))
				return i;
	for (i = 0; i < KEV__NR; i++)
		for (j = 0; j < 3 && vt_im_kev_descs[i].names[j]; j++)
			if (!strcmp(vt_im_kev_descs[i].names[j], name))
				return i;
	if (sym && *sym)
		return -1;
	for (i = 0; i < KEV__NR; i++)
		if (vt_im_kev_descs[i].sym && !strcmp(vt_im_kev_descs[i].sym, name))
			return i;
	return -1;
}

/* ---- finishing: decide every area, build page runs ----------------- */

/* Append @n order-0 pfns as runs of contiguous pages. */
static bool add_pfns(struct vt_import *im, const uint64_t *pfn, size_t n,
		     size_t stride, uint64_t per, size_t *first)
{
	size_t i;

	*first = im->nruns;
	for (i = 0; i < n; i++) {
		uint64_t p = pfn[i * stride];
		struct vt_page_run *last = im->nruns > *first ?
			&im->runs[im->nruns - 1] : NULL;
		uint64_t cnt = per ? per : (uint64_t)1 << pfn[i * stride + 1];

		if (last && last->pfn + last->count == p) {
			last->count += cnt;
			continue;
		}
		if (!vt_im_grow((void **)&im->runs, &im->runs_cap, im->nruns + 1,
			  sizeof(*im->runs)))
			return false;
		im->runs[im->nruns].pfn = p;
		im->runs[im->nruns].count = cnt;
		im->runs[im->nruns].order = 0;
		im->nruns++;
	}
	return true;
}

/*
 * The pages vm->pages[] held, best source first: the physical address
 * of each chunk of a huge mapping; the pages vfree freed (in array
 * order); the pages allocated between the VA and the mapping.
 */
static int area_pages(struct vt_import *im, struct area *a, size_t *first,
		      uint64_t *nr)
{
	uint64_t need = a->map_size >> PAGE_SHIFT_4K;
	uint64_t per, got = 0;
	size_t i;

	*nr = 0;
	if (!need)
		return 0;
	if (a->page_shift > PAGE_SHIFT_4K && a->page_shift < 40) {
		per = 1ULL << (a->page_shift - PAGE_SHIFT_4K);
		if (a->chunks.n && a->chunks.n * per == need) {
			if (!add_pfns(im, a->chunks.v, a->chunks.n, 1, per,
				      first))
				return -ENOMEM;
			*nr = need;
			im->sum.pages_from_chunks++;
			return 1;
		}
	}
	if (a->freed.n == need) {
		if (!add_pfns(im, a->freed.v, a->freed.n, 1, 1, first))
			return -ENOMEM;
		*nr = need;
		im->sum.pages_from_free++;
		return 1;
	}
	for (i = 0; i + 1 < a->alloc.n; i += 2)
		got += a->alloc.v[i + 1] < 20 ? 1ULL << a->alloc.v[i + 1] : 0;
	if (got == need) {
		if (!add_pfns(im, a->alloc.v, a->alloc.n / 2, 2, 0, first))
			return -ENOMEM;
		*nr = need;
		im->sum.pages_from_alloc++;
		return 1;
	}
	return 0;
}

#define SYNTH_PFN_BASE 0x1000000ull

/* Whether @n more synthesised pages stay below @pfn_end. */
static bool synth_fits(const struct vt_import *im, uint64_t n,
		       uint64_t pfn_end)
{
	uint64_t next = im->synth_pfn ? im->synth_pfn : SYNTH_PFN_BASE;

	return next < pfn_end && n <= (pfn_end - next) / 2;
}

/*
 * Page lists the recording does not hold (the caller's pages of a vmap or
 * vm_map_ram, allocated before it or by another task, or in bulk):
 * order-0 pages that are never physically adjacent, from a pool above
 * 64 GiB of physical address.  The page-array walk of the recorded
 * kernel does not depend on which pages they are.
 */
static bool synth_pages(struct vt_import *im, uint64_t n, size_t *first)
{
	*first = im->nruns;
	if (!im->synth_pfn)
		im->synth_pfn = SYNTH_PFN_BASE;
	if (!vt_im_grow((void **)&im->runs, &im->runs_cap, im->nruns + n,
		  sizeof(*im->runs)))
		return false;
	for (uint64_t i = 0; i < n; i++) {
		im->runs[im->nruns++] = (struct vt_page_run){ im->synth_pfn, 1, 0 };
		im->synth_pfn += 2;
	}
	return true;
}

/* Whether the runs from @first on end at or below @pfn_end. */
static bool runs_below(const struct vt_import *im, size_t first,
		       uint64_t pfn_end)
{
	for (size_t i = first; i < im->nruns; i++)
		if (im->runs[i].pfn >= pfn_end ||
		    im->runs[i].count > pfn_end - im->runs[i].pfn)
			return false;
	return true;
}

/* The mapping @a is of kind ... in the recording; the trace has it if
 * @s is emitted (a nested array: if its vmalloc is, the engine makes it). */
static void count_mapping(struct vt_import *im, const struct area *a,
			  const struct slot *s)
{
	enum vt_import_mkind k;
	bool out = !s->drop;

	if (a->kind == AK_UNKNOWN || a->kind == AK_VBLOCK)
		return;
	if (a->nested) {
		k = VT_IMK_NESTED;
		out = a->outer >= 0 && a->outer < (long)im->nareas &&
		      im->areas[a->outer].kind == AK_VMALLOC &&
		      !im->slots[im->areas[a->outer].map_slot].drop;
	} else if (a->kind == AK_VMALLOC) {
		k = a->other_range && a->vstart < im->vm_start ?
		    VT_IMK_MODULES : VT_IMK_VMALLOC;
	} else if (a->kind == AK_VMAP) {
		k = VT_IMK_VMAP;
	} else if (a->kind == AK_IOREMAP) {
		k = VT_IMK_IOREMAP;
	} else {
		k = VT_IMK_VM_MAP_RAM;
	}
	im->sum.mappings_recorded[k]++;
	im->sum.mappings_reproduced[k] += out;
}

static void finish_purges(struct vt_import *im)
{
	size_t i;

	for (i = 0; i < im->ntasks; i++)
		purge_end(im, &im->tasks[i]);
}

static int finish(struct vt_import *im, struct vt_error *err)
{
	uint64_t next_id = 1, pa_end, pfn_end, max_runs;
	unsigned int pa_bits;
	size_t i;
	int lead;

	finish_purges(im);
	/* VA_BITS from the lowest linear-map pointer (4K: 39, 48, 52) */
	if (im->min_linear != UINT64_MAX) {
		lead = __builtin_clzll(~im->min_linear);
		if (64 - lead == 39 || 64 - lead == 48 || 64 - lead == 52)
			im->sum.va_bits = 64 - lead;
	}
	/*
	 * The geometry written (--va-bits, or the inferred VA_BITS) gives the
	 * PA size the trace reader checks ioremaps and pfns against: check
	 * against the same, so that import never writes what replay refuses
	 * nor drops what it accepts.
	 */
	im->cfg.va_bits = im->opts.va_bits ? im->opts.va_bits : im->sum.va_bits;
	pa_bits = vt_trace_pa_bits(&im->cfg);
	pa_end = 1ull << pa_bits;
	pfn_end = 1ull << (pa_bits - im->cfg.page_shift);
	/*
	 * A page run is written as at least 23 bytes
	 * ({"pfn":"0x0","order":0}): an event with more runs than
	 * --max-input / 23 is one replay refuses, whole or as one JSON Lines
	 * line, under the same limit.
	 */
	max_runs = im->max_input / 23;
	for (i = 0; i < im->nareas; i++) {
		struct area *a = &im->areas[i];
		struct slot *s = &im->slots[a->map_slot];
		size_t first = 0;
		uint64_t nr = 0;
		int r;

		a->other_range = im->vm_end && a->vend &&
			(a->vstart != im->vm_start || a->vend != im->vm_end);
		s->ev.has_va = true;
		s->ev.va = a->va;
		s->ev.caller = a->caller;
		s->ev.cpu = a->cpu;
		if (a->kind == AK_VBLOCK) {
			im->sum.vblocks++;
			s->drop = true;
			continue;
		}
		if (a->nested) {
			s->drop = true;
		} else if (a->other_range) {
			im->sum.other_range++;
			if (im->opts.drop_other_ranges) {
				im->sum.other_range_dropped++;
				s->drop = true;
			} else if (a->kind != AK_VMALLOC) {
				/*
				 * vmap(), ioremap() and vm_map_ram() take their
				 * areas between VMALLOC_START and VMALLOC_END
				 * (get_vm_area_caller(), mm/vmalloc.c): only a
				 * vmalloc has a range of its own in a trace.
				 */
				im->sum.other_range_not_vmalloc++;
				s->drop = true;
			} else if (a->vstart < im->vm_start) {
				/* execmem: module text, BPF */
				s->ev.range = VT_RANGE_MODULES;
			}
		}
		if (!s->drop && a->kind == AK_UNKNOWN) {
			im->sum.never_mapped++;
			s->drop = true;
		}
		if (!s->drop && a->state != AS_FREED)
			im->sum.still_mapped++;
		switch (a->kind) {
		case AK_VMALLOC:
			s->ev.op = VT_OP_VMALLOC;
			s->ev.size = a->map_size;
			if (a->page_shift > PAGE_SHIFT_4K || a->huge_caller)
				s->ev.flags |= VT_FLAG(VM_ALLOW_HUGE_VMAP);
			if (a->align > PAGE_SIZE_4K && a->page_shift < 64 &&
			    a->align > (1ULL << a->page_shift))
				s->ev.align = a->align;
			break;
		case AK_VMAP:
			s->ev.op = VT_OP_VMAP;
			break;
		case AK_IOREMAP:
			s->ev.op = VT_OP_IOREMAP;
			s->ev.phys = a->phys;
			s->ev.size = a->map_size;
			s->ev.prot = VT_PROT_DEVICE;
			/* import never writes what replay refuses */
			if (a->phys > pa_end || a->map_size > pa_end - a->phys) {
				im->sum.ioremap_beyond_pa++;
				s->drop = true;
			}
			break;
		case AK_VM_MAP_RAM:
			s->ev.op = VT_OP_VM_MAP_RAM;
			break;
		case AK_UNKNOWN:
		case AK_VBLOCK:
			break;
		}
		if (!s->drop && a->kind != AK_IOREMAP) {
			r = im->opts.no_pages ? 0 : area_pages(im, a, &first, &nr);
			if (r > 0 && !runs_below(im, first, pfn_end)) {
				/* recorded pfns the trace reader would refuse */
				im->nruns = first;
				im->sum.pages_beyond_pa++;
				r = 0;
			}
			if (r > 0 && im->nruns - first > max_runs) {
				/* a page list replay would refuse as too long */
				im->nruns = first;
				im->sum.pages_beyond_limit++;
				r = 0;
			}
			if (r == 0 && (a->kind == AK_VMAP ||
				       a->kind == AK_VM_MAP_RAM)) {
				/* the caller's pfns are not in the recording */
				nr = a->map_size >> PAGE_SHIFT_4K;
				if (nr > max_runs) {
					/*
					 * one run a page: longer than --max-input
					 * lets replay read; checked before the
					 * runs are allocated
					 */
					im->sum.synth_beyond_limit++;
					s->drop = true;
				} else if (synth_fits(im, nr, pfn_end)) {
					r = synth_pages(im, nr, &first) ? 1 : -ENOMEM;
					im->sum.pages_synthesised++;
				} else {
					/* more pages than fit below the PA size */
					im->sum.synth_beyond_pa++;
					s->drop = true;
				}
			}
			if (r < 0)
				return vt_error_set(err, -ENOMEM, "out of memory");
			if (r > 0) {
				/* runs are resolved to pointers once all are built */
				s->ev.has_pages = true;
				s->ev.nr_pages = nr;
				s->ev.runs = (struct vt_page_run *)(uintptr_t)first;
				s->ev.nr_runs = (uint32_t)(im->nruns - first);
			} else if (!s->drop) {
				im->sum.vmalloc_no_pages++;
			}
		}
		count_mapping(im, a, s);
		if (!s->drop) {
			s->ev.id.present = true;
			s->ev.id.num = next_id++;
		}
		if (a->has_unmap) {
			struct slot *u = &im->slots[a->unmap_slot];

			u->drop = s->drop;
			u->ev.id = s->ev.id;
			u->ev.has_va = true;
			u->ev.va = a->va;
			u->ev.op = a->kind == AK_VMAP ? VT_OP_VUNMAP :
				   a->kind == AK_IOREMAP ? VT_OP_IOUNMAP :
				   a->kind == AK_VM_MAP_RAM ? VT_OP_VM_UNMAP_RAM :
				   VT_OP_VFREE;
		}
	}
	im->sum.mappings_recorded[VT_IMK_OTHER] = im->sum.unmatched_maps;
	im->order = malloc((im->nslots + 1) * sizeof(*im->order));
	if (!im->order)
		return vt_error_set(err, -ENOMEM, "out of memory");
	for (i = 0; i < im->nslots; i++) {
		struct slot *s = &im->slots[i];

		if (s->ev.has_pages)
			s->ev.runs = im->runs + (uintptr_t)s->ev.runs;
		if (s->drop)
			continue;
		im->order[im->sum.out_events++] = i;
		im->sum.out_by_op[s->ev.op]++;
	}
	return 0;
}

static void build_warnings(struct vt_import *im)
{
	const struct vt_import_summary *s = &im->sum;
	int i;

	if (s->bad_lines)
		warnf(im, "%" PRIu64 " line(s) are not trace events (first: line %lu)",
		      s->bad_lines, s->first_bad_line);
	if (s->lost_events)
		warnf(im, "the recording lost %" PRIu64 " event(s) to ring-buffer overruns; areas may be incomplete",
		      s->lost_events);
	if (s->ioremap_beyond_pa)
		warnf(im, "%" PRIu64 " ioremap(s) of physical ranges beyond the %u-bit physical address size dropped",
		      s->ioremap_beyond_pa, vt_trace_pa_bits(&im->cfg));
	if (s->pages_beyond_limit)
		warnf(im, "%" PRIu64 " recorded page list(s) longer than the --max-input limit lets replay read not used (vmalloc: the engine allocates; vmap, vm_map_ram: pages synthesised)",
		      s->pages_beyond_limit);
	if (s->synth_beyond_limit)
		warnf(im, "%" PRIu64 " vmap/vm_map_ram area(s) dropped: their synthesised page lists (one run a page) would be longer than the --max-input limit lets replay read",
		      s->synth_beyond_limit);
	if (s->synth_beyond_pa)
		warnf(im, "%" PRIu64 " vmap/vm_map_ram area(s) dropped: their synthesised pages would pass the %u-bit physical address size",
		      s->synth_beyond_pa, vt_trace_pa_bits(&im->cfg));
	if (s->pages_beyond_pa)
		warnf(im, "%" PRIu64 " recorded page list(s) with pfns beyond the %u-bit physical address size not used (vmalloc: the engine allocates; vmap, vm_map_ram: pages synthesised)",
		      s->pages_beyond_pa, vt_trace_pa_bits(&im->cfg));
	if (s->maps_beyond_area)
		warnf(im, "%" PRIu64 " mapping record(s) larger than their area ignored (damaged records)",
		      s->maps_beyond_area);
	if (s->bad_fields)
		warnf(im, "%" PRIu64 " known event(s) lack required fields and were ignored",
		      s->bad_fields);
	if (s->nested_dropped)
		warnf(im, "%" PRIu64 " nested page-array vmalloc(s) of large vmallocs dropped (%" PRIu64 " of their vfrees); the engine makes them itself",
		      s->nested_dropped, s->nested_frees_dropped);
	if (s->other_range_not_vmalloc)
		warnf(im, "%" PRIu64 " vmap/ioremap/vm_map_ram area(s) outside the vmalloc range dropped (the kernel takes them between VMALLOC_START and VMALLOC_END)",
		      s->other_range_not_vmalloc);
	if (s->other_range_dropped)
		warnf(im, "%" PRIu64 " area(s) outside the vmalloc range (modules/execmem) left out (--drop-other-ranges)",
		      s->other_range_dropped);
	if (s->alloc_failed)
		warnf(im, "%" PRIu64 " failed alloc_vmap_area ignored",
		      s->alloc_failed);
	if (s->never_mapped)
		warnf(im, "%" PRIu64 " area(s) whose mapping was not recorded (no __vmap_pages_range_noflush / vmap_range_noflush kprobe, or get_vm_area users) dropped",
		      s->never_mapped);
	if (s->unmatched_maps)
		warnf(im, "%" PRIu64 " mapping(s) of no recorded area (vmap_page_range users, areas allocated before the recording) not imported",
		      s->unmatched_maps);
	if (s->unmatched_frees)
		warnf(im, "%" PRIu64 " free(s) of area(s) allocated before the recording started ignored",
		      s->unmatched_frees);
	if (s->still_mapped)
		warnf(im, "%" PRIu64 " area(s) still mapped when the recording ended (no matching free)",
		      s->still_mapped);
	if (s->vmalloc_no_pages)
		warnf(im, "%" PRIu64 " vmalloc(s) emitted without pages (bulk allocation records no pfn and no vfree was recorded); the engine allocates them",
		      s->vmalloc_no_pages);
	if (s->pages_synthesised)
		warnf(im, "%" PRIu64 " vmap/vm_map_ram page list(s) synthesised: the caller's pfns are not in the recording (order-0 pages, never adjacent)",
		      s->pages_synthesised);
	if (s->purges_lazy)
		warnf(im, "%" PRIu64 " lazy purge(s) by the drain worker not emitted (the engine purges at lazy_max_pages)",
		      s->purges_lazy);
	for (i = 0; i < MAX_UNKNOWN_NAMES && im->unknown_names[i][0]; i++)
		warnf(im, "%" PRIu64 " record(s) of unused event '%s' ignored",
		      im->unknown_counts[i], im->unknown_names[i]);
	if (s->va_bits == 0)
		warnf(im, "VA_BITS could not be inferred (no linear-map pointer recorded); pass --va-bits");
}

static void json_str(char *dst, size_t len, const char *s)
{
	size_t o = 0;

	for (; *s && o + 7 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			dst[o++] = '\\';
			dst[o++] = c;
		} else if (c < 0x20) {
			o += snprintf(dst + o, len - o, "\\u%04x", c);
		} else {
			dst[o++] = c;
		}
	}
	dst[o] = '\0';
}

static int build_meta(struct vt_import *im)
{
	static const char *const fmts[] = {
		[VT_IMPORT_FMT_DAT] = "trace-cmd trace.dat",
		[VT_IMPORT_FMT_TEXT] = "ftrace text",
		[VT_IMPORT_FMT_TEXT_XZ] = "ftrace text (xz)",
	};
	const char *base = strrchr(im->name, '/');
	char esc[600];
	int n;

	json_str(esc, sizeof(esc), base ? base + 1 : im->name);
	n = asprintf(&im->meta,
		     "{\"source\":\"vmaptool import of %s (%s)\","
		     "\"recording\":\"%s\",\"importer\":\"vmaptool import\","
		     "\"page_size\":4096%s%s%s}",
		     esc, fmts[im->sum.format], esc,
		     im->sum.va_bits ? ",\"va_bits\":" : "",
		     im->sum.va_bits == 52 ? "52" : im->sum.va_bits == 48 ?
		     "48" : im->sum.va_bits == 39 ? "39" : "",
		     "");
	if (n < 0) {
		im->meta = NULL;
		return -ENOMEM;
	}
	return 0;
}

/*
 * After a reader (text.c, dat.c, or records fed by dat.c) has handed every
 * event to vt_im_handle(): the events of the areas in trace order, the
 * warnings and the meta object.  Returns the events written (clamped to
 * INT32_MAX) or a negative error.
 */
int vt_im_finish(struct vt_import *im, struct vt_error *err)
{
	int rc;

	if (!im->sum.records && !im->sum.functions)
		return vt_error_set(err, VT_ERR_IMPORT,
				    "'%s' holds no trace events%s", im->name,
				    im->sum.bad_lines ?
				    " (not an ftrace or trace-cmd recording)" : "");
	if (!im->sum.alloc_vmap_area && !im->sum.free_vmap_area)
		warnf(im, "no vmalloc:alloc_vmap_area or free_vmap_area_noflush events: nothing to reconstruct (see docs/recording.md)");
	rc = finish(im, err);
	if (rc < 0)
		return rc;
	build_warnings(im);
	if (build_meta(im) || im->oom)
		return vt_error_set(err, -ENOMEM, "out of memory");
	return (int)(im->sum.out_events > INT32_MAX ? INT32_MAX :
		     im->sum.out_events);
}

size_t vt_import_nr_events(const struct vt_import *im)
{
	return (size_t)im->sum.out_events;
}

const struct vt_event *vt_import_event(const struct vt_import *im, size_t i)
{
	if (!im->order || i >= im->sum.out_events)
		return NULL;
	return &im->slots[im->order[i]].ev;
}

int vt_import_write(const struct vt_import *im, struct vt_trace_writer *w,
		    struct vt_error *err)
{
	size_t j;
	int rc;

	for (j = 0; j < im->sum.out_events; j++) {
		rc = vt_trace_writer_event(w, &im->slots[im->order[j]].ev,
					   err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

const struct vt_import_summary *vt_import_summary(const struct vt_import *im)
{
	return &im->sum;
}

const struct vt_trace_config *vt_import_config(const struct vt_import *im)
{
	return &im->cfg;
}

const char *vt_import_meta_json(const struct vt_import *im)
{
	return im->meta ? im->meta : "{}";
}

const char *vt_import_warnings(const struct vt_import *im)
{
	return im->warnings ? im->warnings : "";
}
