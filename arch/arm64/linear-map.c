// SPDX-License-Identifier: GPL-2.0
/*
 * The linear-map builder of arch/arm64/mm/mmu.c: __create_pgd_mapping_locked()
 * -> alloc_init_p4d() -> alloc_init_pud() -> alloc_init_cont_pmd() ->
 * init_pmd() -> alloc_init_cont_pte() -> init_pte(), with
 * early_pgtable_alloc(), the FIX_P4D/PUD/PMD/PTE fixmap slots
 * (pXd_set_fixmap()/pXd_clear_fixmap() of asm/pgtable.h, __set_fixmap() of
 * arch/arm64/mm/fixmap.c) and the table setters of asm/pgtable.h.
 *
 * Versions (see linear-map.h): OLD = v6.9 before 5c63db59c5f8 (read at
 * torvalds/linux @ 004fc58f917c plus the alloc_init_p4d() of v6.9 shown
 * in the context of 0e9df1c905d8's patch); P1 = 5c63db59c5f8 "arm64: mm:
 * Don't remap pgtables per-cont(pte|pmd) block";
 * P1P2 = + 1fcb7cea8a5f (6.6-stable queue mail of it); NEW = + 0e9df1c905d8
 * (v3 3/3 of the series) as in linux-mm/linux-mm @ 0118174d4e1c.
 *
 * A level the configuration folds (P4D with 4 levels, PUD with 3, PMD
 * with 2) is handled as the generic pgtable-nop4d.h/nopud.h/nopmd.h
 * headers make it: X_none() of the parent is 0, X_set_fixmap_offset()
 * returns the parent pointer, X_clear_fixmap() does nothing and
 * X_addr_end() is the end of the range.
 */
#include <stdbool.h>
#include <stddef.h>

#include "arch/arm64/linear-map.h"

#define ST(mm, x) ARM64_COUNT((mm)->st, x)

struct lm {
	struct arm64_mm *mm;
	const struct arm64_geom *g;
	enum arm64_linear_variant v;
	unsigned int flags;
	int dep[ARM64_PTE + 1];		/* depth of each Linux level, -1 if folded */
	uint64_t run0;			/* != 0: allocate a run table of it */
};

/* An entry of a real table: the pointer and the depth of its table. */
struct ent {
	uint64_t *p;
	int d;
};

uint64_t arm64_linear_prot(const struct arm64_geom *g)
{
	/* pgprot_tagged(): AttrIndx MT_NORMAL_TAGGED */
	return (arm64_prot_bits(g, ARM64_PAGE_KERNEL) & ~PTE_ATTRINDX_MASK) |
	       PTE_ATTRINDX(MT_NORMAL_TAGGED);
}

uint64_t arm64_linear_size(const struct arm64_geom *g)
{
	unsigned int va_min = g->va_bits == 52 ? (g->page_shift == 14 ? 47 : 48)
					       : g->va_bits;

	/* _PAGE_END(VA_BITS_MIN) - PAGE_OFFSET */
	return (-(1ull << (va_min - 1))) - g->page_offset;
}

uint64_t arm64_memstart_align(const struct arm64_geom *g)
{
	unsigned int shift = g->page_shift == 12 ? g->pud_shift :
			     g->page_shift == 14 ? g->cont_pmd_shift : g->pmd_shift;
	unsigned int section = g->page_shift == 16 ? 29 : 27;

	return 1ull << (shift < section ? section : shift);
}

static bool folded(const struct lm *s, enum arm64_lname l)
{
	return s->dep[l] < 0;
}

static uint64_t entry_size(const struct lm *s, int d)
{
	return 1ull << s->g->shift[d];
}

/*
 * pgattr_change_is_safe(): up to v6.10 a live entry with PTE_CONT could not
 * change at all (torvalds/linux @ 004fc58f917c); the newest mmu.c
 * (0118174d4e1c) no longer has that rule and lets the software bits change.
 */
