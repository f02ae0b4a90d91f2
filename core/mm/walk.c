// SPDX-License-Identifier: GPL-2.0
/*
 * The generic page-table walkers of mm/vmalloc.c (linux-mm/linux-mm @
 * 00cc00cd1fb6): vmap_range_noflush() and its p4d/pud/pmd/pte levels,
 * vmap_small_pages_range_noflush() (with Barry Song's RFC 3/8 shift when a
 * strategy passes one), the per-chunk __vmap_pages_range_noflush() and
 * __vunmap_range_noflush().
 *
 * The level loops run over hardware tables: a folded Linux level shares
 * its parent's entry, so its loop runs once and examines nothing of its
 * own (pgtable-nop4d.h, pgtable-nopud.h, pgtable-nopmd.h).  walk_steps
 * counts one per entry a loop of an unfolded level visits.
 */
#include <errno.h>

#include "core/engine.h"

#define EST(e, x) ((e)->mm.st->m[VT_M_##x])

uint64_t vt_num_pages_contiguous(const struct vt_pages *p, uint64_t i,
				 uint64_t max)
{
	uint64_t n = 1;

	if (i + max > p->nr)
		max = p->nr - i;
	while (n < max && p->pfn[i + n] == p->pfn[i] + n)
		n++;
	return max ? n : 0;
}

static int hw_level(const struct arm64_geom *g, int d)
{
	return 4 - (int)g->levels + d;
}

/* Descend into the table under *p, allocating it if the entry is none
 * (p4d/pud/pmd_alloc_track(), pte_alloc_kernel_track()). */
static int lower_table(struct vt_engine *e, int d, uint64_t *p, uint32_t *child,
		       bool alloc)
{
	if (!*p) {
		int err;

		if (!alloc)
			return -ENOENT;
		err = arm64_populate(&e->mm, d, p);
		if (err)
			return err;
	}
	if (!arm64_desc_table(*p))
		return vt_error_set(e->err, VT_ERR_INVARIANT,
				    "walk met a leaf where a table was expected");
	*child = arm64_desc_table_id(&e->mm, *p);
	if (*child == UINT32_MAX)
		return vt_error_set(e->err, VT_ERR_INVARIANT,
				    "table descriptor points outside the pool");
	return 0;
}

/*
 * vmap_try_huge_pud()/vmap_try_huge_pmd(): a block if the whole entry is
 * covered, VA and PA are aligned; a present lower table is freed first.
 */
static int try_huge(struct vt_engine *e, int d, uint64_t *p, uint64_t addr,
		    uint64_t next, uint64_t phys, uint64_t prot,
		    unsigned int max_page_shift)
{
	const struct arm64_geom *g = &e->mm.g;
	int hw = hw_level(g, d);
	uint64_t size = 1ull << g->shift[d];

	if (hw == 1) {
		if (max_page_shift < g->pud_shift || !g->pud_block_ok)
			return 0;
	} else if (hw == 2) {
		if (max_page_shift < g->pmd_shift)	/* arch_vmap_pmd_supported() */
			return 0;
	} else {
		return 0;	/* arch_vmap_p4d_supported() is false on arm64 */
	}
	if (next - addr != size || (addr & (size - 1)) || (phys & (size - 1)))
		return 0;
	if ((*p & PTE_VALID) && !arm64_free_lower_table(&e->mm, d, p, addr))
		return 0;
	return arm64_set_huge_block(&e->mm, d, p, phys, prot);
}

