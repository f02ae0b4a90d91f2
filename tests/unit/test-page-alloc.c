// SPDX-License-Identifier: GPL-2.0
/*
 * The page-allocator model (core/page_alloc.c): pcp_allowed_order(), the
 * pcp refill from the buddy, and the two vfree release paths of the free_pages_bulk() patch
 * against spec/worked-examples.md S8 (cases A-D), S4 and S5.
 */
#include <string.h>

#include "core/mm/page_alloc.h"
#include "core/trace/trace.h"
#include "test.h"

static void init(struct vt_page_alloc *pa)
{
	/* 4K: MAX_PAGE_ORDER 10, PMD order 9, 8 CPUs */
	vt_page_alloc_init(pa, 12, 10, 9, 8, 0x100000, 1ull << 36);
}

static void test_orders(void)
{
	struct vt_page_alloc pa;

	init(&pa);
	for (unsigned int o = 0; o <= 10; o++)
		TEST_ASSERT_EQ("pcp_allowed_order", vt_pcp_allowed_order(&pa, o),
			       o <= 3 || o == 9);
	TEST_ASSERT_EQ("zone_batchsize 4K", pa.batch, 63);
	vt_page_alloc_release(&pa);
	vt_page_alloc_init(&pa, 14, 11, 11, 8, 0x100000, 1ull << 34);
	TEST_ASSERT_EQ("zone_batchsize 16K", pa.batch, 15);
	TEST_ASSERT_VAL("16K pageblock order 11", vt_pcp_allowed_order(&pa, 11));
	vt_page_alloc_release(&pa);
	vt_page_alloc_init(&pa, 16, 13, 13, 8, 0x100000, 1ull << 32);
	TEST_ASSERT_EQ("zone_batchsize 64K", pa.batch, 3);
	vt_page_alloc_release(&pa);
}

/* S8: 256 pages in 32 order-3 blocks, freed by the two paths. */
static void s8_case(const char *name, const uint64_t *pfns, uint64_t runs_want,
		    uint64_t calls_want, uint64_t pcp_want, uint64_t buddy_want)
{
	struct vt_page_alloc pa;
	uint64_t runs;

	init(&pa);
	TEST_ASSERT_EQ(name, vt_free_pages_bulk(&pa, pfns, 256, &runs), 0);
	TEST_ASSERT_EQ("runs", runs, runs_want);
	TEST_ASSERT_EQ("__free_contig_range calls", pa.st.contig_range_calls, runs_want);
	TEST_ASSERT_EQ("prepared", pa.st.pages_prepared, 256);
	TEST_ASSERT_EQ("free_calls", pa.st.free_calls, calls_want);
	TEST_ASSERT_EQ("pages_freed", pa.st.pages_freed, 256);
	TEST_ASSERT_EQ("to pcp", pa.st.free_pcp, pcp_want);
	TEST_ASSERT_EQ("to buddy", pa.st.free_buddy, buddy_want);
	vt_page_alloc_release(&pa);

	/* the same array kept as page runs, as vfree() frees it
	 * (vt_free_pages_bulk_runs()): one order-0 run a page, one order-3
	 * run a block (each block's 8 pfns follow each other), and one
	 * order-0 run a block with the array cut after 252 pages: the
	 * counts of vt_free_pages_bulk() over the array */
	for (int shape = 0; shape < 3; shape++) {
		struct vt_page_alloc want;
		struct vt_page_run r[256];
		uint64_t nr = shape == 2 ? 252 : 256, want_runs;
		uint32_t n = 0;

		for (int i = 0; i < 256; i += shape ? 8 : 1)
			r[n++] = (struct vt_page_run){ pfns[i], shape ? 8 : 1, 0 };
		if (shape == 1)
			for (uint32_t i = 0; i < n; i++)
				r[i] = (struct vt_page_run){ r[i].pfn, 1, 3 };
		init(&pa);
		init(&want);
		TEST_ASSERT_EQ(name, vt_free_pages_bulk_runs(&pa, r, n, nr, &runs), 0);
		TEST_ASSERT_EQ(name, vt_free_pages_bulk(&want, pfns, nr, &want_runs), 0);
		TEST_ASSERT_EQ("runs' cond_resched()", runs, want_runs);
		TEST_ASSERT_VAL("runs' counts", !memcmp(&pa.st, &want.st, sizeof(pa.st)));
		TEST_ASSERT_EQ("runs' pcp count", pa.count, want.count);
		vt_page_alloc_release(&pa);
		vt_page_alloc_release(&want);
	}

	/* vfree-perpage: 256 __free_page(), all order 0 to the pcp list */
	init(&pa);
	for (int i = 0; i < 256; i++)
		TEST_ASSERT_EQ("free_page", vt___free_page(&pa, pfns[i]), 0);
	TEST_ASSERT_EQ("perpage free_calls", pa.st.free_calls, 256);
	TEST_ASSERT_EQ("perpage to pcp", pa.st.free_pcp, 256);
	TEST_ASSERT_EQ("perpage prepared", pa.st.pages_prepared, 256);
	vt_page_alloc_release(&pa);
}