static bool attr_change_is_safe(const struct lm *s, uint64_t old, uint64_t new)
{
	uint64_t mask = PTE_PXN | PTE_RDONLY | PTE_WRITE | PTE_NG;
	uint64_t ao = old & PTE_ATTRINDX_MASK, an = new & PTE_ATTRINDX_MASK;

	if (s->v == ARM64_LINEAR_NEW)
		mask |= (1ull << 63) | (0xfull << 55);	/* PTE_SWBITS_MASK */
	if (!(old & PTE_VALID) || !(new & PTE_VALID))
		return true;
	if (arm64_desc_to_pa(s->g, old) != arm64_desc_to_pa(s->g, new))
		return false;
	if (s->v != ARM64_LINEAR_NEW && ((old | new) & PTE_CONT))
		return false;
	if (old & ~new & PTE_NG)
		return false;
	if ((ao == PTE_ATTRINDX(MT_NORMAL) || ao == PTE_ATTRINDX(MT_NORMAL_TAGGED)) &&
	    (an == PTE_ATTRINDX(MT_NORMAL) || an == PTE_ATTRINDX(MT_NORMAL_TAGGED)))
		mask |= PTE_ATTRINDX_MASK;
	return ((old ^ new) & ~mask) == 0;
}

/* ---- the fixmap (arch/arm64/mm/fixmap.c __set_fixmap()) ---------------- */

/* pXd_set_fixmap(): __set_pte() of the slot, a valid kernel PTE outside
 * lazy MMU mode: 1 store + dsb ishst + isb. */
static void fixmap_set(struct lm *s)
{
	ST(s->mm, fixmap_stores)++;
	arm64_emit_pte_barriers(s->mm);
}

/* pXd_clear_fixmap(): __pte_clear() (no barrier) and
 * flush_tlb_kernel_range() of the one-page slot. */
static void fixmap_clear(struct lm *s)
{
	ST(s->mm, fixmap_stores)++;
	ST(s->mm, fixmap_maps)++;
	arm64_flush_tlb_kernel_range(s->mm, 0, s->g->page_size);
}

/* ---- tables ---------------------------------------------------------------- */

/*
 * early_pgtable_alloc(): memblock_phys_alloc_range() of one page; before
 * 0e9df1c905d8 the page is zeroed through the FIX_PTE slot right away.
 */
static int early_pgtable_alloc(struct lm *s, int d, uint32_t *id)
{
	int err = s->run0 ? arm64_table_alloc_run(s->mm, d, s->run0, id) :
			    arm64_table_alloc(s->mm, d, id);

	if (err)
		return err;
	ST(s->mm, tables_allocated)++;
	if (s->v != ARM64_LINEAR_NEW) {
		fixmap_set(s);		/* ptr = pte_set_fixmap(phys) */
		/* memset(ptr, 0, PAGE_SIZE): the pool hands out zeroed tables */
		fixmap_clear(s);	/* pte_clear_fixmap() */
	}
	return 0;
}

/* The value __pXd_populate() stores: PxD_TYPE_TABLE | PxD_TABLE_UXN
 * (| PxD_TABLE_PXN with NO_EXEC_MAPPINGS); the newest code also sets
 * PxD_TABLE_AF (FEAT_HAFT, after the 2024 series). */
static uint64_t table_desc(const struct lm *s, uint32_t id)
{
	uint64_t pa = s->mm->table_pa_base + ((uint64_t)id << s->g->page_shift);
	uint64_t v = arm64_pa_to_desc(s->g, pa) | PMD_TYPE_TABLE | PMD_TABLE_UXN;

	if (s->flags & ARM64_NO_EXEC_MAPPINGS)
		v |= PMD_TABLE_PXN;
	if (s->v == ARM64_LINEAR_NEW)
		v |= PMD_TABLE_AF;
	return v;
}

/* The entry for @addr in table @id, a run table expanded first (p is
 * NULL on -ENOMEM). */
static struct ent entry_of(const struct lm *s, int d, uint32_t id, uint64_t addr)
{
	uint64_t *t = arm64_table_mut(s->mm, id);

	return (struct ent){ t ? &t[arm64_index(s->g, d, addr)] : NULL, d };
}

/*
 * The head of alloc_init_p4d/pud/cont_pmd/cont_pte for level @l under the
 * parent entry @par: allocate and install the table if X_none(parent),
 * else find it; fixmap it now if @map (the population mapping of this
 * version); return the entry of level @l for @addr.
 */
