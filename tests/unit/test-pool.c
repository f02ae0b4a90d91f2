// SPDX-License-Identifier: GPL-2.0
/*
 * core/pool.c, the --jobs pool: items that wait for items of their own
 * (a trace waiting for its strategies) finish on pools of 1 to 4 threads,
 * every item runs once, a wait inside an item never runs another item
 * that waits (no nested wait on one stack), and an item that queues
 * itself again (a strategy's next batch) keeps its group open.  The
 * threads' figures (vt_pool_thread_stats()) count every item once, on the
 * thread that ran it.
 */
#include <stdbool.h>
#include <stdio.h>

#include "core/pool.h"
#include "test.h"

#define NR_TRACES 6
#define NR_LEAVES 16
#define NR_AGAIN 20

static __thread int depth;	/* items that wait, on this thread's stack */
static int max_depth;
static unsigned long leaves_run;

struct trace;

struct leaf {
	struct vt_pool_item item;	/* first */
	struct trace *t;
	int again;			/* times it queues itself again */
};

struct trace {
	struct vt_pool_item item;	/* first */
	struct vt_pool *pool;
	struct vt_pool_group g;
	struct leaf leaf[NR_LEAVES];
};

static void leaf_fn(struct vt_pool_item *it)
{
	struct leaf *l = (struct leaf *)it;

	__atomic_add_fetch(&leaves_run, 1, __ATOMIC_RELAXED);
	if (l->again-- > 0)
		vt_pool_submit(l->t->pool, &l->item, &l->t->g);
}

static void trace_fn(struct vt_pool_item *it)
{
	struct trace *t = (struct trace *)it;
	int d = ++depth;

	if (d > __atomic_load_n(&max_depth, __ATOMIC_RELAXED))
		__atomic_store_n(&max_depth, d, __ATOMIC_RELAXED);
	for (int i = 0; i < NR_LEAVES; i++) {
		t->leaf[i] = (struct leaf){ .item.fn = leaf_fn, .t = t,
					    .again = i % 2 ? NR_AGAIN : 0 };
		vt_pool_submit(t->pool, &t->leaf[i].item, &t->g);
	}
	vt_pool_wait_group(t->pool, &t->g, false);
	depth--;
}

/* Every item run is counted once, by kind; stolen items are among them. */
static void check_stats(struct vt_pool *pool, unsigned int nthreads, unsigned long leaves)
{
	struct vt_pool_thread_stats st;
	unsigned long n[2] = { 0, 0 }, stolen = 0;

	for (unsigned int t = 0; t < nthreads; t++) {
		TEST_ASSERT_EQ("stats of a thread", vt_pool_thread_stats(pool, t, &st), true);
		n[0] += st.items[0];
		n[1] += st.items[1];
		stolen += st.stolen;
	}
	TEST_ASSERT_EQ("leaf items counted", n[0], leaves);
	TEST_ASSERT_EQ("items that wait counted", n[1], NR_TRACES);
	TEST_ASSERT_EQ("stolen items are items run", stolen <= n[0] + n[1], true);
	TEST_ASSERT_EQ("no thread past the pool's", vt_pool_thread_stats(pool, nthreads, &st),
		       false);
}

static void run(unsigned int nthreads)
{
	struct vt_pool *pool;
	struct trace t[NR_TRACES] = { 0 };
	struct vt_pool_group g = { 0 };
	unsigned long want = NR_TRACES * (NR_LEAVES + NR_LEAVES / 2 * NR_AGAIN);

	leaves_run = 0;
	max_depth = 0;
	TEST_ASSERT_EQ("vt_pool_new", vt_pool_new(nthreads, &pool), 0);
	TEST_ASSERT_EQ("size", vt_pool_size(pool), nthreads);
	for (int i = 0; i < NR_TRACES; i++) {
		t[i].item.fn = trace_fn;
		t[i].item.may_wait = true;
		t[i].pool = pool;
		vt_pool_submit(pool, &t[i].item, &g);
	}
	vt_pool_wait_group(pool, &g, true);
	TEST_ASSERT_EQ("every trace done", g.pending, 0);
	for (int i = 0; i < NR_TRACES; i++)
		TEST_ASSERT_EQ("every leaf of a trace done", t[i].g.pending, 0);
	TEST_ASSERT_EQ("leaves run", __atomic_load_n(&leaves_run, __ATOMIC_RELAXED), want);
	TEST_ASSERT_EQ("no wait nested in a wait", max_depth, 1);
	check_stats(pool, nthreads, want);
	vt_pool_free(pool);
}

int main(void)
{
	for (unsigned int n = 1; n <= 4; n++)
		run(n);
	TEST_ASSERT_EQ("NULL pool: one thread", vt_pool_size(NULL), 1);
	return test_result("test-pool");
}
