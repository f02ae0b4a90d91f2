// SPDX-License-Identifier: GPL-2.0
/*
 * batched-v2: the revision of Barry Song's batched series that sits in the
 * mm tree, linux-mm/linux-mm @ e7e1a07bffeddbd6e0e649db32628b3cb364da3f,
 * mm/vmalloc.c: vmap_set_ptes(), vmap_pages_range_noflush_walk(),
 * get_vmap_batch_order(), vmap_pages_range_batched(),
 * vmap_get_aligned_vm_area(), vm_shift(), vm_area_free_pages() (the last
 * as the vfree-bulk axis of core/mm/vmalloc.c).
 *
 * The arm64 side is the RFC's patches 1-2 (arm64_num_contig_ptes(),
 * arm64_make_huge_pte(), arm64_vmap_pte_range_map_size() with patch2,
 * switched on by batched_v2_mm_opts()): the
 * revision's walker passes its shift on uncapped and relies on
 * arch_vmap_pte_range_map_size() for N x CONT_PTE batches.  That tree's
 * arm64 headers are not in the stored snapshots; the RFC's as applied
 * (linux-mm 64820e6bbcae, 084359e02a15) are taken (docs/strategies.md).
 *
 * vmap_set_ptes() is the one PTE-level choice both walkers share in the
 * revision (arch size -> set_huge_pte_at(), else set_pte_at()); in the
 * model both walkers of core/mm/walk.c already make exactly that choice, so
 * the helper changes no count.
 */
#include "core/mm/engine.h"

/* vm_shift(): arch_vmap_pmd_supported() is true on arm64 (asm/vmalloc.h) */
static unsigned int vt_vm_shift(const struct vt_engine *e, uint64_t size)
{
	if (size >= e->mm.g.pmd_size)
		return e->mm.g.pmd_shift;
	return arch_vmap_pte_supported_shift(&e->mm, size);
}

/*
 * get_vmap_batch_order(pages + idx, prot, nr_pages): no compound page and no
 * ioremap_max_page_shift any more.  The candidate length is limited to the
 * first PFN's natural alignment,
 *	nr_pages = min_t(unsigned int, nr_pages, 1UL << __ffs(pfn)),
 * min_t() casting both to unsigned int: from __ffs(pfn) >= 32 (PA aligned
 * to 16 TiB on 4K) the limit truncates to 0, num_pages_contiguous(pages, 0)
 * returns 1 and the page does not batch.  Then order = ilog2(contiguous
 * pages), 0 when fewer than 2 or when vm_shift() of that size is
 * PAGE_SHIFT (below CONT_PTE_SIZE: orders 1-3 on 4K, 1-6 on 16K, 1-4 on
 * 64K count as not batchable).
 */
static unsigned int vt_get_vmap_batch_order(struct vt_engine *e,
					 uint64_t idx, uint32_t nr_pages)
{
	const struct arm64_geom *g = &e->mm.g;
	uint64_t pfn = vt_pages_pfn(&e->pages, idx), nr_contig;
	unsigned int order;

	if (pfn > 0) {
		uint32_t lim = (uint32_t)(1ull << __builtin_ctzll(pfn));

		if (lim < nr_pages)
			nr_pages = lim;
	}
	/* num_pages_contiguous() returns 1 for a length below 2 */
	nr_contig = nr_pages < 2 ? 1 :
		    vt_num_pages_contiguous(&e->pages, idx, nr_pages);
	if (nr_contig < 2)
		return 0;
	order = 63 - __builtin_clzll(nr_contig);
	if (vt_vm_shift(e, g->page_size << order) == g->page_shift)
		return 0;
	return order;
}

/*
 * vmap_pages_range_noflush_walk(addr, end, prot, pages + idx, shift).  The
 * revision passes @shift uncapped; its PMD loop tests shift >= PMD_SHIFT,
 * a block consumes PMD_SIZE >> PAGE_SHIFT pages, and vmap_set_ptes() hands
 * @shift to arch_vmap_pte_range_map_size(), which caps a batch at
 * PMD_SIZE / 2 anyway.  The shared walker of core/mm/walk.c
 * (RFC 3/8, tests shift == PMD_SHIFT) at min(shift, PMD_SHIFT) makes the
 * same stores, walks and checks.
 */
static int vt_vmap_pages_range_noflush_walk(struct vt_engine *e, uint64_t addr,
					    uint64_t end, uint64_t idx,
					    unsigned int shift)
{
	const struct arm64_geom *g = &e->mm.g;

	return vt_vmap_small_pages_range_noflush(&e->w, addr, end,
			e->prot_kernel, idx,
			shift < g->pmd_shift ? shift : g->pmd_shift);
}

