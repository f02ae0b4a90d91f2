/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One pool of threads for every parallel step of a run (--jobs): work
 * items in one queue, in order, a thread taking first the items it ran
 * last (an engine stays on one core while the work is even).  cli/run.c submits one item per trace;
 * core/replay.c submits one item per (strategy, next batch) of a trace.
 * A thread that must wait for items (vt_pool_wait()) runs queued items
 * meanwhile instead of blocking, so nested waits cannot deadlock and a
 * pool of one thread (the caller) still finishes everything.
 *
 * Items are intrusive (embedded in the caller's struct): submitting never
 * allocates and cannot fail.  An item that waits (a trace, whose parser
 * waits for its strategies) is submitted with may_wait; waiting threads
 * help only with items that do not wait, so a wait never nests another
 * wait on its stack.
 */
#ifndef VT_POOL_H
#define VT_POOL_H

#include <stdbool.h>
#include <stdint.h>

struct vt_pool;

/* A set of items to wait for: pending counts those submitted, not done. */
struct vt_pool_group {
	unsigned long pending;
};

struct vt_pool_item {
	void (*fn)(struct vt_pool_item *it);
	struct vt_pool_group *group;	/* may be NULL */
	bool may_wait;			/* fn calls vt_pool_wait() */
	/* the pool's: the thread that last ran it + 1 (0: none yet; zero it
	 * before the first submission, as a zeroed struct does) */
	unsigned int home;
	struct vt_pool_item *next;	/* the queue's */
};

/*
 * A pool of @nthreads threads in all, the caller of vt_pool_wait() being
 * one of them (@nthreads - 1 are started; fewer if the system refuses,
 * which only costs speed).  0 or -ENOMEM.
 */
int vt_pool_new(unsigned int nthreads, struct vt_pool **out);
/* The threads the pool was sized with (its --jobs). */
unsigned int vt_pool_size(const struct vt_pool *p);
/* Stop and join the threads; every group must have been waited for. */
void vt_pool_free(struct vt_pool *p);

/*
 * What one thread of the pool did (bench/bench-jobs: the balance of
 * --jobs, measured in CPU time, which other jobs on the machine do not
 * inflate as they do wall time).  Thread 0 is the caller's (every thread
 * that is not one of the pool's own), 1.. the pool's.  Items that wait
 * (traces, whose parser runs in them) and leaf items (strategies) are
 * counted apart; an item's CPU time leaves out the items it ran while it
 * waited.
 */
struct vt_pool_thread_stats {
	unsigned long items[2];		/* [0] leaf, [1] may_wait */
	uint64_t item_cpu_ns[2];
	uint64_t idle_ns;		/* wall time blocked, nothing to run */
	unsigned long stolen;		/* items last run by another thread */
};

/* Thread @t's figures (0 <= @t < vt_pool_size()); false if @t is out of range. */
bool vt_pool_thread_stats(struct vt_pool *p, unsigned int t,
			  struct vt_pool_thread_stats *out);

/* Queue @it (fn and may_wait set by the caller) in @g. */
void vt_pool_submit(struct vt_pool *p, struct vt_pool_item *it,
		    struct vt_pool_group *g);

/*
 * Return once @done(@arg) is true, running queued items meanwhile.  @done
 * is called with the pool's lock held: it may take a lock of its own (the
 * order is always pool, then the caller's), and whatever makes it true
 * must be done by an item of this pool before the item returns.  @top: the
 * caller is not itself inside an item, so it may run items that wait.
 */
void vt_pool_wait(struct vt_pool *p, bool (*done)(void *arg), void *arg, bool top);
/* vt_pool_wait() until every item of @g is done. */
void vt_pool_wait_group(struct vt_pool *p, struct vt_pool_group *g, bool top);

#endif
