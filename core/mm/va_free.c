// SPDX-License-Identifier: GPL-2.0
/*
 * The free VA space as an augmented treap (va_free.h).  The trees are
 * shallow (expected depth about 2 ln n: 25 for 100,000 ranges).
 *
 * As mm/vmalloc.c does on its rbtree (linux-mm/linux-mm @ 00cc00cd1fb6),
 * a range that shrinks or grows in place keeps its node: va_clip()
 * (adjust_va_to_fit_type() in older trees) cuts an allocation out of the
 * range that holds it (the whole range, its left or right edge, or its
 * middle, which adds one range), merge_or_add_vmap_area() extends a
 * neighbour, and augment_tree_propagate_from() recomputes the largest
 * lengths from the changed node towards the root, stopping at the first
 * node whose augmentation did not change.  The descents record their
 * path (the parents, which the nodes do not keep); a tree deeper than
 * VA_PATH (far deeper than a random treap grows; a trace that makes one
 * deeper still gets the same fit) falls back to split and join, which
 * need no path.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/mm/va_free.h"

#define N(f, i) ((f)->n[i])
#ifndef VA_PATH
#define VA_PATH 128	/* tests/unit/test-va-free-shallow.c sets 3 */
#endif

void vt_va_free_init(struct vt_va_free *f)
{
	memset(f, 0, sizeof(*f));
	f->seed = 2463534242u;
	f->floor = UINT64_MAX;
}

void vt_va_free_release(struct vt_va_free *f)
{
	free(f->n);
	free(f->amax);
	free(f->stage);
	free(f->tmp);
	free(f->stack);
	vt_va_free_init(f);
}

/*
 * The kept alignment classes of @t from its range and children; whether
 * one changed.  A class's own value is end - ALIGN(start) in 4 KiB units
 * rounded up (never below the truth, so a prune by it is safe),
 * saturated, 0 if ALIGN(start) is at or past the end: with pad =
 * ALIGN(start) - start = -start mod the alignment, that is the length
 * less pad when pad is below the length (an ALIGN() that wraps past 2^64
 * has a pad no range is as long as).
 */
static bool update_classes(struct vt_va_free *f, uint32_t t)
{
	const struct vt_va_node *x = &N(f, t);
	/* node 0's classes stay 0 (calloc), as its max does */
	const uint32_t *ml = f->amax[x->l], *mr = f->amax[x->r];
	uint32_t *m = f->amax[t], diff = 0;
	uint64_t neg = -x->start, len = x->end - x->start;

	for (uint32_t j = 0; j < f->nslots; j++) {
		uint64_t pad = neg & f->amask[j];
		/* ceil((len - pad) / 4096) of len - pad >= 1 */
		uint64_t u = pad < len ? ((len - pad - 1) >> 12) + 1 : 0;
		uint32_t v = u > UINT32_MAX ? UINT32_MAX : (uint32_t)u;

		v = ml[j] > v ? ml[j] : v;
		v = mr[j] > v ? mr[j] : v;
		diff |= m[j] ^ v;
		m[j] = v;
	}
	return diff;
}

/* The smallest kept alignment less one (some class is kept). */
static inline uint64_t smallest_mask(const struct vt_va_free *f)
{
	return (1ull << (VT_VA_ALIGN_SHIFT0 + __builtin_ctz(f->aclasses))) - 1;
}

/*
 * Whether a range's start moving between @lo and @hi (either way; lo <
 * hi) leaves its aligned lengths as they were: ALIGN(start) is the same
 * for every kept class when no multiple of the smallest kept alignment
 * lies in [lo, hi) (the larger ones are multiples of it).
 */
static bool classes_kept_from(const struct vt_va_free *f, uint64_t lo, uint64_t hi)
{
	uint64_t m;

	if (!f->aclasses)
		return true;
	m = smallest_mask(f);
	return ((lo + m) & ~m) >= hi;	/* (a wrap past 2^64: false) */
}

/* @t's largest length from its range and its children (node 0, "none",
 * has max 0); whether it changed. */
static bool update_max(struct vt_va_free *f, uint32_t t)
{
	struct vt_va_node *x = &N(f, t);
	uint64_t m = x->end - x->start, l = N(f, x->l).max, r = N(f, x->r).max;
	bool changed;

	m = m > l ? m : l;
	m = m > r ? m : r;
	changed = x->max != m;
	x->max = m;
	return changed;
}

/* @t's whole augmentation; whether it changed. */
static bool update(struct vt_va_free *f, uint32_t t)
{
	bool changed = update_max(f, t);

	if (f->aclasses)
		changed |= update_classes(f, t);
	return changed;
}

/*
 * augment_tree_propagate_from(): the nodes path[0..d] (root first) after
 * a change at path[d], bottom up, until one's augmentation is unchanged:
 * every node above it depends on nothing below it but its value.  The
 * largest length and the aligned ones stop apart: a node above a child
 * whose aligned lengths did not change keeps its own (a range that
 * shrinks at an edge changes its length every time, its aligned lengths
 * seldom: they saturate for the large ranges).
 */
