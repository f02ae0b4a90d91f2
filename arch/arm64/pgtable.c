// SPDX-License-Identifier: GPL-2.0
/*
 * The arm64 primitives the generic vmalloc code calls, each counting the
 * work where the kernel does it.  Models (linux-mm/linux-mm; commits in
 * docs/model.md): set_pte_at()/__set_ptes_anysz() and the setters in
 * arch/arm64/include/asm/pgtable.h, set_huge_pte_at(), num_contig_ptes(),
 * arch_make_huge_pte() and huge_ptep_get_and_clear() in
 * arch/arm64/mm/hugetlbpage.c, pmd/pud_set_huge(), pmd/pud_clear_huge(),
 * pmd_free_pte_page(), pud_free_pmd_page(), set_swapper_pgd() and
 * pgattr_change_is_safe() in arch/arm64/mm/mmu.c, the *_populate() of
 * asm/pgalloc.h, __pte_alloc_kernel()/__pmd_alloc() of mm/memory.c, and
 * arch_vmap_pte_range_map_size() of asm/vmalloc.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arm64/arm64.h"

#define ST(mm, x) ARM64_COUNT((mm)->st, x)

uint64_t arm64_prot_bits(const struct arm64_geom *g, enum arm64_pgprot prot)
{
	/* PROT_DEFAULT = PTE_TYPE_PAGE | PTE_MAYBE_NG | PTE_MAYBE_SHARED | PTE_AF;
	 * PTE_MAYBE_SHARED is 0 with LPA2 (bits 9:8 carry PA[51:50]). */
	uint64_t def = PTE_TYPE_PAGE | PTE_AF | (g->lpa2 ? 0 : PTE_SHARED);

	switch (prot) {
	case ARM64_PAGE_KERNEL_RO:	/* PAGE_KERNEL_RO */
		return def | PTE_PXN | PTE_UXN | PTE_RDONLY | PTE_ATTRINDX(MT_NORMAL);
	case ARM64_PAGE_KERNEL_EXEC: /* PAGE_KERNEL_EXEC */
		return def | PTE_UXN | PTE_WRITE | PTE_ATTRINDX(MT_NORMAL);
	case ARM64_PAGE_KERNEL_NC:	/* pgprot_writecombine(PAGE_KERNEL) */
		return def | PTE_PXN | PTE_UXN | PTE_WRITE | PTE_ATTRINDX(MT_NORMAL_NC);
	case ARM64_PROT_DEVICE_nGnRE:	/* PROT_DEVICE_nGnRE */
		return def | PTE_PXN | PTE_UXN | PTE_WRITE |
		       PTE_ATTRINDX(MT_DEVICE_nGnRE);
	case ARM64_PAGE_KERNEL:	/* PAGE_KERNEL = PROT_NORMAL */
	default:
		return def | PTE_PXN | PTE_UXN | PTE_WRITE | PTE_ATTRINDX(MT_NORMAL);
	}
}

/* ---- table pool -------------------------------------------------------- */

/* A free id, or a new one with no descriptor array yet. */
static int table_id(struct arm64_mm *mm, uint32_t *out)
{
	uint32_t id;

	if (mm->nr_free) {
		id = mm->free_ids[--mm->nr_free];
	} else {
		if (mm->nr_tbl == mm->cap_tbl) {
			/* the three arrays in step; arch/ is the lower floor and
			 * grows its own (core/alloc.h is above it) */
			uint32_t cap = mm->cap_tbl ? mm->cap_tbl * 2 : 64;
			uint64_t **t;
			union arm64_rslot *rl;
			uint8_t *dp, *kd;
			uint32_t *fr;

			if (!cap)
				return -ENOMEM;
			t = realloc(mm->tbl, cap * sizeof(*t));
			if (!t)
				return -ENOMEM;
			mm->tbl = t;
			dp = realloc(mm->tbl_depth, cap);
			if (!dp)
				return -ENOMEM;
			mm->tbl_depth = dp;
			fr = realloc(mm->free_ids, cap * sizeof(*fr));
			if (!fr)
				return -ENOMEM;
			mm->free_ids = fr;
			rl = realloc(mm->runs, cap * sizeof(*rl));
			if (!rl)
				return -ENOMEM;
			mm->runs = rl;
			kd = realloc(mm->tbl_kind, cap);
			if (!kd)
				return -ENOMEM;
			mm->tbl_kind = kd;
			mm->cap_tbl = cap;
		}
		id = mm->nr_tbl++;
		mm->tbl[id] = NULL;
		mm->runs[id].list = NULL;
		mm->tbl_kind[id] = ARM64_TBL_NONE;
	}
	*out = id;
	return 0;
}