static int table_begin(struct lm *s, enum arm64_lname l, struct ent par,
		       uint64_t addr, bool map, struct ent *out)
{
	int d = s->dep[l];
	uint32_t id;
	int err;

	if (folded(s, l)) {
		*out = par;		/* X_set_fixmap_offset(parentp) == parentp */
		return 0;
	}
	if (!*par.p) {
		err = early_pgtable_alloc(s, d, &id);
		if (err)
			return err;
		if (s->v == ARM64_LINEAR_NEW) {
			/* X_set_fixmap(phys); init_clear_pgtable(): clear_page()
			 * + dsb(ishst) */
			fixmap_set(s);
			ST(s->mm, dsb)++;
			ST(s->mm, dsb_ishst)++;
		}
		/* __pXd_populate() -> set_pXd(): store + dsb ishst + isb
		 * (set_swapper_pgd() while rodata_is_rw for the top level) */
		arm64_set_entry(s->mm, par.d, par.p, table_desc(s, id));
		if (s->v != ARM64_LINEAR_NEW && map)
			fixmap_set(s);	/* X_set_fixmap_offset() */
	} else {
		/* BUG_ON(pXd_bad()) / BUG_ON(pXd_sect()) */
		if (!arm64_desc_table(*par.p))
			return ARM64_LINEAR_EBUG;
		id = arm64_desc_table_id(s->mm, *par.p);
		if (id == UINT32_MAX)
			return ARM64_LINEAR_EBUG;
		if (map)
			fixmap_set(s);	/* X_set_fixmap_offset() */
	}
	if (s->run0) {		/* filled by fill_run_table(), no entry */
		*out = (struct ent){ NULL, d };
		return 0;
	}
	*out = entry_of(s, d, id, addr);
	return out->p ? 0 : -12;	/* -ENOMEM */
}

/* The tail: X_clear_fixmap() if the level is real and was mapped. */
static void table_end(struct lm *s, enum arm64_lname l, bool map)
{
	if (!folded(s, l) && map)
		fixmap_clear(s);
}

/*
 * TLB-entry units of a linear-map leaf at depth @d (as tlb_entries counts
 * the vmalloc area's, arm64_tlb_add()): one TLB entry is cont_ptes units;
 * a leaf without PTE_CONT is one entry, a PTE_CONT leaf its share of the
 * CONT range's one entry (CONT_PTES PTEs or CONT_PMDS PMDs).
 */
static int64_t lin_tlb_units(const struct lm *s, int d, uint64_t desc)
{
	const struct arm64_geom *g = s->g;

	if (!(desc & PTE_VALID) || (d != s->dep[ARM64_PTE] && arm64_desc_table(desc)))
		return 0;
	if (!(desc & PTE_CONT))
		return (int64_t)g->cont_ptes;
	return d == s->dep[ARM64_PTE] ? 1 : (int64_t)(g->cont_ptes / g->cont_pmds);
}

/* A leaf store at depth @d: the linear map's live TLB entries and peak. */
static void lin_tlb_store(struct lm *s, int d, uint64_t old, uint64_t new)
{
	struct arm64_mm *mm = s->mm;

	mm->lin_tlb_units += lin_tlb_units(s, d, new) - lin_tlb_units(s, d, old);
	if (mm->lin_tlb_units > mm->lin_tlb_units_peak)
		mm->lin_tlb_units_peak = mm->lin_tlb_units;
}

/* pmd_set_huge()/pud_set_huge(): 0 if the change is unsafe (no store). */
static int set_huge(struct lm *s, struct ent e, uint64_t phys, uint64_t prot)
{
	/* mk_pmd_sect_prot()/mk_pud_sect_prot(): the block type */
	uint64_t new = arm64_pa_to_desc(s->g, phys) | (prot & ~PTE_TYPE_MASK) |
		       PMD_TYPE_SECT;

	if (!attr_change_is_safe(s, *e.p, new))
		return 0;
	lin_tlb_store(s, e.d, *e.p, new);
	arm64_set_entry(s->mm, e.d, e.p, new);
	ST(s->mm, block_maps)++;
	return 1;
}

/* ---- the level functions ----------------------------------------------------- */