static inline void propagate_from(struct vt_va_free *f, const uint32_t *path,
				  int d, bool c)
{
	bool m = true;

	for (; d >= 0 && (m || c); d--) {
		f->steps++;
		if (m)
			m = update_max(f, path[d]);
		if (c)
			c = update_classes(f, path[d]);
	}
}

/* propagate_from() of a change to path[d]'s range that may have changed
 * its aligned lengths; @c false: one that did not (only its length) */
static void propagate(struct vt_va_free *f, const uint32_t *path, int d)
{
	propagate_from(f, path, d, f->aclasses != 0);
}

/* The alignment class of @align, or -1 for none kept (at most a page,
 * not a power of two, or above the classes). */
static int align_class(uint64_t align)
{
	unsigned int shift;

	if (align < (1ull << VT_VA_ALIGN_SHIFT0) || (align & (align - 1)))
		return -1;
	shift = (unsigned int)__builtin_ctzll(align);
	if (shift >= VT_VA_ALIGN_SHIFT0 + VT_VA_ALIGN_CLASSES)
		return -1;
	return (int)(shift - VT_VA_ALIGN_SHIFT0);
}

/* Every node's augmentation again, children first: once per alignment
 * class, when a request first asks for it. */
static void update_all(struct vt_va_free *f, uint32_t t)
{
	if (!t)
		return;
	update_all(f, N(f, t).l);
	update_all(f, N(f, t).r);
	update(f, t);
}

/* Whether subtree @t may hold @size bytes at alignment class @k (-1:
 * none): its largest range, and its largest aligned length. */
static bool may_fit(const struct vt_va_free *f, uint32_t t, uint64_t size, int k)
{
	uint32_t a;

	if (N(f, t).max < size)
		return false;
	if (k < 0)
		return true;
	a = f->amax[t][f->slot[k]];
	return a == UINT32_MAX || ((uint64_t)a << 12) >= size;
}

/* @t into the nodes starting below @key (*a) and the others (*b). */
static void split(struct vt_va_free *f, uint32_t t, uint64_t key,
		  uint32_t *a, uint32_t *b)
{
	uint32_t x, y;

	if (!t) {
		*a = *b = 0;
		return;
	}
	f->steps++;
	if (N(f, t).start < key) {
		split(f, N(f, t).r, key, &x, &y);
		N(f, t).r = x;
		update(f, t);
		*a = t;
		*b = y;
	} else {
		split(f, N(f, t).l, key, &x, &y);
		N(f, t).l = y;
		update(f, t);
		*a = x;
		*b = t;
	}
}

/* Every node of @a starts below every node of @b. */
static uint32_t join(struct vt_va_free *f, uint32_t a, uint32_t b)
{
	if (!a || !b)
		return a ? a : b;
	f->steps++;
	if (N(f, a).prio > N(f, b).prio) {
		N(f, a).r = join(f, N(f, a).r, b);
		update(f, a);
		return a;
	}
	N(f, b).l = join(f, a, N(f, b).l);
	update(f, b);
	return b;
}

/* A node's random priority: xorshift32 */
static uint32_t next_prio(struct vt_va_free *f)
{
	f->seed ^= f->seed << 13;
	f->seed ^= f->seed >> 17;
	f->seed ^= f->seed << 5;
	return f->seed;
}

/* A node for [start, end), from the spare list or the array, its
 * augmentation not yet computed; 0 if there is no memory for one. */
static uint32_t node_alloc(struct vt_va_free *f, uint64_t start, uint64_t end)
{
	uint32_t t;

	if (f->spare) {
		t = f->spare;
		f->spare = N(f, t).l;
	} else {
		if (f->used + 1 >= f->cap) {
			size_t c = vt_alloc_nr(f->cap, (size_t)f->used + 2);

			if (c > UINT32_MAX)
				c = UINT32_MAX;
			if (c <= f->cap)	/* 2^32 nodes */
				return 0;
			if (VT_REALLOC_ARRAY(f->n, c) ||
			    (f->amax && VT_REALLOC_ARRAY(f->amax, c)))
				return 0;
			if (!f->cap)	/* node 0, "none": no range, max 0 */
				N(f, 0) = (struct vt_va_node){ 0 };
			f->cap = c;
		}
		t = ++f->used;
	}
	N(f, t) = (struct vt_va_node){ .start = start, .end = end, .prio = next_prio(f) };
	return t;
}

/* node_alloc() with its augmentation: a leaf's */
static uint32_t node_new(struct vt_va_free *f, uint64_t start, uint64_t end)
{
	uint32_t t = node_alloc(f, start, end);

	if (t)
		update(f, t);
	return t;
}

/* @t's augmentation raised to cover @y's: a subtree that gains @y's
 * ranges and loses none */