int arm64_table_alloc(struct arm64_mm *mm, int d, uint32_t *out)
{
	uint64_t n = mm->g.ptrs[d] > mm->g.ptrs_per_pte ? mm->g.ptrs[d] : mm->g.ptrs_per_pte;
	uint32_t id;
	int err = table_id(mm, &id);

	if (err)
		return err;
	if (!mm->tbl[id]) {
		mm->tbl[id] = calloc(n, sizeof(uint64_t));
		if (!mm->tbl[id]) {
			mm->free_ids[mm->nr_free++] = id;
			return -ENOMEM;
		}
	}
	mm->tbl_depth[id] = d;
	*out = id;
	return 0;
}

int arm64_table_alloc_run(struct arm64_mm *mm, int d, uint64_t run0,
			  uint32_t *out)
{
	uint32_t id;
	int err;

	if (!(run0 & PTE_VALID) || d != (int)mm->g.levels - 1 ||
	    !arm64_desc_linear(&mm->g))
		return -EINVAL;
	err = table_id(mm, &id);
	if (err)
		return err;
	if (mm->tbl[id]) {
		/* a freed id keeps its (zeroed) array: fill it instead */
		for (uint64_t i = 0; i < mm->g.ptrs[d]; i++)
			mm->tbl[id][i] = run0 + (i << mm->g.page_shift);
	} else if (mm->tbl_kind[id] == ARM64_TBL_RUNS) {
		/* a freed run table keeps its list: one run in it */
		mm->runs[id].list->r[0] = (struct arm64_run){ 0, (uint32_t)mm->g.ptrs[d], run0 };
		mm->runs[id].list->nr = 1;
	} else {
		/* one run over the whole table: its first leaf, inline */
		mm->runs[id].run0 = run0;
		mm->tbl_kind[id] = ARM64_TBL_RUN0;
	}
	mm->tbl_depth[id] = d;
	*out = id;
	return 0;
}

int arm64_table_alloc_runs(struct arm64_mm *mm, int d, uint32_t *out)
{
	uint32_t id;
	int err;

	if (d != (int)mm->g.levels - 1 || !arm64_desc_linear(&mm->g))
		return arm64_table_alloc(mm, d, out);
	err = table_id(mm, &id);
	if (err)
		return err;
	/* a freed id's zeroed array goes: the table starts as no runs */
	free(mm->tbl[id]);
	mm->tbl[id] = NULL;
	if (mm->tbl_kind[id] == ARM64_TBL_RUNS) {
		mm->runs[id].list->nr = 0;	/* a freed run table's list */
	} else {
		struct arm64_runs *rs = malloc(sizeof(*rs) + 4 * sizeof(rs->r[0]));

		if (!rs) {
			mm->free_ids[mm->nr_free++] = id;
			return -ENOMEM;
		}
		rs->nr = 0;
		rs->cap = 4;
		mm->runs[id].list = rs;
		mm->tbl_kind[id] = ARM64_TBL_RUNS;
	}
	mm->tbl_depth[id] = d;
	*out = id;
	return 0;
}

uint64_t *arm64_table_mut(struct arm64_mm *mm, uint32_t id)
{
	struct arm64_run one;
	const struct arm64_run *r;
	uint32_t nr;
	uint64_t n, *t;

	if (mm->tbl[id] || mm->tbl_kind[id] == ARM64_TBL_NONE)
		return mm->tbl[id];
	n = mm->g.ptrs[mm->tbl_depth[id]];
	if (n < mm->g.ptrs_per_pte)
		n = mm->g.ptrs_per_pte;
	t = calloc(n, sizeof(uint64_t));
	if (!t)
		return NULL;
	r = arm64_table_runs(mm, id, &one, &nr);
	for (uint32_t x = 0; x < nr; x++)
		for (uint64_t k = 0; k < r[x].len; k++)
			t[r[x].first + k] = r[x].desc0 + (k << mm->g.page_shift);
	mm->tbl[id] = t;
	if (mm->tbl_kind[id] == ARM64_TBL_RUNS)
		mm->runs[id].list->nr = 0;	/* kept for a later run table */
	else
		mm->tbl_kind[id] = ARM64_TBL_NONE;
	return t;
}