/* vmap_pte_range(): the physical walker's PTE level */
static int vmap_pte_range(struct vt_engine *e, uint32_t tid, uint64_t addr,
			  uint64_t end, uint64_t phys, uint64_t prot,
			  unsigned int max_page_shift)
{
	struct arm64_mm *mm = &e->mm;
	const struct arm64_geom *g = &mm->g;
	int d = g->levels - 1;
	uint64_t *t = mm->tbl[tid];
	uint64_t pfn = phys >> g->page_shift;
	int err = 0;

	arm64_lazy_mmu_enable(mm);
	do {
		unsigned int i = arm64_index(g, d, addr);
		uint64_t size, n;

		if (t[i]) {	/* BUG(): "vmap_pte_range" on a live entry */
			err = vt_error_set(e->err, VT_ERR_INVARIANT,
					   "vmap_pte_range: entry at 0x%llx not none",
					   (unsigned long long)addr);
			break;
		}
		size = arm64_vmap_pte_range_map_size(mm, addr, end, pfn,
						     max_page_shift,
						     vt_patch(e, 2));
		n = size >> g->page_shift;
		if (i + n > g->ptrs_per_pte) {
			err = vt_error_set(e->err, VT_ERR_INVARIANT,
					   "batch crosses a PTE table");
			break;
		}
		if (size != g->page_size) {
			uint64_t entry = arm64_pa_to_desc(g, pfn << g->page_shift) | prot;

			entry = arm64_make_huge_pte(mm, entry, 63 - __builtin_clzll(size));
			arm64_set_huge_pte_at(mm, addr, &t[i], entry, size);
		} else {
			arm64_set_pte_at(mm, &t[i],
					 arm64_pa_to_desc(g, pfn << g->page_shift) | prot);
		}
		pfn += n;
		addr += size;
	} while (addr < end);
	arm64_lazy_mmu_disable(mm);
	return err;
}

static int vmap_range_level(struct vt_engine *e, int d, uint32_t tid,
			    uint64_t addr, uint64_t end, uint64_t phys,
			    uint64_t prot, unsigned int max_page_shift)
{
	struct arm64_mm *mm = &e->mm;
	const struct arm64_geom *g = &mm->g;
	int err;

	do {
		uint64_t next = arm64_addr_end(g, d, addr, end);
		unsigned int i = arm64_index(g, d, addr);
		uint64_t *p;
		uint32_t child;

		EST(e, walk_steps)++;
		if (d < g->pmd_depth) {
			err = arm64_booted_touch(mm, d, tid, i, addr);
			if (err)
				return err;
		}
		p = &mm->tbl[tid][i];
		if (!try_huge(e, d, p, addr, next, phys, prot, max_page_shift)) {
			err = lower_table(e, d, p, &child, true);
			if (err)
				return err;
			if (d + 1 == (int)g->levels - 1)
				err = vmap_pte_range(e, child, addr, next, phys,
						     prot, max_page_shift);
			else
				err = vmap_range_level(e, d + 1, child, addr, next,
						       phys, prot, max_page_shift);
			if (err)
				return err;
		}
		phys += next - addr;
		addr = next;
	} while (addr != end);
	return 0;
}

int vt_vmap_range_noflush(struct vt_engine *e, uint64_t addr, uint64_t end,
			  uint64_t phys, uint64_t prot, unsigned int max_page_shift)
{
	if (addr >= end)
		return vt_error_set(e->err, VT_ERR_INVARIANT, "empty vmap range");
	EST(e, table_walks)++;
	return vmap_range_level(e, 0, e->mm.pgd, addr, end, phys, prot,
				max_page_shift);
}

/*
 * vmap_pages_pte_range().  Mainline (shift == PAGE_SHIFT): for every slot
 * the entry must be none, the page present and valid, then set_pte_at().
 * With RFC 3/8 and a larger shift the checks run once per step and
 * arch_vmap_pte_range_map_size() may map a batch with set_huge_pte_at().
 * A batch whose array pages are not physically contiguous is counted in
 * batch_overrun: the kernel maps pfn, pfn+1, ... regardless.
 */
