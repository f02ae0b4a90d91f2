// SPDX-License-Identifier: GPL-2.0
/*
 * batched: Barry Song's "[RFC PATCH 0/8] mm/vmalloc: Speed up ioremap,
 * vmalloc and vmap with contiguous memory" (2026-04-08, seed 000), patch
 * by patch (batched@digits).  Patches 1-2 are arch changes carried by the
 * arm64 model (arm64_num_contig_ptes(), arm64_make_huge_pte(),
 * arm64_vmap_pte_range_map_size()); patch 3 is the shift argument of
 * vt_vmap_small_pages_range_noflush(); this file holds patches 4-8.
 */
#include "core/engine.h"

/*
 * RFC 5/8 get_vmap_batch_order(): a compound head whose whole compound
 * page sits in the array in order; 0 with nohugeiomap
 * (ioremap_max_page_shift == PAGE_SHIFT).
 */
static unsigned int get_vmap_batch_order(struct vt_engine *e, uint64_t max_steps,
					 uint64_t idx)
{
	const struct vt_pages *p = &e->pages;
	uint64_t nr = vt_compound_nr(p, idx);

	if (e->o.nohugeiomap)
		return 0;
	if (nr == 1 || max_steps < nr)
		return 0;
	if (vt_num_pages_contiguous(p, idx, nr) == nr)
		return p->head_order[idx];
	return 0;
}

/* RFC 5/8 vmap_contig_pages_range(), with 7/8 (runs) and 8/8 (early stop) */
static int vmap_contig_pages_range(struct vt_engine *e, uint64_t addr, uint64_t end)
{
	const struct arm64_geom *g = &e->mm.g;
	uint64_t count = (end - addr) >> g->page_shift, idx = 0;
	uint64_t map_addr = addr;
	unsigned int prev_shift = 0;
	int err;

	for (uint64_t i = 0; i < count;) {
		unsigned int shift = g->page_shift +
				     get_vmap_batch_order(e, count - i, i);

		if (!vt_patch(e, 7)) {
			err = vt_vmap_range_noflush(e, addr, addr + (1ull << shift),
						    e->pages.pfn[i] << g->page_shift,
						    e->prot_kernel, shift);
			if (err)
				return err;
		} else {
			if (!i)
				prev_shift = shift;
			if (shift != prev_shift) {
				err = vt_vmap_small_pages_range_noflush(e, map_addr, addr,
						e->prot_kernel, idx,
						prev_shift < g->pmd_shift ?
						prev_shift : g->pmd_shift);
				if (err)
					return err;
				prev_shift = shift;
				map_addr = addr;
				idx = i;
			}
			if (vt_patch(e, 8) && shift == g->page_shift)
				break;
		}
		addr += 1ull << shift;
		i += 1ull << (shift - g->page_shift);
	}
	if (vt_patch(e, 7) && map_addr < end)
		return vt_vmap_small_pages_range_noflush(e, map_addr, end,
				e->prot_kernel, idx,
				prev_shift < g->pmd_shift ? prev_shift : g->pmd_shift);
	return 0;
}

/* RFC 6/8 get_aligned_vm_area(): PMD, then the PTE-supported shift, then
 * page alignment; each failing attempt runs the allocator's purge path */
static int get_aligned_vm_area(struct vt_engine *e, struct vt_area *a, uint64_t size)
{
	const struct arm64_geom *g = &e->mm.g;
	unsigned int shift = size >= g->pmd_size ? g->pmd_shift :
			     arm64_vmap_pte_supported_shift(&e->mm, size);

	for (;;) {
		int err = vt_area_get_va(e, a, size, 1ull << shift, g->page_shift);

		if (err != VT_ERR_VA_EXHAUSTED || shift <= g->page_shift)
			return err;
		if (shift == g->pmd_shift)
			shift = arm64_vmap_pte_supported_shift(&e->mm, size);
		else
			shift = g->page_shift;
	}
}

static int batched_vmap(struct vt_engine *e, struct vt_area *a)
{
	const struct arm64_geom *g = &e->mm.g;
	uint64_t size = a->nr_pages << g->page_shift;
	int err;

	if (!vt_patch(e, 5) && !vt_patch(e, 6))
		return vt_vmap_mainline(e, a);
	if (vt_patch(e, 6))
		err = get_aligned_vm_area(e, a, size);
	else
		err = vt_area_get_va(e, a, size, 1, g->page_shift);
	if (err)
		return err;
	if (!vt_patch(e, 5))
		return vt_vmap_small_pages_range_noflush(e, a->va_start,
				a->va_start + size, e->prot_kernel, 0,
				g->page_shift);
	return vmap_contig_pages_range(e, a->va_start, a->va_start + size);
}

/* RFC 4/8: one walk at min(page_shift, PMD_SHIFT) instead of one per chunk */
static int batched_vmap_pages_range(struct vt_engine *e, uint64_t addr,
				    uint64_t end, uint64_t idx,
				    unsigned int page_shift)
{
	const struct arm64_geom *g = &e->mm.g;

	if (!vt_patch(e, 4))
		return vt_vmap_pages_range_zigzag(e, addr, end, idx, page_shift);
	return vt_vmap_small_pages_range_noflush(e, addr, end, e->prot_kernel, idx,
			page_shift < g->pmd_shift ? page_shift : g->pmd_shift);
}

const struct vt_strategy vt_strategy_batched = {
	.name = "batched",
	.summary = "Barry Song's RFC 1-8: N x CONT_PTE batches, one walk per run of equal order",
	.origin = "[RFC PATCH 0/8] mm/vmalloc: Speed up ioremap, vmalloc and vmap with contiguous memory (2026-04-08)",
	.takes_patches = true,
	.huge_vmalloc = true,
	.vmap = batched_vmap,
	.vmap_pages_range = batched_vmap_pages_range,
};
