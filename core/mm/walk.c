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
#include <stdlib.h>

#include "core/alloc.h"
#include "core/mm/walk.h"

#define WST(w, x) (*vt_stats_at((w)->st, VT_M_##x))

/* num_pages_contiguous(): from the runs, not page by page */
uint64_t vt_num_pages_contiguous(struct vt_pages *p, uint64_t i, uint64_t max)
{
	uint64_t n, end_pfn;
	uint32_t r;

	if (i >= p->nr)
		return 0;
	if (max > p->nr - i)
		max = p->nr - i;
	if (!max)
		return 0;
	r = vt_pages_run(p, i);
	n = p->start[r + 1] - i;
	end_pfn = p->runs[r].pfn + (p->start[r + 1] - p->start[r]);
	/* a run that starts where the last ended continues it */
	while (n < max && ++r < p->nr_runs && p->runs[r].pfn == end_pfn) {
		uint64_t len = p->start[r + 1] - p->start[r];

		n += len;
		end_pfn += len;
	}
	return n < max ? n : max;
}

/*
 * A batch that vmap_pages_pte_range()/vmap_try_huge_pmd() maps as one
 * entry (RFC 3/8) translates page k of it to pfn + k, where pfn is the
 * first page's: the pages of the array i .. i + n - 1 that are not there
 * are mis-mapped.  Counted run by run (a later run may land on pfn + k
 * by chance; it is then mapped right).
 */
static uint64_t vt_batch_mismapped(struct vt_pages *p, uint64_t i, uint64_t n)
{
	uint64_t pfn = vt_pages_pfn(p, i), bad = 0, k = 0;

	while (k < n) {
		uint32_t r = vt_pages_run(p, i + k);
		uint64_t m = p->start[r + 1] - (i + k);

		if (m > n - k)
			m = n - k;
		if (p->runs[r].pfn + (i + k - p->start[r]) != pfn + k)
			bad += m;
		k += m;
	}
	return bad;
}

static void vt_note_overrun(struct vt_walk *w, uint64_t i, uint64_t n)
{
	WST(w, batch_overrun)++;
	w->st->overrun_pages += vt_batch_mismapped(w->pages, i, n);
}

void vt_walk_note(struct vt_walk *w, uint64_t start, uint64_t end)
{
	struct vt_written *wr = w->written;

	if (wr->nr && start <= wr->v[wr->nr - 1].end &&
	    end >= wr->v[wr->nr - 1].start) {
		if (start < wr->v[wr->nr - 1].start)
			wr->v[wr->nr - 1].start = start;
		if (end > wr->v[wr->nr - 1].end)
			wr->v[wr->nr - 1].end = end;
		return;
	}
	if (VT_ALLOC_GROW(wr->v, wr->nr + 1, wr->cap)) {
		wr->err = -ENOMEM;
		return;
	}
	wr->v[wr->nr].start = start;
	wr->v[wr->nr].end = end;
	wr->nr++;
}

static int hw_level(const struct arm64_geom *g, int d)
{
	return 4 - (int)g->levels + d;
}

/*
 * What a walk does at an entry above the PTE table (lower_table() and the
 * *_entry() functions): go on in the table under it, whose id is
 * returned (below 2^32); WALK_DONE, nothing to do under it; or an error
 * (< 0).
 */
#define WALK_DONE (1ll << 32)

/* lower_table() when the entry is none or not one of our tables */
static int64_t lower_table_slow(struct vt_walk *w, int d, uint64_t *p, bool alloc)
{
	uint32_t child;

	if (!*p) {
		int err;

		if (!alloc)
			return -ENOENT;
		err = arm64_populate(w->mm, d, p);
		if (err)
			return err;
	}
	if (!arm64_desc_table(*p))
		return vt_error_set(w->err, VT_ERR_INVARIANT,
				    "walk met a leaf where a table was expected");
	child = arm64_desc_table_id(w->mm, *p);
	if (child == UINT32_MAX)
		return vt_error_set(w->err, VT_ERR_INVARIANT,
				    "table descriptor points outside the pool");
	return child;
}

/* The table under *p, allocated if the entry is none and @alloc
 * (p4d/pud/pmd_alloc_track(), pte_alloc_kernel_track()). */
