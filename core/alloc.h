/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Growing arrays, after git's ALLOC_GROW() (cache.h, git-compat-util.h):
 * one macro over a checked size computation instead of a hand-written
 * realloc() pair at every array.  Unlike git's, it never dies: it returns
 * 0 or -ENOMEM and leaves the array and its capacity as they were on a
 * failure, since core/ and arch/ return errors (docs/architecture.md).
 * Usable from core/, arch/ and cli/ (it includes only libc headers).
 *
 *	if (VT_ALLOC_GROW(v, n + 1, cap))
 *		return -ENOMEM;
 *	v[n++] = x;
 */
#ifndef VT_ALLOC_H
#define VT_ALLOC_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* git's alloc_nr(): the next capacity after @cap, at least @need. */
static inline size_t vt_alloc_nr(size_t cap, size_t need)
{
	size_t next = cap > (SIZE_MAX - 16) / 3 * 2 ? SIZE_MAX : (cap + 16) * 3 / 2;

	return next < need ? need : next;
}

/*
 * realloc(*@p, @n * @size) with the product checked (git's st_mult() in
 * REALLOC_ARRAY()): 0 with *@p replaced, or -ENOMEM with *@p untouched.
 */
static inline int vt_realloc_array(void **p, size_t n, size_t size)
{
	size_t bytes;
	void *np;

	if (__builtin_mul_overflow(n, size, &bytes))
		return -ENOMEM;
	np = realloc(*p, bytes ? bytes : 1);
	if (!np)
		return -ENOMEM;
	*p = np;
	return 0;
}

/* REALLOC_ARRAY(): @x (any pointer lvalue) to @n elements: 0 or -ENOMEM. */
#define VT_REALLOC_ARRAY(x, n) ({					\
	void *vt_ra_p_ = (x);						\
	int vt_ra_ret_ = vt_realloc_array(&vt_ra_p_, (n), sizeof(*(x)));	\
									\
	if (!vt_ra_ret_)						\
		(x) = vt_ra_p_;						\
	vt_ra_ret_;							\
})

/*
 * ALLOC_GROW(): make room in @x (capacity @alloc elements, an lvalue) for
 * @nr elements, growing by vt_alloc_nr().  0 or -ENOMEM.
 */
#define VT_ALLOC_GROW(x, nr, alloc) ({					\
	size_t vt_ag_nr_ = (nr);					\
	int vt_ag_ret_ = 0;						\
									\
	if (vt_ag_nr_ > (size_t)(alloc)) {				\
		size_t vt_ag_cap_ = vt_alloc_nr((alloc), vt_ag_nr_);	\
									\
		vt_ag_ret_ = VT_REALLOC_ARRAY(x, vt_ag_cap_);		\
		if (!vt_ag_ret_)					\
			(alloc) = vt_ag_cap_;				\
	}								\
	vt_ag_ret_;							\
})

#endif
