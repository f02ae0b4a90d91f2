// SPDX-License-Identifier: GPL-2.0
/*
 * The work-item pool of --jobs (core/pool.h): one FIFO queue, one lock,
 * one condition variable signalled on every submission and completion.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "core/pool.h"

struct vt_pool {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	struct vt_pool_item *head, *tail;
	bool stop;
	unsigned int size;		/* threads in all, the caller's included */
	unsigned int started;
	pthread_t t[];
};

/* The first queued item, or with @leaf the first that does not wait; NULL if none. */
static struct vt_pool_item *pool_pop(struct vt_pool *p, bool leaf)
{
	struct vt_pool_item **pp = &p->head, *prev = NULL, *it;

	while (*pp && leaf && (*pp)->may_wait) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	if (!*pp)
		return NULL;
	it = *pp;
	*pp = it->next;
	if (p->tail == it)
		p->tail = prev;
	it->next = NULL;
	return it;
}

/* Run @it without the lock; called and returns with it held. */
static void pool_run(struct vt_pool *p, struct vt_pool_item *it)
{
	struct vt_pool_group *g = it->group;	/* @it may be resubmitted or freed */

	pthread_mutex_unlock(&p->lock);
	it->fn(it);
	pthread_mutex_lock(&p->lock);
	if (g)
		g->pending--;
	pthread_cond_broadcast(&p->cv);
}

static void *pool_worker(void *arg)
{
	struct vt_pool *p = arg;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		struct vt_pool_item *it = pool_pop(p, false);

		if (it)
			pool_run(p, it);
		else
			pthread_cond_wait(&p->cv, &p->lock);
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
	free(p);
}

void vt_pool_submit(struct vt_pool *p, struct vt_pool_item *it,
		    struct vt_pool_group *g)
{
	pthread_mutex_lock(&p->lock);
	it->group = g;
	it->next = NULL;
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
			pthread_cond_wait(&p->cv, &p->lock);
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