static inline int64_t lower_table(struct vt_walk *w, int d, uint64_t *p,
				  bool alloc)
{
	uint64_t e = *p;

	if (e && arm64_desc_table(e)) {
		uint32_t child = arm64_desc_table_id(w->mm, e);

		if (child != UINT32_MAX)
			return child;
	}
	return lower_table_slow(w, d, p, alloc);
}

/*
 * The level loops of a walk above the PTE table (the kernel's p4d, pud and
 * pmd loops, each calling the next level for the range of one entry) run
 * as one loop over depth-first entries: lv[d] is the table of the loop at
 * depth d and the end of its range, the loops above it waiting where the
 * kernel's wait for their call to return.  A range under one entry of the
 * level above the PTE table is under one entry at every level: each loop
 * then runs once, and the walk goes straight down (walk_straight()).  The
 * PTE levels are kept out of line, so that these loops keep their
 * registers.
 */
struct walk_lv {
	uint32_t tid;
	uint64_t end;
};

static inline bool walk_straight(const struct arm64_geom *g, uint64_t addr,
				 uint64_t end)
{
	return !((addr ^ (end - 1)) >> g->shift[g->levels - 2]);
}

static inline uint64_t *walk_entry(const struct arm64_mm *mm, int d,
				   uint32_t tid, uint64_t addr)
{
	return &mm->tbl[tid][arm64_index(&mm->g, d, addr)];
}

/* Into the table @child for [addr, next) when it is above the PTE level,
 * depth @last (true: the loop goes on there); false: @child is the PTE
 * table. */
static inline bool walk_down(struct walk_lv *lv, int *d, int last,
			     uint32_t child, uint64_t next)
{
	if (*d + 1 >= last)
		return false;
	lv[++*d] = (struct walk_lv){ child, next };
	return true;
}

/* On from the entry that ended at @addr: back up through the loops that
 * it ended; false when the top one is done too. */
static inline bool walk_up(const struct walk_lv *lv, int *d, uint64_t addr)
{
	while (addr == lv[*d].end) {
		if (!*d)
			return false;
		--*d;
	}
	return true;
}

/*
 * What one of the kernel's three walkers does at an entry above the PTE
 * table (the entry's action: WALK_DONE, the table under it, or an error)
 * and in a PTE table; @c is the walker's own arguments.  walk_levels() is
 * inlined into each walker with its ops a constant, so these are direct
 * calls there.
 */
struct walk_ops {
	int64_t (*entry)(struct vt_walk *w, int d, uint64_t *p, uint64_t addr,
			 uint64_t next, const void *c);
	int (*pte)(struct vt_walk *w, uint32_t tid, uint64_t addr, uint64_t next,
		   const void *c);
};

/* The p4d/pud/pmd loops of one walker over [addr, end) (see walk_lv). */
static inline __attribute__((always_inline))
int walk_levels(struct vt_walk *w, uint64_t addr, uint64_t end,
		const struct walk_ops *ops, const void *c)
{
	struct arm64_mm *mm = w->mm;
	const struct arm64_geom *g = &mm->g;
	const int last = g->levels - 1;
	struct walk_lv lv[ARM64_MAX_LEVELS];
	int d = 0, ret;
	int64_t t;

	if (walk_straight(g, addr, end)) {
		uint32_t tid = mm->pgd;

		for (; d < last; d++) {
			WST(w, walk_steps)++;
			t = ops->entry(w, d, walk_entry(mm, d, tid, addr), addr, end, c);
			if (t < 0 || t == WALK_DONE)
				return t < 0 ? (int)t : 0;
			tid = (uint32_t)t;
		}
		return ops->pte(w, tid, addr, end, c);
	}
	lv[0] = (struct walk_lv){ mm->pgd, end };
	do {
		uint64_t next = arm64_addr_end(g, d, addr, lv[d].end);
		uint64_t *p = walk_entry(mm, d, lv[d].tid, addr);

		WST(w, walk_steps)++;
		t = ops->entry(w, d, p, addr, next, c);
		if (t < 0)
			return (int)t;
		if (t != WALK_DONE) {
			if (walk_down(lv, &d, last, (uint32_t)t, next))
				continue;
			ret = ops->pte(w, (uint32_t)t, addr, next, c);
			if (ret)
				return ret;
		}
		addr = next;
	} while (walk_up(lv, &d, addr));
	return 0;
}