void arm64_table_free(struct arm64_mm *mm, uint32_t id)
{
	uint64_t n = mm->g.ptrs[mm->tbl_depth[id]];

	if (n < mm->g.ptrs_per_pte)
		n = mm->g.ptrs_per_pte;
	/* GFP_PGTABLE_KERNEL pages are zeroed when allocated; keeping the
	 * array zeroed here lets the pool hand it out again without a malloc */
	if (mm->tbl[id])
		memset(mm->tbl[id], 0, n * sizeof(uint64_t));
	if (mm->tbl_kind[id] == ARM64_TBL_RUNS)
		mm->runs[id].list->nr = 0;
	else
		mm->tbl_kind[id] = ARM64_TBL_NONE;
	mm->free_ids[mm->nr_free++] = id;
}

static uint64_t table_desc(const struct arm64_mm *mm, uint32_t id)
{
	uint64_t pa = mm->table_pa_base + ((uint64_t)id << mm->g.page_shift);

	/* pmd_populate_kernel()/pud_populate()/p4d_populate() for init_mm */
	return arm64_pa_to_desc(&mm->g, pa) | PMD_TYPE_TABLE | PMD_TABLE_AF |
	       PMD_TABLE_UXN;
}

/* Every table from swapper_pg_dir down to the PMD table whose range holds
 * @va, allocated where missing, without counting (boot time). */
static int booted_chain(struct arm64_mm *mm, uint64_t va)
{
	uint32_t tid = mm->pgd;

	for (int d = 0; d < mm->g.pmd_depth; d++) {
		unsigned int i = arm64_index(&mm->g, d, va);
		uint32_t child;
		int err;

		if (!mm->tbl[tid][i]) {
			err = arm64_table_alloc(mm, d + 1, &child);
			if (err)
				return err;
			/* arm64_table_alloc() may move mm->tbl: index again */
			mm->tbl[tid][i] = table_desc(mm, child);
		}
		tid = arm64_desc_table_id(mm, mm->tbl[tid][i]);
	}
	return 0;
}

/*
 * --initial=booted: the tables swapper_pg_dir has over the module and
 * vmalloc areas when the kernel has booted (nokaslr), before any
 * vmalloc-area mapping of a trace.  Three things map there during boot:
 *
 * - The kernel image at KIMAGE_VADDR = MODULES_END = VMALLOC_START
 *   (arch/arm64/include/asm/memory.h, linux-mm @ 590430501fd6):
 *   early_map_kernel() -> map_kernel() -> map_segment()
 *   (arch/arm64/kernel/pi/map_kernel.c, linux-mm @ 47729a9d66f7) maps its
 *   segments, 64 KiB aligned, with PMD blocks and PTE tables under one PMD
 *   table, and copies the root into swapper_pg_dir.  The image (tens of
 *   MiB) lies in the entry holding KIMAGE_VADDR at every level above the
 *   PMD tables: the smallest such entry, a 4K PUD entry, spans 1 GiB and
 *   KIMAGE_VADDR is 1 GiB aligned.
 * - The vmemmap: vmemmap_populate() maps the struct pages of memory, the
 *   first of them at VMEMMAP_START (vmemmap = VMEMMAP_START -
 *   (memstart_addr >> PAGE_SHIFT)); an upper entry holding VMEMMAP_START
 *   can also hold the top of the vmalloc area (VMALLOC_END = VMEMMAP_START
 *   - SZ_8M).  The fixmap and PCI I/O regions lie above VMEMMAP_START, so an
 *   entry they share with the vmalloc area holds VMEMMAP_START too.
 *
 * - The modules the boot loads (init loads them before any workload):
 *   module_init_limits() (arch/arm64/kernel/module.c) puts
 *   module_direct_base at _end - SZ_128M without KASLR, so they sit just
 *   below KIMAGE_VADDR = MODULES_END, in the entry holding MODULES_END - 1
 *   (a recorded arm64 kernel had the PMD table there: the execmem areas of
 *   tests/data/recordings/fix256_x10.trace.dat took no __pmd_alloc()).
 *
 * Every other entry is none until a walk populates it and pays for the
 * table: vmap_try_huge_pud()/vmap_try_huge_pmd() (mm/vmalloc.c, linux-mm
 * @ e7e1a07bffed) call pud_free_pmd_page()/pmd_free_pte_page() only when
 * the entry is present.  Early ioremaps use the fixmap; the areas the
 * kernel vmallocs and ioremaps while booting sit under the image's PMD
 * table (their PTE tables are not modelled: vmaptool's areas start at
 * VMALLOC_START, docs/model.md).
 */
