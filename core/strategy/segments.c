// SPDX-License-Identifier: GPL-2.0
/*
 * segments: Dev Jain's "arm64/perf: map AUX buffer with large pages"
 * (squashed diff of 2026-02-26 in the RFC thread).  A vmap with
 * VM_ALLOW_HUGE_VMAP (every vmap under :force) is placed at the largest
 * vm_shift() of its physically contiguous segments, with the area size
 * rounded up to it, and each segment is mapped by its own
 * vmap_pages_range() call.
 */
#include <string.h>

#include "core/mm/engine.h"

/* vm_shift() */
static unsigned int vt_vm_shift(struct vt_engine *e, uint64_t size)
{
	if (size >= e->mm.g.pmd_size)
		return e->mm.g.pmd_shift;
	return arch_vmap_pte_supported_shift(&e->mm, size);
}

/* Dev's __vmap_pages_range_noflush(): chunks over ALIGN_DOWN(nr, step),
 * a remainder by one page-array walk */
static int segments_vmap_pages_range(struct vt_engine *e, uint64_t addr,
				     uint64_t end, uint64_t idx,
				     unsigned int page_shift)
{
	const struct arm64_geom *g = &e->mm.g;
	uint64_t nr = (end - addr) >> g->page_shift;
	uint64_t step = 1ull << (page_shift - g->page_shift), i;

	if (page_shift == g->page_shift)
		return vt_vmap_small_pages_range_noflush(&e->w, addr, end,
				e->prot_kernel, idx, g->page_shift);
	for (i = 0; i < (nr & ~(step - 1)); i += step) {
		int err = vt_vmap_range_noflush(&e->w, addr, addr + (1ull << page_shift),
				vt_pages_pfn(&e->pages, idx + i) << g->page_shift,
				e->prot_kernel, page_shift);
		if (err)
			return err;
		addr += 1ull << page_shift;
	}
	if (!(nr & (step - 1)))
		return 0;
	return vt_vmap_small_pages_range_noflush(&e->w, addr, end, e->prot_kernel,
						 idx + i, g->page_shift);
}

static int segments_vmap(struct vt_engine *e, struct vt_area *a)
{
	const struct arm64_geom *g = &e->mm.g;
	uint64_t count = a->nr_pages, addr, i;
	unsigned int max_shift = g->page_shift;
	int err;

	if (!e->spec.force && !(a->flags & VT_FLAG(VM_ALLOW_HUGE_VMAP)))
		return vt_vmap_mainline(e, a);
	/* max_contiguous_stride_order(): first scan of the array */
	for (i = 0; i < count;) {
		uint64_t nr = vt_num_pages_contiguous(&e->pages, i, count - i);
		unsigned int s = vt_vm_shift(e, nr << g->page_shift);

		if (s > max_shift)
			max_shift = s;
		i += nr;
	}
	err = vt___get_vm_area_node(e, a, count << g->page_shift, 1ull << max_shift,
			     max_shift);
	if (err)
		return err;
	/* __vmap_huge(): second scan, one vmap_pages_range() per segment */
	addr = a->va_start;
	for (i = 0; i < count;) {
		uint64_t nr = vt_num_pages_contiguous(&e->pages, i, count - i);

		err = segments_vmap_pages_range(e, addr, addr + (nr << g->page_shift),
						i, vt_vm_shift(e, nr << g->page_shift));
		if (err)
			return err;
		i += nr;
		addr += nr << g->page_shift;
	}
	return 0;
}

/* segments:force: every vmap as if VM_ALLOW_HUGE_VMAP */
static int segments_modifier(const char *text, char kind, const char *mod,
			     struct vt_strategy_spec *out, struct vt_error *err)
{
	(void)kind;
	if (strcmp(mod, "force"))
		return vt_error_set(err, VT_ERR_BAD_STRATEGY,
				    "'%s': unknown modifier ':%s'", text, mod);
	out->force = true;
	return 0;
}

const struct vt_strategy vt_strategy_segments = {
	.name = "segments",
	.summary = "Dev Jain's alternative: per-segment mapping of VM_ALLOW_HUGE_VMAP vmaps",
	.origin = "Dev Jain, arm64/perf: map AUX buffer with large pages (RFC thread, 2026-02-26)",
	.in_default = true,
	.huge_vmalloc = true,
	.modifier_help = ":force",
	.modifier = segments_modifier,
	.vmap = segments_vmap,
	.vmap_pages_range = segments_vmap_pages_range,
};
