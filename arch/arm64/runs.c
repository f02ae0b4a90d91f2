// SPDX-License-Identifier: GPL-2.0
/*
 * Run tables: a last-level table kept as sorted runs of valid leaves, each
 * an arithmetic progression (same attributes and CONT state, output
 * addresses one page apart), so that mapping or clearing a stretch costs
 * what its runs cost, not what its pages cost.  The primitives the walkers
 * call on an entry of a table (arm64_tbl_*()) store and clear runs and
 * count exactly what the per-descriptor primitives of pgtable.c count for
 * the same entries (set_pte_at(), set_huge_pte_at(), ptep_get_and_clear(),
 * huge_ptep_get_and_clear() of arch/arm64/include/asm/pgtable.h and
 * arch/arm64/mm/hugetlbpage.c, linux-mm/linux-mm @ 00cc00cd1fb6): the
 * kernel still pays one store per page; only the model stops paying it.
 * What runs cannot hold (a non-zero invalid entry, a stride other than a
 * page, more than arm64_runs_max() runs) turns the table into an array.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arm64/runs.h"

/* Room for @cap runs in table @id's list, which keeps the runs it has
 * (a whole-table run kept inline becomes a list of one). */
static int runs_grow(struct arm64_mm *mm, uint32_t id, uint32_t cap)
{
	struct arm64_run one;
	const struct arm64_run *r = NULL;
	struct arm64_runs *rs = NULL, *n;
	uint32_t nr = 0;

	if (mm->tbl_kind[id] == ARM64_TBL_RUNS) {
		rs = mm->runs[id].list;
		if (rs->cap >= cap)
			return 0;
	}
	if (mm->tbl_kind[id] != ARM64_TBL_NONE)
		r = arm64_table_runs(mm, id, &one, &nr);
	n = malloc(sizeof(*n) + (size_t)cap * sizeof(n->r[0]));
	if (!n)
		return -ENOMEM;
	n->cap = cap;
	n->nr = nr;
	if (nr)
		memcpy(n->r, r, nr * sizeof(*r));
	free(rs);
	mm->runs[id].list = n;
	mm->tbl_kind[id] = ARM64_TBL_RUNS;
	return 0;
}

uint64_t arm64_entry_extent(const struct arm64_mm *mm, uint32_t id, uint64_t i,
			    uint64_t *desc)
{
	const struct arm64_runs *rs;
	uint32_t r;

	if (mm->tbl[id]) {
		*desc = mm->tbl[id][i];
		return 1;
	}
	if (mm->tbl_kind[id] == ARM64_TBL_RUN0) {
		*desc = mm->runs[id].run0 + (i << mm->g.page_shift);
		return mm->g.ptrs[mm->tbl_depth[id]] - i;
	}
	rs = mm->runs[id].list;
	r = arm64_runs_lower(rs, i);
	if (r < rs->nr && rs->r[r].first <= i) {
		*desc = rs->r[r].desc0 + ((i - rs->r[r].first) << mm->g.page_shift);
		return rs->r[r].first + rs->r[r].len - i;
	}
	*desc = 0;
	return (r < rs->nr ? rs->r[r].first : mm->g.ptrs[mm->tbl_depth[id]]) - i;
}

/* Valid entries and valid PTE_CONT entries among [i, i + n). */
static void runs_count(const struct arm64_runs *rs, uint64_t i, uint64_t n,
		       uint64_t *nv, uint64_t *nc)
{
	uint64_t end = i + n;

	*nv = *nc = 0;
	for (uint32_t r = arm64_runs_lower(rs, i); r < rs->nr && rs->r[r].first < end; r++) {
		uint64_t a = rs->r[r].first > i ? rs->r[r].first : i;
		uint64_t b = (uint64_t)rs->r[r].first + rs->r[r].len;

		b = b < end ? b : end;
		*nv += b - a;
		if (rs->r[r].desc0 & PTE_CONT)
			*nc += b - a;
	}
}