static int arm64_booted_tables(struct arm64_mm *mm)
{
	int err = booted_chain(mm, mm->g.vmalloc_start);

	if (!err)
		err = booted_chain(mm, mm->g.vmalloc_start - 1);	/* MODULES_END - 1 */
	return err ? err : booted_chain(mm, mm->g.vmemmap_start);
}

int arm64_mm_init(struct arm64_mm *mm, unsigned int ps, unsigned int va,
		  const struct arm64_mm_opts *o)
{
	int err;

	memset(mm, 0, sizeof(*mm));
	err = arm64_geom_init(&mm->g, ps, va);
	if (err)
		return err;
	mm->o = *o;
	/* 6.1's MODULES_VSIZE = SZ_128M (asm/memory.h): MODULES_END =
	 * KIMAGE_VADDR = VMALLOC_START sits 128 MiB above MODULES_VADDR */
	if (o->modules_128m)
		mm->g.vmalloc_start = mm->g.modules_vaddr + (128ull << 20);
	/* 6.1's VMEMMAP_START = -(1 << (VA_BITS - VMEMMAP_SHIFT)), VMEMMAP_SHIFT
	 * = PAGE_SHIFT - STRUCT_PAGE_MAX_SHIFT (6), and VMALLOC_END =
	 * VMEMMAP_START - SZ_256M (asm/memory.h, pgtable.h, unifreq/linux-6.1.y
	 * @ 525d1212a677) */
	if (o->vmalloc_end_256m) {
		mm->g.vmemmap_start = 0 - (1ull << (va - (ps - 6)));
		mm->g.vmalloc_end = mm->g.vmemmap_start - (256ull << 20);
	}
	/* Simulated table pages live at PA 2^46 upwards: their addresses only
	 * link descriptors to arrays and never alias a trace's pfns in a
	 * translation (table descriptors are never leaves). */
	mm->table_pa_base = 1ull << 46;
	err = arm64_table_alloc(mm, 0, &mm->pgd);
	if (!err && !o->initial_empty)
		err = arm64_booted_tables(mm);
	/* 6.1's fixmap sits between VMALLOC_END and VMEMMAP_START (FIXADDR_TOP
	 * = VMEMMAP_START - SZ_32M): early_fixmap_init() (arch/arm64/mm/mmu.c)
	 * populates the tables down to the PMD table holding it, which the
	 * entries over the top of the vmalloc area share */
	if (!err && !o->initial_empty && o->vmalloc_end_256m)
		err = booted_chain(mm, mm->g.vmemmap_start - (32ull << 20) - 1);
	if (err)
		arm64_mm_release(mm);
	return err;
}

void arm64_mm_release(struct arm64_mm *mm)
{
	for (uint32_t i = 0; i < mm->nr_tbl; i++) {
		free(mm->tbl[i]);
		if (mm->tbl_kind[i] == ARM64_TBL_RUNS)
			free(mm->runs[i].list);
	}
	free(mm->tbl);
	free(mm->tbl_depth);
	free(mm->tbl_kind);
	free(mm->runs);
	free(mm->free_ids);
	memset(mm, 0, sizeof(*mm));
}

/* ---- barriers (the lazy-MMU ones inline in arm64.h) ------------------------- */

void arm64_smp_wmb(struct arm64_mm *mm)
{
	ST(mm, dmb)++;
}

/* ---- stores ---------------------------------------------------------------- */

static const enum arm64_counter write_ctr[] = {
	[ARM64_PGD] = ARM64_C_pgd_writes, [ARM64_P4D] = ARM64_C_p4d_writes,
	[ARM64_PUD] = ARM64_C_pud_writes, [ARM64_PMD] = ARM64_C_pmd_writes,
	[ARM64_PTE] = ARM64_C_pte_writes,
};
static const enum arm64_counter clear_ctr[] = {
	[ARM64_PGD] = ARM64_C_pgd_clears, [ARM64_P4D] = ARM64_C_p4d_clears,
	[ARM64_PUD] = ARM64_C_pud_clears, [ARM64_PMD] = ARM64_C_pmd_clears,
	[ARM64_PTE] = ARM64_C_pte_clears,
};

