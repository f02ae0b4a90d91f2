/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 kernel-mapping engine model: geometry (pgtable-hwdef.h, memory.h),
 * 64-bit descriptors (pgtable-prot.h), translation tables as real arrays of
 * descriptors, and the primitives the generic vmalloc code calls, each
 * counting its stores, barriers and TLB invalidations where the kernel
 * issues them.  Sources: linux-mm/linux-mm, see docs/model.md for commits.
 *
 * Levels are addressed by depth d = 0 (top, swapper_pg_dir) .. levels-1
 * (the PTE table).  The hardware level of depth d is 4 - levels + d.
 */
#ifndef VT_ARM64_H
#define VT_ARM64_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/arm64/counters.h"

#define ARM64_MAX_LEVELS 5

/* Linux names of a table, by hardware level + 1 (-1 .. 3). */
enum arm64_lname { ARM64_PGD, ARM64_P4D, ARM64_PUD, ARM64_PMD, ARM64_PTE };

struct arm64_geom {
	unsigned int page_shift, va_bits, levels;
	unsigned int bits_per_level;		/* PAGE_SHIFT - 3 */
	/* one spare slot: walkers index depth d + 1 below the PTE level */
	unsigned int shift[ARM64_MAX_LEVELS + 1]; /* VA bits an entry at depth d maps */
	uint64_t ptrs[ARM64_MAX_LEVELS + 1];	/* entries of a table at depth d */
	/* the walkers' per-level arithmetic: 1 << shift[d], ptrs[d] - 1 */
	uint64_t size[ARM64_MAX_LEVELS + 1], idx_mask[ARM64_MAX_LEVELS + 1];
	enum arm64_lname name[ARM64_MAX_LEVELS + 1]; /* table name at depth d */
	int pmd_depth;		/* depth of the PMD (hw level 2) table */
	int pud_depth;		/* depth of hw level 1, or -1 */
	uint64_t page_size;
	unsigned int pmd_shift, pud_shift;
	uint64_t pmd_size, pud_size;
	bool pud_block_ok;			/* pud_sect_supported(): 4K only */
	unsigned int cont_pte_shift, cont_pmd_shift;
	uint64_t cont_ptes, cont_pte_size, cont_pmds, cont_pmd_size;
	uint64_t ptrs_per_pte;			/* = MAX_DVM_OPS */
	unsigned int ioremap_max_order;		/* IOREMAP_MAX_ORDER (a shift) */
	unsigned int max_page_order;		/* MAX_PAGE_ORDER */
	bool lpa2;				/* 52-bit VA with 4K/16K */
	unsigned int pa_bits;
	/* the output address folds PA bits elsewhere (64K with 52-bit PA,
	 * LPA2); else it is the descriptor's bits under desc_mask */
	bool pa_fold;
	uint64_t desc_mask;
	uint64_t page_offset, vmalloc_start, vmalloc_end;
	uint64_t modules_vaddr;		/* MODULES_VADDR; MODULES_END = vmalloc_start */
	uint64_t vmemmap_start;		/* VMEMMAP_START */
};

/* Whether (granule, va_bits) is a Kconfig-valid pair; the one list of them. */
bool arm64_geom_valid(unsigned int page_shift, unsigned int va_bits);
/* 0, or -EINVAL if (granule, va_bits) is not a Kconfig-valid pair. */
int arm64_geom_init(struct arm64_geom *g, unsigned int page_shift,
		    unsigned int va_bits);
/* Name of a table level at depth d ("PGD", "P4D", "PUD", "PMD", "PTE"). */
const char *arm64_level_name(const struct arm64_geom *g, int d);