/* Run @r merged into run @r - 1 where it continues it. */
static void runs_merge(const struct arm64_geom *g, struct arm64_runs *rs,
		       uint32_t r)
{
	struct arm64_run *p, *q;

	if (!r || r >= rs->nr)
		return;
	p = &rs->r[r - 1];
	q = &rs->r[r];
	if (p->first + p->len != q->first ||
	    p->desc0 + ((uint64_t)p->len << g->page_shift) != q->desc0 ||
	    !arm64_run_ok(g, p->desc0, (uint64_t)p->len + q->len))
		return;
	p->len += q->len;
	memmove(q, q + 1, (rs->nr - r - 1) * sizeof(*q));
	rs->nr--;
}

/*
 * Entries [i, i + n) become desc0 + (k << page_shift) (arm64_run_ok()), or
 * none for desc0 == 0: the runs there are cut, a run over both ends split.
 * The list has room for two more runs (runs_room()).
 */
static void runs_assign(const struct arm64_geom *g, struct arm64_runs *rs,
			uint64_t i, uint64_t n, uint64_t desc0)
{
	const unsigned int ps = g->page_shift;
	uint64_t end = i + n;
	uint32_t r, q, add = desc0 ? 1 : 0;
	struct arm64_run *x;

	if (add && arm64_runs_append(g, rs, i, n, desc0))
		return;
	r = arm64_runs_lower(rs, i);
	x = &rs->r[r];

	if (r < rs->nr && x->first < i && x->first + x->len > end) {
		/* inside one run: its tail after the stretch is a run of its own */
		struct arm64_run tail = {
			(uint32_t)end, (uint32_t)(x->first + x->len - end),
			x->desc0 + ((end - x->first) << ps),
		};

		memmove(x + 1 + add + 1, x + 1, (rs->nr - r - 1) * sizeof(*x));
		x->len = (uint32_t)(i - x->first);
		rs->r[r + 1 + add] = tail;
		rs->nr += 1 + add;
		r++;
	} else {
		if (r < rs->nr && x->first < i) {	/* keep its head */
			x->len = (uint32_t)(i - x->first);
			r++;
		}
		for (q = r; q < rs->nr && (uint64_t)rs->r[q].first + rs->r[q].len <= end; q++)
			;
		if (q < rs->nr && rs->r[q].first < end) {	/* keep its tail */
			uint64_t cut = end - rs->r[q].first;

			rs->r[q].first = (uint32_t)end;
			rs->r[q].len -= (uint32_t)cut;
			rs->r[q].desc0 += cut << ps;
		}
		memmove(&rs->r[r + add], &rs->r[q], (rs->nr - q) * sizeof(*x));
		rs->nr = rs->nr - (q - r) + add;
	}
	if (!add)
		return;
	rs->r[r] = (struct arm64_run){ (uint32_t)i, (uint32_t)n, desc0 };
	runs_merge(g, rs, r + 1);
	runs_merge(g, rs, r);
}

/*
 * Whether table @id can take a runs_assign() as runs: it is a run table
 * with room for two more (grown up to arm64_runs_max() + 2).  Otherwise it
 * is (made) an array; -ENOMEM if that fails.
 */
static inline int runs_room(struct arm64_mm *mm, uint32_t id, bool *runs)
{
	const struct arm64_runs *rs;
	uint32_t max = arm64_runs_max(&mm->g) + 2;

	*runs = false;
	if (mm->tbl[id])
		return 0;
	if (mm->tbl_kind[id] == ARM64_TBL_RUNS &&
	    mm->runs[id].list->nr + 2 <= mm->runs[id].list->cap) {
		*runs = true;	/* the common case, first */
		return 0;
	}
	if (mm->tbl_kind[id] != ARM64_TBL_RUNS && runs_grow(mm, id, 4))
		return -ENOMEM;
	rs = mm->runs[id].list;
	if (rs->nr + 2 > max)	/* not after runs_settle(): an array */
		return arm64_table_mut(mm, id) ? 0 : -ENOMEM;
	if (rs->nr + 2 > rs->cap) {
		uint32_t cap = 2 * rs->cap;

		if (runs_grow(mm, id, cap < max ? cap : max))
			return -ENOMEM;
	}
	*runs = true;
	return 0;
}

