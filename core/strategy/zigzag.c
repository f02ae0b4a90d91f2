// SPDX-License-Identifier: GPL-2.0
/*
 * zigzag (alias mainline): the kernel as shipped (mm/vmalloc.c @
 * 00cc00cd1fb6).  vmap() maps page by page whatever the compound orders;
 * a huge vmalloc makes one complete vmap_range_noflush() walk per
 * 2^page_shift chunk.
 */
#include "core/mm/engine.h"

static const struct vt_strategy_alias aliases[] = {
	{ "mainline", "mm/vmalloc.c (mainline)" },
	{ NULL, NULL },
};

const struct vt_strategy vt_strategy_zigzag = {
	.name = "zigzag",
	.summary = "mainline as shipped: a full top-down walk per huge-vmalloc chunk",
	.origin = "mm/vmalloc.c __vmap_pages_range_noflush() (mainline)",
	.in_default = true,
	.huge_vmalloc = true,
	.aliases = aliases,
	.vmap = vt_vmap_mainline,
	.vmap_pages_range = vt___vmap_pages_range_noflush,
};