static void test_s8(void)
{
	uint64_t p[256];

	/* A: blocks not PFN-adjacent (a gap of 8 after each) */
	for (int b = 0; b < 32; b++)
		for (int i = 0; i < 8; i++)
			p[b * 8 + i] = 0x200000 + b * 16 + i;
	s8_case("S8 A", p, 32, 32, 32, 0);
	/* B: adjacent, ascending, first pfn 256-aligned: one order-8 free */
	for (int i = 0; i < 256; i++)
		p[i] = 0x200000 + i;
	s8_case("S8 B", p, 1, 1, 0, 1);
	/* C: first pfn = 8 mod 256: orders 3, 4, 5, 6, 7, 3 */
	for (int i = 0; i < 256; i++)
		p[i] = 0x200008 + i;
	s8_case("S8 C", p, 1, 6, 2, 4);
	/* D: adjacent blocks in descending pfn order */
	for (int b = 0; b < 32; b++)
		for (int i = 0; i < 8; i++)
			p[b * 8 + i] = 0x200000 + (31 - b) * 8 + i;
	s8_case("S8 D", p, 32, 32, 32, 0);
}

/* S4: vmalloc_huge(2 MiB): one order-9 block -> one order-9 free to the
 * pcp list (THP); S5: order 8 -> the buddy. */
static void test_s4_s5(void)
{
	struct vt_page_alloc pa;
	uint64_t pfn, p[512], runs;

	init(&pa);
	TEST_ASSERT_EQ("alloc o9", vt_alloc_pages(&pa, 9, &pfn), 0);
	TEST_ASSERT_EQ("aligned", pfn & 511, 0);
	/* pcp list of order 9 empty: max(63 >> 9, 2) = 2 blocks from the buddy */
	TEST_ASSERT_EQ("buddy_blocks o9 refill", pa.st.buddy_blocks, 2);
	/* rmqueue_bulk(): both blocks under one zone->lock hold */
	TEST_ASSERT_EQ("o9 refill: one lock hold", pa.st.rmqueue_locks, 1);
	for (int i = 0; i < 512; i++)
		p[i] = pfn + i;
	TEST_ASSERT_EQ("bulk", vt_free_pages_bulk(&pa, p, 512, &runs), 0);
	TEST_ASSERT_EQ("S4 free_calls", pa.st.free_calls, 1);
	TEST_ASSERT_EQ("S4 to pcp", pa.st.free_pcp, 1);
	/* the next order-9 request reuses the freed block (list head) */
	TEST_ASSERT_EQ("alloc o9 again", vt_alloc_pages(&pa, 9, &p[0]), 0);
	TEST_ASSERT_EQ("same block", p[0], pfn);
	TEST_ASSERT_EQ("no new buddy block", pa.st.buddy_blocks, 2);
	TEST_ASSERT_EQ("no new lock hold", pa.st.rmqueue_locks, 1);
	vt_page_alloc_release(&pa);

	init(&pa);
	TEST_ASSERT_EQ("alloc o8", vt_alloc_pages(&pa, 8, &pfn), 0);
	TEST_ASSERT_EQ("o8 from the buddy", pa.st.buddy_blocks, 1);
	/* rmqueue_buddy(): its own zone->lock hold */
	TEST_ASSERT_EQ("o8: one lock hold", pa.st.rmqueue_locks, 1);
	TEST_ASSERT_EQ("alloc o8 again", vt_alloc_pages(&pa, 8, &p[0]), 0);
	TEST_ASSERT_EQ("o8: a hold per block", pa.st.rmqueue_locks, 2);
	TEST_ASSERT_EQ("o8: a block per hold", pa.st.buddy_blocks, 2);
	for (int i = 0; i < 256; i++)
		p[i] = pfn + i;
	TEST_ASSERT_EQ("bulk", vt_free_pages_bulk(&pa, p, 256, &runs), 0);
	TEST_ASSERT_EQ("S5 free_calls", pa.st.free_calls, 1);
	TEST_ASSERT_EQ("S5 to buddy", pa.st.free_buddy, 1);
	TEST_ASSERT_EQ("pages_allocated", pa.st.pages_allocated, 512);
	vt_page_alloc_release(&pa);
}