static int vmap_pages_pte_range(struct vt_engine *e, uint32_t tid,
				uint64_t addr, uint64_t end, uint64_t prot,
				uint64_t *nr, unsigned int shift)
{
	struct arm64_mm *mm = &e->mm;
	const struct arm64_geom *g = &mm->g;
	int d = g->levels - 1;
	uint64_t *t = mm->tbl[tid];
	const struct vt_pages *pg = &e->pages;
	unsigned int i = arm64_index(g, d, addr);
	uint64_t n = (end - addr) >> g->page_shift;
	int err = 0;

	if (*nr + n > pg->nr)
		return vt_error_set(e->err, VT_ERR_INVARIANT,
				    "page array shorter than the range");
	arm64_lazy_mmu_enable(mm);
	if (shift == g->page_shift) {
		/* the hot loop: counts added once for the whole PTE table */
		const uint64_t *pfn = pg->pfn + *nr;
		uint64_t j;

		for (j = 0; j < n; j++) {
			if (t[i + j])
				break;
			t[i + j] = arm64_pa_to_desc(g, pfn[j] << g->page_shift) | prot;
		}
		EST(e, pte_writes) += j;
		EST(e, set_pte_at_calls) += j;
		arm64_tlb_add(mm, (int64_t)(j * g->cont_ptes));
		if (j) {
			if (mm->o.eager_barriers) {
				EST(e, dsb) += j;
				EST(e, dsb_ishst) += j;
				EST(e, isb) += j;
			} else {
				mm->lazy_pending = true;
			}
		}
		*nr += j;
		if (j < n)
			err = vt_error_set(e->err, VT_ERR_INVARIANT,
					   "vmap_pages_pte_range: entry at 0x%llx not none",
					   (unsigned long long)(addr + (j << g->page_shift)));
	} else {
		do {
			uint64_t pfn = pg->pfn[*nr], size, steps = 1;

			if (t[i]) {
				err = vt_error_set(e->err, VT_ERR_INVARIANT,
						   "vmap_pages_pte_range: entry not none");
				break;
			}
			size = arm64_vmap_pte_range_map_size(mm, addr, end, pfn, shift,
							     vt_patch(e, 2));
			if (size != g->page_size) {
				uint64_t entry = arm64_pa_to_desc(g, pfn << g->page_shift) | prot;

				steps = size >> g->page_shift;
				if (i + steps > g->ptrs_per_pte || *nr + steps > pg->nr) {
					err = vt_error_set(e->err, VT_ERR_INVARIANT,
							   "batch crosses a PTE table");
					break;
				}
				if (vt_num_pages_contiguous(pg, *nr, steps) < steps)
					EST(e, batch_overrun)++;
				entry = arm64_make_huge_pte(mm, entry,
							    63 - __builtin_clzll(size));
				arm64_set_huge_pte_at(mm, addr, &t[i], entry, size);
			} else {
				arm64_set_pte_at(mm, &t[i],
						 arm64_pa_to_desc(g, pfn << g->page_shift) | prot);
			}
			i += steps;
			*nr += steps;
			addr += steps << g->page_shift;
		} while (addr < end);
	}
	arm64_lazy_mmu_disable(mm);
	return err;
}

static int vmap_pages_level(struct vt_engine *e, int d, uint32_t tid,
			    uint64_t addr, uint64_t end, uint64_t prot,
			    uint64_t *nr, unsigned int shift)
{
	struct arm64_mm *mm = &e->mm;
	const struct arm64_geom *g = &mm->g;
	int err;

	do {
		uint64_t next = arm64_addr_end(g, d, addr, end);
		unsigned int i = arm64_index(g, d, addr);
		uint64_t *p;
		uint32_t child;

		EST(e, walk_steps)++;
		if (d < g->pmd_depth) {
			err = arm64_booted_touch(mm, d, tid, i, addr);
			if (err)
				return err;
		}
		p = &mm->tbl[tid][i];
		/* RFC 3/8: a PMD block when the walk runs at PMD_SHIFT */
		if (d == g->pmd_depth && shift == g->pmd_shift) {
			uint64_t phys = e->pages.pfn[*nr] << g->page_shift;
			uint64_t np = 1ull << (shift - g->page_shift);

			if (try_huge(e, d, p, addr, next, phys, prot, shift)) {
				if (vt_num_pages_contiguous(&e->pages, *nr, np) < np)
					EST(e, batch_overrun)++;
				*nr += np;
				addr = next;
				continue;
			}
		}
		err = lower_table(e, d, p, &child, true);
		if (err)
			return err;
		if (d + 1 == (int)g->levels - 1)
			err = vmap_pages_pte_range(e, child, addr, next, prot, nr,
						   shift);
		else
			err = vmap_pages_level(e, d + 1, child, addr, next, prot,
					       nr, shift);
		if (err)
			return err;
		addr = next;
	} while (addr != end);
	return 0;
}