static void raise(struct vt_va_free *f, uint32_t t, uint32_t y)
{
	if (N(f, t).max < N(f, y).max)
		N(f, t).max = N(f, y).max;
	for (uint32_t j = 0; j < f->nslots; j++)
		if (f->amax[t][j] < f->amax[y][j])
			f->amax[t][j] = f->amax[y][j];
}

/*
 * Treap insertion: down from the root while the nodes outrank the new
 * one, raising their augmentation to cover it (an insertion only adds to
 * a subtree), then the new node takes that place with the subtree split
 * around its start below it.
 */
static int insert(struct vt_va_free *f, uint64_t start, uint64_t end)
{
	uint32_t t = node_new(f, start, end), *link = &f->root, c;

	if (!t)
		return -ENOMEM;
	while ((c = *link) && N(f, c).prio > N(f, t).prio) {
		struct vt_va_node *x = &N(f, c);

		f->steps++;
		raise(f, c, t);
		link = x->start < start ? &x->r : &x->l;
	}
	split(f, c, start, &N(f, t).l, &N(f, t).r);
	update(f, t);
	*link = t;
	f->nr++;
	return 0;
}

/* Node @t at path[d] out of the tree: its children joined in its place. */
static void erase_at(struct vt_va_free *f, const uint32_t *path, int d)
{
	uint32_t t = path[d], c = join(f, N(f, t).l, N(f, t).r);
	/* a range no kept alignment fits in (its start's distance to the
	 * smallest one's next multiple is its length or more) takes no
	 * aligned length with it: the nodes above keep theirs */
	bool classes = f->aclasses &&
		       (-N(f, t).start & smallest_mask(f)) < N(f, t).end - N(f, t).start;

	if (!d) {
		f->root = c;
	} else if (N(f, path[d - 1]).l == t) {
		N(f, path[d - 1]).l = c;
	} else {
		N(f, path[d - 1]).r = c;
	}
	N(f, t).l = f->spare;
	f->spare = t;
	f->nr--;
	propagate_from(f, path, d - 1, classes);
}

/* Remove the range starting at @start (it is in the tree), by splits:
 * no path needed. */
static void erase_key(struct vt_va_free *f, uint64_t start)
{
	uint32_t a, b, m, c;

	split(f, f->root, start, &a, &b);
	split(f, b, start + 1, &m, &c);	/* start < end: no wrap */
	if (m) {
		N(f, m).l = f->spare;
		f->spare = m;
		f->nr--;
	}
	f->root = join(f, a, c);
}

/*
 * Down from the root towards @key, recording the path: *@below is the
 * depth of the range with the largest start below @key, *@from that of
 * the range with the smallest start at or above it (-1: none).  Returns
 * false if the path is deeper than VA_PATH.
 */
static bool descend(struct vt_va_free *f, uint64_t key, uint32_t *path,
		    int *below, int *from)
{
	uint32_t t = f->root;
	int d = 0;

	*below = *from = -1;
	for (; t; d++) {
		if (d == VA_PATH)
			return false;
		f->steps++;
		path[d] = t;
		if (N(f, t).start < key) {
			*below = d;
			t = N(f, t).r;
		} else {
			*from = d;
			t = N(f, t).l;
		}
	}
	return true;
}

/* merge_or_add_vmap_area() without a path: by erase_key() and insert() */
static int add_by_keys(struct vt_va_free *f, uint32_t p, uint32_t x,
		       uint64_t start, uint64_t end)
{
	if (p && N(f, p).end == start) {
		uint64_t ps = N(f, p).start;

		if (x && N(f, x).start == end) {
			end = N(f, x).end;
			erase_key(f, N(f, x).start);
		}
		erase_key(f, ps);
		return insert(f, ps, end);	/* a node erase freed: no ENOMEM */
	}
	if (x && N(f, x).start == end) {
		end = N(f, x).end;
		erase_key(f, N(f, x).start);
	}
	return insert(f, start, end);
}

/* descend() without a path: the neighbours of @key as node indices */
static void neighbours(struct vt_va_free *f, uint64_t key, uint32_t *below,
		       uint32_t *from)
{
	uint32_t t = f->root;

	*below = *from = 0;
	while (t) {
		f->steps++;
		if (N(f, t).start < key) {
			*below = t;
			t = N(f, t).r;
		} else {
			*from = t;
			t = N(f, t).l;
		}
	}
}

int vt_va_free_add(struct vt_va_free *f, uint64_t start, uint64_t end)
{
	uint32_t path[VA_PATH], p, x;
	int dp, dx;

	f->floor = start < f->floor ? start : f->floor;
	if (!descend(f, start, path, &dp, &dx)) {
		neighbours(f, start, &p, &x);
		return add_by_keys(f, p, x, start, end);
	}
	p = dp >= 0 && N(f, path[dp]).end == start ? path[dp] : 0;
	x = dx >= 0 && N(f, path[dx]).start == end ? path[dx] : 0;
	if (p) {
		/* the range below grows over the freed one (and over the one
		 * above if that touches it): the nodes keep their order */
		N(f, p).end = x ? N(f, x).end : end;
		propagate(f, path, dp);
		if (x)
			erase_at(f, path, dx);
		return 0;
	}
	if (x) {
		uint64_t was = N(f, x).start;

		N(f, x).start = start;
		propagate_from(f, path, dx, !classes_kept_from(f, start, was));
		return 0;
	}
	return insert(f, start, end);
}