/*
 * vmap_pages_range_batched(): runs of equal batch shift, each mapped by one
 * walk when the shift changes; the first chunk that does not batch ends
 * the scan ("Once we fail to batch pages, we expect to fail batching for
 * all remaining pages"), and the rest from it to the end is one walk at
 * PAGE_SHIFT.  batch_end is where the pages scanned so far end.
 */
static int vt_vmap_pages_range_batched(struct vt_engine *e, uint64_t addr,
				       uint64_t end)
{
	const struct arm64_geom *g = &e->mm.g;
	const uint32_t nr_pages = (uint32_t)((end - addr) >> g->page_shift);
	unsigned int prev_shift = 0;
	uint32_t batch_start = 0;
	uint64_t map_addr = addr, batch_end = addr;
	int err;

	for (uint32_t i = 0; i < nr_pages;) {
		unsigned int shift = g->page_shift +
				     vt_get_vmap_batch_order(e, i, nr_pages - i);

		if (!i)
			prev_shift = shift;
		if (shift != prev_shift) {
			err = vt_vmap_pages_range_noflush_walk(e, map_addr,
					batch_end, batch_start, prev_shift);
			if (err)
				return err;
			prev_shift = shift;
			map_addr = batch_end;
			batch_start = i;
		}
		if (shift == g->page_shift)
			break;
		batch_end += 1ull << shift;
		i += 1u << (shift - g->page_shift);
	}
	/* Remaining */
	if (map_addr < end)
		return vt_vmap_pages_range_noflush_walk(e, map_addr, end,
							batch_start, prev_shift);
	return 0;
}

/*
 * vmap_get_aligned_vm_area(): PMD_SIZE alignment if size >= PMD_SIZE, then
 * 1 << arch_vmap_pte_supported_shift(size) if that exceeds PAGE_SHIFT,
 * then PAGE_SIZE; each failing attempt runs alloc_vmap_area()'s purge and
 * retry (vt___get_vm_area_node()).  The same sequence of attempts as RFC
 * 6/8's loop; only the recorded caller differs (not modelled).
 */
static int vt_vmap_get_aligned_vm_area(struct vt_engine *e, struct vt_area *a,
				       uint64_t size)
{
	const struct arm64_geom *g = &e->mm.g;
	unsigned int shift;
	int err;

	if (size >= g->pmd_size) {
		err = vt___get_vm_area_node(e, a, size, g->pmd_size, g->page_shift);
		if (err != VT_ERR_VA_EXHAUSTED)
			return err;
	}
	shift = arch_vmap_pte_supported_shift(&e->mm, size);
	if (shift > g->page_shift) {
		err = vt___get_vm_area_node(e, a, size, 1ull << shift, g->page_shift);
		if (err != VT_ERR_VA_EXHAUSTED)
			return err;
	}
	return vt___get_vm_area_node(e, a, size, g->page_size, g->page_shift);
}

/* vmap(): an aligned area, then vmap_pages_range_batched() */
static int batched_v2_vmap(struct vt_engine *e, struct vt_area *a)
{
	uint64_t size = a->nr_pages << e->mm.g.page_shift;
	int err = vt_vmap_get_aligned_vm_area(e, a, size);

	if (err)
		return err;
	return vt_vmap_pages_range_batched(e, a->va_start, a->va_start + size);
}

/* __vmap_pages_range_noflush(): one walk at page_shift (vmalloc's shift
 * from vm_shift() never exceeds PMD_SHIFT) */
static int batched_v2_vmap_pages_range(struct vt_engine *e, uint64_t addr,
				       uint64_t end, uint64_t idx,
				       unsigned int page_shift)
{
	return vt_vmap_pages_range_noflush_walk(e, addr, end, idx, page_shift);
}

/* The RFC's arm64 patches the revision builds on: 1/8 (num_contig_ptes(),
 * arch_make_huge_pte()) and 2/8 (arch_vmap_pte_range_map_size()) */
static void batched_v2_mm_opts(const struct vt_strategy_spec *spec,
			       struct arm64_mm_opts *o)
{
	(void)spec;
	o->patch1 = true;
	o->patch2 = true;
}

const struct vt_strategy vt_strategy_batched_v2 = {
	.name = "batched-v2",
	.summary = "the batched series as revised in the mm tree: batches by PFN contiguity and alignment",
	.origin = "linux-mm/linux-mm e7e1a07bffed mm/vmalloc.c (vmap_pages_range_batched)",
	.huge_vmalloc = true,
	.mm_opts = batched_v2_mm_opts,
	.vmap = batched_v2_vmap,
	.vmap_pages_range = batched_v2_vmap_pages_range,
};