/* ---- descriptors (arch/arm64/include/asm/pgtable-hwdef.h, -prot.h) ---- */
#define PTE_VALID	(1ull << 0)
#define PTE_TYPE_MASK	(3ull << 0)
#define PTE_TYPE_PAGE	(3ull << 0)	/* level 3 */
#define PMD_TYPE_TABLE	(3ull << 0)	/* levels 0-2 */
#define PMD_TYPE_SECT	(1ull << 0)	/* block, levels 1-2 */
#define PTE_ATTRINDX(t)	((uint64_t)(t) << 2)
#define PTE_ATTRINDX_MASK (7ull << 2)
#define PTE_USER	(1ull << 6)
#define PTE_RDONLY	(1ull << 7)
#define PTE_SHARED	(3ull << 8)
#define PTE_AF		(1ull << 10)
#define PTE_NG		(1ull << 11)
#define PTE_GP		(1ull << 50)
#define PTE_WRITE	(1ull << 51)
#define PTE_CONT	(1ull << 52)
#define PTE_PXN		(1ull << 53)
#define PTE_UXN		(1ull << 54)
#define PTE_DIRTY	(1ull << 55)
#define PTE_SPECIAL	(1ull << 56)
#define PMD_TABLE_AF	(1ull << 10)
#define PMD_TABLE_PXN	(1ull << 59)
#define PMD_TABLE_UXN	(1ull << 60)

enum { MT_NORMAL, MT_NORMAL_TAGGED, MT_NORMAL_NC, MT_DEVICE_nGnRnE, MT_DEVICE_nGnRE };

/* The kernel's protections a vmalloc-area mapping uses (pgtable-prot.h). */
enum arm64_pgprot {
	ARM64_PAGE_KERNEL,		/* PAGE_KERNEL = PROT_NORMAL */
	ARM64_PAGE_KERNEL_RO,		/* PAGE_KERNEL_RO */
	ARM64_PAGE_KERNEL_EXEC,		/* PAGE_KERNEL_EXEC */
	ARM64_PAGE_KERNEL_NC,		/* pgprot_writecombine(PAGE_KERNEL) */
	ARM64_PROT_DEVICE_nGnRE,	/* PROT_DEVICE_nGnRE (ioremap) */
};

/* Descriptor attribute values for a protection. */
uint64_t arm64_prot_bits(const struct arm64_geom *g, enum arm64_pgprot prot);
/* __phys_to_pte_val(): output address bits for a PA (52-bit PA folding);
 * inline: the walkers and --verify use it for every page. */
static inline uint64_t arm64_pa_to_desc(const struct arm64_geom *g, uint64_t pa)
{
	if (!g->pa_fold)
		return pa & g->desc_mask;
	if (g->page_shift == 16)
		/* 64K, 52-bit PA: PTE_ADDR_LOW is bits [49:16] and PA[51:48]
		 * also goes to bits [15:12] (__phys_to_pte_val()) */
		return (pa & 0x0003ffffffff0000ull) | ((pa >> 36) & 0xf000ull);
	/* LPA2: PA[49:PS] in place, PA[51:50] in bits [9:8] */
	return (pa & ((1ull << 50) - 1) & ~(g->page_size - 1)) |
	       ((pa >> 42) & 0x300ull);
}
/* __pte_to_phys() */
static inline uint64_t arm64_desc_to_pa(const struct arm64_geom *g, uint64_t d)
{
	if (!g->pa_fold)
		return d & g->desc_mask;
	if (g->page_shift == 16)
		return (d & 0x0003ffffffff0000ull) | ((d & 0xf000ull) << 36);
	return (d & ((1ull << 50) - 1) & ~(g->page_size - 1) & ~0x3ffull) |
	       ((d & 0x300ull) << 42);
}
/* The bits of a descriptor that are not its output address. */
static inline uint64_t arm64_desc_attrs(const struct arm64_geom *g, uint64_t d)
{
	return d & ~arm64_pa_to_desc(g, arm64_desc_to_pa(g, d));
}
/* Whether the encoding has no PA folding: then arm64_pa_to_desc(pa) is
 * pa & arm64_desc_addr_mask() and consecutive pages differ by PAGE_SIZE. */
