// SPDX-License-Identifier: GPL-2.0
/*
 * batched: Barry Song's "[RFC PATCH 0/8] mm/vmalloc: Speed up ioremap,
 * vmalloc and vmap with contiguous memory" (2026-04-08), patch
 * by patch (batched@digits).  Patches 1-2 are arch changes carried by the
 * arm64 model (arm64_num_contig_ptes(), arm64_make_huge_pte(),
 * arm64_vmap_pte_range_map_size()); patch 3 is the shift argument of
 * vt_vmap_small_pages_range_noflush(); this file holds patches 4-8.
 */
#include "core/mm/engine.h"

static inline bool vt_patch(const struct vt_engine *e, int n)
{
	return e->spec.patches & (1u << n);
}

/*
 * RFC 5/8 get_vmap_batch_order(): a compound head whose whole compound
 * page sits in the array in order; 0 with nohugeiomap
 * (ioremap_max_page_shift == PAGE_SHIFT).
 */
static unsigned int vt_get_vmap_batch_order(struct vt_engine *e, uint64_t max_steps,
					 uint64_t idx)
{
	struct vt_pages *p = &e->pages;
	uint64_t nr = vt_compound_nr(p, idx);

	if (e->o.nohugeiomap)
		return 0;
	if (nr == 1 || max_steps < nr)
		return 0;
	if (vt_num_pages_contiguous(p, idx, nr) == nr)
		return vt_head_order(p, idx);
	return 0;
}

/*
 * How many chunks from @i on, the first of @shift, the kernel's loop of
 * vmap_contig_pages_range() (RFC 5/8) takes with the same shift and
 * nothing else done between them (RFC 7/8: the walk waits for a change of
 * shift): the remaining compound pages of @i's run while each fits in
 * @count - i, or its remaining order-0 pages.  get_vmap_batch_order()
 * gives each of them the answer it gave @i, so they are taken as one
 * step; 1 where that is not certain (a head too large for what is left).
 */
static uint64_t vt_same_batches(struct vt_engine *e, uint64_t i, uint64_t count,
				unsigned int shift)
{
	struct vt_pages *p = &e->pages;
	const struct arm64_geom *g = &e->mm.g;
	uint32_t r = vt_pages_run(p, i);
	unsigned int o = p->runs[r].order, k = shift - g->page_shift;
	uint64_t left = p->start[r + 1] - i, n;

	if (left > count - i)
		left = count - i;
	if (!k)
		return !o || e->o.nohugeiomap ? left : 1;
	if (k != o || ((i - p->start[r]) & ((1ull << o) - 1)))
		return 1;
	n = left >> o;
	return n ? n : 1;
}