int vt_va_free_stage_grow(struct vt_va_free *f, uint64_t start, uint64_t end)
{
	if (VT_ALLOC_GROW(f->stage, f->nstage + 1, f->cap_stage))
		return vt_va_free_add(f, start, end);	/* the same ranges */
	f->floor = start < f->floor ? start : f->floor;
	f->stage[f->nstage++] = (struct vt_va_span){ start, end };
	return 0;
}

/* The tree's ranges in address order into out[]; how many. */
static size_t flatten(const struct vt_va_free *f, uint32_t t, struct vt_va_span *out)
{
	size_t n = 0;

	while (t) {
		n += flatten(f, N(f, t).l, out + n);
		out[n++] = (struct vt_va_span){ N(f, t).start, N(f, t).end };
		t = N(f, t).r;
	}
	return n;
}

/*
 * @a sorted by start through @tmp, as large: the sorted array, @a or
 * @tmp.  A few: by insertion.  More: a least-significant-digit radix sort
 * of the starts less the lowest, from the lowest bit any of them sets (a
 * page granule's 12 low bits are all clear), digits of about log2(n) bits
 * up to 11 (the counts cost what the areas do): two or three passes over
 * a purge's thousands of areas, where merges of its ascending runs took
 * ten or more (the areas come far from address order: the holes below the
 * top being filled between the areas at the top).
 */
#define VA_RADIX 11
static struct vt_va_span *sort_ranges(struct vt_va_span *a, size_t n,
				      struct vt_va_span *tmp)
{
	uint64_t lo = UINT64_MAX, hi = 0, bits = 0;
	unsigned int shift, w;