/*
 * vmap_try_huge_pud()/vmap_try_huge_pmd(): a block if the whole entry is
 * covered, VA and PA are aligned; a present lower table is freed first.
 */
static int vt_vmap_try_huge_pmd(struct vt_walk *w, int d, uint64_t *p, uint64_t addr,
		    uint64_t next, uint64_t phys, uint64_t prot,
		    unsigned int max_page_shift)
{
	const struct arm64_geom *g = &w->mm->g;
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
	if (hw == 1) {	/* pud_free_pmd_page(), pud_set_huge() */
		if ((*p & PTE_VALID) && !arm64_pud_free_pmd_page(w->mm, p, addr))
			return 0;
		return arm64_pud_set_huge(w->mm, p, phys, prot);
	}
	if ((*p & PTE_VALID) && !arm64_pmd_free_pte_page(w->mm, p, addr))
		return 0;
	return arm64_pmd_set_huge(w->mm, p, phys, prot);
}

/* vmap_pte_range(): the physical walker's PTE level */
static int vt_vmap_pte_range(struct vt_walk *w, uint32_t tid, uint64_t addr,
			  uint64_t end, uint64_t phys, uint64_t prot,
			  unsigned int max_page_shift)
{
	struct arm64_mm *mm = w->mm;
	const struct arm64_geom *g = &mm->g;
	int d = g->levels - 1;
	uint64_t pfn = phys >> g->page_shift;
	int err = 0;

	arch_enter_lazy_mmu_mode(mm);
	do {
		unsigned int i = arm64_index(g, d, addr);
		uint64_t size, n;

		if (arm64_entry(mm, tid, i)) {	/* BUG(): "vmap_pte_range" on a live entry */
			err = vt_error_set(w->err, VT_ERR_INVARIANT,
					   "vmap_pte_range: entry at 0x%llx not none",
					   (unsigned long long)addr);
			break;
		}
		size = arch_vmap_pte_range_map_size(mm, addr, end, pfn,
						     max_page_shift);
		n = size >> g->page_shift;
		if (i + n > g->ptrs_per_pte) {
			err = vt_error_set(w->err, VT_ERR_INVARIANT,
					   "batch crosses a PTE table");
			break;
		}
		if (size != g->page_size) {
			uint64_t entry = arm64_pa_to_desc(g, pfn << g->page_shift) | prot;

			entry = arch_make_huge_pte(mm, entry, 63 - __builtin_clzll(size));
			err = arm64_tbl_set_huge_pte_at(mm, tid, i, addr, entry, size);
		} else {
			err = arm64_tbl_set_pte_at(mm, tid, i,
					arm64_pa_to_desc(g, pfn << g->page_shift) | prot);
		}
		if (err)
			break;
		pfn += n;
		addr += size;
	} while (addr < end);
	arch_leave_lazy_mmu_mode(mm);
	return err;
}

/*
 * One entry of vmap_p4d_range() .. vmap_pmd_range(): a block
 * (vmap_try_huge_pud/pmd(): WALK_DONE), else the table under it,
 * allocated if none.
 */
static inline int64_t vmap_entry(struct vt_walk *w, int d, uint64_t *p,
				 uint64_t addr, uint64_t next, uint64_t phys,
				 uint64_t prot, unsigned int max_page_shift)
{
	if (vt_vmap_try_huge_pmd(w, d, p, addr, next, phys, prot, max_page_shift))
		return WALK_DONE;
	return lower_table(w, d, p, true);
}

/* vmap_p4d_range() .. vmap_pmd_range(): the level loops of
 * vmap_range_noflush(); the output address follows the VA from @phys at
 * @addr. */
struct vmap_args {
	uint64_t addr, phys, prot;
	unsigned int max_page_shift;
};

static inline int64_t vmap_level(struct vt_walk *w, int d, uint64_t *p,
				 uint64_t addr, uint64_t next, const void *c)
{
	const struct vmap_args *a = c;

	return vmap_entry(w, d, p, addr, next, a->phys + (addr - a->addr),
			  a->prot, a->max_page_shift);
}

