// SPDX-License-Identifier: GPL-2.0
/*
 * The reconstruction's bookkeeping (core/import/areas.h): areas by their
 * allocation index, live areas by address, tasks by pid, and the window
 * of events not yet written.  Below the rules (reconstruct.c) and the
 * deciding of areas (decide.c), which both use it; it calls neither.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/import/areas.h"

/* ---- small helpers ------------------------------------------------- */

bool vt_im_vec_push(struct vt_import *im, struct u64vec *v, uint64_t x)
{
	if (VT_ALLOC_GROW(v->v, v->n + 1, v->cap)) {
		im->oom = true;
		return false;
	}
	v->v[v->n++] = x;
	return true;
}

const char *vt_im_intern(struct vt_import *im, const char *s)
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

void vt_im_warnf(struct vt_import *im, const char *fmt, ...)
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
void vt_im_see_pointer(struct vt_import *im, uint64_t p)
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
const char vt_im_amap_tomb;

static size_t amap_hash(long idx, size_t cap)
{
	return (size_t)(((uint64_t)idx * 0x9e3779b97f4a7c15ULL) >> 32) &
	       (cap - 1);
}

struct area *vt_im_area_at(const struct vt_import *im, long idx)
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

void vt_im_amap_del(struct vt_import *im, long idx)
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

void vt_im_area_free(struct area *a)
{
	if (!a)
		return;
	vt_im_area_free(a->snap);
	free(a->alloc.v);
	free(a->chunks.v);
	free(a->freed.v);
	free(a);
}

/* A new area, numbered next; in pass 2 with what pass 1 saw of it at
 * the end if it never ended there. */
struct area *vt_im_area_new(struct vt_import *im)
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
bool vt_im_area_final(const struct area *a)
{
	return !a->in_live && !a->in_vmr && !a->in_block && !a->nrefs &&
	       !(a->state == AS_OPEN && a->nstack);
}

/* @a lost a reference: looked at after the record (vt_im_advance()). */
void vt_im_unpin(struct vt_import *im, const struct area *a)
{
	vt_im_vec_push(im, &im->unpinned, (uint64_t)a->idx);
}

/* A task's mapping / collect area, counted on the area. */
void vt_im_set_ref(struct vt_import *im, int *ref, long idx)
{
	struct area *a;

	if (*ref == idx)
		return;
	if (*ref >= 0 && (a = vt_im_area_at(im, *ref))) {
		a->nrefs--;
		vt_im_unpin(im, a);
	}
	*ref = (int)idx;
	if (idx >= 0 && (a = vt_im_area_at(im, idx)))
		a->nrefs++;
}

/* ---- tables of areas by va: live areas, vm_map_ram, vmap blocks ----- */

static const char va_tomb;
#define VA_TOMB ((struct area *)&va_tomb)

static size_t va_hash(const struct vt_import *im, uint64_t va, size_t cap)
{
	return (size_t)vt_siphash_u64(&im->hash_key, va) & (cap - 1);
}

/* Sized by the entries (not doubled by the deletions' tombstones). */
static bool va_rehash(struct vt_import *im, struct vt_im_vatab *t)
{
	struct area **old = t->v;
	size_t ocap = t->cap, i, n = 0, ncap = 256;

	for (i = 0; i < ocap; i++)
		n += old[i] && old[i] != VA_TOMB;
	while (ncap < (n + 1) * 4)
		ncap *= 2;

	t->v = calloc(ncap, sizeof(*t->v));
	if (!t->v) {
		t->v = old;
		im->oom = true;
		return false;
	}
	t->cap = ncap;
	t->used = 0;
	for (i = 0; i < ocap; i++) {
		struct area *a = old[i];
		size_t h;

		if (!a || a == VA_TOMB)
			continue;
		h = va_hash(im, a->va, ncap);
		while (t->v[h]) {
			h = (h + 1) & (ncap - 1);
			im->probes++;
		}
		t->v[h] = a;
		t->used++;
	}
	free(old);
	return true;
}

struct area *vt_im_vatab_find(struct vt_import *im, const struct vt_im_vatab *t,
			      uint64_t va, size_t *pos)
{
	size_t h, n;

	if (!t->cap)
		return NULL;
	h = va_hash(im, va, t->cap);
	for (n = 0; n < t->cap; n++) {
		struct area *a = t->v[h];

		im->probes++;
		if (!a)
			return NULL;
		if (a != VA_TOMB && a->va == va) {
			if (pos)
				*pos = h;
			return a;
		}
		h = (h + 1) & (t->cap - 1);
	}
	return NULL;
}

struct area *vt_im_vatab_del(struct vt_import *im, struct vt_im_vatab *t, uint64_t va)
{
	struct area *a;
	size_t pos;