static int init_pte(struct lm *s, uint64_t *ptep, uint64_t addr, uint64_t end,
		    uint64_t phys, uint64_t prot)
{
	const struct arm64_geom *g = s->g;
	uint64_t n = 0;

	/* before 5c63db59c5f8: ptep = pte_set_fixmap_offset(pmdp, addr) */
	if (s->v == ARM64_LINEAR_OLD)
		fixmap_set(s);
	do {
		uint64_t old = *ptep, new = arm64_pa_to_desc(g, phys) | prot;

		/* BUG_ON(!pgattr_change_is_safe(old, new)) after the store */
		if (!attr_change_is_safe(s, old, new))
			return ARM64_LINEAR_EBUG;
		lin_tlb_store(s, s->dep[ARM64_PTE], old, new);
		*ptep = new;
		ST(s->mm, pte_writes)++;
		/* set_pte(): dsb ishst + isb for a valid kernel PTE; since
		 * 1fcb7cea8a5f (__)set_pte_nosync(): the store alone */
		if (s->v == ARM64_LINEAR_OLD || s->v == ARM64_LINEAR_P1)
			arm64_emit_pte_barriers(s->mm);
		n++;
		phys += g->page_size;
		ptep++;
	} while (addr += g->page_size, addr != end);
	if (prot & PTE_CONT)
		ST(s->mm, cont_ranges) += n / g->cont_ptes;
	if (s->v == ARM64_LINEAR_OLD)
		fixmap_clear(s);	/* pte_clear_fixmap() */
	return 0;
}

/* pte_range_has_valid_noncont() (newest only) */
static bool range_has_valid_noncont(const uint64_t *p, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if ((p[i] & PTE_VALID) && !(p[i] & PTE_CONT))
			return true;
	return false;
}

/* Counts of @times calls of @fn: one call, its counts then repeated
 * (the fixmap and barrier helpers count the same whatever the state). */
static void repeat(struct lm *s, void (*fn)(struct lm *), uint64_t times)
{
	struct arm64_counters before = *s->mm->st;

	if (!times)
		return;
	fn(s);
	for (int i = 0; i < ARM64_C__NR; i++)
		s->mm->st->c[i] += (s->mm->st->c[i] - before.c[i]) * (times - 1);
}

static void pte_barriers(struct lm *s)
{
	arm64_emit_pte_barriers(s->mm);
}

static void old_init_pte_fixmap(struct lm *s)
{
	fixmap_set(s);		/* pte_set_fixmap_offset() */
	fixmap_clear(s);	/* pte_clear_fixmap() */
}

/*
 * alloc_init_cont_pte() over a whole PTE table under a none PMD entry:
 * every init_pte() of its CONT_PTE sub-ranges stores pa(phys + i pages) |
 * prot into an empty table, the CONT choice the same for each (addr and
 * next are aligned, phys is or is not), so the table is one run
 * (arm64_table_alloc_run()) and the loop's counts are summed here: n
 * pte_writes (and n set_pte() barrier pairs before 1fcb7cea8a5f), one
 * cont range per sub-range with PTE_CONT, the fixmap of each sub-range
 * before 5c63db59c5f8, the same TLB units per leaf.
 */
static int fill_run_table(struct lm *s, struct ent pmd, uint64_t addr,
			  uint64_t phys, uint64_t prot)
{
	const struct arm64_geom *g = s->g;
	int dp = s->dep[ARM64_PTE];
	uint64_t n = g->ptrs[dp], chunks = n / g->cont_ptes;
	bool map = s->v != ARM64_LINEAR_OLD;
	struct arm64_mm *mm = s->mm;
	struct ent e;
	int err;

	if (!(phys & (g->cont_pte_size - 1)) && !(s->flags & ARM64_NO_CONT_MAPPINGS))
		prot |= PTE_CONT;
	s->run0 = arm64_pa_to_desc(g, phys) | prot;
	err = table_begin(s, ARM64_PTE, pmd, addr, map, &e);
	s->run0 = 0;
	if (err)
		return err;
	mm->lin_tlb_units += (int64_t)n *
			     lin_tlb_units(s, dp, arm64_pa_to_desc(g, phys) | prot);
	if (mm->lin_tlb_units > mm->lin_tlb_units_peak)
		mm->lin_tlb_units_peak = mm->lin_tlb_units;
	ST(mm, pte_writes) += n;
	if (s->v == ARM64_LINEAR_OLD || s->v == ARM64_LINEAR_P1)
		repeat(s, pte_barriers, n);
	if (prot & PTE_CONT)
		ST(mm, cont_ranges) += chunks;
	if (s->v == ARM64_LINEAR_OLD)
		repeat(s, old_init_pte_fixmap, chunks);
	table_end(s, ARM64_PTE, map);
	return 0;
}