/*
 * set_swapper_pgd() (arch/arm64/mm/mmu.c): after boot swapper_pg_dir is
 * read-only, so the store goes through the FIX_PGD fixmap slot: map (one
 * fixmap PTE store + barrier pair), store, unmap (one fixmap PTE clear +
 * flush_tlb_kernel_range() of one page).  While rodata_is_rw: a plain
 * store + dsb ishst + isb.
 */
static void arm64_set_swapper_pgd(struct arm64_mm *mm, uint64_t *p, uint64_t v)
{
	if (mm->o.rodata_rw) {
		*p = v;
		arm64_emit_pte_barriers(mm);
		return;
	}
	ST(mm, fixmap_maps)++;
	ST(mm, fixmap_stores)++;
	arm64_emit_pte_barriers(mm);
	*p = v;
	ST(mm, fixmap_stores)++;
	arm64_flush_tlb_kernel_range(mm, 0, mm->g.page_size);
}

void arm64_set_entry(struct arm64_mm *mm, int d, uint64_t *p, uint64_t v)
{
	enum arm64_lname n = mm->g.name[d];

	(*arm64_ctr(mm->st, v ? write_ctr[n] : clear_ctr[n]))++;
	if (d == 0) {
		arm64_set_swapper_pgd(mm, p, v);
		return;
	}
	*p = v;
	/* set_pmd()/set_pud() queue barriers for valid values only; set_p4d()
	 * and set_pgd() always do */
	if ((v & PTE_VALID) || n == ARM64_P4D || n == ARM64_PGD)
		arm64_queue_pte_barriers(mm);
}

int arm64_populate(struct arm64_mm *mm, int d, uint64_t *p)
{
	uint32_t id;
	/* a PTE table starts as runs: the walkers store and clear runs */
	int err = arm64_table_alloc_runs(mm, d + 1, &id);

	if (err)
		return err;
	ST(mm, tables_allocated)++;
	/* __pte_alloc_kernel()/__pmd_alloc(): smp_wmb() before populating */
	arm64_smp_wmb(mm);
	arm64_set_entry(mm, d, p, table_desc(mm, id));
	return 0;
}

static bool pte_valid_kernel(uint64_t pte)
{
	/* pte_valid_not_user(): valid, and UXN set or USER clear */
	return (pte & PTE_VALID) && !(pte & PTE_USER);
}

static int64_t tlb_units_of(const struct arm64_mm *mm, uint64_t pte)
{
	return (pte & PTE_CONT) ? 1 : (int64_t)mm->g.cont_ptes;
}

void arm64_set_pte_at(struct arm64_mm *mm, uint64_t *ptep, uint64_t pte)
{
	*ptep = pte;
	arm64_count_set_pte(mm, pte);
}

void arm64_count_set_pte(struct arm64_mm *mm, uint64_t pte)
{
	ST(mm, set_pte_at_calls)++;
	if (!(pte & PTE_VALID))
		return;
	ST(mm, pte_writes)++;
	arm64_tlb_add(mm, tlb_units_of(mm, pte));
	if (pte_valid_kernel(pte))
		arm64_queue_pte_barriers(mm);
}

/*
 * The loop of vmap_pages_pte_range() (mm/vmalloc.c @ 00cc00cd1fb6) at
 * PAGE_SHIFT over a physically contiguous stretch of the page array: one
 * set_pte_at() per page; the counts are added once for the batch, as n
 * arm64_set_pte_at() calls of valid kernel entries would add them
 * (pte_valid_not_user(): the lazy-MMU pair is queued, or one pair per
 * entry with eager barriers, i.e. outside lazy mode).  One OR over the
 * slots checks they are none, then the stores, the descriptor of page j
 * being that of page 0 plus j pages when the encoding folds nothing.
 */
uint64_t arm64_set_ptes(struct arm64_mm *mm, uint64_t *ptep, uint64_t pfn,
			uint64_t n, uint64_t prot)
{
	const struct arm64_geom *g = &mm->g;
	const unsigned int ps = g->page_shift;
	uint64_t acc = 0, j;

	for (j = 0; j < n; j++)
		acc |= ptep[j];
	if (acc)	/* stop before the first entry that is not none */
		for (n = 0; !ptep[n]; n++)
			;
	if (arm64_desc_linear(g)) {
		const uint64_t mask = arm64_desc_addr_mask(g);

		for (j = 0; j < n; j++)
			ptep[j] = (((pfn + j) << ps) & mask) | prot;
	} else {
		for (j = 0; j < n; j++)
			ptep[j] = arm64_pa_to_desc(g, (pfn + j) << ps) | prot;
	}
	arm64_count_set_ptes(mm, n);
	return n;
}

