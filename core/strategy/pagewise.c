// SPDX-License-Identifier: GPL-2.0
/*
 * pagewise: the mainline kernel booted with nohugevmalloc (vmap_allow_huge
 * false, mm/vmalloc.c @ 00cc00cd1fb6): every page array, vmalloc with
 * VM_ALLOW_HUGE_VMAP included, is mapped by one
 * vmap_small_pages_range_noflush() walk at PAGE_SHIFT.  ioremap unchanged.
 */
#include "core/mm/engine.h"

const struct vt_strategy vt_strategy_pagewise = {
	.name = "pagewise",
	.summary = "mainline with nohugevmalloc: one PTE per page in one walk",
	.origin = "mm/vmalloc.c (mainline, vmap_allow_huge = false)",
	.in_default = true,
	.huge_vmalloc = false,
	.vmap = vt_vmap_mainline,
	.vmap_pages_range = vt___vmap_pages_range_noflush,
};