static int alloc_init_cont_pte(struct lm *s, struct ent pmd, uint64_t addr,
			       uint64_t end, uint64_t phys, uint64_t prot)
{
	const struct arm64_geom *g = s->g;
	bool map = s->v != ARM64_LINEAR_OLD;
	uint64_t span = g->ptrs[s->dep[ARM64_PTE]] << g->page_shift;
	struct ent e;
	int err;

	/* BUG_ON(pmd_sect(pmd)) / BUG_ON(pmd_leaf(pmd)) */
	if ((*pmd.p & PTE_VALID) && !arm64_desc_table(*pmd.p))
		return ARM64_LINEAR_EBUG;
	/* a whole table under a none entry: one run (arm64_table_alloc_run()'s
	 * conditions: valid leaves, no PA folding) */
	if (!*pmd.p && !(addr & (span - 1)) && end - addr == span &&
	    (prot & PTE_VALID) && arm64_desc_linear(g) &&
	    g->ptrs[s->dep[ARM64_PTE]] % g->cont_ptes == 0)
		return fill_run_table(s, pmd, addr, phys, prot);
	err = table_begin(s, ARM64_PTE, pmd, addr, map, &e);
	if (err)
		return err;
	do {
		uint64_t next, __prot = prot;

		/* pte_cont_addr_end() */
		next = ((addr + g->cont_pte_size) & ~(g->cont_pte_size - 1));
		if (next - 1 >= end - 1)
			next = end;
		if (!((addr | next | phys) & (g->cont_pte_size - 1)) &&
		    !(s->flags & ARM64_NO_CONT_MAPPINGS) &&
		    (s->v != ARM64_LINEAR_NEW ||
		     !range_has_valid_noncont(e.p, g->cont_ptes)))
			__prot |= PTE_CONT;
		err = init_pte(s, e.p, addr, next, phys, __prot);
		if (err)
			return err;
		e.p += (next - addr) >> g->page_shift;
		phys += next - addr;
		addr = next;
	} while (addr != end);
	/* 1fcb7cea8a5f: the barriers of pte_clear_fixmap() publish the
	 * table's stores */
	table_end(s, ARM64_PTE, map);
	return 0;
}

static int init_pmd(struct lm *s, struct ent e, uint64_t addr, uint64_t end,
		    uint64_t phys, uint64_t prot)
{
	const struct arm64_geom *g = s->g;
	bool real = !folded(s, ARM64_PMD);
	uint64_t esz = entry_size(s, e.d), cont_blocks = 0;
	int err;

	/* before 5c63db59c5f8: pmdp = pmd_set_fixmap_offset(pudp, addr) */
	if (s->v == ARM64_LINEAR_OLD && real)
		fixmap_set(s);
	do {
		uint64_t old = *e.p, next = end;

		if (real) {
			next = arm64_addr_end(g, e.d, addr, end);
			ST(s->mm, walk_steps)++;
		}
		/* try section mapping first (the newest code only where no
		 * table is present) */
		if (!((addr | next | phys) & (esz - 1)) &&
		    !(s->flags & ARM64_NO_BLOCK_MAPPINGS) &&
		    (s->v != ARM64_LINEAR_NEW || !arm64_desc_table(old) ||
		     !(old & PTE_VALID))) {
			if (set_huge(s, e, phys, prot) && (prot & PTE_CONT))
				cont_blocks++;
			/* BUG_ON(!pgattr_change_is_safe(old, *pmdp)) */
			if (!attr_change_is_safe(s, old, *e.p))
				return ARM64_LINEAR_EBUG;
		} else {
			err = alloc_init_cont_pte(s, e, addr, next, phys, prot);
			if (err)
				return err;
			if (old && old != *e.p)
				return ARM64_LINEAR_EBUG;
		}
		phys += next - addr;
		if (real)
			e.p++;
		addr = next;
	} while (addr != end);
	ST(s->mm, cont_ranges) += cont_blocks / g->cont_pmds;
	if (s->v == ARM64_LINEAR_OLD && real)
		fixmap_clear(s);	/* pmd_clear_fixmap() */
	return 0;
}