uint64_t arm64_num_contig_ptes(const struct arm64_mm *mm, uint64_t size,
			       uint64_t *pgsize)
{
	const struct arm64_geom *g = &mm->g;

	*pgsize = size;
	if (size == g->cont_pmd_size) {
		*pgsize = g->pmd_size;
		return g->cont_pmds;
	}
	if (size == g->cont_pte_size) {
		*pgsize = g->page_size;
		return g->cont_ptes;
	}
	/* RFC 1/8: any multiple of CONT_PTE_SIZE below CONT_PMD_SIZE, which
	 * includes PMD_SIZE (the page_table_check BUG, strategies.md 4.10) */
	if (mm->o.patch1 && size > 0 && size < g->cont_pmd_size &&
	    !(size & (g->cont_pte_size - 1))) {
		*pgsize = g->page_size;
		return size >> g->page_shift;
	}
	return 1;
}

uint64_t arm64_make_huge_pte(const struct arm64_mm *mm, uint64_t entry,
			     unsigned int shift)
{
	const struct arm64_geom *g = &mm->g;
	uint64_t size = 1ull << shift;

	if (g->pud_block_ok && size == g->pud_size)
		return (entry & ~PTE_TYPE_MASK) | PMD_TYPE_SECT;
	if (size == g->cont_pmd_size)
		return (entry & ~PTE_TYPE_MASK) | PMD_TYPE_SECT | PTE_CONT;
	if (size == g->pmd_size)
		return (entry & ~PTE_TYPE_MASK) | PMD_TYPE_SECT;
	if (size == g->cont_pte_size)
		return entry | PTE_CONT;
	if (mm->o.patch1 && size < g->cont_pmd_size &&
	    !(size & (g->cont_pte_size - 1)))
		return entry | PTE_CONT;
	/* "unrecognized huge page size": entry unchanged */
	return entry;
}

uint64_t arm64_set_huge_pte_at(struct arm64_mm *mm, uint64_t addr,
			       uint64_t *ptep, uint64_t pte, uint64_t size)
{
	const struct arm64_geom *g = &mm->g;
	uint64_t pgsize, n = arm64_num_contig_ptes(mm, size, &pgsize);
	uint64_t stride = arm64_pa_to_desc(g, pgsize);

	ST(mm, set_huge_pte_at_calls)++;
	if (!(pte & PTE_VALID)) {
		for (uint64_t i = 0; i < n; i++)
			ptep[i] = pte;
		return n;
	}
	/* break-before-make only for valid -> valid CONT transitions */
	if ((pte & PTE_CONT) && (ptep[0] & PTE_VALID)) {
		for (uint64_t i = 0; i < n; i++)
			arm64_ptep_get_and_clear(mm, &ptep[i]);
		arm64_flush_tlb_kernel_range(mm, addr, addr + n * pgsize);
	}
	/* __set_ptes_anysz(): n stores, the output address advancing by
	 * pgsize, then one __set_pte_complete() (a pair per store before
	 * v6.16) */
	for (uint64_t i = 0; i < n; i++)
		ptep[i] = pte + i * stride;
	arm64_count_huge_stores(mm, pte, n, pgsize, 1);
	return n;
}

void arm64_count_huge_stores(struct arm64_mm *mm, uint64_t pte, uint64_t n,
			     uint64_t pgsize, uint64_t calls)
{
	const struct arm64_geom *g = &mm->g;

	ST(mm, pte_writes) += n * calls;
	if (pte & PTE_CONT) {
		if (pgsize == g->page_size)
			ST(mm, cont_ranges) += calls * (n / g->cont_ptes);
		else
			ST(mm, cont_ranges) += calls * (n / g->cont_pmds);
	}
	/* one add for the calls: they only add, so the peak is the same */
	arm64_tlb_add(mm, (int64_t)(n * calls) * tlb_units_of(mm, pte));
	if (pte_valid_kernel(pte)) {
		/* a pair per store with eager barriers; else one queued per
		 * call (emitted at once outside lazy mode) */
		uint64_t pairs = mm->o.eager_barriers ? n * calls :
				 mm->lazy_active ? 0 : calls;

		if (!mm->o.eager_barriers && mm->lazy_active)
			mm->lazy_pending = true;
		ST(mm, dsb) += pairs;
		ST(mm, dsb_ishst) += pairs;
		ST(mm, isb) += pairs;
	}
}