/*
 * The regression of a06157804399 and its fix (the free_pages_bulk() patch): a loop of
 * order-2 allocations (fix_size_alloc_test p:4).  Freed per page, the
 * blocks land on the order-0 list and every 15th allocation refills the
 * order-2 list from the buddy (max(63 >> 2, 2) = 15 blocks); freed in
 * bulk, the block returns to the order-2 list and is reused.
 */
static void test_regression(void)
{
	for (int bulk = 0; bulk < 2; bulk++) {
		struct vt_page_alloc pa;

		init(&pa);
		for (int loop = 0; loop < 150; loop++) {
			uint64_t pfn, p[4], runs;

			TEST_ASSERT_EQ("alloc", vt_alloc_pages(&pa, 2, &pfn), 0);
			for (int i = 0; i < 4; i++)
				p[i] = pfn + i;
			if (bulk) {
				TEST_ASSERT_EQ("bulk", vt_free_pages_bulk(&pa, p, 4, &runs), 0);
			} else {
				for (int i = 0; i < 4; i++)
					TEST_ASSERT_EQ("page", vt___free_page(&pa, p[i]), 0);
			}
		}
		TEST_ASSERT_EQ(bulk ? "bulk: one refill" : "perpage: a refill per 15 loops",
			       pa.st.buddy_blocks, bulk ? 15 : 150);
		/* one zone->lock hold per refill of 15 blocks */
		TEST_ASSERT_EQ(bulk ? "bulk: one lock hold" : "perpage: a hold per 15 loops",
			       pa.st.rmqueue_locks, bulk ? 1 : 10);
		TEST_ASSERT_EQ("free_calls", pa.st.free_calls, bulk ? 150 : 600);
		vt_page_alloc_release(&pa);
	}
}

/* Order-0 pages: the bulk allocator refills with batch pages in ascending
 * order; pages freed one by one come back in reverse (LIFO), which
 * free_pages_bulk() cannot merge. */
static void test_lifo(void)
{
	struct vt_page_alloc pa;
	uint64_t p[16], q[16], runs;

	init(&pa);
	TEST_ASSERT_EQ("bulk alloc", vt_alloc_pages_bulk(&pa, 16, p), 0);
	for (int i = 1; i < 16; i++)
		TEST_ASSERT_EQ("ascending", p[i], p[0] + i);
	/* an order-0 refill: batch (63) pages under one zone->lock hold, no
	 * buddy_blocks (those count order > 0) */
	TEST_ASSERT_EQ("order-0 refill: one lock hold", pa.st.rmqueue_locks, 1);
	TEST_ASSERT_EQ("order-0 refill: no buddy_blocks", pa.st.buddy_blocks, 0);
	TEST_ASSERT_EQ("the rest on the list", pa.list[0].nr, pa.batch - 16);
	for (int i = 0; i < 16; i++)
		TEST_ASSERT_EQ("free", vt___free_page(&pa, p[i]), 0);
	TEST_ASSERT_EQ("bulk alloc again", vt_alloc_pages_bulk(&pa, 16, q), 0);
	for (int i = 0; i < 16; i++)
		TEST_ASSERT_EQ("LIFO", q[i], p[15 - i]);
	TEST_ASSERT_EQ("no refill from the list", pa.st.rmqueue_locks, 1);
	TEST_ASSERT_EQ("bulk free", vt_free_pages_bulk(&pa, q, 16, &runs), 0);
	TEST_ASSERT_EQ("descending: one run per page", runs, 16);
	vt_page_alloc_release(&pa);
}

/* pcp->high: the lists drain batch pages from the tail of the freed
 * page's list once the count reaches high. */
static void test_high(void)
{
	struct vt_page_alloc pa;
	uint64_t n;

	init(&pa);
	n = pa.high;
	for (uint64_t i = 0; i < n; i++)
		TEST_ASSERT_EQ("free", vt___free_page(&pa, 0x400000 + 2 * i), 0);
	TEST_ASSERT_EQ("drained one batch", pa.st.pcp_drained, pa.batch);
	TEST_ASSERT_EQ("count", pa.count, n - pa.batch);
	TEST_ASSERT_EQ("oldest went first", pa.list[0].pfn[(pa.list[0].head + pa.list[0].nr - 1) &
							   (pa.list[0].cap - 1)],
		       0x400000 + 2 * (uint64_t)pa.batch);
	vt_page_alloc_release(&pa);
}

int main(void)
{
	test_orders();
	test_s8();
	test_s4_s5();
	test_regression();
	test_lifo();
	test_high();
	return test_result("test-page-alloc");
}