static int alloc_init_cont_pmd(struct lm *s, struct ent pud, uint64_t addr,
			       uint64_t end, uint64_t phys, uint64_t prot)
{
	const struct arm64_geom *g = s->g;
	bool map = s->v != ARM64_LINEAR_OLD;
	struct ent e;
	int err;

	/* BUG_ON(pud_sect(pud)): a PUD leaf where a PMD table is needed */
	if (!folded(s, ARM64_PMD) && (*pud.p & PTE_VALID) &&
	    !arm64_desc_table(*pud.p))
		return ARM64_LINEAR_EBUG;
	err = table_begin(s, ARM64_PMD, pud, addr, map, &e);
	if (err)
		return err;
	do {
		uint64_t next, __prot = prot;

		/* pmd_cont_addr_end() */
		next = (addr + g->cont_pmd_size) & ~(g->cont_pmd_size - 1);
		if (next - 1 >= end - 1)
			next = end;
		if (!((addr | next | phys) & (g->cont_pmd_size - 1)) &&
		    !(s->flags & ARM64_NO_CONT_MAPPINGS) &&
		    (s->v != ARM64_LINEAR_NEW || folded(s, ARM64_PMD) ||
		     !range_has_valid_noncont(e.p, g->cont_pmds)))
			__prot |= PTE_CONT;
		err = init_pmd(s, e, addr, next, phys, __prot);
		if (err)
			return err;
		/* pmdp += pmd_index(next) - pmd_index(addr) */
		if (!folded(s, ARM64_PMD) && next != end)
			e.p += arm64_index(g, e.d, next) - arm64_index(g, e.d, addr);
		phys += next - addr;
		addr = next;
	} while (addr != end);
	table_end(s, ARM64_PMD, map);
	return 0;
}

static int alloc_init_pud(struct lm *s, struct ent p4d, uint64_t addr,
			  uint64_t end, uint64_t phys, uint64_t prot)
{
	const struct arm64_geom *g = s->g;
	bool real = !folded(s, ARM64_PUD);
	struct ent e;
	int err;

	err = table_begin(s, ARM64_PUD, p4d, addr, true, &e);
	if (err)
		return err;
	do {
		uint64_t old = *e.p, next = end, esz = entry_size(s, e.d);

		if (real) {
			next = arm64_addr_end(g, e.d, addr, end);
			ST(s->mm, walk_steps)++;
		}
		/* For 4K granule only, attempt to put down a 1GB block */
		if (g->pud_block_ok && 4 - (int)g->levels + e.d == 1 &&
		    !((addr | next | phys) & (esz - 1)) &&
		    !(s->flags & ARM64_NO_BLOCK_MAPPINGS) &&
		    (s->v != ARM64_LINEAR_NEW || !arm64_desc_table(old) ||
		     !(old & PTE_VALID))) {
			set_huge(s, e, phys, prot);
			if (!attr_change_is_safe(s, old, *e.p))
				return ARM64_LINEAR_EBUG;
		} else {
			err = alloc_init_cont_pmd(s, e, addr, next, phys, prot);
			if (err)
				return err;
			if (old && old != *e.p)
				return ARM64_LINEAR_EBUG;
		}
		phys += next - addr;
		if (real)
			e.p++;
		addr = next;
	} while (addr != end);
	table_end(s, ARM64_PUD, true);
	return 0;
}

static int alloc_init_p4d(struct lm *s, struct ent pgd, uint64_t addr,
			  uint64_t end, uint64_t phys, uint64_t prot)
{
	const struct arm64_geom *g = s->g;
	bool real = !folded(s, ARM64_P4D);
	struct ent e;
	int err;

	err = table_begin(s, ARM64_P4D, pgd, addr, true, &e);
	if (err)
		return err;
	do {
		uint64_t old = *e.p, next = end;

		if (real) {
			next = arm64_addr_end(g, e.d, addr, end);
			ST(s->mm, walk_steps)++;
		}
		err = alloc_init_pud(s, e, addr, next, phys, prot);
		if (err)
			return err;
		if (old && old != *e.p)
			return ARM64_LINEAR_EBUG;
		phys += next - addr;
		if (real)
			e.p++;
		addr = next;
	} while (addr != end);
	table_end(s, ARM64_P4D, true);
	return 0;
}