static bool is_normal_or_tagged(uint64_t d)
{
	uint64_t a = d & PTE_ATTRINDX_MASK;

	return a == PTE_ATTRINDX(MT_NORMAL) || a == PTE_ATTRINDX(MT_NORMAL_TAGGED);
}

/*
 * pgattr_change_is_safe(): creating or removing a mapping is always safe;
 * a live entry may only change permission-type bits.
 */
static bool arm64_pgattr_change_is_safe(const struct arm64_geom *g, uint64_t old,
				  uint64_t new)
{
	/* PTE_SWBITS_MASK = BIT(63) | GENMASK(58, 55) */
	uint64_t mask = PTE_PXN | PTE_RDONLY | PTE_WRITE | PTE_NG |
			(1ull << 63) | (0xfull << 55);

	if (!(old & PTE_VALID) || !(new & PTE_VALID))
		return true;
	if (arm64_desc_to_pa(g, old) != arm64_desc_to_pa(g, new))
		return false;
	if ((old | new) & PTE_CONT)
		return false;
	if (old & ~new & PTE_NG)
		return false;
	/* Normal <-> Normal-Tagged is a permission-type change */
	if (is_normal_or_tagged(old) && is_normal_or_tagged(new))
		mask |= PTE_ATTRINDX_MASK;
	return ((old ^ new) & ~mask) == 0;
}

int arm64_set_huge_block(struct arm64_mm *mm, int d, uint64_t *p,
			 uint64_t phys, uint64_t prot)
{
	uint64_t new = arm64_pa_to_desc(&mm->g, phys) |
		       (prot & ~PTE_TYPE_MASK) | PMD_TYPE_SECT;

	if (!arm64_pgattr_change_is_safe(&mm->g, *p, new))
		return 0;
	if (*p & PTE_VALID)
		arm64_tlb_add(mm, -(int64_t)mm->g.cont_ptes);
	arm64_set_entry(mm, d, p, new);
	ST(mm, block_maps)++;
	arm64_tlb_add(mm, (int64_t)mm->g.cont_ptes);
	return 1;
}

/* __pmd_free_pte_page(): clear, flush the walk cache, free the table */
static void free_pte_table(struct arm64_mm *mm, int d, uint64_t *p, uint64_t addr)
{
	uint32_t id = arm64_desc_table_id(mm, *p);

	arm64_set_entry(mm, d, p, 0);
	arm64___flush_tlb_kernel_pgtable(mm, addr);
	if (id != UINT32_MAX) {
		arm64_table_free(mm, id);
		ST(mm, tables_freed)++;
	}
}

int arm64_free_lower_table(struct arm64_mm *mm, int d, uint64_t *p, uint64_t addr)
{
	uint32_t id;
	uint64_t *t;

	if (!arm64_desc_table(*p))
		return 1;		/* VM_WARN_ON(1) */
	if (d == mm->g.pmd_depth) {
		free_pte_table(mm, d, p, addr);
		return 1;
	}
	/* pud_free_pmd_page(): every present PMD entry first, then the PUD */
	id = arm64_desc_table_id(mm, *p);
	if (id == UINT32_MAX)
		return 1;
	t = mm->tbl[id];
	for (uint64_t i = 0; i < mm->g.ptrs[d + 1]; i++)
		if ((t[i] & PTE_VALID) && arm64_desc_table(t[i]))
			free_pte_table(mm, d + 1, &t[i],
				       addr + (i << mm->g.shift[d + 1]));
	arm64_set_entry(mm, d, p, 0);
	arm64___flush_tlb_kernel_pgtable(mm, addr);
	arm64_table_free(mm, id);
	ST(mm, tables_freed)++;
	return 1;
}

int arm64_clear_huge(struct arm64_mm *mm, int d, uint64_t *p)
{
	if (!(*p & PTE_VALID) || !arm64_desc_block(*p))
		return 0;
	arm64_set_entry(mm, d, p, 0);
	arm64_tlb_add(mm, -(int64_t)mm->g.cont_ptes);
	return 1;
}

