/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The free VA space of the vmap-area allocator: disjoint [start, end)
 * ranges ordered by address in a balanced tree whose nodes carry the
 * largest free length below them, as mm/vmalloc.c's free_vmap_area_root is
 * an rbtree augmented with subtree_max_size (linux-mm/linux-mm @
 * 00cc00cd1fb6).  Here a treap (random priorities from a fixed seed, so
 * runs repeat) over one array of nodes: lookups, inserts and removals in
 * O(log n), and the lowest fit skips every subtree too small to hold the
 * request.  A sorted array with a linear scan made a trace of 100,000 VA
 * holes quadratic (100 s a strategy).
 */
#ifndef VT_MM_VA_FREE_H
#define VT_MM_VA_FREE_H

#include <stddef.h>
#include <stdint.h>

/* Alignments 2^13 .. 2^30 (8 KiB, the smallest a page-aligned range does
 * not meet by itself, to 1 GiB) whose aligned free length each node keeps
 * for its subtree, so the lowest fit of an aligned request skips the
 * subtrees whose ranges are long enough but never start at the alignment. */
#define VT_VA_ALIGN_SHIFT0	13
#define VT_VA_ALIGN_CLASSES	18

struct vt_va_node {
	uint64_t start, end;
	uint64_t max;		/* the largest end - start in this subtree */
	uint32_t l, r;		/* children; 0 is no node */
	uint32_t prio;
};

struct vt_va_span {
	uint64_t start, end;
};

struct vt_va_free {
	struct vt_va_node *n;	/* n[0] unused: index 0 is "none" */
	uint32_t root, spare;	/* spare: freed nodes, linked through .l */
	uint32_t used, cap;
	uint32_t seed;
	uint64_t nr;		/* ranges in the tree */
	uint64_t floor;		/* no range ever started below it */
	uint64_t steps;		/* nodes visited: the complexity tests count them */
	/* per node and kept alignment class k (2^(VT_VA_ALIGN_SHIFT0 + k),
	 * bit k of aclasses), at index slot[k]: the largest end -
	 * ALIGN(start) in its subtree, in 4 KiB units rounded up, UINT32_MAX
	 * for that or more; allocated when a class is first kept (a search
	 * of it ran long), NULL before.  The slots are the kept classes in
	 * the order they were kept, amask[] their alignments less one. */
	uint32_t (*amax)[VT_VA_ALIGN_CLASSES];
	uint32_t aclasses, nslots;
	uint8_t slot[VT_VA_ALIGN_CLASSES];
	uint64_t amask[VT_VA_ALIGN_CLASSES];
	/* vt_va_free_stage()'s ranges, and the rebuild's scratch */
	struct vt_va_span *stage, *tmp;
	uint32_t *stack;
	size_t nstage, cap_stage, cap_tmp, cap_stack;
};

void vt_va_free_init(struct vt_va_free *f);
void vt_va_free_release(struct vt_va_free *f);
/* merge_or_add_vmap_area(): [start, end) back, merged with its neighbours;
 * -ENOMEM */
int vt_va_free_add(struct vt_va_free *f, uint64_t start, uint64_t end);
/* vt_va_free_stage() when the stage is full: grown, or (no memory for
 * it) the range added at once */
int vt_va_free_stage_grow(struct vt_va_free *f, uint64_t start, uint64_t end);
/*
 * Many ranges back at once, as a purge gives them (purge_vmap_node()):
 * each staged, then all added by vt_va_free_add_staged(), the same free
 * ranges as one vt_va_free_add() each.  Many against the tree's ranges:
 * one merge of the sorted ranges with the tree's, and the tree rebuilt
 * from the result in one pass; few: one vt_va_free_add() each.  -ENOMEM.
 */
static inline int vt_va_free_stage(struct vt_va_free *f, uint64_t start, uint64_t end)
{
	if (f->nstage >= f->cap_stage)
		return vt_va_free_stage_grow(f, start, end);
	f->stage[f->nstage++] = (struct vt_va_span){ start, end };
	f->floor = start < f->floor ? start : f->floor;
	return 0;
}
int vt_va_free_add_staged(struct vt_va_free *f);
/*
 * The lowest @align-aligned @size bytes inside [vstart, vend) and a free
 * range, taken out of it: its address in *@out; -ENOSPC if none.  The
 * exact lowest fit (see vt_find_vmap_lowest_match() in vmap_area.c).
 */
int vt_va_free_take_lowest(struct vt_va_free *f, uint64_t size, uint64_t align,
			   uint64_t vstart, uint64_t vend, uint64_t *out);
/* [a, a + size) taken out of the free range holding it; -ENOSPC if no
 * free range holds all of it */
int vt_va_free_take_at(struct vt_va_free *f, uint64_t a, uint64_t size);

#endif