	a = vt_im_vatab_find(im, t, va, &pos);
	if (a)
		t->v[pos] = VA_TOMB;
	return a;
}

/* Add @a, which no entry of the same va may hold (the caller deletes it). */
bool vt_im_vatab_add(struct vt_import *im, struct vt_im_vatab *t, struct area *a)
{
	size_t h;

	if ((t->used + 1) * 2 > t->cap && !va_rehash(im, t))
		return false;
	h = va_hash(im, a->va, t->cap);
	while (t->v[h] && t->v[h] != VA_TOMB) {
		h = (h + 1) & (t->cap - 1);
		im->probes++;
	}
	if (!t->v[h])
		t->used++;
	t->v[h] = a;
	return true;
}

void vt_im_vatab_free(struct vt_im_vatab *t)
{
	free(t->v);
	t->v = NULL;
	t->cap = t->used = 0;
}

long vt_im_live_find(struct vt_import *im, uint64_t va, size_t *pos)
{
	struct area *a = vt_im_vatab_find(im, &im->live, va, pos);

	return a ? a->idx : -1;
}

void vt_im_live_del(struct vt_import *im, uint64_t va)
{
	struct area *a = vt_im_vatab_del(im, &im->live, va);

	if (a) {
		a->in_live = false;
		vt_im_unpin(im, a);
	}
}

bool vt_im_live_va_add(struct vt_import *im, struct area *a)
{
	vt_im_live_del(im, a->va);	/* a stale entry loses */
	if (!vt_im_vatab_add(im, &im->live, a))
		return false;
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

struct task *vt_im_task_get(struct vt_import *im, int pid)
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
struct slot *vt_im_slot_at(struct vt_import *im, long i)
{
	return &im->slots[im->slot_head + (size_t)(i - im->slot_base)];
}

long vt_im_slot_new(struct vt_import *im, enum vt_op op,
		    const struct kev *k, long area)
{
	struct slot *s;

	/* compact when the written head is as large as the window: each
	 * slot moves at most once per slot written, O(1) amortised */
	if (im->slot_head && im->slot_head >= im->nslots) {
		memmove(im->slots, im->slots + im->slot_head,
			im->nslots * sizeof(*im->slots));
		im->probes += im->nslots;
		im->slot_head = 0;
	}
	if (VT_ALLOC_GROW(im->slots, im->slot_head + im->nslots + 1, im->slots_cap)) {
		im->oom = true;
		return -1;
	}
	s = &im->slots[im->slot_head + im->nslots];
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
struct area *vt_im_top_open(struct vt_import *im, struct task *t)
{
	struct area *a;

	if (!t->nopen)
		return NULL;
	a = vt_im_area_at(im, t->open[t->nopen - 1]);
	return a && a->state == AS_OPEN ? a : NULL;
}

void vt_im_push_open(struct vt_import *im, struct task *t, struct area *a)
{
	if (t->nopen == MAX_TASK_STACK) {
		struct area *old = vt_im_area_at(im, t->open[0]);

		if (old) {
			old->nstack--;
			vt_im_unpin(im, old);
		}
		memmove(&t->open[0], &t->open[1],
			(MAX_TASK_STACK - 1) * sizeof(t->open[0]));
	} else {
		t->nopen++;
	}
	t->open[t->nopen - 1] = (int)a->idx;
	a->nstack++;
}

void vt_im_pop_open(struct vt_import *im, struct task *t, struct area *a)
{
	int i;

	for (i = t->nopen - 1; i >= 0; i--)
		if (t->open[i] == a->idx) {
			memmove(&t->open[i], &t->open[i + 1],
				(t->nopen - i - 1) * sizeof(t->open[0]));
			t->nopen--;
			a->nstack--;
			vt_im_unpin(im, a);
			return;
		}
}

/* ---- the event window --------------------------------------------- */

/* The unmap event of @a, once its map event is decided. */
void vt_im_fill_unmap(struct vt_import *im, struct area *a)
{
	struct slot *u;

	if (!a->decided || !a->has_unmap || a->unmap_slot == (size_t)-1)
		return;
	u = vt_im_slot_at(im, (long)a->unmap_slot);
	u->drop = a->dec_drop;
	u->ev.id = a->dec_id;
	u->ev.has_va = true;
	u->ev.va = a->va;
	u->ev.op = a->dec_uop;
	u->ready = true;
}

/* The purge in progress on @t is over: lazy (dropped) or explicit. */
void vt_im_purge_end(struct vt_import *im, struct task *t)
{
	struct slot *s;

	if (t->purge_slot < 0)
		return;
	s = vt_im_slot_at(im, t->purge_slot);
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
