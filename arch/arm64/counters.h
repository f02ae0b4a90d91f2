/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the arm64 model counts: stores by table level, the setters' calls,
 * CONT ranges and blocks, table pages, TLB invalidations by kind and
 * barriers by kind, the fixmap round trips of set_swapper_pgd() and of the
 * linear-map builder, whose walks (linear-map.c) arch counts itself.  One
 * X-macro list; the engine folds these counters into its metrics by name
 * (core/stats.h lists the same names, a compile-time check in core).
 */
#ifndef VT_ARM64_COUNTERS_H
#define VT_ARM64_COUNTERS_H

#include <stdint.h>

#define ARM64_COUNTERS(X)                                          \
	X(pte_writes) X(pte_clears) X(pmd_writes) X(pud_writes)    \
	X(p4d_writes) X(pgd_writes) X(pmd_clears) X(pud_clears)    \
	X(p4d_clears) X(pgd_clears)                                \
	X(set_pte_at_calls) X(set_huge_pte_at_calls)               \
	X(cont_ranges) X(block_maps)                               \
	X(tables_allocated) X(tables_freed)                        \
	X(tlbi) X(tlbi_vaale1is) X(tlbi_vaae1is) X(tlbi_vmalle1is) \
	X(tlbi_rvaale1is) X(tlbi_vale1is)                          \
	X(dsb) X(dsb_ishst) X(dsb_ish) X(isb) X(dmb)               \
	X(fixmap_maps) X(fixmap_stores)                            \
	X(table_walks) X(walk_steps)

#define ARM64_C_ENUM(name) ARM64_C_##name,
enum arm64_counter { ARM64_COUNTERS(ARM64_C_ENUM) ARM64_C__NR };
#undef ARM64_C_ENUM

struct arm64_counters {
	uint64_t c[ARM64_C__NR];
};

#endif