int arm64___create_pgd_mapping(struct arm64_mm *mm, enum arm64_linear_variant v,
			     uint64_t phys, uint64_t virt, uint64_t size,
			     uint64_t prot, unsigned int flags)
{
	const struct arm64_geom *g = &mm->g;
	struct lm s = { .mm = mm, .g = g, .v = v, .flags = flags };
	bool rodata_rw = mm->o.rodata_rw;
	uint64_t addr, end;
	int err = 0;

	for (int l = 0; l <= ARM64_PTE; l++)
		s.dep[l] = -1;
	for (unsigned int d = 0; d < g->levels; d++)
		s.dep[g->name[d]] = (int)d;
	s.dep[ARM64_PGD] = 0;
	/* WARN_ON((phys ^ virt) & ~PAGE_MASK): return without mapping */
	if ((phys ^ virt) & (g->page_size - 1))
		return ARM64_LINEAR_EMISALIGNED;
	phys &= ~(g->page_size - 1);
	addr = virt & ~(g->page_size - 1);
	end = (virt + size + g->page_size - 1) & ~(g->page_size - 1);
	if (addr == end)
		return 0;
	/* map_mem() runs while swapper_pg_dir is writable (rodata_is_rw) */
	mm->o.rodata_rw = true;
	ST(mm, table_walks)++;
	do {
		uint64_t next = arm64_addr_end(g, 0, addr, end);
		struct ent pgd = entry_of(&s, 0, mm->pgd, addr);

		if (!pgd.p) {
			err = -12;	/* -ENOMEM */
			break;
		}
		ST(mm, walk_steps)++;
		err = alloc_init_p4d(&s, pgd, addr, next, phys, prot);
		if (err)
			break;
		phys += next - addr;
		addr = next;
	} while (addr != end);
	mm->o.rodata_rw = rodata_rw;
	return err;
}

/* ---- --verify ---------------------------------------------------------------- */

static uint64_t verify_level(const struct arm64_mm *mm, int d, uint32_t id,
			     uint64_t addr, uint64_t end, uint64_t va0,
			     uint64_t pa0, uint64_t attrs, uint64_t *first_va)
{
	const struct arm64_geom *g = &mm->g;
	uint64_t bad = 0;

	do {
		uint64_t next = arm64_addr_end(g, d, addr, end);
		uint64_t desc = arm64_entry(mm, id, arm64_index(g, d, addr));
		uint64_t esz, pages;
		int hw = 4 - (int)g->levels + d;
		bool ok = desc & PTE_VALID;

		/* a run table: the leaves of a run share their type and
		 * attributes and their output advances with the VA, so each is
		 * right exactly when the first is: the first is checked for all
		 * of the run (a gap of none entries likewise) */
		if (d == (int)g->levels - 1 && !mm->tbl[id]) {
			uint64_t x, n = arm64_entry_extent(mm, id,
							   arm64_index(g, d, addr), &x);

			if (n < (end - addr) >> g->page_shift)
				next = addr + (n << g->page_shift);
			else
				next = end;
		}
		esz = 1ull << g->shift[d];
		pages = (next - addr) >> g->page_shift;
		if (ok && d < (int)g->levels - 1 && arm64_desc_table(desc)) {
			uint32_t child = arm64_desc_table_id(mm, desc);

			if (child != UINT32_MAX) {
				bad += verify_level(mm, d + 1, child, addr, next,
						    va0, pa0, attrs, first_va);
				addr = next;
				continue;
			}
			ok = false;
		}
		if (ok) {
			/* a leaf: a page at level 3, a block at level 2 (and
			 * level 1 on 4K) */
			if (d == (int)g->levels - 1)
				ok = arm64_desc_table(desc);
			else
				ok = arm64_desc_block(desc) &&
				     (hw == 2 || (hw == 1 && g->pud_block_ok));
		}
		if (ok) {
			uint64_t pa = (arm64_desc_to_pa(g, desc) & ~(esz - 1)) |
				      (addr & (esz - 1));
			uint64_t a = arm64_desc_attrs(g, desc) & ~(PTE_CONT | PTE_TYPE_MASK);

			ok = pa == pa0 + (addr - va0) && a == attrs;
		}
		if (!ok) {
			if (!bad && first_va && *first_va == UINT64_MAX)
				*first_va = addr;
			bad += pages;
		}
		addr = next;
	} while (addr != end);
	return bad;
}

uint64_t arm64_linear_verify(const struct arm64_mm *mm, uint64_t phys,
			     uint64_t virt, uint64_t size, uint64_t prot,
			     uint64_t *first_va)
{
	const struct arm64_geom *g = &mm->g;
	uint64_t addr = virt & ~(g->page_size - 1);
	uint64_t end = (virt + size + g->page_size - 1) & ~(g->page_size - 1);

	if (first_va)
		*first_va = UINT64_MAX;
	if (addr == end)
		return 0;
	return verify_level(mm, 0, mm->pgd, addr, end, addr,
			    phys & ~(g->page_size - 1),
			    prot & ~(PTE_CONT | PTE_TYPE_MASK), first_va);
}
