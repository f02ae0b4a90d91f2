// SPDX-License-Identifier: GPL-2.0
/*
 * toy: a strategy that exists only in the test build vmaptool-toy, to show
 * that a strategy is one file plus one registry line (docs/architecture.md,
 * "Adding a strategy").  It maps as mainline booted with nohugevmalloc
 * does (the hooks pagewise uses), so its counts must equal pagewise's.
 *
 * With VT_TOY_EXTRA_TLBI=1 in the environment it is the deliberate
 * regression of tests/cli/test-ci-gate.sh: after each vmap() it flushes
 * the first page of the area once more (one more TLBI per vmap), so that
 * the gate must fail naming the trace, "toy" and "tlbi".
 */
#include <stdlib.h>

#include "core/mm/engine.h"

static int toy_vmap(struct vt_engine *e, struct vt_area *a)
{
	int ret = vt_vmap_mainline(e, a);
	const char *extra = getenv("VT_TOY_EXTRA_TLBI");

	if (!ret && extra && *extra == '1')
		flush_tlb_kernel_range(&e->mm, a->va_start,
				       a->va_start + (1ull << e->mm.g.page_shift));
	return ret;
}

const struct vt_strategy vt_strategy_toy = {
	.name = "toy",
	.summary = "test-only: pagewise's hooks under another name",
	.origin = "tests/strategy/toy.c",
	.huge_vmalloc = false,
	.vmap = toy_vmap,
	.vmap_pages_range = vt___vmap_pages_range_noflush,
};