/* After a store: a table past arm64_runs_max() runs becomes an array. */
static int runs_settle(struct arm64_mm *mm, uint32_t id)
{
	if (mm->runs[id].list->nr <= arm64_runs_max(&mm->g))
		return 0;
	return arm64_table_mut(mm, id) ? 0 : -ENOMEM;
}

/* An array for the per-descriptor primitives: what runs cannot hold. */
static uint64_t *as_array(struct arm64_mm *mm, uint32_t id)
{
	return arm64_table_mut(mm, id);
}

int arm64_runs_set_ptes_slow(struct arm64_mm *mm, uint32_t id, uint64_t i,
			     uint64_t pfn, uint64_t n, uint64_t prot,
			     uint64_t *written)
{
	const struct arm64_geom *g = &mm->g;
	const uint64_t mask = arm64_desc_addr_mask(g), top = mask >> g->page_shift;
	struct arm64_runs *rs;
	uint64_t *t;
	uint32_t r;
	bool runs;
	int err;

	if (mm->tbl[id]) {
		*written = arm64_set_ptes(mm, &mm->tbl[id][i], pfn, n, prot);
		return 0;
	}
	if (!(prot & mask) && (prot & PTE_VALID) && pfn <= top &&
	    (!n || n - 1 <= top - pfn)) {
		err = runs_room(mm, id, &runs);
		if (err)
			return err;
		if (runs) {
			rs = mm->runs[id].list;
			r = arm64_runs_lower(rs, i);
			/* stop before the first entry that is not none */
			if (r < rs->nr && rs->r[r].first < i + n)
				n = rs->r[r].first > i ? rs->r[r].first - i : 0;
			if (n)
				runs_assign(g, rs, i, n, (pfn << g->page_shift) | prot);
			arm64_count_set_ptes(mm, n);
			*written = n;
			return runs_settle(mm, id);
		}
	}
	t = as_array(mm, id);
	if (!t)
		return -ENOMEM;
	*written = arm64_set_ptes(mm, &t[i], pfn, n, prot);
	return 0;
}

int arm64_tbl_set_pte_at(struct arm64_mm *mm, uint32_t id, uint64_t i,
			 uint64_t pte)
{
	uint64_t *t;
	bool runs;
	int err;

	if (!mm->tbl[id] && (!pte || arm64_run_ok(&mm->g, pte, 1))) {
		err = runs_room(mm, id, &runs);
		if (err)
			return err;
		if (runs) {
			runs_assign(&mm->g, mm->runs[id].list, i, 1, pte);
			arm64_count_set_pte(mm, pte);
			return runs_settle(mm, id);
		}
	}
	t = as_array(mm, id);
	if (!t)
		return -ENOMEM;
	arm64_set_pte_at(mm, &t[i], pte);
	return 0;
}

/*
 * set_huge_pte_at() of n = num_contig_ptes() entries at i: as runs when
 * they advance by a page (pgsize == PAGE_SIZE, a CONT_PTE size) and stay
 * in the table; break-before-make counted as n ptep_get_and_clear().
 */