	if (n <= 32) {
		for (size_t i = 1; i < n; i++) {
			struct vt_va_span x = a[i];
			size_t j = i;

			for (; j && a[j - 1].start > x.start; j--)
				a[j] = a[j - 1];
			a[j] = x;
		}
		return a;
	}
	w = 64 - (unsigned int)__builtin_clzll(n);
	w = w > VA_RADIX ? VA_RADIX : w;
	for (size_t i = 0; i < n; i++) {
		lo = a[i].start < lo ? a[i].start : lo;
		hi = a[i].start > hi ? a[i].start : hi;
	}
	for (size_t i = 0; i < n; i++)
		bits |= a[i].start - lo;
	if (!bits)
		return a;	/* one range (starts are distinct) */
	for (shift = (unsigned int)__builtin_ctzll(bits); shift < 64 && (hi - lo) >> shift;
	     shift += w) {
		uint32_t count[1u << VA_RADIX], sum = 0, mask = (1u << w) - 1;
		struct vt_va_span *x;

		memset(count, 0, (mask + 1) * sizeof(*count));	/* the digits' */

		for (size_t i = 0; i < n; i++)
			count[((a[i].start - lo) >> shift) & mask]++;
		for (uint32_t b = 0; b <= mask; b++) {
			uint32_t c = count[b];

			count[b] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[count[((a[i].start - lo) >> shift) & mask]++] = a[i];
		x = a;
		a = tmp;
		tmp = x;
	}
	return a;
}

/* Room for nodes 0 .. @nodes - 1 in both arrays. */
static int reserve(struct vt_va_free *f, size_t nodes)
{
	size_t c;

	if (nodes <= f->cap)
		return 0;
	c = vt_alloc_nr(f->cap, nodes);
	if (c > UINT32_MAX)
		c = UINT32_MAX;
	if (c < nodes || VT_REALLOC_ARRAY(f->n, c) ||
	    (f->amax && VT_REALLOC_ARRAY(f->amax, c)))
		return -ENOMEM;
	if (!f->cap)
		N(f, 0) = (struct vt_va_node){ 0 };
	f->cap = (uint32_t)c;
	return 0;
}

/*
 * The tree again from its ranges, in address order, as nodes 1 .. nr:
 * a treap in one pass (the Cartesian tree of their priorities, built on
 * a stack of its right spine), each node's augmentation computed when it
 * leaves the spine, its subtree then complete.
 */
static void build(struct vt_va_free *f)
{
	uint32_t sp = 0, *st = f->stack;

	for (uint32_t i = 1; i <= f->nr; i++) {
		uint32_t last = 0;

		while (sp && N(f, st[sp - 1]).prio < N(f, i).prio) {
			last = st[--sp];
			update(f, last);
		}
		N(f, i).l = last;
		if (sp)
			N(f, st[sp - 1]).r = i;
		st[sp++] = i;
	}
	while (sp)
		update(f, st[--sp]);
	f->root = f->nr ? st[0] : 0;
	f->used = (uint32_t)f->nr;
	f->spare = 0;
}

int vt_va_free_add_staged(struct vt_va_free *f)
{
	size_t m = f->nstage, n = f->nr, i = 0, j = 0, k = 0;
	struct vt_va_span *s, *flat, cur = { 0, 0 };
	int err = 0;

	f->nstage = 0;
	if (!m)
		return 0;
	/* few, or few against the tree: a merge each costs less than a
	 * rebuild */
	if (m < 8 || m * 8 < n || VT_ALLOC_GROW(f->tmp, n + m, f->cap_tmp) ||
	    VT_ALLOC_GROW(f->stack, n + m, f->cap_stack) || reserve(f, n + m + 1)) {
		for (i = 0; i < m && !err; i++)
			err = vt_va_free_add(f, f->stage[i].start, f->stage[i].end);
		return err;
	}
	f->steps += n + m;
	s = sort_ranges(f->stage, m, f->tmp + n);
	flat = f->tmp;
	flatten(f, f->root, flat);
	/* merge_or_add_vmap_area() of each: touching ranges join */
	while (i < n || j < m) {
		struct vt_va_span r = j == m || (i < n && flat[i].start < s[j].start) ?
				       flat[i++] : s[j++];

		if (k && cur.end == r.start) {
			cur.end = r.end;
			continue;
		}
		if (k)
			N(f, k) = (struct vt_va_node){ .start = cur.start, .end = cur.end,
						       .prio = next_prio(f) };
		cur = r;
		k++;
	}
	N(f, k) = (struct vt_va_node){ .start = cur.start, .end = cur.end,
				       .prio = next_prio(f) };
	f->nr = k;
	build(f);
	return 0;
}

/*
 * va_clip()'s NE_FIT_TYPE: [start, end), the right part of range
 * path[d] whose end was just cut to its left part, as a node of its own
 * (as the kernel inserts it starting from the node it comes from): a leaf
 * at the place of the range's successor (the leftmost node of its right
 * subtree), rotated up while its priority outranks its parent's (a
 * treap's insertion from below, about two rotations: the nodes it passes
 * below the range keep their subtrees), then the largest lengths again
 * from there: unconditionally up to the range (whose own length changed),
 * then up to the first unchanged node.  A path that
 * would pass VA_PATH: the range's change propagated and the part inserted
 * from the root.  -ENOMEM.
 */
static int insert_after(struct vt_va_free *f, uint32_t *path, int d,
			uint64_t start, uint64_t end)
{
	int dd = d, dy;
	uint32_t y, c;

	for (c = N(f, path[d]).r; c || d + 1 >= VA_PATH; c = N(f, c).l) {
		if (dd + 2 >= VA_PATH) {
			propagate(f, path, d);
			return insert(f, start, end);
		}
		path[++dd] = c;
	}
	y = node_alloc(f, start, end);	/* (f->n may move); update() below */
	if (!y) {
		propagate(f, path, d);
		return -ENOMEM;
	}
	f->nr++;
	f->steps += (uint64_t)(dd - d) + 1;
	if (dd == d)
		N(f, path[dd]).r = y;
	else
		N(f, path[dd]).l = y;
	for (dy = dd + 1; dy > 0 && N(f, path[dy - 1]).prio < N(f, y).prio; dy--) {
		uint32_t p = path[dy - 1];

		if (N(f, p).l == y) {
			N(f, p).l = N(f, y).r;
			N(f, y).r = p;
		} else {
			N(f, p).r = N(f, y).l;
			N(f, y).l = p;
		}
		if (dy < 2)
			f->root = y;
		else if (N(f, path[dy - 2]).l == p)
			N(f, path[dy - 2]).l = y;
		else
			N(f, path[dy - 2]).r = y;
		/* a node below the range has again the subtree it had
		 * before y came (y only passed through it, down its left
		 * spine): its augmentation stands; the others' children are
		 * final */
		if (dy - 1 <= d)
			update(f, p);
		f->steps++;
	}
	path[dy] = y;
	update(f, y);
	/* the range itself, if still above y: the nodes between only gain
	 * y's subtree (raised to it), the range is recomputed */
	for (dd = dy - 1; dd > d; dd--)
		raise(f, path[dd], y);
	if (d < dy)
		update(f, path[d]);
	propagate(f, path, (d < dy ? d : dy) - 1);
	return 0;
}

/*
 * va_clip(): [a, a + size) out of range path[d], which holds it: the
 * whole range, its left edge, its right edge (the node shrinks in place)
 * or its middle (the node keeps the left part, one new range the right
 * one).
 */
static __attribute__((noinline)) int take_rest(struct vt_va_free *f, uint32_t *path,
						int d, uint64_t a, uint64_t size)
{
	struct vt_va_node *x = &N(f, path[d]);
	uint64_t s = x->start, e = x->end;

	if (a == s && a + size == e) {
		erase_at(f, path, d);
		return 0;
	}
	if (a == s) {
		x->start = a + size;
		propagate_from(f, path, d, !classes_kept_from(f, s, a + size));
		return 0;
	}
	x->end = a;
	if (a + size == e) {
		propagate(f, path, d);
		return 0;
	}
	return insert_after(f, path, d, a + size, e);
}

/* take_rest() with its usual case, the left edge of a longer range, here */
static inline int take(struct vt_va_free *f, uint32_t *path, int d,
		       uint64_t a, uint64_t size)
{
	struct vt_va_node *x = &N(f, path[d]);
	uint64_t s = x->start;

	if (a != s || a + size == x->end)
		return take_rest(f, path, d, a, size);
	x->start = a + size;
	propagate_from(f, path, d, !classes_kept_from(f, s, a + size));
	return 0;
}

/* take() for a node whose path is not known: by erase_key() and insert() */
static int take_by_keys(struct vt_va_free *f, uint32_t t, uint64_t a, uint64_t size)
{
	uint64_t s = N(f, t).start, e = N(f, t).end;

	erase_key(f, s);
	if (a > s && insert(f, s, a))
		return -ENOMEM;		/* not reached: erase freed a node */
	return a + size != e ? insert(f, a + size, e) : 0;
}

/* Whether range @t holds @size bytes at @align within [vstart, vend):
 * the address in *@out. */
static bool fits(const struct vt_va_node *x, uint64_t size, uint64_t align,
		 uint64_t vstart, uint64_t vend, uint64_t *out)
{
	uint64_t lo = x->start > vstart ? x->start : vstart;
	uint64_t hi = x->end < vend ? x->end : vend;
	uint64_t a = (lo + align - 1) & ~(align - 1);

	if (x->end <= vstart || a < lo || a + size <= a || a + size > hi)
		return false;
	*out = a;
	return true;
}

/*
 * In address order, as a scan of the ranges would, but only into subtrees
 * that hold a range of @size or more (at class @k's alignment when kept),
 * that reach past @vstart and that start below @vend.  Iterative: path[]
 * holds the nodes from the root to the current one, so the range found
 * comes with its path (*@depth, -1 if none), and left[] the depths whose
 * node waits for its left subtree's search (the nodes an in-order walk
 * comes back to).  Returns false if the path would pass VA_PATH.
 */
static bool lowest(struct vt_va_free *f, uint64_t size, uint64_t align,
		   uint64_t vstart, uint64_t vend, int k, uint32_t *path,
		   int *depth, uint64_t *out)
{
	uint8_t left[VA_PATH];
	uint32_t t = f->root;
	int d = 0, nl = 0;

	*depth = -1;
	for (;;) {
		const struct vt_va_node *x;

		if (t && may_fit(f, t, size, k)) {
			if (d == VA_PATH)
				return false;
			f->steps++;
			path[d] = t;
			/* the left subtree ends below this range's start */
			if (N(f, t).start > vstart) {
				left[nl++] = (uint8_t)d++;
				t = N(f, t).l;
				continue;
			}
		} else {
			/* back to the last node whose left side is done */
			if (!nl)
				return true;
			d = left[--nl];
			t = path[d];
		}
		x = &N(f, t);
		if (x->start >= vend)
			return true;
		if (x->end - x->start >= size &&
		    fits(x, size, align, vstart, vend, out)) {
			*depth = d;
			return true;
		}
		d++;
		t = x->r;
	}
}

/* lowest() without a path: the recursive search the tree had first. */
static uint32_t lowest_rec(struct vt_va_free *f, uint32_t t, uint64_t size,
			   uint64_t align, uint64_t vstart, uint64_t vend, int k,
			   uint64_t *out)
{
	while (t && may_fit(f, t, size, k)) {
		const struct vt_va_node *x = &N(f, t);

		f->steps++;
		if (x->start > vstart) {
			uint32_t r = lowest_rec(f, x->l, size, align, vstart, vend, k, out);

			if (r)
				return r;
		}
		if (x->start >= vend)
			return 0;
		if (fits(x, size, align, vstart, vend, out))
			return t;
		t = x->r;
	}
	return 0;
}

/*
 * lowest_long() when no range starts below @vstart (f->floor; a window's
 * tree, vmap_area.c): the leftmost range of @size bytes or more, by the
 * largest lengths from the root, one path that never turns back.
 */
static int lowest_long_floor(struct vt_va_free *f, uint64_t size, uint32_t *path)
{
	uint32_t t = f->root;
	int d = 0;

	if (N(f, t).max < size)
		return -1;
	for (;; d++) {
		const struct vt_va_node *x = &N(f, t);

		if (d == VA_PATH)
			return -1;
		path[d] = t;
		if (N(f, x->l).max >= size)
			t = x->l;
		else if (x->end - x->start >= size)
			break;
		else
			t = x->r;
	}
	f->steps += (uint64_t)d + 1;
	return d;
}

/*
 * The lowest fit of @size bytes at alignment class @k, kept, when no range
 * starts below vstart: by the class's aligned lengths from the root, one
 * path (a subtree whose largest aligned length, rounded up to 4 KiB, is
 * below @size holds no fit; one whose largest is at least @size holds a
 * range whose ALIGN(start) fits, for a page-aligned range).  Its depth in
 * path[], every range before it fitting none; -1 if the path would pass
 * VA_PATH or the lengths lead nowhere (the full search decides).
 */
static int lowest_fit_floor(struct vt_va_free *f, uint64_t size, int k,
			    uint32_t *path)
{
	uint32_t j = f->slot[k], t = f->root;
	uint64_t units = ((size - 1) >> 12) + 1, mask = f->amask[j];
	int d = 0;

	if (f->amax[t][j] < units)
		return -1;
	for (;; d++) {
		const struct vt_va_node *x = &N(f, t);
		uint64_t pad = -x->start & mask, len = x->end - x->start;

		if (d == VA_PATH)
			return -1;
		path[d] = t;
		if (f->amax[x->l][j] >= units)
			t = x->l;
		else if (pad < len && len - pad >= size)
			break;
		else if (f->amax[x->r][j] >= units)
			t = x->r;
		else
			return -1;
	}
	f->steps += (uint64_t)d + 1;
	return d;
}

/*
 * The lowest range of @size bytes or more that ends past @vstart, by its
 * largest lengths from the root: into a left subtree that holds a range
 * long enough and may reach past @vstart (the node starts past it), else
 * the node itself if long enough, else its right subtree.  A left subtree
 * whose long ranges all end at or below @vstart is left again for the
 * node it hangs from (its depth on back[]).  When @vstart is at or below
 * every range (a window's tree, vmap_area.c), that never happens: one
 * path, each node read once.  Its depth in path[] (the path to it), or
 * -1 if there is none or the path would pass VA_PATH.  @size > 0 (node
 * 0's max, 0, must not pass).
 */
static int lowest_long(struct vt_va_free *f, uint64_t size, uint64_t vstart,
		       uint32_t *path)
{
	uint8_t back[VA_PATH];
	uint32_t t = f->root;
	int d = 0, nb = 0;
	const struct vt_va_node *x;

	for (;;) {
		if (N(f, t).max >= size) {
			if (d == VA_PATH)
				return -1;
			f->steps++;
			path[d] = t;
			x = &N(f, t);
			if (x->end <= vstart) {
				/* it and its left subtree end at or below vstart */
				d++;
				t = x->r;
				continue;
			}
			if (x->start > vstart && N(f, x->l).max >= size) {
				back[nb++] = (uint8_t)d++;
				t = x->l;
				continue;
			}
		} else {
			/* back to the last node whose left subtree held none */
			if (!nb)
				return -1;
			d = back[--nb];
			x = &N(f, path[d]);
		}
		if (x->end - x->start >= size)
			return d;
		d++;
		t = x->r;
	}
}

/*
 * On from range path[d] (which does not fit, nor any range before it) in
 * address order, as lowest() goes on from there: into its right subtree
 * if that may fit (then left whenever the left subtree may fit), else up
 * to the first ancestor that follows it; each range so reached is the
 * next that may fit.  The path[] stays the path to the current range, so
 * the fit comes with its path: its depth, -1 if none, -2 if the path
 * would pass VA_PATH.
 */
static int lowest_after(struct vt_va_free *f, uint32_t *path, int d,
			uint64_t size, uint64_t align, uint64_t vstart,
			uint64_t vend, int k, uint64_t *out)
{
	uint32_t t = path[d];

	for (;;) {
		const struct vt_va_node *x = &N(f, t);
		uint32_t r = x->r;

		if (r && may_fit(f, r, size, k)) {
			for (t = r;; t = N(f, t).l) {
				if (++d == VA_PATH)
					return -2;
				f->steps++;
				path[d] = t;
				if (!N(f, t).l || !may_fit(f, N(f, t).l, size, k))
					break;
			}
		} else {
			uint64_t s = x->start;

			do {
				if (--d < 0)
					return -1;
			} while (N(f, path[d]).start < s);
			t = path[d];
		}
		x = &N(f, t);
		if (x->start >= vend)
			return -1;
		if (x->end - x->start >= size &&
		    fits(x, size, align, vstart, vend, out))
			return d;
	}
}

/*
 * vt_va_free_take_lowest() past the lowest long range (d, its depth in
 * path[], -1 for none): the search goes on from there (lowest_after()),
 * and only a path past VA_PATH or no long range at all runs the full
 * search (lowest(), or lowest_rec() without a path); each finds the same
 * range, the lowest that fits.  @steps: f->steps before the search.
 */
static __attribute__((noinline)) int
take_lowest_on(struct vt_va_free *f, uint64_t size, uint64_t align,
	       uint64_t vstart, uint64_t vend, uint32_t *path, int d,
	       uint64_t steps, uint64_t *out)
{
	int k = align_class(align), kk;
	uint64_t a = 0;
	uint32_t t = 0;
	bool whole = false;

	kk = k >= 0 && (f->aclasses & (1u << k)) ? k : -1;	/* kept? */
	if (d >= 0) {
		d = lowest_after(f, path, d, size, align, vstart, vend, kk, &a);
		whole = d >= -1;
	}
	if (!whole) {
		whole = lowest(f, size, align, vstart, vend, kk, path, &d, &a);
		if (!whole)
			t = lowest_rec(f, f->root, size, align, vstart, vend, kk, &a);
	}
	/*
	 * An aligned search that visited far more nodes than the tree is
	 * deep (over 32 + 4 log2(ranges): misaligned ranges long enough
	 * but never fitting, which the largest length cannot prune; issue
	 * 22, unit/test-complexity-holes) keeps its class from then on: one
	 * pass over the nodes, at most once per class, and every later
	 * search of the class skips those subtrees.  The fit is the same
	 * either way (the aligned lengths only prune subtrees holding none);
	 * a trace whose searches stay short keeps none and pays nothing.
	 * (The bound was 1,024 + 16 log2: test_vmalloc's 512 KiB..4 MiB
	 * alignments searched 100-280 nodes each below it, three times
	 * what keeping their classes costs in updates; then 256 + 8 log2,
	 * until the lowest fit went on from the lowest long range instead
	 * of searching again from the root: test_vmalloc's 8 KiB..512 KiB
	 * alignments then searched 40-300 nodes each, below it, and keeping
	 * their classes costs a fifth less in all; then 64 + 8 log2, until
	 * a kept class's search took one path by its aligned lengths
	 * (lowest_fit_floor()): test_vmalloc keeps the same classes, 512
	 * KiB..4 MiB, sooner.  Lower bounds keep smaller classes too, from
	 * 128 KiB at 24 + 3 log2, from 16 KiB at 16 + 2 log2, whose aligned
	 * lengths change with more clips: those cost more than they save.)
	 * Only the augmentation changes, not the tree: the path stays valid.
	 */
	if (k >= 0 && !(f->aclasses & (1u << k)) &&
	    f->steps - steps > 32 + 4 * (uint64_t)(64 - __builtin_clzll(f->nr | 1)) &&
	    (f->amax || (f->amax = calloc(f->cap ? f->cap : 1, sizeof(*f->amax))))) {
		/* (no memory for it: the searches stay as they were) */
		f->aclasses |= 1u << k;
		f->slot[k] = (uint8_t)f->nslots;
		f->amask[f->nslots++] = (1ull << (VT_VA_ALIGN_SHIFT0 + k)) - 1;
		update_all(f, f->root);
	}

	if (whole && d < 0)
		return -ENOSPC;
	if (!whole && !t)
		return -ENOSPC;
	*out = a;
	return whole ? take(f, path, d, a, size) : take_by_keys(f, t, a, size);
}

int vt_va_free_take_lowest(struct vt_va_free *f, uint64_t size, uint64_t align,
			   uint64_t vstart, uint64_t vend, uint64_t *out)
{
	uint64_t steps = f->steps;
	uint32_t path[VA_PATH];
	int d = -1;

	/*
	 * Every range that fits is @size long or more and ends past @vstart,
	 * so if the lowest such range fits, it is the lowest fit, found in
	 * one path from the root when @vstart is below every range (a
	 * window's tree): the usual case (a page-aligned request, the
	 * window's lowest long range).  An aligned request of a kept class
	 * takes the lowest range its aligned lengths lead to, the lowest fit
	 * when it fits.  Else take_lowest_on().
	 */
	if (size) {
		int k = align_class(align);

		if (vstart > f->floor)
			d = lowest_long(f, size, vstart, path);
		else if (k >= 0 && (f->aclasses & (1u << k)))
			d = lowest_fit_floor(f, size, k, path);
		else
			d = lowest_long_floor(f, size, path);
		if (d >= 0 && fits(&N(f, path[d]), size, align, vstart, vend, out))
			return take(f, path, d, *out, size);
	}
	return take_lowest_on(f, size, align, vstart, vend, path, d, steps, out);
}

int vt_va_free_take_at(struct vt_va_free *f, uint64_t a, uint64_t size)
{
	/* the range starting at or below @a (none starts at 2^64 - 1) */
	uint64_t key = a < UINT64_MAX ? a + 1 : a;
	uint32_t path[VA_PATH], t, x;
	int d, dx;
	bool whole = descend(f, key, path, &d, &dx);

	if (whole)
		t = d >= 0 ? path[d] : 0;
	else
		neighbours(f, key, &t, &x);
	/* no a + size: a trace VA near 2^64 would wrap past the end */
	if (!t || a >= N(f, t).end || size > N(f, t).end - a)
		return -ENOSPC;
	return whole ? take(f, path, d, a, size) : take_by_keys(f, t, a, size);
}
