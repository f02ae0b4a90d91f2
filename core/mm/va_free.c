// SPDX-License-Identifier: GPL-2.0
/*
 * The free VA space as an augmented treap (va_free.h).  The trees are
 * shallow (expected depth about 2 ln n: 25 for 100,000 ranges), so the
 * split and merge recurse.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/mm/va_free.h"

#define N(f, i) ((f)->n[i])

void vt_va_free_init(struct vt_va_free *f)
{
	memset(f, 0, sizeof(*f));
	f->seed = 2463534242u;
}

void vt_va_free_release(struct vt_va_free *f)
{
	free(f->n);
	vt_va_free_init(f);
}

static uint64_t len(const struct vt_va_free *f, uint32_t t)
{
	return N(f, t).end - N(f, t).start;
}

static uint64_t subtree_max(const struct vt_va_free *f, uint32_t t)
{
	return t ? N(f, t).max : 0;
}

static void update(struct vt_va_free *f, uint32_t t)
{
	uint64_t m = len(f, t), l = subtree_max(f, N(f, t).l),
		 r = subtree_max(f, N(f, t).r);

	N(f, t).max = m > l ? (m > r ? m : r) : (l > r ? l : r);
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

static int insert(struct vt_va_free *f, uint64_t start, uint64_t end)
{
	uint32_t t, a, b;

	if (f->spare) {
		t = f->spare;
		f->spare = N(f, t).l;
	} else {
		if (f->used + 1 >= f->cap) {
			size_t c = vt_alloc_nr(f->cap, (size_t)f->used + 2);

			if (c > UINT32_MAX)
				c = UINT32_MAX;
			if (c <= f->cap)	/* 2^32 nodes */
				return -ENOMEM;
			if (VT_REALLOC_ARRAY(f->n, c))
				return -ENOMEM;
			f->cap = c;
		}
		t = ++f->used;
	}
	/* xorshift32 */
	f->seed ^= f->seed << 13;
	f->seed ^= f->seed >> 17;
	f->seed ^= f->seed << 5;
	N(f, t) = (struct vt_va_node){ .start = start, .end = end,
				       .max = end - start, .prio = f->seed };
	split(f, f->root, start, &a, &b);
	f->root = join(f, join(f, a, t), b);
	f->nr++;
	return 0;
}

/* Remove the range starting at @start (it is in the tree). */
static void erase(struct vt_va_free *f, uint64_t start)
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

/* The range with the largest start below @key, or 0. */
static uint32_t below(struct vt_va_free *f, uint64_t key)
{
	uint32_t t = f->root, best = 0;

	while (t) {
		f->steps++;
		if (N(f, t).start < key) {
			best = t;
			t = N(f, t).r;
		} else {
			t = N(f, t).l;
		}
	}
	return best;
}

/* The range with the smallest start at or above @key, or 0. */
static uint32_t from(struct vt_va_free *f, uint64_t key)
{
	uint32_t t = f->root, best = 0;

	while (t) {
		f->steps++;
		if (N(f, t).start >= key) {
			best = t;
			t = N(f, t).l;
		} else {
			t = N(f, t).r;
		}
	}
	return best;
}

int vt_va_free_add(struct vt_va_free *f, uint64_t start, uint64_t end)
{
	uint32_t p = below(f, start), x = from(f, start);

	if (p && N(f, p).end == start) {
		uint64_t ps = N(f, p).start;

		if (x && N(f, x).start == end) {
			end = N(f, x).end;
			erase(f, N(f, x).start);
		}
		erase(f, ps);
		return insert(f, ps, end);	/* a node erase freed: no ENOMEM */
	}
	if (x && N(f, x).start == end) {
		end = N(f, x).end;
		erase(f, N(f, x).start);
	}
	return insert(f, start, end);
}

/* Take [a, a + size) out of range @t, which holds it. */
static int take(struct vt_va_free *f, uint32_t t, uint64_t a, uint64_t size)
{
	uint64_t s = N(f, t).start, e = N(f, t).end;

	erase(f, s);
	if (a > s && insert(f, s, a))
		return -ENOMEM;		/* not reached: erase freed a node */
	return a + size != e ? insert(f, a + size, e) : 0;
}

/*
 * In address order, as a scan of the ranges would, but only into subtrees
 * that hold a range of @size or more, that reach past @vstart and that
 * start below @vend.
 */
static uint32_t lowest(struct vt_va_free *f, uint32_t t, uint64_t size,
		       uint64_t align, uint64_t vstart, uint64_t vend, uint64_t *out)
{
	while (t && N(f, t).max >= size) {
		const struct vt_va_node *x = &N(f, t);

		f->steps++;
		/* the left subtree ends below this range's start */
		if (x->start > vstart) {
			uint32_t r = lowest(f, x->l, size, align, vstart, vend, out);

			if (r)
				return r;
		}
		if (x->start >= vend)
			return 0;
		if (x->end > vstart) {
			uint64_t lo = x->start > vstart ? x->start : vstart;
			uint64_t hi = x->end < vend ? x->end : vend;
			uint64_t a = (lo + align - 1) & ~(align - 1);

			if (a >= lo && a + size > a && a + size <= hi) {
				*out = a;
				return t;
			}
		}
		t = x->r;
	}
	return 0;
}

int vt_va_free_take_lowest(struct vt_va_free *f, uint64_t size, uint64_t align,
			   uint64_t vstart, uint64_t vend, uint64_t *out)
{
	uint64_t a;
	uint32_t t = lowest(f, f->root, size, align, vstart, vend, &a);

	if (!t)
		return -ENOSPC;
	*out = a;
	return take(f, t, a, size);
}

int vt_va_free_take_at(struct vt_va_free *f, uint64_t a, uint64_t size)
{
	/* the range starting at or below @a (none starts at 2^64 - 1) */
	uint32_t t = below(f, a < UINT64_MAX ? a + 1 : a);

	/* no a + size: a trace VA near 2^64 would wrap past the end */
	if (!t || a >= N(f, t).end || size > N(f, t).end - a)
		return -ENOSPC;
	return take(f, t, a, size);
}