static inline int vmap_pte(struct vt_walk *w, uint32_t tid, uint64_t addr,
			   uint64_t next, const void *c)
{
	const struct vmap_args *a = c;

	return vt_vmap_pte_range(w, tid, addr, next, a->phys + (addr - a->addr),
				 a->prot, a->max_page_shift);
}

static const struct walk_ops vmap_ops = { vmap_level, vmap_pte };

static int vt_vmap_pmd_range(struct vt_walk *w, uint64_t addr, uint64_t end,
			     uint64_t phys, uint64_t prot,
			     unsigned int max_page_shift)
{
	const struct vmap_args a = { addr, phys, prot, max_page_shift };

	return walk_levels(w, addr, end, &vmap_ops, &a);
}

int vt_vmap_range_noflush(struct vt_walk *w, uint64_t addr, uint64_t end,
			  uint64_t phys, uint64_t prot, unsigned int max_page_shift)
{
	if (addr >= end)
		return vt_error_set(w->err, VT_ERR_INVARIANT, "empty vmap range");
	WST(w, table_walks)++;
	if (w->written)
		vt_walk_note(w, addr, end);
	return vt_vmap_pmd_range(w, addr, end, phys, prot, max_page_shift);
}

/*
 * The mainline loop of vmap_pages_pte_range() into the array @t, from page
 * @j of the @n: per physically contiguous stretch of pages[nr ..],
 * arm64_set_ptes() (set_pte_at() per page, counted per batch).  Returns
 * the pages mapped (fewer than @n at an entry that is not none).
 */
static uint64_t set_stretches(struct vt_walk *w, uint64_t *t, unsigned int i,
			      uint64_t j, uint64_t n, uint64_t nr, uint64_t prot)
{
	struct vt_pages *pg = w->pages;

	while (j < n) {
		uint64_t at = nr + j;
		uint32_t r = vt_pages_run(pg, at);
		uint64_t m = pg->start[r + 1] - at, k;

		if (m > n - j)
			m = n - j;
		k = arm64_set_ptes(w->mm, &t[i + j],
				   pg->runs[r].pfn + (at - pg->start[r]), m, prot);
		j += k;
		if (k < m)
			break;
	}
	return j;
}

/*
 * The steps of vmap_pages_pte_range()'s RFC 3/8 loop from this one (@size
 * mapped, @e none entries from here on) that the model takes at once: in a
 * run table, while
 * the next step maps the same size too (then so do all that still fit
 * before @end: arch_vmap_pte_range_map_size() caps a batch at a power of
 * two, and a step smaller than the cap leaves less than itself), over
 * pages that continue the first (no overrun) and none entries.  Each
 * step is still one set_huge_pte_at() (arm64_tbl_set_huge_ptes()).
 */
static uint64_t same_steps(struct vt_walk *w, uint32_t tid, uint64_t e,
			   uint64_t addr, uint64_t end, uint64_t pfn,
			   uint64_t size, uint64_t nr, unsigned int shift)
{
	struct arm64_mm *mm = w->mm;
	uint64_t steps = size >> mm->g.page_shift, k = (end - addr) / size;

	if (k < 2 || !arm64_is_run_table(mm, tid) ||
	    arch_vmap_pte_range_map_size(mm, addr + size, end, pfn + steps,
					 shift) != size)
		return 1;
	if (k > e / steps)
		k = e / steps;
	k = vt_num_pages_contiguous(w->pages, nr, k * steps) / steps;
	return k < 2 ? 1 : k;
}

/*
 * vmap_pages_pte_range()'s loop with RFC 3/8's larger @shift: the checks
 * run once per step and arch_vmap_pte_range_map_size() may map a batch
 * with set_huge_pte_at().  A batch whose array pages are not physically
 * contiguous is counted in batch_overrun: the kernel maps pfn, pfn+1, ...
 * regardless.
 */