int arm64_tbl_set_huge_pte_at(struct arm64_mm *mm, uint32_t id, uint64_t i,
			      uint64_t addr, uint64_t pte, uint64_t size)
{
	const struct arm64_geom *g = &mm->g;
	uint64_t pgsize, n = arm64_num_contig_ptes(mm, size, &pgsize), nv, nc;
	uint64_t *t;
	bool runs = false;
	int err;

	if (!mm->tbl[id] && pgsize == g->page_size && i + n <= g->ptrs[g->levels - 1] &&
	    (!pte || arm64_run_ok(g, pte, n))) {
		err = runs_room(mm, id, &runs);
		if (err)
			return err;
	}
	if (!runs) {
		t = as_array(mm, id);
		if (!t)
			return -ENOMEM;
		arm64_set_huge_pte_at(mm, addr, &t[i], pte, size);
		return 0;
	}
	ARM64_COUNT(mm->st, set_huge_pte_at_calls)++;
	if (pte && (pte & PTE_CONT) && (arm64_entry(mm, id, i) & PTE_VALID)) {
		runs_count(mm->runs[id].list, i, n, &nv, &nc);
		arm64_count_clears(mm, n, nv, nc);
		runs_assign(g, mm->runs[id].list, i, n, 0);
		arm64_flush_tlb_kernel_range(mm, addr, addr + n * pgsize);
	}
	runs_assign(g, mm->runs[id].list, i, n, pte);
	if (pte)
		arm64_count_huge_stores(mm, pte, n, pgsize, 1);
	return runs_settle(mm, id);
}

/*
 * As @k arm64_tbl_set_huge_pte_at() calls: one run when each call stores
 * size >> PAGE_SHIFT entries a page apart (pgsize == PAGE_SIZE, n entries
 * filling the step) into none entries, so that no break-before-make
 * happens and the k stores continue one another; call by call otherwise.
 */
int arm64_tbl_set_huge_ptes(struct arm64_mm *mm, uint32_t id, uint64_t i,
			    uint64_t addr, uint64_t pte, uint64_t size, uint64_t k)
{
	const struct arm64_geom *g = &mm->g;
	uint64_t pgsize, n = arm64_num_contig_ptes(mm, size, &pgsize), nv, nc;
	uint64_t stride = arm64_pa_to_desc(g, size);
	bool runs = false;
	int err = 0;

	if (k > 1 && !mm->tbl[id] && pgsize == g->page_size && n * pgsize == size &&
	    i + k * n <= g->ptrs[g->levels - 1] && arm64_run_ok(g, pte, k * n)) {
		err = runs_room(mm, id, &runs);
		if (err)
			return err;
		if (runs) {
			runs_count(mm->runs[id].list, i, k * n, &nv, &nc);
			runs = !nv;
		}
	}
	if (!runs) {
		for (uint64_t j = 0; j < k && !err; j++)
			err = arm64_tbl_set_huge_pte_at(mm, id, i + j * n, addr + j * size,
							pte + j * stride, size);
		return err;
	}
	ARM64_COUNT(mm->st, set_huge_pte_at_calls) += k;
	runs_assign(g, mm->runs[id].list, i, k * n, pte);
	arm64_count_huge_stores(mm, pte, n, pgsize, k);
	return runs_settle(mm, id);
}

int arm64_tbl_ptes_get_and_clear(struct arm64_mm *mm, uint32_t id, uint64_t i,
				 uint64_t n)
{
	struct arm64_runs *rs;
	uint64_t nv, nc, *t;
	bool runs;
	int err = runs_room(mm, id, &runs);

	if (err)
		return err;
	if (!runs) {
		t = as_array(mm, id);
		if (!t)
			return -ENOMEM;
		arm64_ptes_get_and_clear(mm, &t[i], n);
		return 0;
	}
	rs = mm->runs[id].list;
	if (rs->nr && i <= rs->r[0].first &&
	    i + n >= (uint64_t)rs->r[rs->nr - 1].first + rs->r[rs->nr - 1].len) {
		/* every run goes (an unmap of the table's whole range) */
		nv = nc = 0;
		for (uint32_t r = 0; r < rs->nr; r++) {
			nv += rs->r[r].len;
			if (rs->r[r].desc0 & PTE_CONT)
				nc += rs->r[r].len;
		}
		rs->nr = 0;
		arm64_count_clears(mm, n, nv, nc);
		return 0;
	}
	runs_count(rs, i, n, &nv, &nc);
	arm64_count_clears(mm, n, nv, nc);
	if (nv)
		runs_assign(&mm->g, rs, i, n, 0);
	return 0;
}

