/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Creation of the kernel linear map: map_mem() -> __map_memblock() ->
 * __create_pgd_mapping() of arch/arm64/mm/mmu.c with early_pgtable_alloc(),
 * in the four versions of the 2024 linear-map series (Ryan Roberts):
 *
 *   ARM64_LINEAR_OLD   before 5c63db59c5f8 (v6.9): every table page is
 *                      zeroed through FIX_PTE at allocation; PMD tables are
 *                      fixmapped once per CONT_PMD sub-range (init_pmd()),
 *                      PTE tables once per CONT_PTE sub-range (init_pte());
 *                      every PTE store is set_pte(): store + dsb ishst + isb
 *   ARM64_LINEAR_P1    5c63db59c5f8 "Don't remap pgtables per-cont(pte|pmd)
 *                      block": each table fixmapped once per population
 *   ARM64_LINEAR_P1P2  + 1fcb7cea8a5f "Batch dsb and isb when populating
 *                      pgtables": init_pte() stores with set_pte_nosync(),
 *                      the fixmap clear publishes the table
 *   ARM64_LINEAR_NEW   + 0e9df1c905d8 "Don't remap pgtables for allocate vs
 *                      populate", as in linux-mm/linux-mm @ 0118174d4e1c:
 *                      the walker maps a new table once, zeroes it with
 *                      init_clear_pgtable() and populates through that map
 *
 * Only arch/ headers are included here.
 */
#ifndef VT_ARM64_LINEAR_MAP_H
#define VT_ARM64_LINEAR_MAP_H

#include <stdint.h>

#include "arch/arm64/arm64.h"

enum arm64_linear_variant {
	ARM64_LINEAR_OLD,
	ARM64_LINEAR_P1,
	ARM64_LINEAR_P1P2,
	ARM64_LINEAR_NEW,
};

/* The flags of arch/arm64/mm/mmu.c, same bit values. */
#define ARM64_NO_BLOCK_MAPPINGS	(1u << 0)
#define ARM64_NO_CONT_MAPPINGS	(1u << 1)
#define ARM64_NO_EXEC_MAPPINGS	(1u << 2)	/* PXNTable on table entries */

/* Errors besides -ENOMEM. */
#define ARM64_LINEAR_EMISALIGNED	(-22)	/* WARN_ON((phys ^ virt) & ~PAGE_MASK): nothing mapped */
#define ARM64_LINEAR_EBUG		(-17)	/* the kernel would hit a BUG_ON() */

/* pgprot_tagged(PAGE_KERNEL): the protection map_mem() uses. */
uint64_t arm64_linear_prot(const struct arm64_geom *g);

/*
 * ARM64_MEMSTART_ALIGN (asm/kernel-pgtable.h): memstart_addr, the
 * PHYS_OFFSET of the linear map, is the start of DRAM rounded down to
 * PUD_SIZE (4K), CONT_PMD_SIZE (16K) or PMD_SIZE (64K), at least the
 * sparsemem section size (2^27, 2^29 on 64K).
 */
uint64_t arm64_memstart_align(const struct arm64_geom *g);

/* __phys_to_virt(): PAGE_OFFSET + (phys - PHYS_OFFSET); KASLR's
 * randomisation of the linear region is not modelled. */
static inline uint64_t arm64_linear_virt(const struct arm64_geom *g,
					 uint64_t memstart, uint64_t phys)
{
	return g->page_offset + (phys - memstart);
}

/* Bytes of the linear region: [PAGE_OFFSET, PAGE_END). */
uint64_t arm64_linear_size(const struct arm64_geom *g);

/*
 * __create_pgd_mapping(swapper_pg_dir, phys, virt, size, prot,
 * early_pgtable_alloc, flags) at boot (rodata_is_rw, outside lazy MMU
 * mode).  Counts into mm->st: table_walks, walk_steps, tables_allocated,
 * descriptor stores by level, cont_ranges, block_maps, fixmap_maps,
 * fixmap_stores, tlbi, dsb, isb.  tlb_entries is not charged: it
 * measures the vmalloc-area mappings; the leaves' TLB entries go to
 * mm->lin_tlb_units (linear_tlb_entries).  Returns 0, -ENOMEM,
 * ARM64_LINEAR_EMISALIGNED or ARM64_LINEAR_EBUG (tables may then be
 * partly written, as the kernel would have stopped there).
 */
int arm64___create_pgd_mapping(struct arm64_mm *mm, enum arm64_linear_variant v,
			     uint64_t phys, uint64_t virt, uint64_t size,
			     uint64_t prot, unsigned int flags);

/*
 * --verify for a linear range: walk the tables over [virt, virt + size)
 * and count the pages that do not translate to phys + offset with the
 * attributes @prot (PTE_CONT and the descriptor type aside).  *first_va
 * gets the first such page.
 */
uint64_t arm64_linear_verify(const struct arm64_mm *mm, uint64_t phys,
			     uint64_t virt, uint64_t size, uint64_t prot,
			     uint64_t *first_va);

#endif