static inline int vmap_pages_pte_steps(struct vt_walk *w, uint32_t tid,
				       uint64_t addr, uint64_t end,
				       uint64_t prot, uint64_t *nr,
				       unsigned int shift)
{
	struct arm64_mm *mm = w->mm;
	const struct arm64_geom *g = &mm->g;
	struct vt_pages *pg = w->pages;
	unsigned int i = arm64_index(g, g->levels - 1, addr);
	int err = 0;

	do {
		uint64_t pfn = vt_pages_pfn(pg, *nr), size, steps = 1, k, desc;
		/* entry i, and how many after it are alike (none) */
		uint64_t ext = arm64_entry_extent(mm, tid, i, &desc);

		if (desc) {
			err = vt_error_set(w->err, VT_ERR_INVARIANT,
					   "vmap_pages_pte_range: entry not none");
			break;
		}
		size = arch_vmap_pte_range_map_size(mm, addr, end, pfn, shift);
		if (size != g->page_size) {
			uint64_t entry = arm64_pa_to_desc(g, pfn << g->page_shift) | prot;

			steps = size >> g->page_shift;
			if (i + steps > g->ptrs_per_pte || *nr + steps > pg->nr) {
				err = vt_error_set(w->err, VT_ERR_INVARIANT,
						   "batch crosses a PTE table");
				break;
			}
			k = same_steps(w, tid, ext, addr, end, pfn, size, *nr, shift);
			if (k == 1 && vt_num_pages_contiguous(pg, *nr, steps) < steps)
				vt_note_overrun(w, *nr, steps);
			entry = arch_make_huge_pte(mm, entry,
						    63 - __builtin_clzll(size));
			err = arm64_tbl_set_huge_ptes(mm, tid, i, addr, entry, size, k);
			steps *= k;
		} else {
			err = arm64_tbl_set_pte_at(mm, tid, i,
					arm64_pa_to_desc(g, pfn << g->page_shift) | prot);
		}
		if (err)
			break;
		i += steps;
		*nr += steps;
		addr += steps << g->page_shift;
	} while (addr < end);
	return err;
}

/*
 * vmap_pages_pte_range().  Mainline (shift == PAGE_SHIFT): for every slot
 * the entry must be none, the page present and valid, then set_pte_at();
 * the model takes the pages per physically contiguous stretch of the page
 * array, arch's set_ptes()-style batch (set_pte_at() per page, counted
 * per batch).  A run table takes a stretch as a run and may become an
 * array, which stays one.  RFC 3/8: vmap_pages_pte_steps().
 */
static __attribute__((noinline))
int vt_vmap_pages_pte_range(struct vt_walk *w, uint32_t tid, uint64_t addr,
			    uint64_t end, uint64_t prot, uint64_t *nr,
			    unsigned int shift)
{
	struct arm64_mm *mm = w->mm;
	const struct arm64_geom *g = &mm->g;
	struct vt_pages *pg = w->pages;
	unsigned int i = arm64_index(g, g->levels - 1, addr);
	uint64_t n = (end - addr) >> g->page_shift, j = 0, nr0 = *nr;
	int err = 0;

	if (nr0 + n > pg->nr)
		return vt_error_set(w->err, VT_ERR_INVARIANT,
				    "page array shorter than the range");
	arch_enter_lazy_mmu_mode(mm);
	if (shift != g->page_shift) {
		err = vmap_pages_pte_steps(w, tid, addr, end, prot, nr, shift);
		arch_leave_lazy_mmu_mode(mm);
		return err;
	}
	while (j < n) {
		uint64_t *t = arm64_table(mm, tid);
		uint64_t at = nr0 + j;
		uint32_t r = vt_pages_run(pg, at);
		uint64_t m = pg->start[r + 1] - at, k;

		if (t) {
			j = set_stretches(w, t, i, j, n, nr0, prot);
			break;
		}
		if (m > n - j)
			m = n - j;
		err = arm64_runs_set_ptes(mm, tid, i + j,
					  pg->runs[r].pfn + (at - pg->start[r]),
					  m, prot, &k);
		if (err)
			break;
		j += k;
		if (k < m)
			break;
	}
	*nr = nr0 + j;
	arch_leave_lazy_mmu_mode(mm);
	if (!err && j < n)
		err = vt_error_set(w->err, VT_ERR_INVARIANT,
				   "vmap_pages_pte_range: entry at 0x%llx not none",
				   (unsigned long long)(addr + (j << g->page_shift)));
	return err;
}