int arm64_tbl_huge_ptep_get_and_clear(struct arm64_mm *mm, uint32_t id,
				      uint64_t i, uint64_t size)
{
	uint64_t pgsize, n = arm64_num_contig_ptes(mm, size, &pgsize);

	return arm64_tbl_ptes_get_and_clear(mm, id, i, n);
}

/*
 * The runs of [i, i + n) before the first valid CONT entry (*end moved
 * there; runs share their CONT bit): the valid entries among them, or
 * UINT64_MAX when entry i is itself a valid CONT entry, *end then being
 * the end of its run.
 */
static uint64_t runs_upto_cont(const struct arm64_runs *rs, uint64_t i,
			       uint64_t *end)
{
	uint64_t nv = 0;

	for (uint32_t x = arm64_runs_lower(rs, i); x < rs->nr && rs->r[x].first < *end; x++) {
		const struct arm64_run *r = &rs->r[x];
		uint64_t a = r->first > i ? r->first : i, b = (uint64_t)r->first + r->len;

		if (r->desc0 & PTE_CONT) {
			if (r->first <= i) {
				*end = b;
				return UINT64_MAX;
			}
			*end = r->first;
			break;
		}
		nv += (b < *end ? b : *end) - a;
	}
	return nv;
}

int arm64_tbl_clear_to_cont_slow(struct arm64_mm *mm, uint32_t id, uint64_t i,
				 uint64_t n, uint64_t *k, uint64_t *ext)
{
	struct arm64_runs *rs;
	uint64_t end = i + n, nv;

	*ext = 1;
	if (mm->tbl[id]) {
		uint64_t *t = &mm->tbl[id][i];

		/* entry i first: a scan costs its pages */
		*k = (t[0] & PTE_VALID) && (t[0] & PTE_CONT) ? 0 : arm64_first_cont(t, n);
		if (*k)
			arm64_ptes_get_and_clear(mm, t, *k);
		return 0;
	}
	if (mm->tbl_kind[id] != ARM64_TBL_RUNS) {
		*k = arm64_tbl_first_cont(mm, id, i, n, ext);
		return *k ? arm64_tbl_ptes_get_and_clear(mm, id, i, *k) : 0;
	}
	rs = mm->runs[id].list;
	nv = runs_upto_cont(rs, i, &end);
	if (nv == UINT64_MAX) {
		*k = 0;
		*ext = end - i;
		return 0;
	}
	*k = end - i;
	if (nv && (i > rs->r[0].first ||
		   end < (uint64_t)rs->r[rs->nr - 1].first + rs->r[rs->nr - 1].len))
		return arm64_tbl_ptes_get_and_clear(mm, id, i, *k);
	rs->nr = nv ? 0 : rs->nr;	/* every run goes, or none */
	arm64_count_clears(mm, *k, nv, 0);
	return 0;
}

uint64_t arm64_tbl_first_cont(const struct arm64_mm *mm, uint32_t id,
			      uint64_t i, uint64_t n, uint64_t *ext)
{
	struct arm64_run one;
	const struct arm64_runs *rs;
	const struct arm64_run *r;
	uint32_t nr, x = 0;

	*ext = 1;
	if (mm->tbl[id])
		return arm64_first_cont(&mm->tbl[id][i], n);
	if (mm->tbl_kind[id] == ARM64_TBL_RUNS) {
		rs = mm->runs[id].list;
		x = arm64_runs_lower(rs, i);
	}
	r = arm64_table_runs(mm, id, &one, &nr);
	for (; x < nr && r[x].first < i + n; x++) {	/* runs share their CONT bit */
		if (!(r[x].desc0 & PTE_CONT) || (uint64_t)r[x].first + r[x].len <= i)
			continue;
		if (r[x].first > i)
			return r[x].first - i;
		*ext = r[x].first + r[x].len - i;
		return 0;
	}
	return n;
}
