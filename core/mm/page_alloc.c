// SPDX-License-Identifier: GPL-2.0
/*
 * A model of mm/page_alloc.c's per-CPU lists and its free paths
 * (linux-mm/linux-mm @ 00cb34b034a5: pcp_allowed_order(),
 * __rmqueue_pcplist(), nr_pcp_alloc(), rmqueue_bulk(),
 * free_frozen_page_commit(), free_pcppages_bulk(), zone_batchsize(),
 * zone_highsize(); the vfree patch: free_pages_bulk(), __free_contig_range(),
 * free_prepared_contig_range()).  See page_alloc.h for what is left out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/mm/page_alloc.h"
#include "core/trace/trace.h"	/* struct vt_page_run */

/* ---- the lists ------------------------------------------------------------ */

static int pcp_grow(struct vt_pcp_list *l)
{
	uint64_t cap = l->cap ? l->cap * 2 : 64;
	uint64_t *n = malloc(cap * sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (uint64_t i = 0; i < l->nr; i++)
		n[i] = l->pfn[(l->head + i) & (l->cap - 1)];
	free(l->pfn);
	l->pfn = n;
	l->cap = cap;
	l->head = 0;
	return 0;
}

/* list_add(): at the head */
static inline void pcp_add_head(struct vt_pcp_list *l, uint64_t pfn)
{
	l->head = (l->head - 1) & (l->cap - 1);
	l->pfn[l->head] = pfn;
	l->nr++;
}

static int pcp_push_head(struct vt_pcp_list *l, uint64_t pfn)
{
	if (l->nr == l->cap && pcp_grow(l))
		return -ENOMEM;
	pcp_add_head(l, pfn);
	return 0;
}

/* list_add_tail() */
static int pcp_push_tail(struct vt_pcp_list *l, uint64_t pfn)
{
	if (l->nr == l->cap && pcp_grow(l))
		return -ENOMEM;
	l->pfn[(l->head + l->nr) & (l->cap - 1)] = pfn;
	l->nr++;
	return 0;
}

/* list_first_entry() + list_del() */
static uint64_t pcp_pop_head(struct vt_pcp_list *l)
{
	uint64_t pfn = l->pfn[l->head];

	l->head = (l->head + 1) & (l->cap - 1);
	l->nr--;
	return pfn;
}

/* list_last_entry() + list_del() */
static uint64_t pcp_pop_tail(struct vt_pcp_list *l)
{
	l->nr--;
	return l->pfn[(l->head + l->nr) & (l->cap - 1)];
}

/* ---- set-up ------------------------------------------------------------------ */

void vt_page_alloc_init(struct vt_page_alloc *pa, unsigned int page_shift,
			unsigned int max_order, unsigned int pmd_order,
			unsigned int cpus, uint64_t pfn_base, uint64_t pfn_limit)
{
	/* a 16 GiB ZONE_NORMAL: the managed pages */
	uint64_t managed = (16ull << 30) >> page_shift, batch, high;

	memset(pa, 0, sizeof(*pa));
	pa->max_order = max_order;
	/* pageblock_order = HUGETLB_PAGE_ORDER (the PMD order) capped at
	 * MAX_PAGE_ORDER; THP is on in arm64's defconfig */
	pa->pageblock_order = pmd_order < max_order ? pmd_order : max_order;
	pa->thp = true;
	/* zone_batchsize(): min(managed >> 10, SZ_1M / PAGE_SIZE) / 4,
	 * rounddown_pow_of_two(batch + batch / 2) - 1: 63 on 4K, 15 on
	 * 16K, 3 on 64K */
	batch = managed >> 10;
	if (batch > (1ull << 20) >> page_shift)
		batch = (1ull << 20) >> page_shift;
	batch /= 4;
	if (batch < 1)
		batch = 1;
	batch = batch + batch / 2;
	batch = (1ull << (63 - __builtin_clzll(batch))) - 1;
	pa->batch = (unsigned int)batch;
	/* zone_highsize() with MIN_PERCPU_PAGELIST_HIGH_FRACTION (8): the
	 * high_max each CPU's pcp->high may grow to, at least 4 batches */
	high = managed / 8 / (cpus ? cpus : 1);
	if (high < batch * 4)
		high = batch * 4;
	pa->high = high;
	pa->pfn_base = pfn_base;
	pa->pfn_limit = pfn_limit;
	pa->next_pfn = pfn_base;
}

void vt_page_alloc_release(struct vt_page_alloc *pa)
{
	for (int i = 0; i < VT_PCP_LISTS; i++)
		free(pa->list[i].pfn);
	memset(pa->list, 0, sizeof(pa->list));
}

static inline bool pcp_allowed_order(const struct vt_page_alloc *pa, unsigned int order)
{
	if (order <= VT_PAGE_ALLOC_COSTLY_ORDER)
		return true;
	return pa->thp && order == pa->pageblock_order;
}

bool vt_pcp_allowed_order(const struct vt_page_alloc *pa, unsigned int order)
{
	return pcp_allowed_order(pa, order);
}

/* order_to_pindex(): one list per order (migratetypes not modelled) */
static struct vt_pcp_list *pcp_list(struct vt_page_alloc *pa, unsigned int order)
{
	return &pa->list[order <= VT_PAGE_ALLOC_COSTLY_ORDER ? order
			 : VT_PAGE_ALLOC_COSTLY_ORDER + 1];
}

static unsigned int pindex_to_order(const struct vt_page_alloc *pa, int pindex)
{
	return pindex <= VT_PAGE_ALLOC_COSTLY_ORDER ? (unsigned int)pindex
						    : pa->pageblock_order;
}

/* __rmqueue_smallest() of an unfragmented zone: the next aligned block */
static uint64_t buddy_take(struct vt_page_alloc *pa, unsigned int order)
{
	uint64_t n = 1ull << order;
	uint64_t pfn = (pa->next_pfn + n - 1) & ~(n - 1);

	if (pfn + n > pa->pfn_limit)
		pfn = (pa->pfn_base + n - 1) & ~(n - 1);	/* wrap */
	pa->next_pfn = pfn + n;
	if (order)
		pa->st.buddy_blocks++;
	return pfn;
}

/*
 * nr_pcp_alloc() without the order-0 alloc_factor doubling: pcp->batch,
 * scaled to the order "if batch implies free pages can be stored on the
 * PCP": batch > 1 ? max(batch >> order, 2) : batch.  (pcp->high rising
 * by batch towards high_max on each refill is why high is high_max here.)
 */
static unsigned int nr_pcp_alloc(const struct vt_page_alloc *pa, unsigned int order)
{
	unsigned int b = pa->batch;

	if (b > 1) {
		b >>= order;
		if (b < 2)
			b = 2;
	}
	return b;
}

/*
 * rmqueue_bulk() into the empty list @l of @order: zone->lock once
 * (spin_lock_irqsave()) and __rmqueue() for each of the nr_pcp_alloc()
 * blocks under it, order 0 included (linux-mm/linux-mm @ 6e2201b19890
 * mm/page_alloc.c rmqueue_bulk()).
 */
static int pcp_refill(struct vt_page_alloc *pa, struct vt_pcp_list *l,
		      unsigned int order)
{
	unsigned int n = nr_pcp_alloc(pa, order);

	pa->st.rmqueue_locks++;
	for (unsigned int i = 0; i < n; i++)
		if (pcp_push_tail(l, buddy_take(pa, order)))
			return -ENOMEM;
	pa->count += (uint64_t)n << order;
	return 0;
}

/* pcp_refill() of the order-0 list, out of line (alloc_pages_bulk()'s
 * list seldom runs empty) */
static __attribute__((noinline)) int pcp_refill_cold(struct vt_page_alloc *pa,
						     struct vt_pcp_list *l)
{
	return pcp_refill(pa, l, 0);
}

/* __rmqueue_pcplist(): the list's head block, the list refilled first
 * when empty */
static int rmqueue_pcplist(struct vt_page_alloc *pa, unsigned int order, uint64_t *pfn)
{
	struct vt_pcp_list *l = pcp_list(pa, order);

	if (!l->nr && pcp_refill(pa, l, order))
		return -ENOMEM;
	*pfn = pcp_pop_head(l);
	pa->count -= 1ull << order;
	return 0;
}

/* vt_alloc_pages() from an empty list or the buddy (out of line: the
 * usual block comes from a list that holds one) */
static __attribute__((noinline)) int rmqueue_slow(struct vt_page_alloc *pa,
						  unsigned int order, uint64_t *pfn)
{
	if (pcp_allowed_order(pa, order))
		return rmqueue_pcplist(pa, order, pfn);
	pa->st.rmqueue_locks++;
	*pfn = buddy_take(pa, order);
	return 0;
}

int vt_alloc_pages(struct vt_page_alloc *pa, unsigned int order, uint64_t *pfn)
{
	struct vt_pcp_list *l = pcp_list(pa, order);

	/*
	 * rmqueue(): pcp orders from the pcp list, others from the buddy by
	 * rmqueue_buddy(), which takes zone->lock for its one __rmqueue()
	 * (linux-mm/linux-mm @ 6e2201b19890 mm/page_alloc.c rmqueue(),
	 * rmqueue_buddy())
	 */
	if (pcp_allowed_order(pa, order) && l->nr) {
		*pfn = pcp_pop_head(l);
		pa->count -= 1ull << order;
	} else if (rmqueue_slow(pa, order, pfn)) {
		return -ENOMEM;
	}
	pa->st.pages_allocated += 1ull << order;
	return 0;
}

/*
 * alloc_pages_bulk(): __rmqueue_pcplist() for each page, the order-0 list
 * refilled whenever it runs empty; the pages the list holds are taken
 * from its head in one step each time (the same pages, in the same order,
 * as one __rmqueue_pcplist() each).
 */
int vt_alloc_pages_bulk(struct vt_page_alloc *pa, uint64_t nr, uint64_t *pfns)
{
	struct vt_pcp_list *l = &pa->list[0];
	uint64_t i = 0;

	while (i < nr) {
		uint64_t n;

		if (!l->nr && pcp_refill_cold(pa, l))
			return -ENOMEM;
		n = nr - i < l->nr ? nr - i : l->nr;
		l->nr -= n;
		pa->count -= n;
		/* (the list's head apart: pfns[] may alias it) */
		for (uint64_t head = l->head, mask = l->cap - 1; n; n--) {
			pfns[i++] = l->pfn[head];
			head = (head + 1) & mask;
			l->head = head;
		}
	}
	pa->st.pages_allocated += nr;
	return 0;
}

/* ---- freeing -------------------------------------------------------------------- */

/*
 * free_pcppages_bulk(zone, count, pcp, pindex): from the list tails, the
 * freed page's list first, then round robin; each block goes to the buddy.
 */
static void free_pcppages_bulk(struct vt_page_alloc *pa, int64_t count, int pindex)
{
	pindex--;
	while (count > 0 && pa->count) {
		struct vt_pcp_list *l;

		do {
			if (++pindex > VT_PCP_LISTS - 1)
				pindex = 0;
			l = &pa->list[pindex];
		} while (!l->nr);
		do {
			uint64_t n = 1ull << pindex_to_order(pa, pindex);

			pcp_pop_tail(l);
			count -= (int64_t)n;
			pa->count -= n;
			pa->st.pcp_drained++;
		} while (count > 0 && l->nr);
	}
}

/* free_frozen_page_commit() of a block whose list must grow or that
 * brings pcp->count to pcp->high (out of line: seldom) */
static __attribute__((noinline)) int free_frozen_page_commit(struct vt_page_alloc *pa,
							     struct vt_pcp_list *l,
							     uint64_t pfn,
							     unsigned int order)
{
	if (pcp_push_head(l, pfn))
		return -ENOMEM;
	pa->count += 1ull << order;
	if (pa->count >= pa->high)
		free_pcppages_bulk(pa, pa->batch, (int)(l - pa->list));
	return 0;
}

/* __free_frozen_pages() of one block; the callers' shared body */
static inline int free_frozen_pages(struct vt_page_alloc *pa, uint64_t pfn,
				    unsigned int order)
{
	struct vt_pcp_list *l;

	pa->st.free_calls++;
	pa->st.pages_freed += 1ull << order;
	if (!pcp_allowed_order(pa, order)) {
		/* __free_pages_ok() -> free_one_page() */
		pa->st.free_buddy++;
		return 0;
	}
	/* free_frozen_page_commit(): list_add(), then drain at pcp->high
	 * (nr_pcp_free() taken as batch); a list with room and no drain
	 * here, the others in free_frozen_page_commit() */
	pa->st.free_pcp++;
	l = pcp_list(pa, order);
	if (l->nr == l->cap || pa->count + (1ull << order) >= pa->high)
		return free_frozen_page_commit(pa, l, pfn, order);
	pcp_add_head(l, pfn);
	pa->count += 1ull << order;
	return 0;
}

int vt___free_frozen_pages(struct vt_page_alloc *pa, uint64_t pfn, unsigned int order)
{
	return free_frozen_pages(pa, pfn, order);
}

int vt___free_page(struct vt_page_alloc *pa, uint64_t pfn)
{
	/* __free_page() -> ___free_pages(): put_page_testzero() drops the
	 * last reference; __free_frozen_pages() -> __free_pages_prepare() */
	pa->st.pages_prepared++;
	return free_frozen_pages(pa, pfn, 0);
}

/*
 * free_prepared_contig_range(): order = min(__ffs(pfn) (MAX_PAGE_ORDER
 * for pfn 0), ilog2(nr), MAX_PAGE_ORDER), one __free_frozen_pages(page,
 * order, FPI_PREPARED) per block.
 */
static inline __attribute__((always_inline)) int
free_prepared_contig_range(struct vt_page_alloc *pa, uint64_t pfn,
				      uint64_t nr)
{
	while (nr) {
		unsigned int order = pfn ? (unsigned int)__builtin_ctzll(pfn) : pa->max_order;
		unsigned int lg = 63 - __builtin_clzll(nr);
		int err;

		if (order > lg)
			order = lg;
		if (order > pa->max_order)
			order = pa->max_order;
		err = free_frozen_pages(pa, pfn, order);
		if (err)
			return err;
		pfn += 1ull << order;
		nr -= 1ull << order;
	}
	return 0;
}

/* __free_contig_range(pfn, nr): prepare every page as order 0, then
 * free_prepared_contig_range(): the largest naturally aligned blocks,
 * left to right. */
static inline int vt___free_contig_range(struct vt_page_alloc *pa, uint64_t pfn,
					 uint64_t nr)
{
	/* __free_contig_range_common(): every page's reference dropped and
	 * free_pages_prepare(page, 0) passes (vmalloc holds the only
	 * reference); no section split with SPARSEMEM_VMEMMAP (the section
	 * is not kept in page->flags) */
	pa->st.contig_range_calls++;
	pa->st.pages_prepared += nr;
	return free_prepared_contig_range(pa, pfn, nr);
}

int vt_free_pages_bulk(struct vt_page_alloc *pa, const uint64_t *pfns,
		       uint64_t nr, uint64_t *runs)
{
	*runs = 0;
	while (nr) {
		/* num_pages_contiguous(): ++cur_page == pages[i] */
		uint64_t n = 1;
		int err;

		while (n < nr && pfns[n] == pfns[0] + n)
			n++;
		err = vt___free_contig_range(pa, pfns[0], n);
		if (err)
			return err;
		pfns += n;
		nr -= n;
		(*runs)++;	/* cond_resched() */
	}
	return 0;
}

int vt_free_pages_bulk_runs(struct vt_page_alloc *pa, const struct vt_page_run *r,
			    uint32_t nr_runs, uint64_t nr, uint64_t *runs)
{
	uint64_t start = 0, n = 0;	/* n: the open stretch */
	int err;

	*runs = 0;
	for (uint32_t i = 0; i < nr_runs && nr; i++) {
		uint64_t c = r[i].count << r[i].order;

		if (c > nr)
			c = nr;
		if (!c)
			continue;
		nr -= c;
		/* num_pages_contiguous(): ++cur_page == pages[i] */
		if (n && r[i].pfn == start + n) {
			n += c;
			continue;
		}
		if (n) {
			err = vt___free_contig_range(pa, start, n);
			if (err)
				return err;
			(*runs)++;	/* cond_resched() */
		}
		start = r[i].pfn;
		n = c;
	}
	if (!n)
		return 0;
	(*runs)++;
	return vt___free_contig_range(pa, start, n);
}