static inline bool arm64_desc_linear(const struct arm64_geom *g)
{
	return !g->pa_fold;
}
static inline uint64_t arm64_desc_addr_mask(const struct arm64_geom *g)
{
	return g->desc_mask;
}

static inline bool arm64_desc_valid(uint64_t d) { return d & PTE_VALID; }
static inline bool arm64_desc_table(uint64_t d) { return (d & PTE_TYPE_MASK) == PMD_TYPE_TABLE; }
static inline bool arm64_desc_block(uint64_t d) { return (d & PTE_TYPE_MASK) == PMD_TYPE_SECT; }

/* ---- the simulated init_mm -------------------------------------------- */

struct arm64_table;
struct arm64_runs;

enum { ARM64_TBL_NONE, ARM64_TBL_RUNS, ARM64_TBL_RUN0 };
union arm64_rslot {
	struct arm64_runs *list;	/* ARM64_TBL_RUNS */
	uint64_t run0;			/* ARM64_TBL_RUN0: entry 0 of the one run */
};

struct arm64_mm_opts {
	bool eager_barriers;	/* <= v6.15: a dsb+isb per valid kernel store */
	bool tlbi_range;	/* FEAT_TLBIRANGE */
	bool initial_empty;	/* every level starts empty and is counted */
	bool patch1;		/* Barry Song RFC 1/8: num_contig_ptes N x CONT */
	bool patch2;		/* RFC 2/8: arch_vmap_pte_range_map_size() N x CONT */
	bool rodata_rw;		/* boot time: swapper stores without fixmap */
	bool vmap_cont;		/* v6.16+: arch_vmap_pte_range_map_size() etc. */
	bool flush_per_page;	/* v6.12 flush_tlb_kernel_range(): no range ops */
	bool modules_128m;	/* 6.1: MODULES_VSIZE = SZ_128M, not SZ_2G */
	bool vmalloc_end_256m;	/* 6.1: VMALLOC_END = VMEMMAP_START - SZ_256M */
};

struct arm64_mm {
	struct arm64_geom g;
	struct arm64_mm_opts o;
	struct arm64_counters *st;	/* where counts go (set by the caller) */
	/* table pool: tables are ids; id -> descriptor array, or (tbl[id]
	 * NULL) a run table: sorted runs of valid leaves, each an arithmetic
	 * progression (entry first + k is desc0 + (k << page_shift)), every
	 * entry outside the runs none (arch/arm64/runs.c).  Its runs are a
	 * list (ARM64_TBL_RUNS), or the one run over the whole table that a
	 * linear map makes by the million, kept inline as its first leaf
	 * (ARM64_TBL_RUN0: no allocation, 8 bytes per table). */
	uint64_t **tbl;			/* per id, NULL if free or a run table */
	union arm64_rslot *runs;	/* per id, by tbl_kind */
	uint8_t *tbl_kind;		/* per id: ARM64_TBL_* */
	uint8_t *tbl_depth;		/* per id */
	uint32_t nr_tbl, cap_tbl;
	uint32_t *free_ids;
	uint32_t nr_free;
	uint32_t pgd;			/* id of swapper_pg_dir */
	uint64_t table_pa_base;
	/* lazy MMU mode (arch_enter/leave_lazy_mmu_mode, queue_pte_barriers) */
	bool lazy_active, lazy_pending;
	/* TLB-entry units of live leaves: a page = cont_ptes units, a CONT
	 * entry = 1 unit, a block = cont_ptes units */
	int64_t tlb_units, tlb_units_peak;
	/* the same units for the linear map's leaves (linear_tlb_entries) */
	int64_t lin_tlb_units, lin_tlb_units_peak;
};

/* swapper_pg_dir; unless o->initial_empty, with the tables a booted
 * kernel has over the module and vmalloc areas (arm64_booted_tables()). */