/* RFC 3/8 in vmap_pages_pmd_range(): a PMD block when the walk runs at
 * PMD_SHIFT; 1 if it mapped one */
static inline int vmap_pages_try_huge_pmd(struct vt_walk *w, int d,
					  uint64_t *p, uint64_t addr,
					  uint64_t next, uint64_t prot,
					  uint64_t *nr, unsigned int shift)
{
	const struct arm64_geom *g = &w->mm->g;
	uint64_t phys = vt_pages_pfn(w->pages, *nr) << g->page_shift;
	uint64_t np = 1ull << (shift - g->page_shift);

	if (!vt_vmap_try_huge_pmd(w, d, p, addr, next, phys, prot, shift))
		return 0;
	if (vt_num_pages_contiguous(w->pages, *nr, np) < np)
		vt_note_overrun(w, *nr, np);
	*nr += np;
	return 1;
}

/* One entry of vmap_pages_p4d_range() .. vmap_pages_pmd_range(), as
 * vmap_entry(); @huge_d is the PMD's depth when the walk runs at
 * PMD_SHIFT, else -1 */
static inline int64_t vmap_pages_entry(struct vt_walk *w, int d, uint64_t *p,
				       uint64_t addr, uint64_t next,
				       uint64_t prot, uint64_t *nr,
				       unsigned int shift, int huge_d)
{
	if (d == huge_d &&
	    vmap_pages_try_huge_pmd(w, d, p, addr, next, prot, nr, shift))
		return WALK_DONE;
	return lower_table(w, d, p, true);
}

/* vmap_pages_p4d_range() .. vmap_pages_pmd_range() */
struct vmap_pages_args {
	uint64_t prot, *nr;
	unsigned int shift;
	int huge_d;
};

static inline int64_t vmap_pages_level(struct vt_walk *w, int d, uint64_t *p,
				       uint64_t addr, uint64_t next, const void *c)
{
	const struct vmap_pages_args *a = c;

	return vmap_pages_entry(w, d, p, addr, next, a->prot, a->nr, a->shift,
				a->huge_d);
}

static inline int vmap_pages_pte(struct vt_walk *w, uint32_t tid, uint64_t addr,
				 uint64_t next, const void *c)
{
	const struct vmap_pages_args *a = c;

	return vt_vmap_pages_pte_range(w, tid, addr, next, a->prot, a->nr, a->shift);
}

static const struct walk_ops vmap_pages_ops = { vmap_pages_level, vmap_pages_pte };

static int vt_vmap_pages_pmd_range(struct vt_walk *w, uint64_t addr,
				   uint64_t end, uint64_t prot, uint64_t *nr,
				   unsigned int shift)
{
	const struct arm64_geom *g = &w->mm->g;
	const struct vmap_pages_args a = {
		prot, nr, shift, shift == g->pmd_shift ? g->pmd_depth : -1
	};

	return walk_levels(w, addr, end, &vmap_pages_ops, &a);
}

int vt_vmap_small_pages_range_noflush(struct vt_walk *w, uint64_t addr,
				      uint64_t end, uint64_t prot, uint64_t idx,
				      unsigned int shift)
{
	uint64_t nr = idx;

	if (addr >= end)
		return vt_error_set(w->err, VT_ERR_INVARIANT, "empty vmap range");
	WST(w, table_walks)++;
	if (w->written)
		vt_walk_note(w, addr, end);
	return vt_vmap_pages_pmd_range(w, addr, end, prot, &nr, shift);
}

/* ---- unmap -------------------------------------------------------------- */

/*
 * vunmap_pte_range(): xchg-clears; CONT blocks via huge_ptep_get_and_clear().
 * The entries up to the next CONT block (all of them without
 * arch_vmap_pte_range_unmap_size()) go by one arch batch of
 * ptep_get_and_clear(), counted once.  Aligned CONT blocks that each begin
 * inside one run of the table (arm64_entry_extent()) go by one batch too:
 * block after block, each begins with a valid CONT entry and clears
 * CONT_PTES entries, so k of them count as k huge_ptep_get_and_clear()
 * (their notes for --verify make the one range they join into).
 */
