/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interface of core/mm/: the engine and its API flows
 * (vmalloc.c), VA areas and the lazy purge (vmap_area.c), vmap blocks and
 * vm_map_ram (vmap_block.c).  Strategies use core/mm/engine.h alone.
 */
#ifndef VT_MM_MM_H
#define VT_MM_MM_H

#include "core/mm/engine.h"

#define EST(e, x) (*vt_stats_at((e)->w.st, VT_M_##x))

#define VMAP_MAX_ALLOC 64	/* BITS_PER_LONG */

static inline uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* ---- vmap_area.c ---- */
/* merge_or_add_vmap_area(): [start, end) back to the free tree, merged */
int vt_merge_or_add_vmap_area(struct vt_engine *e, uint64_t start, uint64_t end);
/* alloc_vmap_area(size, align, vstart, vend, ...) */
int vt_alloc_vmap_area(struct vt_engine *e, uint64_t size, uint64_t align,
		       uint64_t vstart, uint64_t vend,
		       const struct vt_event *ev, uint64_t *out);
int vt_reclaim_and_purge_vmap_areas(struct vt_engine *e);
/* purge_fragmented_blocks(): free the blocks whose free + dirty pages fill them */
int vt_purge_fragmented_blocks(struct vt_engine *e);
int vt___purge_vmap_area_lazy(struct vt_engine *e, uint64_t start, uint64_t end,
			      bool flush_extra, bool automatic);
int vt_free_vmap_area_noflush(struct vt_engine *e, uint64_t start, uint64_t end);
int vt_free_unmap_vmap_area(struct vt_engine *e, uint64_t start, uint64_t end);
/* free_vmap_block() */
int vt_free_vmap_block(struct vt_engine *e, struct vt_vmap_block *vb);

/* ---- vmap_block.c ---- */
int vt_vb_free(struct vt_engine *e, struct vt_area *a);
int vt_vm_map_ram(struct vt_engine *e, const struct vt_event *ev,
		  struct vt_area *a);
int vt__vm_unmap_aliases(struct vt_engine *e);

/* ---- pages.c ---- */
/* the struct page * array a caller builds from page runs */
int vt_pages_from_runs(struct vt_engine *e, const struct vt_page_run *r,
		       uint32_t nr_runs, uint64_t nr_pages);
int vt_area_keep_runs(struct vt_area *a, const struct vt_page_run *r, uint32_t n);

/* ---- verify.c ---- */
/* --verify after one event (the model checking itself: no kernel function) */
int vt_verify_all(struct vt_engine *e);
/* the live areas by VA of --verify: @a in (-ENOMEM), @a out, all out */
int vt_verify_area_add(struct vt_engine *e, struct vt_area *a);
void vt_verify_area_del(struct vt_engine *e, struct vt_area *a);
void vt_verify_release(struct vt_engine *e);

#endif
