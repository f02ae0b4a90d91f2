// SPDX-License-Identifier: GPL-2.0
/*
 * toy: a strategy that exists only in the test build vmaptool-toy, to show
 * that a strategy is one file plus one registry line (docs/architecture.md,
 * "Adding a strategy").  It maps as mainline booted with nohugevmalloc
 * does (the hooks pagewise uses), so its counts must equal pagewise's.
 */
#include "core/engine.h"

const struct vt_strategy vt_strategy_toy = {
	.name = "toy",
	.summary = "test-only: pagewise's hooks under another name",
	.origin = "tests/strategy/toy.c",
	.huge_vmalloc = false,
	.vmap = vt_vmap_mainline,
	.vmap_pages_range = vt___vmap_pages_range_noflush,
};
