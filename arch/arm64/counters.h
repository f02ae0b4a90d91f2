/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the arm64 model counts: stores by table level, the setters' calls,
 * CONT ranges and blocks, table pages, TLB invalidations by kind and
 * barriers by kind, the fixmap round trips of set_swapper_pgd() and of the
 * linear-map builder, whose walks (linear-map.c) arch counts itself.  One
 * X-macro list; the engine folds these counters into its metrics by name
 * (core/stats.h lists the same names, a compile-time check in core).
 *
 * Every count goes through arm64_ctr() (ARM64_COUNT()), which also sets
 * the counter's bit in @touched: a clear bit means a zero counter, so the
 * engine folds an event's counts by visiting only the counters it moved
 * (core/mm/vmalloc.c fold_arch_counters()).  A bit may be set over a zero
 * counter (a count of 0); code that writes c[] in bulk sets the bits of
 * what it may have moved.
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
	uint32_t touched;	/* bit i: c[i] may be nonzero */
};
_Static_assert(ARM64_C__NR <= 32, "a touched bit per counter");

static inline uint64_t *arm64_ctr(struct arm64_counters *st, enum arm64_counter c)
{
	st->touched |= 1u << c;
	return &st->c[c];
}
/* ARM64_COUNT(st, dsb)++, ARM64_COUNT(st, pte_writes) += n */
#define ARM64_COUNT(st, x) (*arm64_ctr((st), ARM64_C_##x))

#endif
