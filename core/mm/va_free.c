// SPDX-License-Identifier: GPL-2.0
/*
 * The free VA space as an augmented treap (va_free.h).  The trees are
 * shallow (expected depth about 2 ln n: 25 for 100,000 ranges), so the
 * split and merge recurse.
 */
#include <errno.h>
#include <stdbool.h>
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
	free(f->amax);
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

/* end - ALIGN(start, 2^shift) of range @t in 4 KiB units rounded up
 * (never below the truth, so a prune by it is safe), saturated. */
static uint32_t aligned_len(const struct vt_va_free *f, uint32_t t, unsigned int shift)
{
	uint64_t s = N(f, t).start, e = N(f, t).end;
	uint64_t a = (s + (1ull << shift) - 1) & ~((1ull << shift) - 1);
	uint64_t u;

	if (a < s || a >= e)
		return 0;
	u = ((e - a) >> 12) + !!((e - a) & 4095);
	return u > UINT32_MAX ? UINT32_MAX : (uint32_t)u;
}

static void update(struct vt_va_free *f, uint32_t t)
{
	uint32_t lt = N(f, t).l, rt = N(f, t).r;
	uint64_t m = len(f, t), l = subtree_max(f, lt), r = subtree_max(f, rt);

	N(f, t).max = m > l ? (m > r ? m : r) : (l > r ? l : r);
	for (uint32_t c = f->aclasses; c; c &= c - 1) {
		unsigned int k = (unsigned int)__builtin_ctz(c);
		uint32_t v = aligned_len(f, t, VT_VA_ALIGN_SHIFT0 + k);

		if (lt && f->amax[lt][k] > v)
			v = f->amax[lt][k];
		if (rt && f->amax[rt][k] > v)
			v = f->amax[rt][k];
		f->amax[t][k] = v;
	}
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
	a = f->amax[t][k];
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
			if (VT_REALLOC_ARRAY(f->n, c) ||
			    (f->amax && VT_REALLOC_ARRAY(f->amax, c)))
				return -ENOMEM;
			f->cap = c;
		}
		t = ++f->used;
	}
	/* xorshift32 */
	f->seed ^= f->seed << 13;
	f->seed ^= f->seed >> 17;
	f->seed ^= f->seed << 5;
	N(f, t) = (struct vt_va_node){ .start = start, .end = end, .prio = f->seed };
	update(f, t);
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
	int k = align_class(align);

	if (k >= 0 && !(f->aclasses & (1u << k)))
		k = -1;		/* the class is not kept (yet) */
	while (t && may_fit(f, t, size, k)) {
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
	int k = align_class(align);
	uint64_t a, steps = f->steps;
	uint32_t t;

	t = lowest(f, f->root, size, align, vstart, vend, &a);
	/*
	 * An aligned search that visited far more nodes than the tree is
	 * deep (over 1,024 + 16 log2(ranges): misaligned ranges long enough
	 * but never fitting, which the largest length cannot prune; issue
	 * 22, unit/test-complexity-holes) keeps its class from then on: one
	 * pass over the nodes, at most once per class, and every later
	 * search of the class skips those subtrees.  The fit is the same
	 * either way (the aligned lengths only prune subtrees holding none);
	 * a trace whose searches stay short keeps none and pays nothing.
	 */
	if (k >= 0 && !(f->aclasses & (1u << k)) &&
	    f->steps - steps > 1024 + 16 * (uint64_t)(64 - __builtin_clzll(f->nr | 1)) &&
	    (f->amax || (f->amax = calloc(f->cap ? f->cap : 1, sizeof(*f->amax))))) {
		/* (no memory for it: the searches stay as they were) */
		f->aclasses |= 1u << k;
		update_all(f, f->root);
	}

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
