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

/* ---- live-area table: va -> area ----------------------------------- */

static const char live_tomb;
#define LIVE_TOMB ((struct area *)&live_tomb)

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

long vt_im_live_find(const struct vt_import *im, uint64_t va, size_t *pos)
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

void vt_im_live_del(struct vt_import *im, uint64_t va)
{
	size_t pos;

	if (vt_im_live_find(im, va, &pos) >= 0) {
		struct area *a = im->live[pos];

		a->in_live = false;
		vt_im_unpin(im, a);
		im->live[pos] = LIVE_TOMB;
	}
}

bool vt_im_live_va_add(struct vt_import *im, struct area *a)
{
	size_t h;

	vt_im_live_del(im, a->va);	/* a stale entry loses */
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
	return &im->slots[i - im->slot_base];
}

long vt_im_slot_new(struct vt_import *im, enum vt_op op,
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
