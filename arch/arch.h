/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the generic mapping code (core/) sees of the architecture, as
 * mm/vmalloc.c sees it through include/linux/vmalloc.h, asm/vmalloc.h,
 * asm/pgtable.h and asm/tlbflush.h.  core/ includes this header and no
 * other under arch/ (a CI grep in .ci/run checks it); arch/ includes
 * nothing from core/ or cli/.  The one architecture modelled is arm64:
 * its mm, geometry, descriptors, counters and protections are in
 * arch/arm64/arm64.h and arch/arm64/counters.h.
 */
#ifndef VT_ARCH_H
#define VT_ARCH_H

#include "arch/arm64/arm64.h"
#include "arch/arm64/counters.h"
#include "arch/arm64/linear-map.h"	/* map_mem(): linear_map events */
#include "arch/arm64/runs.h"	/* the walkers' inline stores and clears */

/* The counters the arch model increments, by name (folded into the
 * engine's metrics of the same names). */
#define ARCH_COUNTERS(X) ARM64_COUNTERS(X)
#define ARCH_C(name) ARM64_C_##name
#define ARCH_C__NR ARM64_C__NR

/* Kernel names of the arch hooks the generic walkers call. */
static inline uint64_t arch_vmap_pte_range_map_size(const struct arm64_mm *mm,
		uint64_t addr, uint64_t end, uint64_t pfn, unsigned int max_page_shift)
{
	return arm64_vmap_pte_range_map_size(mm, addr, end, pfn, max_page_shift);
}
static inline unsigned int arch_vmap_pte_supported_shift(const struct arm64_mm *mm,
							 uint64_t size)
{
	return arm64_vmap_pte_supported_shift(mm, size);
}
static inline uint64_t arch_make_huge_pte(const struct arm64_mm *mm,
					  uint64_t entry, unsigned int shift)
{
	return arm64_make_huge_pte(mm, entry, shift);
}
static inline void arch_enter_lazy_mmu_mode(struct arm64_mm *mm)
{
	arm64_lazy_mmu_enable(mm);
}
static inline void arch_leave_lazy_mmu_mode(struct arm64_mm *mm)
{
	arm64_lazy_mmu_disable(mm);
}
static inline void flush_tlb_kernel_range(struct arm64_mm *mm, uint64_t start,
					  uint64_t end)
{
	arm64_flush_tlb_kernel_range(mm, start, end);
}
static inline void smp_wmb(struct arm64_mm *mm)
{
	arm64_smp_wmb(mm);
}

#endif