static __attribute__((noinline))
int vt_vunmap_pte_range(struct vt_walk *w, uint32_t tid, uint64_t addr,
			uint64_t end)
{
	struct arm64_mm *mm = w->mm;
	const struct arm64_geom *g = &mm->g;
	const unsigned int ps = g->page_shift;
	int d = g->levels - 1, err = 0;

	arch_enter_lazy_mmu_mode(mm);
	do {
		unsigned int i = arm64_index(g, d, addr);
		uint64_t size = g->page_size, ext = 1;
		uint64_t left = (end - addr + g->page_size - 1) >> ps, k = left;

		/* arch_vmap_pte_range_unmap_size() (v6.16+): entry i is a valid
		 * CONT entry exactly when the first of [i, ..) is i itself;
		 * the entries before the first are cleared in one batch */
		if (mm->o.vmap_cont)
			err = arm64_tbl_clear_to_cont(mm, tid, i, left, &k, &ext);
		else
			err = arm64_tbl_ptes_get_and_clear(mm, tid, i, k);
		if (err)
			break;
		if (k) {
			addr += k << ps;
		} else {
			k = 1;
			size = g->cont_pte_size;
			if (addr & (size - 1)) {	/* WARN_ON: align down */
				addr &= ~(size - 1);
				i = arm64_index(g, d, addr);
			} else {
				uint64_t blocks = (end - addr + size - 1) / size;

				k = (ext + g->cont_ptes - 1) / g->cont_ptes;
				k = k < blocks ? k : blocks;
			}
			if (w->written)	/* it may reach beyond [addr, end) */
				vt_walk_note(w, addr, addr + k * size);
			if (k == 1)
				err = arm64_tbl_huge_ptep_get_and_clear(mm, tid, i, size);
			else
				err = arm64_tbl_ptes_get_and_clear(mm, tid, i,
								   k * g->cont_ptes);
			if (end - addr <= k * size)
				addr = end;
			else
				addr += k * size;
		}
	} while (!err && addr < end);
	arch_leave_lazy_mmu_mode(mm);
	return err;
}

/*
 * One entry of vunmap_p4d_range() .. vunmap_pmd_range(): a leaf cleared
 * (pud_clear_huge()/pmd_clear_huge(); p4d_clear_huge() is empty) or a none
 * entry passed (*_none_or_clear_bad()): WALK_DONE; else the table under
 * it.
 */
static inline int64_t vunmap_entry(struct vt_walk *w, int d, uint64_t *p)
{
	struct arm64_mm *mm = w->mm;

	/* both test pud_sect()/pmd_sect() first: a block */
	if (arm64_desc_block(*p) &&
	    ((d == mm->g.pud_depth && arm64_pud_clear_huge(mm, p)) ||
	     (d == mm->g.pmd_depth && arm64_pmd_clear_huge(mm, p))))
		return WALK_DONE;
	if (!*p)
		return WALK_DONE;
	return lower_table(w, d, p, false);
}

/* vunmap_p4d_range() .. vunmap_pmd_range() */
static inline int64_t vunmap_level(struct vt_walk *w, int d, uint64_t *p,
				   uint64_t addr, uint64_t next, const void *c)
{
	(void)addr, (void)next, (void)c;
	return vunmap_entry(w, d, p);
}

static inline int vunmap_pte(struct vt_walk *w, uint32_t tid, uint64_t addr,
			     uint64_t next, const void *c)
{
	(void)c;
	return vt_vunmap_pte_range(w, tid, addr, next);
}

static const struct walk_ops vunmap_ops = { vunmap_level, vunmap_pte };

static int vt_vunmap_pmd_range(struct vt_walk *w, uint64_t addr, uint64_t end)
{
	return walk_levels(w, addr, end, &vunmap_ops, NULL);
}

/* __vunmap_range_noflush(): one walk; tables are never freed */
int vt___vunmap_range_noflush(struct vt_walk *w, uint64_t start, uint64_t end)
{
	WST(w, table_walks)++;
	if (w->written)
		vt_walk_note(w, start, end);
	return vt_vunmap_pmd_range(w, start, end);
}