/* RFC 5/8 vmap_contig_pages_range(), with 7/8 (runs) and 8/8 (early stop) */
static int vt_vmap_contig_pages_range(struct vt_engine *e, uint64_t addr, uint64_t end)
{
	const struct arm64_geom *g = &e->mm.g;
	uint64_t count = (end - addr) >> g->page_shift, idx = 0;
	uint64_t map_addr = addr;
	unsigned int prev_shift = 0;
	int err;

	for (uint64_t i = 0, steps; i < count;) {
		unsigned int shift = g->page_shift +
				     vt_get_vmap_batch_order(e, count - i, i);

		if (!vt_patch(e, 7)) {
			err = vt_vmap_range_noflush(&e->w, addr, addr + (1ull << shift),
						    vt_pages_pfn(&e->pages, i) << g->page_shift,
						    e->prot_kernel, shift);
			if (err)
				return err;
		} else {
			if (!i)
				prev_shift = shift;
			if (shift != prev_shift) {
				err = vt_vmap_small_pages_range_noflush(&e->w, map_addr, addr,
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
		steps = vt_patch(e, 7) ? vt_same_batches(e, i, count, shift) : 1;
		addr += steps << shift;
		i += steps << (shift - g->page_shift);
	}
	if (vt_patch(e, 7) && map_addr < end)
		return vt_vmap_small_pages_range_noflush(&e->w, map_addr, end,
				e->prot_kernel, idx,
				prev_shift < g->pmd_shift ? prev_shift : g->pmd_shift);
	return 0;
}

/* RFC 6/8 get_aligned_vm_area(): PMD, then the PTE-supported shift, then
 * page alignment; each failing attempt runs the allocator's purge path */
static int vt_get_aligned_vm_area(struct vt_engine *e, struct vt_area *a, uint64_t size)
{
	const struct arm64_geom *g = &e->mm.g;
	unsigned int shift = size >= g->pmd_size ? g->pmd_shift :
			     arch_vmap_pte_supported_shift(&e->mm, size);

	for (;;) {
		int err = vt___get_vm_area_node(e, a, size, 1ull << shift, g->page_shift);

		if (err != VT_ERR_VA_EXHAUSTED || shift <= g->page_shift)
			return err;
		if (shift == g->pmd_shift)
			shift = arch_vmap_pte_supported_shift(&e->mm, size);
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
		err = vt_get_aligned_vm_area(e, a, size);
	else
		err = vt___get_vm_area_node(e, a, size, 1, g->page_shift);
	if (err)
		return err;
	if (!vt_patch(e, 5))
		return vt_vmap_small_pages_range_noflush(&e->w, a->va_start,
				a->va_start + size, e->prot_kernel, 0,
				g->page_shift);
	return vt_vmap_contig_pages_range(e, a->va_start, a->va_start + size);
}

/* RFC 4/8: one walk at min(page_shift, PMD_SHIFT) instead of one per chunk */
static int batched_vmap_pages_range(struct vt_engine *e, uint64_t addr,
				    uint64_t end, uint64_t idx,
				    unsigned int page_shift)
{
	const struct arm64_geom *g = &e->mm.g;

	if (!vt_patch(e, 4))
		return vt___vmap_pages_range_noflush(e, addr, end, idx, page_shift);
	return vt_vmap_small_pages_range_noflush(&e->w, addr, end, e->prot_kernel, idx,
			page_shift < g->pmd_shift ? page_shift : g->pmd_shift);
}

/*
 * Dependency rules of Barry Song's series (strategies.md 1): 2 needs 1,
 * 4 needs 3, 7 needs 3 and 5, 8 needs 7.
 */
static int check_patches(uint32_t p, struct vt_error *err)
{
	static const struct { int patch, needs; } deps[] = {
		{ 2, 1 }, { 4, 3 }, { 7, 3 }, { 7, 5 }, { 8, 7 },
	};

	for (size_t i = 0; i < sizeof(deps) / sizeof(deps[0]); i++)
		if ((p & (1u << deps[i].patch)) && !(p & (1u << deps[i].needs)))
			return vt_error_set(err, VT_ERR_BAD_STRATEGY,
					    "patch %d needs patch %d",
					    deps[i].patch, deps[i].needs);
	return 0;
}

/* batched@digits: the patches of the series applied */
static int batched_modifier(const char *text, char kind, const char *mod,
			    struct vt_strategy_spec *out, struct vt_error *err)
{
	(void)kind;
	if (!*mod)
		return vt_error_set(err, VT_ERR_BAD_STRATEGY,
				    "'%s': no patch numbers after '@'", text);
	for (const char *c = mod; *c; c++) {
		if (*c < '1' || *c > '8')
			return vt_error_set(err, VT_ERR_BAD_STRATEGY,
					    "'%s': patch '%c' is not 1-8", text, *c);
		if (out->patches & (1u << (*c - '0')))
			return vt_error_set(err, VT_ERR_BAD_STRATEGY,
					    "'%s': patch %c given twice", text, *c);
		out->patches |= 1u << (*c - '0');
	}
	return check_patches(out->patches, err);
}

/* bare "batched": all eight patches */
static void batched_spec_default(struct vt_strategy_spec *out)
{
	out->patches = 0x1fe;
}

/* RFC 1/8 (num_contig_ptes(), arch_make_huge_pte()) and 2/8
 * (arch_vmap_pte_range_map_size()) change arm64 */
static void batched_mm_opts(const struct vt_strategy_spec *spec,
			    struct arm64_mm_opts *o)
{
	o->patch1 = spec->patches & (1u << 1);
	o->patch2 = spec->patches & (1u << 2);
}

const struct vt_strategy vt_strategy_batched = {
	.name = "batched",
	.summary = "Barry Song's RFC 1-8: N x CONT_PTE batches, one walk per run of equal order",
	.origin = "[RFC PATCH 0/8] mm/vmalloc: Speed up ioremap, vmalloc and vmap with contiguous memory (2026-04-08)",
	.in_default = true,
	.huge_vmalloc = true,
	.modifier_help = "@patches",
	.modifier = batched_modifier,
	/* each set adds one patch and satisfies the dependency rules of
	 * strategies.md 1, which batched_modifier() enforces anyway */
	.ablation = "batched@1,batched@12,batched@123,batched@1234,"
		    "batched@12345,batched@123456,batched@1234567,"
		    "batched@12345678",
	.spec_default = batched_spec_default,
	.mm_opts = batched_mm_opts,
	.vmap = batched_vmap,
	.vmap_pages_range = batched_vmap_pages_range,
};
