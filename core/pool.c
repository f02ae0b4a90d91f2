// SPDX-License-Identifier: GPL-2.0
/*
 * The work-item pool of --jobs (core/pool.h): one queue, taken in order
 * save that a thread takes first the items it ran last (pool_pop()), one
 * lock, one condition variable signalled on every submission and
 * completion.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "core/pool.h"

/* One thread's figures, a cache line of its own: each thread writes only
 * its own, and neighbours would otherwise bounce the line at every item. */
struct pool_slot {
	struct vt_pool_thread_stats st;
} __attribute__((aligned(64)));

struct vt_pool {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	struct vt_pool_item *head, *tail;
	bool stop;
	unsigned int size;		/* threads in all, the caller's included */
	unsigned int started;		/* threads created */
	unsigned int slots_taken;	/* by the threads created, under the lock */
	struct pool_slot *slot;		/* [size]: [0] the caller's */
	pthread_t t[];
};

/* The pool thread this is (its slot), and the CPU time of the items run
 * inside the item running on it (left out of that item's own). */
static __thread const struct vt_pool *tl_pool;
static __thread unsigned int tl_slot;
static __thread uint64_t tl_inner_ns;

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* This thread's slot in @p: 0 unless it is one of @p's own threads. */
static unsigned int pool_me(const struct vt_pool *p)
{
	return tl_pool == p ? tl_slot : 0;
}

static struct vt_pool_thread_stats *pool_stats(struct vt_pool *p)
{
	return &p->slot[pool_me(p)].st;
}

/* pthread_cond_wait() on the pool's lock, its wall time counted idle. */
static void pool_idle(struct vt_pool *p)
{
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);

	pthread_cond_wait(&p->cv, &p->lock);
	pool_stats(p)->idle_ns += clock_ns(CLOCK_MONOTONIC) - t0;
}

/* Unlink @it, whose link is *@pp and whose predecessor is @prev. */
static struct vt_pool_item *pool_unlink(struct vt_pool *p, struct vt_pool_item **pp,
					struct vt_pool_item *prev)
{
	struct vt_pool_item *it = *pp;

	*pp = it->next;
	if (p->tail == it)
		p->tail = prev;
	it->next = NULL;
	return it;
}

/*
 * The first queued item this thread last ran (its home), else the first
 * at all; with @leaf only items that do not wait.  NULL if none.  Keeping
 * an item (a strategy's next batch) on the thread that ran its last one
 * keeps the engine's memory in that core's cache and its frees in the
 * malloc arena it came from; a thread with no item of its own takes any,
 * so no thread idles while items are queued.
 */
static struct vt_pool_item *pool_pop(struct vt_pool *p, bool leaf)
{
	struct vt_pool_item **pp = &p->head, *prev = NULL;
	struct vt_pool_item **any = NULL, *any_prev = NULL;
	unsigned int me = pool_me(p) + 1;

	for (; *pp; prev = *pp, pp = &(*pp)->next) {
		if (leaf && (*pp)->may_wait)
			continue;
		if ((*pp)->home == me || !(*pp)->home)
			return pool_unlink(p, pp, prev);
		if (!any) {
			any = pp;
			any_prev = prev;
		}
	}
	return any ? pool_unlink(p, any, any_prev) : NULL;
}

/* Run @it without the lock; called and returns with it held. */
static void pool_run(struct vt_pool *p, struct vt_pool_item *it)
{
	struct vt_pool_group *g = it->group;	/* @it may be resubmitted or freed */
	unsigned int kind = it->may_wait;
	unsigned int me = pool_me(p) + 1;
	uint64_t outer = tl_inner_ns, t0, dt;

	if (it->home && it->home != me)
		pool_stats(p)->stolen++;
	it->home = me;
	pthread_mutex_unlock(&p->lock);
	tl_inner_ns = 0;
	t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	it->fn(it);
	dt = clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	pthread_mutex_lock(&p->lock);
	pool_stats(p)->items[kind]++;
	pool_stats(p)->item_cpu_ns[kind] += dt - tl_inner_ns;
	tl_inner_ns = outer + dt;
	if (g)
		g->pending--;
	pthread_cond_broadcast(&p->cv);
}

static void *pool_worker(void *arg)
{
	struct vt_pool *p = arg;

	pthread_mutex_lock(&p->lock);
	tl_pool = p;
	tl_slot = ++p->slots_taken;
	while (!p->stop) {
		struct vt_pool_item *it = pool_pop(p, false);

		if (it)
			pool_run(p, it);
		else
			pool_idle(p);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int vt_pool_new(unsigned int nthreads, struct vt_pool **out)
{
	struct vt_pool *p;
	if (!nthreads)
		nthreads = 1;
	p = calloc(1, sizeof(*p) + (nthreads - 1) * sizeof(p->t[0]));
	if (!p)
		return -ENOMEM;
	p->slot = aligned_alloc(64, nthreads * sizeof(*p->slot));
	if (!p->slot) {
		free(p);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < nthreads; i++)
		p->slot[i] = (struct pool_slot){ 0 };
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->size = nthreads;
	for (unsigned int i = 0; i + 1 < nthreads; i++) {
		if (pthread_create(&p->t[i], NULL, pool_worker, p))
			break;
		p->started++;
	}
	*out = p;
	return 0;
}

unsigned int vt_pool_size(const struct vt_pool *p)
{
	return p ? p->size : 1;
}

void vt_pool_free(struct vt_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->lock);
	for (unsigned int i = 0; i < p->started; i++)
		pthread_join(p->t[i], NULL);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->lock);
	free(p->slot);
	free(p);
}

bool vt_pool_thread_stats(struct vt_pool *p, unsigned int t,
			  struct vt_pool_thread_stats *out)
{
	if (!p || t >= p->size)
		return false;
	pthread_mutex_lock(&p->lock);
	*out = p->slot[t].st;
	pthread_mutex_unlock(&p->lock);
	return true;
}

void vt_pool_submit(struct vt_pool *p, struct vt_pool_item *it,
		    struct vt_pool_group *g)
{
	pthread_mutex_lock(&p->lock);
	it->group = g;
	it->next = NULL;	/* it->home: kept from its last run */
	if (g)
		g->pending++;
	if (p->tail)
		p->tail->next = it;
	else
		p->head = it;
	p->tail = it;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->lock);
}

void vt_pool_wait(struct vt_pool *p, bool (*done)(void *arg), void *arg, bool top)
{
	pthread_mutex_lock(&p->lock);
	while (!done(arg)) {
		struct vt_pool_item *it = pool_pop(p, !top);

		if (it)
			pool_run(p, it);
		else
			pool_idle(p);
	}
	pthread_mutex_unlock(&p->lock);
}

static bool group_done(void *arg)
{
	const struct vt_pool_group *g = arg;

	return !g->pending;
}

void vt_pool_wait_group(struct vt_pool *p, struct vt_pool_group *g, bool top)
{
	vt_pool_wait(p, group_done, g, top);
}
