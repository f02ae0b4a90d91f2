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

static bool vec_push(struct vt_import *im, struct u64vec *v, uint64_t x)
{
	if (VT_ALLOC_GROW(v->v, v->n + 1, v->cap)) {
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
	if (VT_ALLOC_GROW(im->strs.s, im->strs.n + 1, im->strs.cap)) {
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
	if (n < 0 ||
	    VT_ALLOC_GROW(im->warnings, im->warn_len + n + 2, im->warn_cap)) {
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

/* ---- areas by index ------------------------------------------------ */

/*
 * Areas are numbered in allocation order and referred to by that number
 * (tasks' stacks, the area of a nested page array); an area whose events
 * are written and that nothing can change any more is freed ("Deciding
 * areas as they end" below), so the numbers map to areas through a hash
 * table, not an array of every area.
 */
#define AMAP_TOMB ((struct area *)&amap_tomb)
static const char amap_tomb;

static size_t amap_hash(long idx, size_t cap)
{
	return (size_t)(((uint64_t)idx * 0x9e3779b97f4a7c15ULL) >> 32) &
	       (cap - 1);
}

static struct area *area_at(const struct vt_import *im, long idx)
{
	size_t h, n;

	if (!im->amap_cap || idx < 0)
		return NULL;
	h = amap_hash(idx, im->amap_cap);
	for (n = 0; n < im->amap_cap; n++) {
		struct area *a = im->amap[h];

		if (!a)
			return NULL;
		if (a != AMAP_TOMB && a->idx == idx)
			return a;
		h = (h + 1) & (im->amap_cap - 1);
	}
	return NULL;
}

static bool amap_put(struct vt_import *im, struct area *a)
{
	size_t h;

	if ((im->amap_used + 1) * 2 > im->amap_cap) {
		struct area **old = im->amap;
		size_t ocap = im->amap_cap, ncap = 256, i;

		while (ncap < (im->amap_n + 1) * 4)
			ncap *= 2;
		im->amap = calloc(ncap, sizeof(*im->amap));
		if (!im->amap) {
			im->amap = old;
			im->oom = true;
			return false;
		}
		im->amap_cap = ncap;
		im->amap_used = im->amap_n;
		for (i = 0; i < ocap; i++) {
			if (!old[i] || old[i] == AMAP_TOMB)
				continue;
			h = amap_hash(old[i]->idx, ncap);
			while (im->amap[h])
				h = (h + 1) & (ncap - 1);
			im->amap[h] = old[i];
		}
		free(old);
	}
	h = amap_hash(a->idx, im->amap_cap);
	while (im->amap[h] && im->amap[h] != AMAP_TOMB)
		h = (h + 1) & (im->amap_cap - 1);
	if (!im->amap[h])
		im->amap_used++;
	im->amap[h] = a;
	im->amap_n++;
	return true;
}

static void amap_del(struct vt_import *im, long idx)
{
	size_t h = amap_hash(idx, im->amap_cap), n;

	for (n = 0; n < im->amap_cap; n++) {
		struct area *a = im->amap[h];

		if (!a)
			return;
		if (a != AMAP_TOMB && a->idx == idx) {
			im->amap[h] = AMAP_TOMB;
			im->amap_n--;
			return;
		}
		h = (h + 1) & (im->amap_cap - 1);
	}
}

static void rec_area_free(struct area *a)
{
	if (!a)
		return;
	rec_area_free(a->snap);
	free(a->alloc.v);
	free(a->chunks.v);
	free(a->freed.v);
	free(a);
}

/* A new area, numbered next; in pass 2 with what pass 1 saw of it at
 * the end if it never ended there. */
static struct area *rec_area_new(struct vt_import *im)
{
	struct area *a = calloc(1, sizeof(*a));

	if (!a) {
		im->oom = true;
		return NULL;
	}
	a->idx = im->nareas;
	if (!amap_put(im, a)) {
		free(a);
		return NULL;
	}
	im->nareas++;
	if (im->snap_pos < im->nsnaps && im->snaps[im->snap_pos]->idx == a->idx)
		a->snap = im->snaps[im->snap_pos++];
	return a;
}

/*
 * Nothing can change the area any more: no live-table entry (its free),
 * no vm_map_ram or vmap-block list, no task mapping its chunks or
 * collecting its vfree's pages, and, while it is open, no task's stack.
 * Every way an area gets a reference starts from one it has, so an area
 * that is final stays final.
 */
static bool area_final(const struct area *a)
{
	return !a->in_live && !a->in_vmr && !a->in_block && !a->nrefs &&
	       !(a->state == AS_OPEN && a->nstack);
}

/* @a lost a reference: looked at after the record (vt_im_advance()). */
static void unpin(struct vt_import *im, const struct area *a)
{
	vec_push(im, &im->unpinned, (uint64_t)a->idx);
}

/* A task's mapping / collect area, counted on the area. */
static void set_ref(struct vt_import *im, int *ref, long idx)
{
	struct area *a;

	if (*ref == idx)
		return;
	if (*ref >= 0 && (a = area_at(im, *ref))) {
		a->nrefs--;
		unpin(im, a);
	}
	*ref = (int)idx;
	if (idx >= 0 && (a = area_at(im, idx)))
		a->nrefs++;
}

/* ---- live-area table: va -> area ----------------------------------- */

#define LIVE_TOMB ((struct area *)&live_tomb)
static const char live_tomb;

static size_t live_hash(uint64_t va, size_t cap)
{
	return (size_t)((va >> 12) * 0x9e3779b97f4a7c15ULL) & (cap - 1);
}

/* Sized by the live areas (not doubled by the frees' tombstones). */
static bool live_rehash(struct vt_import *im)
{
	struct area **old = im->live;
	size_t ocap = im->live_cap, i, n = 0, ncap = 256;

	for (i = 0; i < ocap; i++)
		n += old[i] && old[i] != LIVE_TOMB;
	while (ncap < (n + 1) * 4)
		ncap *= 2;

	im->live = calloc(ncap, sizeof(*im->live));
	if (!im->live) {
		im->live = old;
		im->oom = true;
		return false;
	}
	im->live_cap = ncap;
	im->live_used = 0;
	for (i = 0; i < ocap; i++) {
		struct area *a = old[i];
		size_t h;

		if (!a || a == LIVE_TOMB)
			continue;
		h = live_hash(a->va, ncap);
		while (im->live[h])
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
		struct area *a = im->live[h];

		if (!a)
			return -1;
		if (a != LIVE_TOMB && a->va == va) {
			if (pos)
				*pos = h;
			return a->idx;
		}
		h = (h + 1) & (im->live_cap - 1);
	}
	return -1;
}

static void live_del(struct vt_import *im, uint64_t va)
{
	size_t pos;

	if (live_find(im, va, &pos) >= 0) {
		struct area *a = im->live[pos];

		a->in_live = false;
		unpin(im, a);
		im->live[pos] = LIVE_TOMB;
	}
}

static bool live_va_add(struct vt_import *im, struct area *a)
{
	size_t h;

	live_del(im, a->va);	/* a stale entry loses */
	if ((im->live_used + 1) * 2 > im->live_cap &&
	    !live_rehash(im))
		return false;
	h = live_hash(a->va, im->live_cap);
	while (im->live[h] && im->live[h] != LIVE_TOMB)
		h = (h + 1) & (im->live_cap - 1);
	if (!im->live[h])
		im->live_used++;
	im->live[h] = a;
	a->in_live = true;
	return true;
}

/* ---- tasks --------------------------------------------------------- */

/*
 * Tasks are found through a hash of their pid (a recording of many short
 * tasks made a linear search quadratic) and kept in first-seen order in
 * tasks[], which the end of the import walks in that order.  Tasks are
 * only added until reset_tasks(): no tombstones.
 */
static size_t *task_slot(const struct vt_import *im, int pid)
{
	size_t h = (size_t)(((uint64_t)(uint32_t)pid * 0x9e3779b97f4a7c15ULL) >> 32) &
		   (im->task_at_cap - 1);

	while (im->task_at[h] && im->tasks[im->task_at[h] - 1].pid != pid)
		h = (h + 1) & (im->task_at_cap - 1);
	return &im->task_at[h];
}

/* Room for one more task at a load of at most one half. */
static bool task_index_grow(struct vt_import *im)
{
	size_t *old = im->task_at, ocap = im->task_at_cap;

	if (2 * (im->ntasks + 1) <= ocap)
		return true;
	im->task_at_cap = ocap ? 2 * ocap : 64;
	im->task_at = calloc(im->task_at_cap, sizeof(*im->task_at));
	if (!im->task_at) {
		im->task_at = old;
		im->task_at_cap = ocap;
		return false;
	}
	for (size_t i = 0; i < im->ntasks; i++)
		*task_slot(im, im->tasks[i].pid) = i + 1;
	free(old);
	return true;
}

static struct task *task_get(struct vt_import *im, int pid)
{
	struct task *t;
	size_t *slot;

	if (im->last_task < im->ntasks && im->tasks[im->last_task].pid == pid)
		return &im->tasks[im->last_task];
	if (im->ntasks) {
		slot = task_slot(im, pid);
		if (*slot) {
			im->last_task = *slot - 1;
			return &im->tasks[im->last_task];
		}
	}
	if (!task_index_grow(im) ||
	    VT_ALLOC_GROW(im->tasks, im->ntasks + 1, im->tasks_cap)) {
		im->oom = true;
		return NULL;
	}
	*task_slot(im, pid) = im->ntasks + 1;
	t = &im->tasks[im->ntasks];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->mapping = -1;
	t->collect = -1;
	t->purge_slot = -1;
	im->last_task = im->ntasks++;
	return t;
}

/* The events not yet written, in recorded order: a window from slot_base. */
static struct slot *slot_at(struct vt_import *im, long i)
{
	return &im->slots[i - im->slot_base];
}

static long slot_new(struct vt_import *im, enum vt_op op,
		     const struct kev *k, long area)
{
	struct slot *s;

	if (VT_ALLOC_GROW(im->slots, im->nslots + 1, im->slots_cap)) {
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
	/* pass 1 writes nothing: an area's events are not kept */
	s->ready = area >= 0 && im->pass == 1;
	return im->slot_base + (long)im->nslots++;
}

/* The task's innermost open area (NULL if it is not open any more). */
static struct area *top_open(struct vt_import *im, struct task *t)
{
	struct area *a;

	if (!t->nopen)
		return NULL;
	a = area_at(im, t->open[t->nopen - 1]);
	return a && a->state == AS_OPEN ? a : NULL;
}

static void push_open(struct vt_import *im, struct task *t, struct area *a)
{
	if (t->nopen == MAX_TASK_STACK) {
		struct area *old = area_at(im, t->open[0]);

		if (old) {
			old->nstack--;
			unpin(im, old);
		}
		memmove(&t->open[0], &t->open[1],
			(MAX_TASK_STACK - 1) * sizeof(t->open[0]));
	} else {
		t->nopen++;
	}
	t->open[t->nopen - 1] = (int)a->idx;
	a->nstack++;
}

static void pop_open(struct vt_import *im, struct task *t, struct area *a)
{
	int i;

	for (i = t->nopen - 1; i >= 0; i--)
		if (t->open[i] == a->idx) {
			memmove(&t->open[i], &t->open[i + 1],
				(t->nopen - i - 1) * sizeof(t->open[0]));
			t->nopen--;
			a->nstack--;
			unpin(im, a);
			return;
		}
}

static void fill_unmap(struct vt_import *im, struct area *a);

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
		const struct area *b = area_at(im, (long)im->blocks.v[i]);

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
	struct area *a = rec_area_new(im);
	long idx;

	if (!a)
		return;
	idx = a->idx;
	a->va = k->f[0];
	a->map_size = k->f[1] - k->f[0];
	a->vsize = a->map_size;
	if (block >= 0) {
		a->vstart = area_at(im, block)->vstart;
		a->vend = area_at(im, block)->vend;
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
	if (vec_push(im, &im->vmr_live, (uint64_t)idx))
		a->in_vmr = true;
	im->sum.vm_map_ram++;
}

/* vb_free(): __vunmap_range_noflush(addr, addr + size) of a live
 * vm_map_ram mapping, with no free_vmap_area_noflush() */
static void on_vunmap_range(struct vt_import *im, const struct kev *k)
{
	for (size_t i = 0; i < im->vmr_live.n; i++) {
		struct area *a = area_at(im, (long)im->vmr_live.v[i]);

		if (a->va != k->f[0] || a->va + a->map_size != k->f[1])
			continue;
		a->state = AS_FREED;
		a->has_unmap = true;
		a->unmap_slot = slot_new(im, VT_OP_VM_UNMAP_RAM, k,
					 (long)im->vmr_live.v[i]);
		fill_unmap(im, a);
		im->vmr_live.v[i] = im->vmr_live.v[--im->vmr_live.n];
		a->in_vmr = false;
		unpin(im, a);
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
	a = rec_area_new(im);
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
	t->pend_caller = NULL;
	t->pend_huge = false;
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
			a->map_slot = slot_new(im, VT_OP_VMALLOC, k, idx);
			live_va_add(im, a);
			if (vec_push(im, &im->blocks, (uint64_t)idx))
				a->in_block = true;
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
			outer->kids++;	/* its decision is read at ours */
			im->sum.nested_dropped++;
		}
	}
	a->map_slot = slot_new(im, VT_OP_VMALLOC, k, idx);
	push_open(im, t, a);
	live_va_add(im, a);
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
	a = area_at(im, idx);
	live_del(im, a->va);
	pop_open(im, t, a);
	if (a->kind == AK_VBLOCK) {
		/* free_vmap_block(): the engine frees its own blocks */
		a->state = AS_FREED;
		unpin(im, a);
		if (a->in_block) {
			vec_del(&im->blocks, (uint64_t)idx);
			a->in_block = false;
		}
		return;
	}
	if (a->nested)
		im->sum.nested_frees_dropped++;
	a->state = AS_FREED;
	a->has_unmap = true;
	a->unmap_slot = slot_new(im, VT_OP_VFREE, k, idx);
	fill_unmap(im, a);
	unpin(im, a);	/* no longer open */
	if (t->mapping == idx)
		set_ref(im, &t->mapping, -1);
	/* vfree frees vm->pages[0..nr_pages) next, each as order 0 */
	if (a->kind == AK_VMALLOC && a->vsize > PAGE_SIZE_4K) {
		set_ref(im, &t->collect, idx);
		t->collect_left = (a->vsize - PAGE_SIZE_4K) >> PAGE_SHIFT_4K;
		t->collect_paused = false;
		t->skip_next_free = false;
	} else {
		set_ref(im, &t->collect, -1);
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
	a = area_at(im, t->collect);
	if (k->f[1] != 0) {
		set_ref(im, &t->collect, -1);	/* not vfree's per-page loop */
		return;
	}
	vec_push(im, &a->freed, k->f[0]);
	if (--t->collect_left == 0)
		set_ref(im, &t->collect, -1);
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
		a->kind = AK_VBLOCK;
		if (vec_push(im, &im->blocks, (uint64_t)a->idx))
			a->in_block = true;
		pop_open(im, t, a);
		a = NULL;
	}
	if (!a || a->va != k->f[0] || a->state != AS_OPEN) {
		long b = vblock_of(im, k->f[0]);

		set_ref(im, &t->mapping, -1);
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
		pop_open(im, t, a);
		set_ref(im, &t->mapping, -1);
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
	pop_open(im, t, a);
	set_ref(im, &t->mapping, a->idx);
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
		a = area_at(im, t->mapping);
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
	pop_open(im, t, a);
	set_ref(im, &t->mapping, -1);
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
	s = slot_at(im, t->purge_slot);
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
	s = slot_at(im, t->purge_slot);
	s->ready = true;
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
		t->pend_caller = symbol_ok(p) ? intern(im, p) : NULL;
		t->pend_huge = p && strstr(p, "vmalloc_huge");
	} else if (!strcmp(f, "vm_map_ram")) {
		t->in_vmr = true;
	} else if (!strcmp(f, "__purge_vmap_area_lazy")) {
		if (t->purge_slot < 0) {
			purge_begin(im, t, k);
			if (t->purge_slot >= 0)
				slot_at(im, t->purge_slot)->drop = true;
		}
		if (t->purge_slot >= 0 && p) {
			slot_at(im, t->purge_slot)->drop =
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
		if (VT_ALLOC_GROW(im->runs, im->nruns + 1, im->runs_cap))
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
	if (VT_ALLOC_GROW(im->runs, im->nruns + n, im->runs_cap))
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
		/* decided before us (a smaller number), kept for us (kids) */
		const struct area *o = area_at(im, a->outer);

		k = VT_IMK_NESTED;
		out = o && o->dec_kind == AK_VMALLOC && !o->dec_drop;
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

/*
 * What the whole recording decides for every area: VA_BITS from the
 * lowest linear-map pointer (4K: 39, 48, 52) and with it the PA size, and
 * the longest page list replay reads.
 */
static void whole_facts(struct vt_import *im)
{
	unsigned int pa_bits;
	int lead;

	im->sum.va_bits = 0;
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
	im->pa_end = 1ull << pa_bits;
	im->pfn_end = 1ull << (pa_bits - im->cfg.page_shift);
	/*
	 * A page run is written as at least 23 bytes
	 * ({"pfn":"0x0","order":0}): an event with more runs than
	 * --max-input / 23 is one replay refuses, whole or as one JSON Lines
	 * line, under the same limit.
	 */
	im->max_runs = im->max_input / 23;
	if (!im->next_id)
		im->next_id = 1;
}

/* The unmap event of @a, once its map event is decided. */
static void fill_unmap(struct vt_import *im, struct area *a)
{
	struct slot *u;

	if (!a->decided || !a->has_unmap || a->unmap_slot == (size_t)-1)
		return;
	u = slot_at(im, (long)a->unmap_slot);
	u->drop = a->dec_drop;
	u->ev.id = a->dec_id;
	u->ev.has_va = true;
	u->ev.va = a->va;
	u->ev.op = a->dec_uop;
	u->ready = true;
}

/*
 * Decide area @live's events (in area order: ids and synthesised pages
 * are numbered in it) from its final state: @live itself once it is
 * final, or what pass 1 saw of it at the end (live->snap) when it never
 * is.
 */
static int decide(struct vt_import *im, struct area *live)
{
	struct area *a = live->snap ? live->snap : live;
	struct slot *s = slot_at(im, (long)live->map_slot);
	uint64_t pa_end = im->pa_end, pfn_end = im->pfn_end;
	uint64_t max_runs = im->max_runs;
	size_t first = 0;
	uint64_t nr = 0;
	int r;

	im->nruns = 0;
	live->decided = true;
	a->other_range = im->vm_end && a->vend &&
		(a->vstart != im->vm_start || a->vend != im->vm_end);
	s->ready = true;
	s->ev.has_va = true;
	s->ev.va = a->va;
	s->ev.caller = a->caller;
	s->ev.cpu = a->cpu;
	if (a->kind == AK_VBLOCK) {
		im->sum.vblocks++;
		s->drop = true;
		goto out;
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
			return -ENOMEM;
		if (r > 0) {
			size_t n = im->nruns - first;

			/* the event owns its runs until it is written */
			s->ev.runs = malloc((n ? n : 1) * sizeof(*s->ev.runs));
			if (!s->ev.runs)
				return -ENOMEM;
			memcpy(s->ev.runs, im->runs + first,
			       n * sizeof(*s->ev.runs));
			s->ev.has_pages = true;
			s->ev.nr_pages = nr;
			s->ev.nr_runs = (uint32_t)n;
		} else if (!s->drop) {
			im->sum.vmalloc_no_pages++;
		}
	}
	count_mapping(im, a, s);
	if (!s->drop) {
		s->ev.id.present = true;
		s->ev.id.num = im->next_id++;
	}
out:
	im->nruns = 0;
	live->dec_kind = a->kind;
	live->dec_drop = s->drop;
	live->dec_id = s->ev.id;
	live->dec_uop = a->kind == AK_VMAP ? VT_OP_VUNMAP :
			a->kind == AK_IOREMAP ? VT_OP_IOUNMAP :
			a->kind == AK_VM_MAP_RAM ? VT_OP_VM_UNMAP_RAM :
			VT_OP_VFREE;
	if (a->kind != AK_VBLOCK)
		fill_unmap(im, live);
	return 0;
}

/* An area decided and final, with no nested array waiting for it. */
static void release(struct vt_import *im, struct area *a)
{
	amap_del(im, a->idx);
	rec_area_free(a);
}

static bool releasable(const struct area *a)
{
	return a->decided && !a->kids && !a->snap && area_final(a);
}

/* The nested array @a is decided: its vmalloc may go. */
static void kid_done(struct vt_import *im, struct area *a)
{
	struct area *o;

	if (!a->nested || !(o = area_at(im, a->outer)) || !o->kids)
		return;
	o->kids--;
	if (im->pass == 2 && releasable(o))
		release(im, o);
}

/* Write an event: to the spool file, or kept in memory. */
static int emit(struct vt_import *im, struct slot *s)
{
	if (s->drop) {
		free(s->ev.runs);
		s->ev.runs = NULL;
		return 0;
	}
	im->sum.out_events++;
	im->sum.out_by_op[s->ev.op]++;
	if (im->ev_spool) {
		/* the caller pointer stays valid: strings live until close */
		bool ok = fwrite(&s->ev, sizeof(s->ev), 1, im->ev_spool) == 1 &&
			  (!s->ev.nr_runs ||
			   fwrite(s->ev.runs, sizeof(*s->ev.runs), s->ev.nr_runs,
				  im->ev_spool) == s->ev.nr_runs);

		free(s->ev.runs);
		s->ev.runs = NULL;
		return ok ? 0 : -EIO;
	}
	if (VT_ALLOC_GROW(im->out, im->sum.out_events, im->out_cap)) {
		free(s->ev.runs);
		s->ev.runs = NULL;
		return -ENOMEM;
	}
	im->out[im->sum.out_events - 1] = s->ev;
	s->ev.runs = NULL;
	return 0;
}

/* Write the events at the head of the window that are final. */
static int emit_ready(struct vt_import *im)
{
	size_t i = 0;
	int rc = 0;

	while (i < im->nslots && im->slots[i].ready) {
		if (im->pass != 1 && !rc)
			rc = emit(im, &im->slots[i]);
		i++;
	}
	if (i) {
		memmove(im->slots, im->slots + i,
			(im->nslots - i) * sizeof(*im->slots));
		im->nslots -= i;
		im->slot_base += (long)i;
	}
	return rc;
}

/*
 * Deciding areas as they end (docs/vmaptool-import.md, "Memory"): after
 * each record.  Pass 1 frees an area as soon as nothing can change it;
 * pass 2 decides areas in their order as they become final (or at once,
 * from pass 1's copy, when they never do), writes every event whose
 * predecessors are all written, and frees what is written.
 */
int vt_im_advance(struct vt_import *im)
{
	size_t i;
	int rc;

	if (!im->pass)
		return 0;
	for (i = 0; i < im->unpinned.n; i++) {
		struct area *a = area_at(im, (long)im->unpinned.v[i]);

		if (!a)
			continue;
		if (im->pass == 1 ? area_final(a) : releasable(a))
			release(im, a);
	}
	im->unpinned.n = 0;
	while (im->pass == 2 && im->next_decide < im->nareas) {
		struct area *a = area_at(im, im->next_decide);

		if (!a)
			return -ENOMEM;
		if (!a->snap && !area_final(a))
			break;
		rc = decide(im, a);
		if (rc)
			return rc;
		im->next_decide++;
		kid_done(im, a);
		if (releasable(a))
			release(im, a);
	}
	return emit_ready(im);
}

static int cmp_idx(const void *x, const void *y)
{
	const struct area *a = *(struct area *const *)x;
	const struct area *b = *(struct area *const *)y;

	return (a->idx > b->idx) - (a->idx < b->idx);
}

static void reset_tasks(struct vt_import *im)
{
	for (size_t i = 0; i < im->ntasks; i++)
		free(im->tasks[i].loose.v);
	im->ntasks = 0;
	im->last_task = 0;
	if (im->task_at)
		memset(im->task_at, 0, im->task_at_cap * sizeof(*im->task_at));
}

/*
 * Between the passes: keep what pass 1 found (the lowest linear-map
 * pointer, the vmalloc range, the areas that never became final, in
 * their order) and start the reconstruction again.
 */
void vt_im_pass2(struct vt_import *im)
{
	enum vt_import_format fmt = im->sum.format;
	size_t i;

	im->nsnaps = 0;
	if (im->amap_n && !VT_ALLOC_GROW(im->snaps, im->amap_n, im->snaps_cap)) {
		for (i = 0; i < im->amap_cap; i++)
			if (im->amap[i] && im->amap[i] != AMAP_TOMB)
				im->snaps[im->nsnaps++] = im->amap[i];
		qsort(im->snaps, im->nsnaps, sizeof(*im->snaps), cmp_idx);
	} else if (im->amap_n) {
		im->oom = true;
	}
	free(im->amap);
	im->amap = NULL;
	im->amap_cap = im->amap_used = im->amap_n = 0;
	im->snap_pos = 0;
	free(im->live);
	im->live = NULL;
	im->live_cap = im->live_used = 0;
	reset_tasks(im);
	im->vmr_live.n = 0;
	im->blocks.n = 0;
	im->unpinned.n = 0;
	im->nslots = 0;
	im->slot_base = 0;
	im->nareas = 0;
	im->next_decide = 0;
	im->synth_pfn = 0;
	im->next_id = 0;
	memset(&im->sum, 0, sizeof(im->sum));
	im->sum.format = fmt;
	memset(im->unknown_names, 0, sizeof(im->unknown_names));
	memset(im->unknown_counts, 0, sizeof(im->unknown_counts));
	whole_facts(im);
	im->pass = 2;
}

void vt_im_free_state(struct vt_import *im)
{
	size_t i;

	for (i = 0; i < im->amap_cap; i++)
		if (im->amap[i] && im->amap[i] != AMAP_TOMB)
			rec_area_free(im->amap[i]);
	free(im->amap);
	/* the ones pass 2 had not reached */
	for (i = im->snap_pos; i < im->nsnaps; i++)
		rec_area_free(im->snaps[i]);
	free(im->snaps);
	for (i = 0; i < im->nslots; i++)
		free(im->slots[i].ev.runs);
	free(im->slots);
	for (i = 0; i < im->sum.out_events && im->out; i++)
		free(im->out[i].runs);
	free(im->out);
	reset_tasks(im);
	free(im->tasks);
	free(im->task_at);
	free(im->unpinned.v);
	if (im->ev_spool)
		fclose(im->ev_spool);
	for (i = 0; i < im->strs.n; i++)
		free(im->strs.s[i]);
	free(im->strs.s);
	free(im->vmr_live.v);
	free(im->blocks.v);
	free(im->live);
	free(im->runs);
}

static int finish(struct vt_import *im, struct vt_error *err)
{
	int rc;

	finish_purges(im);
	whole_facts(im);
	/* every area left is final now (or known from pass 1) */
	for (; im->next_decide < im->nareas; im->next_decide++) {
		struct area *a = area_at(im, im->next_decide);

		if (!a)
			return vt_err_oom(err);
		if (decide(im, a))
			return vt_err_oom(err);
		kid_done(im, a);
	}
	im->sum.mappings_recorded[VT_IMK_OTHER] = im->sum.unmatched_maps;
	for (size_t i = 0; i < im->nslots; i++)
		im->slots[i].ready = true;
	rc = emit_ready(im);
	if (rc == -EIO || (!rc && im->ev_spool && fflush(im->ev_spool)))
		return vt_error_set(err, -EIO, "cannot write the temporary file of the events: %s",
				    strerror(errno));
	if (rc)
		return vt_error_set(err, rc, "out of memory");
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
		return vt_err_oom(err);
	return (int)(im->sum.out_events > INT32_MAX ? INT32_MAX :
		     im->sum.out_events);
}

size_t vt_import_nr_events(const struct vt_import *im)
{
	return (size_t)im->sum.out_events;
}

/* One event of the spool file (its runs in @runs, grown as needed). */
static int spool_read(FILE *f, struct vt_event *ev, struct vt_page_run **runs,
		      size_t *cap)
{
	if (fread(ev, sizeof(*ev), 1, f) != 1)
		return -EIO;
	ev->runs = NULL;
	if (!ev->nr_runs)
		return 0;
	if (VT_ALLOC_GROW(*runs, ev->nr_runs, *cap))
		return -ENOMEM;
	if (fread(*runs, sizeof(**runs), ev->nr_runs, f) != ev->nr_runs)
		return -EIO;
	ev->runs = *runs;
	return 0;
}

/*
 * Events a text import wrote to its spool file, read back into memory for
 * vt_import_event() (tests and the library's users; the command line
 * writes them from the file with vt_import_write()).
 */
static bool load_spool(struct vt_import *im)
{
	size_t n = (size_t)im->sum.out_events, i;

	if (im->spooled_loaded)
		return im->out != NULL || !n;
	im->spooled_loaded = true;
	if (!n || fseek(im->ev_spool, 0, SEEK_SET))
		return !n;
	im->out = calloc(n, sizeof(*im->out));
	if (!im->out)
		return false;
	im->out_cap = n;
	for (i = 0; i < n; i++) {
		struct vt_page_run *runs = NULL;
		size_t cap = 0;

		if (spool_read(im->ev_spool, &im->out[i], &runs, &cap)) {
			free(runs);
			for (size_t j = 0; j < i; j++)
				free(im->out[j].runs);
			free(im->out);
			im->out = NULL;
			return false;
		}
	}
	return true;
}

const struct vt_event *vt_import_event(const struct vt_import *im, size_t i)
{
	if (i >= im->sum.out_events)
		return NULL;
	/* a cache filled on first use: the events stay those written */
	if (im->ev_spool && !load_spool((struct vt_import *)im))
		return NULL;
	return im->out ? &im->out[i] : NULL;
}

int vt_import_write(const struct vt_import *im, struct vt_trace_writer *w,
		    struct vt_error *err)
{
	struct vt_page_run *runs = NULL;
	size_t cap = 0;
	uint64_t j;
	int rc = 0;

	if (!im->ev_spool || im->spooled_loaded) {
		for (j = 0; j < im->sum.out_events && im->out; j++) {
			rc = vt_trace_writer_event(w, &im->out[j], err);
			if (rc < 0)
				return rc;
		}
		return 0;
	}
	/* the events pass 2 wrote, in order, one at a time */
	if (fseek(im->ev_spool, 0, SEEK_SET))
		return vt_error_set(err, -EIO, "cannot read the temporary file of the events: %s",
				    strerror(errno));
	for (j = 0; j < im->sum.out_events; j++) {
		struct vt_event ev;

		rc = spool_read(im->ev_spool, &ev, &runs, &cap);
		if (rc) {
			rc = vt_error_set(err, rc, "cannot read the temporary file of the events");
			break;
		}
		rc = vt_trace_writer_event(w, &ev, err);
		if (rc < 0)
			break;
	}
	free(runs);
	return rc < 0 ? rc : 0;
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