/* The kernel's per-level names of the three above (arch/arm64/mm/mmu.c). */
int arm64_pmd_set_huge(struct arm64_mm *mm, uint64_t *pmdp, uint64_t phys,
		       uint64_t prot)
{
	return arm64_set_huge_block(mm, mm->g.pmd_depth, pmdp, phys, prot);
}

int arm64_pud_set_huge(struct arm64_mm *mm, uint64_t *pudp, uint64_t phys,
		       uint64_t prot)
{
	return arm64_set_huge_block(mm, mm->g.pud_depth, pudp, phys, prot);
}

int arm64_pmd_free_pte_page(struct arm64_mm *mm, uint64_t *pmdp, uint64_t addr)
{
	return arm64_free_lower_table(mm, mm->g.pmd_depth, pmdp, addr);
}

int arm64_pud_free_pmd_page(struct arm64_mm *mm, uint64_t *pudp, uint64_t addr)
{
	return arm64_free_lower_table(mm, mm->g.pud_depth, pudp, addr);
}

uint64_t arm64_ptep_get_and_clear(struct arm64_mm *mm, uint64_t *ptep)
{
	uint64_t old = *ptep;

	*ptep = 0;
	ST(mm, pte_clears)++;
	if (old & PTE_VALID)
		arm64_tlb_add(mm, -tlb_units_of(mm, old));
	return old;
}

/*
 * __ptep_get_and_clear() of each of ptep[0..n): the entries cleared and the
 * TLB-entry units they held (1 for a PTE_CONT entry, CONT_PTES for
 * another, as tlb_units_of()) summed in one branch-free pass, the counts
 * added once.
 */
void arm64_ptes_get_and_clear(struct arm64_mm *mm, uint64_t *ptep, uint64_t n)
{
	uint64_t nv = 0, nc = 0;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t old = ptep[i];

		ptep[i] = 0;
		nv += old & PTE_VALID;
		nc += (old & (old << 52)) >> 52 & 1;	/* valid and CONT */
	}
	arm64_count_clears(mm, n, nv, nc);
}

void arm64_count_clears(struct arm64_mm *mm, uint64_t n, uint64_t nv, uint64_t nc)
{
	ST(mm, pte_clears) += n;
	arm64_tlb_add(mm, -((int64_t)(nv - nc) * (int64_t)mm->g.cont_ptes +
			    (int64_t)nc));
}

uint64_t arm64_huge_ptep_get_and_clear(struct arm64_mm *mm, uint64_t *ptep,
				       uint64_t size)
{
	uint64_t pgsize, n = arm64_num_contig_ptes(mm, size, &pgsize);
	uint64_t old = ptep[0];

	arm64_ptes_get_and_clear(mm, ptep, n);
	return old;
}

uint64_t arm64_vmap_pte_range_map_size(const struct arm64_mm *mm, uint64_t addr,
				       uint64_t end, uint64_t pfn,
				       unsigned int max_page_shift)
{
	const struct arm64_geom *g = &mm->g;
	uint64_t size, cap;

	if (!mm->o.vmap_cont)
		return g->page_size;	/* generic default before v6.16 */
	if (max_page_shift < g->cont_pte_shift)
		return g->page_size;
	if (end - addr < g->cont_pte_size)
		return g->page_size;
	if (addr & (g->cont_pte_size - 1))
		return g->page_size;
	if ((pfn << g->page_shift) & (g->cont_pte_size - 1))
		return g->page_size;
	if (!mm->o.patch2)
		return g->cont_pte_size;
	/* RFC 2/8: min3(end - addr, 1 << max_page_shift, PMD_SIZE >> 1),
	 * rounded down to a power of two */
	size = end - addr;
	cap = max_page_shift >= 63 ? UINT64_MAX : 1ull << max_page_shift;
	if (cap < size)
		size = cap;
	if (g->pmd_size >> 1 < size)
		size = g->pmd_size >> 1;
	return 1ull << (63 - __builtin_clzll(size));
}

unsigned int arm64_vmap_pte_supported_shift(const struct arm64_mm *mm,
					    uint64_t size)
{
	if (mm->o.vmap_cont && size >= mm->g.cont_pte_size)
		return mm->g.cont_pte_shift;
	return mm->g.page_shift;
}