int vt_vmap_small_pages_range_noflush(struct vt_engine *e, uint64_t addr,
				      uint64_t end, uint64_t prot, uint64_t idx,
				      unsigned int shift)
{
	uint64_t nr = idx;

	if (addr >= end)
		return vt_error_set(e->err, VT_ERR_INVARIANT, "empty vmap range");
	EST(e, table_walks)++;
	return vmap_pages_level(e, 0, e->mm.pgd, addr, end, prot, &nr, shift);
}

/*
 * Mainline __vmap_pages_range_noflush(): one page-array walk at PAGE_SHIFT,
 * or one vmap_range_noflush() per 2^page_shift chunk, reading only the
 * chunk's first page ("zigzag").
 */
int vt_vmap_pages_range_zigzag(struct vt_engine *e, uint64_t addr, uint64_t end,
			       uint64_t idx, unsigned int page_shift)
{
	const struct arm64_geom *g = &e->mm.g;
	uint64_t step = 1ull << (page_shift - g->page_shift);

	if (page_shift == g->page_shift)
		return vt_vmap_small_pages_range_noflush(e, addr, end,
							 e->prot_kernel, idx,
							 g->page_shift);
	for (; addr < end; addr += 1ull << page_shift, idx += step) {
		int err = vt_vmap_range_noflush(e, addr, addr + (1ull << page_shift),
						e->pages.pfn[idx] << g->page_shift,
						e->prot_kernel, page_shift);
		if (err)
			return err;
	}
	return 0;
}

/* ---- unmap -------------------------------------------------------------- */

/* vunmap_pte_range(): xchg-clears; CONT blocks via huge_ptep_get_and_clear() */
static void vunmap_pte_range(struct vt_engine *e, uint32_t tid, uint64_t addr,
			     uint64_t end)
{
	struct arm64_mm *mm = &e->mm;
	const struct arm64_geom *g = &mm->g;
	int d = g->levels - 1;
	uint64_t *t = mm->tbl[tid];

	arm64_lazy_mmu_enable(mm);
	do {
		unsigned int i = arm64_index(g, d, addr);
		uint64_t size = g->page_size;

		/* arch_vmap_pte_range_unmap_size() (v6.16+) */
		if (mm->o.vmap_cont && (t[i] & PTE_VALID) && (t[i] & PTE_CONT))
			size = g->cont_pte_size;
		if (size != g->page_size) {
			if (addr & (size - 1)) {	/* WARN_ON: align down */
				addr &= ~(size - 1);
				i = arm64_index(g, d, addr);
			}
			arm64_huge_ptep_get_and_clear(mm, &t[i], size);
			if (end - addr < size)
				size = end - addr;
		} else {
			arm64_ptep_get_and_clear(mm, &t[i]);
		}
		addr += size;
	} while (addr < end);
	arm64_lazy_mmu_disable(mm);
}

static int vunmap_level(struct vt_engine *e, int d, uint32_t tid, uint64_t addr,
			uint64_t end)
{
	struct arm64_mm *mm = &e->mm;
	const struct arm64_geom *g = &mm->g;

	do {
		uint64_t next = arm64_addr_end(g, d, addr, end);
		unsigned int i = arm64_index(g, d, addr);
		int hw = hw_level(g, d), err;
		uint64_t *p;
		uint32_t child;

		EST(e, walk_steps)++;
		if (d < g->pmd_depth) {
			err = arm64_booted_touch(mm, d, tid, i, addr);
			if (err)
				return err;
		}
		p = &mm->tbl[tid][i];
		/* pud_clear_huge()/pmd_clear_huge(); p4d_clear_huge() is empty */
		if ((hw == 1 || hw == 2) && arm64_clear_huge(mm, d, p)) {
			addr = next;
			continue;
		}
		if (*p) {	/* *_none_or_clear_bad() */
			err = lower_table(e, d, p, &child, false);
			if (err)
				return err;
			if (d + 1 == (int)g->levels - 1)
				vunmap_pte_range(e, child, addr, next);
			else if ((err = vunmap_level(e, d + 1, child, addr, next)))
				return err;
		}
		addr = next;
	} while (addr != end);
	return 0;
}

/* __vunmap_range_noflush(): one walk; tables are never freed */
int vt_vunmap_range_noflush(struct vt_engine *e, uint64_t start, uint64_t end)
{
	EST(e, table_walks)++;
	return vunmap_level(e, 0, e->mm.pgd, start, end);
}