int arm64_mm_init(struct arm64_mm *mm, unsigned int page_shift,
		  unsigned int va_bits, const struct arm64_mm_opts *o);
void arm64_mm_release(struct arm64_mm *mm);

static inline uint64_t *arm64_table(const struct arm64_mm *mm, uint32_t id)
{
	return mm->tbl[id];
}
/*
 * A run of a run table: entries [first, first + len) are desc0 + (k <<
 * page_shift), k = 0 .. len - 1: valid leaves with the same attributes and
 * CONT state and consecutive output addresses (no carry out of the address
 * field: arm64_run_ok()).  A run table holds at most arm64_runs_max() of
 * them, sorted and disjoint, and is expanded into an array beyond.
 */
struct arm64_run {
	uint32_t first, len;
	uint64_t desc0;
};
struct arm64_runs {
	uint32_t nr, cap;
	struct arm64_run r[];
};
/* Entry @i of the run list @rs (binary search), after the index of the
 * first run that ends past @i. */
/* The first run that ends after entry @i (rs->nr if none); the walkers
 * go up a table, so the last run is tried first. */
static inline uint32_t arm64_runs_lower(const struct arm64_runs *rs, uint64_t i)
{
	uint32_t lo = 0, hi = rs->nr;

	if (!hi || (uint64_t)rs->r[hi - 1].first + rs->r[hi - 1].len <= i)
		return hi;
	if ((uint64_t)rs->r[0].first + rs->r[0].len > i)
		return 0;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if ((uint64_t)rs->r[mid].first + rs->r[mid].len <= i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static inline uint64_t arm64_runs_entry(const struct arm64_runs *rs, uint64_t i,
					 unsigned int page_shift)
{
	uint32_t r = arm64_runs_lower(rs, i);

	if (r == rs->nr || rs->r[r].first > i)
		return 0;
	return rs->r[r].desc0 + ((i - rs->r[r].first) << page_shift);
}
/* Whether table @id is a run table (no descriptor array). */
static inline bool arm64_is_run_table(const struct arm64_mm *mm, uint32_t id)
{
	return !mm->tbl[id] && mm->tbl_kind[id] != ARM64_TBL_NONE;
}
/* The runs of the run table @id and their number: its list, or @one
 * filled with its one whole-table run. */
static inline const struct arm64_run *arm64_table_runs(const struct arm64_mm *mm,
						       uint32_t id,
						       struct arm64_run *one,
						       uint32_t *nr)
{
	if (mm->tbl_kind[id] == ARM64_TBL_RUNS) {
		*nr = mm->runs[id].list->nr;
		return mm->runs[id].list->r;
	}
	*one = (struct arm64_run){ 0, (uint32_t)mm->g.ptrs[mm->tbl_depth[id]],
				   mm->runs[id].run0 };
	*nr = 1;
	return one;
}
/* Entry @i of table @id, a run table's produced on demand. */
static inline uint64_t arm64_entry(const struct arm64_mm *mm, uint32_t id,
				   uint64_t i)
{
	if (mm->tbl[id])
		return mm->tbl[id][i];
	if (mm->tbl_kind[id] == ARM64_TBL_RUN0)
		return mm->runs[id].run0 + (i << mm->g.page_shift);
	return arm64_runs_entry(mm->runs[id].list, i, mm->g.page_shift);
}
/* The extent of entry @i of table @id: *desc is entry i, and entries i ..
 * i + n - 1 (n returned, >= 1, within the table) are *desc + (k <<
 * page_shift) if *desc is valid, all none if it is 0.  An array's extent
 * is 1 entry. */
uint64_t arm64_entry_extent(const struct arm64_mm *mm, uint32_t id, uint64_t i,
			    uint64_t *desc);
/* Table id a table descriptor points at, or UINT32_MAX if not ours. */
static inline uint32_t arm64_desc_table_id(const struct arm64_mm *mm,
					   uint64_t desc)
{
	/* a PA below the pool wraps to an id far above nr_tbl */
	uint64_t id = (arm64_desc_to_pa(&mm->g, desc) - mm->table_pa_base) >>
		      mm->g.page_shift;

	if (id >= mm->nr_tbl || (!mm->tbl[id] && mm->tbl_kind[id] == ARM64_TBL_NONE))
		return UINT32_MAX;
	return (uint32_t)id;
}
static inline unsigned int arm64_index(const struct arm64_geom *g, int d, uint64_t va)
{
	return (va >> g->shift[d]) & g->idx_mask[d];
}
/* *_addr_end(): end of the entry at depth d containing addr, capped at end */
static inline uint64_t arm64_addr_end(const struct arm64_geom *g, int d,
				      uint64_t addr, uint64_t end)
{
	uint64_t b = (addr + g->size[d]) & ~(g->size[d] - 1);

	return (b - 1 < end - 1) ? b : end;
}

/* Allocate a zeroed table page for depth d (no counting); returns id. */
int arm64_table_alloc(struct arm64_mm *mm, int d, uint32_t *id);
void arm64_table_free(struct arm64_mm *mm, uint32_t id);
/* A last-level table whose every entry is a valid leaf, entry i being
 * @run0 + (i << page_shift) (same attributes and CONT state, consecutive
 * output addresses), kept as that one record (no counting).  Only where
 * arm64_desc_linear(); -EINVAL otherwise. */
int arm64_table_alloc_run(struct arm64_mm *mm, int d, uint64_t run0,
			  uint32_t *id);
/* An empty last-level table kept as runs (arm64_populate() of a PTE table
 * where arm64_desc_linear()); an array elsewhere. */
int arm64_table_alloc_runs(struct arm64_mm *mm, int d, uint32_t *id);
/* The descriptor array of table @id for writing: a run table is expanded
 * into one first.  NULL on -ENOMEM. */
uint64_t *arm64_table_mut(struct arm64_mm *mm, uint32_t id);
/* The most runs a run table keeps before it becomes an array. */
static inline uint32_t arm64_runs_max(const struct arm64_geom *g)
{
	return (uint32_t)(g->ptrs_per_pte / 16);
}
/* Whether entries desc0 + (k << page_shift), k < len, form a run: valid,
 * linear encoding, no carry out of the address field. */
static inline bool arm64_run_ok(const struct arm64_geom *g, uint64_t desc0,
				uint64_t len)
{
	uint64_t mask = arm64_desc_addr_mask(g);

	return (desc0 & PTE_VALID) && arm64_desc_linear(g) && len &&
	       (desc0 & mask) + ((len - 1) << g->page_shift) <= mask;
}

/* ---- barriers and TLB maintenance (asm/barrier.h, asm/tlbflush.h) ---- */
/* emit_pte_barriers(): dsb ishst; isb (inline: the walkers' every table) */
static inline void arm64_emit_pte_barriers(struct arm64_mm *mm)
{
	ARM64_COUNT(mm->st, dsb)++;
	ARM64_COUNT(mm->st, dsb_ishst)++;
	ARM64_COUNT(mm->st, isb)++;
}
/* queue_pte_barriers(): deferred while the lazy MMU mode is active (v6.16+) */
static inline void arm64_queue_pte_barriers(struct arm64_mm *mm)
{
	if (mm->lazy_active)
		mm->lazy_pending = true;
	else
		arm64_emit_pte_barriers(mm);
}
/* lazy_mmu_mode_enable(): a no-op before v6.16 (eager barrier model) */
static inline void arm64_lazy_mmu_enable(struct arm64_mm *mm)
{
	if (!mm->o.eager_barriers)
		mm->lazy_active = true;
}
/* lazy_mmu_mode_disable(): one pair if a valid entry was queued */
static inline void arm64_lazy_mmu_disable(struct arm64_mm *mm)
{
	mm->lazy_active = false;
	if (mm->lazy_pending) {
		mm->lazy_pending = false;
		arm64_emit_pte_barriers(mm);
	}
}
void arm64_smp_wmb(struct arm64_mm *mm);		/* dmb ishst */
void arm64_flush_tlb_all(struct arm64_mm *mm);
void arm64_flush_tlb_kernel_range(struct arm64_mm *mm, uint64_t start, uint64_t end);
void arm64___flush_tlb_kernel_pgtable(struct arm64_mm *mm, uint64_t addr);
/* TLBIs flush_tlb_kernel_range() issues for @pages (no counting). */
uint64_t arm64_tlbi_range_count(const struct arm64_mm *mm, uint64_t start,
				uint64_t pages, bool *full);

/* ---- stores --------------------------------------------------------- */
/* Store a descriptor into a table at depth d (set_pmd/set_pud/set_p4d/
 * set_pgd), with set_swapper_pgd() for the top level.  Counts the store by
 * level and queues the barriers the kernel's setter emits. */
void arm64_set_entry(struct arm64_mm *mm, int d, uint64_t *p, uint64_t v);
/* Allocate and install a lower table under the none entry *p at depth d
 * (__pte_alloc_kernel/__pmd_alloc/... + *_populate()). */
int arm64_populate(struct arm64_mm *mm, int d, uint64_t *p);
/* set_pte_at(&init_mm, ...) for one entry. */
void arm64_set_pte_at(struct arm64_mm *mm, uint64_t *ptep, uint64_t pte);
/* set_ptes()-style batch of the per-page loop of vmap_pages_pte_range()
 * over physically contiguous pages: set_pte_at() of pa(pfn + j) | prot into
 * the none entries ptep[0..n), in order, stopping at the first entry that
 * is not none.  Returns the entries written; counts as that many
 * set_pte_at() calls would. */
uint64_t arm64_set_ptes(struct arm64_mm *mm, uint64_t *ptep, uint64_t pfn,
			uint64_t n, uint64_t prot);
/* num_contig_ptes(): entries and stride for a huge size. */
uint64_t arm64_num_contig_ptes(const struct arm64_mm *mm, uint64_t size,
			       uint64_t *pgsize);
/* arch_make_huge_pte(entry, shift). */
uint64_t arm64_make_huge_pte(const struct arm64_mm *mm, uint64_t entry,
			     unsigned int shift);
/* set_huge_pte_at(&init_mm, addr, ptep, pte, size); returns slots written. */
uint64_t arm64_set_huge_pte_at(struct arm64_mm *mm, uint64_t addr,
			       uint64_t *ptep, uint64_t pte, uint64_t size);
/* pmd_set_huge()/pud_set_huge(): 1 if a block was stored. */
int arm64_set_huge_block(struct arm64_mm *mm, int d, uint64_t *p,
			 uint64_t phys, uint64_t prot);
/* pmd_free_pte_page()/pud_free_pmd_page(). */
int arm64_free_lower_table(struct arm64_mm *mm, int d, uint64_t *p, uint64_t addr);
/* pmd_clear_huge()/pud_clear_huge(): 1 if a leaf was cleared. */
int arm64_clear_huge(struct arm64_mm *mm, int d, uint64_t *p);
/* The kernel's per-level names of the three above (mmu.c). */
int arm64_pmd_set_huge(struct arm64_mm *mm, uint64_t *pmdp, uint64_t phys,
		       uint64_t prot);
int arm64_pud_set_huge(struct arm64_mm *mm, uint64_t *pudp, uint64_t phys,
		       uint64_t prot);
int arm64_pmd_free_pte_page(struct arm64_mm *mm, uint64_t *pmdp, uint64_t addr);
int arm64_pud_free_pmd_page(struct arm64_mm *mm, uint64_t *pudp, uint64_t addr);
/* ptep_get_and_clear(): returns the old entry. */
uint64_t arm64_ptep_get_and_clear(struct arm64_mm *mm, uint64_t *ptep);
/* n x ptep_get_and_clear() of ptep[0..n), counted once. */
void arm64_ptes_get_and_clear(struct arm64_mm *mm, uint64_t *ptep, uint64_t n);
/* The first of ptep[0..n) that is a valid PTE_CONT entry, or n. */
static inline uint64_t arm64_first_cont(const uint64_t *ptep, uint64_t n)
{
	uint64_t acc = 0, i;

	for (i = 0; i < n; i++)		/* branch-free: the common answer is n */
		acc |= ptep[i] & (ptep[i] << 52) & PTE_CONT;
	if (!acc)
		return n;
	for (i = 0; !((ptep[i] & PTE_VALID) && (ptep[i] & PTE_CONT)); i++)
		;
	return i;
}
/*
 * The same primitives on entry @i of the last-level table @id (the walkers
 * call these): a run table keeps its runs (arch/arm64/runs.c), cut where a
 * store or clear lands inside one, and falls back to an array
 * (arm64_table_mut()) for what runs cannot hold; an array goes to the
 * primitives above.  The counts are theirs exactly.  0 or -ENOMEM.  The
 * walkers' two commonest, arm64_runs_set_ptes() and
 * arm64_tbl_clear_to_cont(), are inline in arch/arm64/runs.h.
 */
int arm64_tbl_set_pte_at(struct arm64_mm *mm, uint32_t id, uint64_t i,
			 uint64_t pte);
int arm64_tbl_set_huge_pte_at(struct arm64_mm *mm, uint32_t id, uint64_t i,
			      uint64_t addr, uint64_t pte, uint64_t size);
/* @k set_huge_pte_at() of @size one after the other from entry @i, call j
 * storing pte + j * size of output at addr + j * size. */
int arm64_tbl_set_huge_ptes(struct arm64_mm *mm, uint32_t id, uint64_t i,
			    uint64_t addr, uint64_t pte, uint64_t size, uint64_t k);
int arm64_tbl_ptes_get_and_clear(struct arm64_mm *mm, uint32_t id, uint64_t i,
				 uint64_t n);
int arm64_tbl_huge_ptep_get_and_clear(struct arm64_mm *mm, uint32_t id,
				      uint64_t i, uint64_t size);
/* arm64_first_cont() of entries [i, i + n) of table @id; when that is 0
 * (entry i a valid CONT entry), *ext is arm64_entry_extent()'s of i. */
uint64_t arm64_tbl_first_cont(const struct arm64_mm *mm, uint32_t id,
			      uint64_t i, uint64_t n, uint64_t *ext);
/* Internal to arch/arm64: the counts of the stores above, without the
 * stores (pgtable.c, which calls nothing of runs.c). */
void arm64_count_set_pte(struct arm64_mm *mm, uint64_t pte);
void arm64_count_huge_stores(struct arm64_mm *mm, uint64_t pte, uint64_t n,
			     uint64_t pgsize, uint64_t calls);
void arm64_count_clears(struct arm64_mm *mm, uint64_t n, uint64_t nv, uint64_t nc);
/* huge_ptep_get_and_clear(&init_mm, addr, ptep, size). */
uint64_t arm64_huge_ptep_get_and_clear(struct arm64_mm *mm, uint64_t *ptep,
				       uint64_t size);
/* arch_vmap_pte_range_map_size() (v6.16+; RFC 2/8 with o.patch2). */
uint64_t arm64_vmap_pte_range_map_size(const struct arm64_mm *mm, uint64_t addr,
				       uint64_t end, uint64_t pfn,
				       unsigned int max_page_shift);
/* arch_vmap_pte_supported_shift() (v6.16+). */
unsigned int arm64_vmap_pte_supported_shift(const struct arm64_mm *mm,
					    uint64_t size);

/* TLB-entry bookkeeping for tlb_entries. */
static inline void arm64_tlb_add(struct arm64_mm *mm, int64_t units)
{
	mm->tlb_units += units;
	if (mm->tlb_units > mm->tlb_units_peak)
		mm->tlb_units_peak = mm->tlb_units;
}
/* n set_pte_at() of valid kernel entries (arm64_set_ptes()) */
static inline void arm64_count_set_ptes(struct arm64_mm *mm, uint64_t n)
{
	ARM64_COUNT(mm->st, pte_writes) += n;
	ARM64_COUNT(mm->st, set_pte_at_calls) += n;
	arm64_tlb_add(mm, (int64_t)(n * mm->g.cont_ptes));
	if (n) {
		if (mm->o.eager_barriers) {
			ARM64_COUNT(mm->st, dsb) += n;
			ARM64_COUNT(mm->st, dsb_ishst) += n;
			ARM64_COUNT(mm->st, isb) += n;
		} else {
			mm->lazy_pending = true;
		}
	}
}


/* ---- translation and its checks (translate.c, verify.c, shape.c,
 * ptdump.c): they read the tables and count nothing ---- */
struct arm64_xlat {
	uint64_t pa;
	uint64_t desc;
	int depth;		/* depth of the leaf */
	bool cont;
};
/* The PTE table the walk for @va reaches (and @va's index in it), or NULL
 * if a level above faults or holds a block. */
const uint64_t *arm64_pte_table(const struct arm64_mm *mm, uint64_t va,
				unsigned int *idx);
/* The id of the PTE table the walk for @va reaches, or UINT32_MAX. */
uint32_t arm64_pte_table_id(const struct arm64_mm *mm, uint64_t va);
/* Walk the tables as the MMU does; 0 or -EFAULT (translation fault). */
int arm64_translate(const struct arm64_mm *mm, uint64_t va, struct arm64_xlat *x);
/* Contiguous-hint invariants over [start, end): every entry of an aligned
 * CONT group set, output addresses contiguous and aligned, same
 * attributes.  Returns the number of broken groups; *first_va the first. */
uint64_t arm64_check_cont(const struct arm64_mm *mm, uint64_t start,
			  uint64_t end, uint64_t *first_va);
/* --verify: pages of [va, va + n pages) that do not translate to pfn,
 * pfn + 1, ...; the first bad one's va, wanted and found PA (UINT64_MAX:
 * a translation fault) in *first_va, *want, *got. */
uint64_t arm64_verify_pages(const struct arm64_mm *mm, uint64_t va,
			    uint64_t pfn, uint64_t n, uint64_t *first_va,
			    uint64_t *want, uint64_t *got);

/* Leaves covering [start, end), by kind. */
struct arm64_shape {
	uint64_t pte;		/* valid leaf PTEs */
	uint64_t pte_cont;	/* of which with PTE_CONT */
	uint64_t pmd_block;
	uint64_t pud_block;
};
void arm64_leaf_shape(const struct arm64_mm *mm, uint64_t start, uint64_t end,
		      struct arm64_shape *s);

/* ptdump (arch/arm64/mm/ptdump.c note_page()): maximal ranges of leaves
 * whose level, kind and attributes match and whose output is contiguous. */
struct arm64_ptdump_range {
	uint64_t va_start, va_end;
	uint64_t pa_start;
	int level;		/* depth of the leaf */
	const char *lvl_name;	/* "PGD", "PUD", "PMD", "PTE" */
	const char *kind;	/* "block", "cont", "page" */
	uint64_t attrs;		/* descriptor bits other than the address */
	uint64_t nr;		/* descriptors in this range */
};
int arm64_ptdump(const struct arm64_mm *mm,
		 int (*fn)(void *ctx, const struct arm64_ptdump_range *r),
		 void *ctx);

#endif
