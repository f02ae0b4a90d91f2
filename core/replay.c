// SPDX-License-Identifier: GPL-2.0
/*
 * The replay driver: reads a trace as a stream and applies every event to
 * one engine per strategy, so a JSON Lines trace replays in one pass and
 * constant memory.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/mm/engine.h"
#include "core/pool.h"
#include "core/tally.h"

/* TLB entries of @units CONT-sized units (tlb_entries, linear_tlb_entries) */
static uint64_t tlb_entries(const struct vt_engine *e, int64_t units)
{
	uint64_t n = e->mm.g.cont_ptes;

	return ((uint64_t)units + n - 1) / n;
}

static uint64_t tlb_peak_entries(const struct vt_engine *e)
{
	return tlb_entries(e, e->mm.tlb_units_peak);
}

/* The linear map's peak in TLB entries (linear_tlb_entries), as
 * tlb_peak_entries() for the vmalloc area. */
static uint64_t linear_tlb_peak_entries(const struct vt_engine *e)
{
	return tlb_entries(e, e->mm.lin_tlb_units_peak);
}

/*
 * Fold the engine's per-event counters into the results (through the
 * strategy's tally, core/tally.h, which prices them); report them.
 */
static void account(struct vt_engine *e, struct vt_strategy_result *r,
		    const struct vt_replay_cb *cb, unsigned int si, long index,
		    const struct vt_event *ev, uint64_t va, int64_t peak_before,
		    struct vt_tally *tally)
{
	bool per_event = cb && cb->event;

	/* how much the event raised the peak, in entries: computed only when
	 * the peak in units moved, which most events leave alone */
	if (e->mm.tlb_units_peak != peak_before)
		*vt_stats_at(&e->ev, VT_M_tlb_entries) +=
			tlb_peak_entries(e) - tlb_entries(e, peak_before);
	/* linear_map events raise the linear peak; an event's value is how
	 * much it raised it, so per-event lines add up to the total */
	if (e->mm.lin_tlb_units_peak != e->lin_units_seen) {
		uint64_t lin_peak = linear_tlb_peak_entries(e);

		*vt_stats_at(&e->ev, VT_M_linear_tlb_entries) += lin_peak - e->lin_peak_seen;
		e->lin_peak_seen = lin_peak;
		e->lin_units_seen = e->mm.lin_tlb_units_peak;
	}
	if (ev) {
		r->op_events[ev->op]++;
		r->op_seen[ev->op] = true;
		/* priced per event, so per-event lines add up to the totals */
		vt_tally_add(tally, r, ev->op, &e->ev, per_event);
		if (per_event) {
			struct vt_shape s;

			vt_engine_shape(e, ev, &s);
			cb->event(cb->ctx, index, si, vt_op_names[ev->op], ev, va,
				  &e->ev, &s);
			vt_stats_clear(&e->ev);
		}
	} else {
		vt_stats_clear(&e->ev);
	}
	if (e->purged_in_event) {
		r->op_events[VT_OP_PURGE]++;
		r->op_seen[VT_OP_PURGE] = true;
		vt_tally_add(tally, r, VT_OP_PURGE, &e->pg, per_event);
		if (per_event) {
			struct vt_shape s = { 0 };

			cb->event(cb->ctx, index, si, "purge", NULL, 0, &e->pg, &s);
			vt_stats_clear(&e->pg);
		}
	}
	/* else pg is zero: only an automatic purge that found lazy areas
	 * counts into it (vt___purge_vmap_area_lazy() sets purged_in_event) */
	e->purged_in_event = false;
}

/* ---- strategies in parallel ------------------------------------------ */

/*
 * With a pool of more than one thread (req->pool, --jobs) and more than
 * one strategy, the trace is parsed once (on the calling thread) into
 * batches of events; each strategy replays them in order as pool items,
 * one item per (strategy, next batch), so one engine is on one thread at
 * a time and the engines share nothing: each strategy's counts are those
 * of a serial run.  The parser, waiting for a slot, runs queued items of
 * the pool meanwhile (vt_pool_wait()), as does every waiting thread, so a
 * trace that is itself an item of the pool (cli/run.c) cannot deadlock it.  What a
 * serial run would report comes out the same: the first error in
 * (event, strategy) order, and the --verify findings up to it in that
 * order, replayed after the threads are done.  --per-event and ptdump
 * --at stay serial (their output is interleaved by event).
 */
#define PAR_BATCH 1024		/* events per batch, at most */
#define PAR_WEIGHT 4096		/* par_weight() per batch, at most (or one event) */
#define PAR_SLOTS 8		/* batches in flight */

struct par_batch {
	struct vt_event ev[PAR_BATCH];
	int n;
	long base;			/* index of ev[0] */
	struct vt_page_run *runs;	/* the events' runs, copied */
	size_t nr_runs, cap_runs;
	char *strs;			/* the events' strings, copied */
	size_t len_strs, cap_strs;
	/* a shared linear map: the leaders' records of the batch's linear_map
	 * events, nr_specs per event (lin_of[k]: event k's first) */
	struct vt_linear_rec *lin;
	size_t nr_lin, cap_lin;
	uint32_t lin_of[PAR_BATCH];
	int refs;			/* strategies yet to replay it (atomic) */
};

struct par_mismap {
	long index;
	unsigned int strat;
	size_t seq;			/* order of the strategy's own records */
	uint64_t first_va, expected_pa, found_pa, pages;
};

/*
 * A strategy's state in a parallel replay, on cache lines of its own: the
 * results it adds to at every event are its own copy (res->s[] is one
 * array, whose neighbours' ends share a line), folded into res->s[] at the
 * end.
 */
struct par_strat {
	struct vt_pool_item item;	/* first: its (strategy, next batch) item */
	struct par *p;
	unsigned int idx;		/* the strategy */
	/* the leader of its shared linear map (itself if it leads one),
	 * UINT32_MAX if it shares none */
	unsigned int group;
	unsigned int *wake;		/* [nr_specs]: strategies its batch makes ready */
	struct vt_engine *e;
	struct vt_tally *tally;		/* the strategy's own */
	struct vt_strategy_result res;	/* copied to res->s[idx] at the end */
	long next;			/* the batch it replays next */
	bool scheduled;			/* its item is queued or running */
	struct vt_replay_cb cb;		/* e->cb: records mismaps */
	struct par_mismap *mm;
	size_t nr_mm, cap_mm;
	int mm_err;
	int ret;			/* the strategy's error, and where */
	long err_index;
	struct vt_error err;
} __attribute__((aligned(64)));

/*
 * Lock order: the pool's lock, then p->lock (vt_pool_wait()'s test);
 * vt_pool_submit() is never called with p->lock held.
 */
struct par {
	const struct vt_replay_req *req;
	struct par_strat *st;
	/* strategies to submit: a publication's, then each strategy's wake list */
	unsigned int *to_submit;
	struct vt_pool *pool;
	struct vt_pool_group group;	/* this trace's strategy items */
	/* on the heap: 1.3 MB in replay_parallel()'s frame made the stack
	 * grow past a `ulimit -v` the heap had filled: SIGSEGV, not exit 4 */
	struct par_batch *slot;		/* [PAR_SLOTS] */
	bool share;			/* some strategies share a linear map */
	long produced;			/* batches published */
	pthread_mutex_t lock;		/* produced, st[].next, st[].scheduled */
};

static void par_on_mismap(void *ctx, long index, unsigned int strat,
			  uint64_t first_va, uint64_t expected_pa,
			  uint64_t found_pa, uint64_t pages)
{
	struct par_strat *ps = ctx;

	if (VT_ALLOC_GROW(ps->mm, ps->nr_mm + 1, ps->cap_mm)) {
		ps->mm_err = -ENOMEM;
		return;
	}
	ps->mm[ps->nr_mm] = (struct par_mismap){ index, strat, ps->nr_mm, first_va,
						 expected_pa, found_pa, pages };
	ps->nr_mm++;
}

/* Replay batch @b on strategy @i. */
static void par_replay_batch(struct par *p, unsigned int i, struct par_batch *b)
{
	struct par_strat *ps = &p->st[i];

	for (int k = 0; k < b->n && !ps->ret; k++) {
		uint64_t va;
		int64_t peak = ps->e->mm.tlb_units_peak;

		/* a shared linear map: the leader's record of this event */
		if (ps->group != UINT32_MAX && b->ev[k].op == VT_OP_LINEAR_MAP)
			ps->e->lin_rec = &b->lin[b->lin_of[k] + ps->group];
		ps->ret = vt_engine_apply(ps->e, b->base + k, &b->ev[k], &va, &ps->err);
		if (ps->ret) {
			/* as the serial loop completes it */
			const struct vt_event *ev = &b->ev[k];

			ps->err_index = b->base + k;
			if (!ps->err.line && ev->line) {
				ps->err.line = ev->line;
				ps->err.column = ev->column;
			}
			ps->err.event = ps->err_index;
			if (!ps->err.file[0])
				snprintf(ps->err.file, sizeof(ps->err.file), "%s",
					 p->req->path);
			break;
		}
		account(ps->e, &ps->res, NULL, i, b->base + k, &b->ev[k], va, peak,
			ps->tally);
	}
}

/*
 * Under p->lock: strategy @i has no item queued and may replay its next
 * batch: it is published and, if it has linear_map events and @i follows
 * a leader's linear map, the leader has replayed it (its records are in).
 */
static bool par_ready(const struct par *p, unsigned int i)
{
	const struct par_strat *ps = &p->st[i];

	if (ps->scheduled || ps->next >= p->produced)
		return false;
	return ps->group == UINT32_MAX || ps->group == i ||
	       !p->slot[ps->next % PAR_SLOTS].nr_lin || p->st[ps->group].next > ps->next;
}

/* Under p->lock: mark the ready strategies scheduled, listing them in
 * @out; returns how many. */
static unsigned int par_collect_ready(struct par *p, unsigned int *out)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < p->req->nr_specs; i++)
		if (par_ready(p, i)) {
			p->st[i].scheduled = true;
			out[n++] = i;
		}
	return n;
}

/*
 * The item of one strategy: replay its next batch, then queue itself again
 * if another is ready (at the queue's tail, so the strategies take turns),
 * and the followers the batch made ready.
 */
static void par_strat_item(struct vt_pool_item *it)
{
	struct par_strat *ps = (struct par_strat *)it;
	struct par *p = ps->p;
	struct par_batch *b;
	unsigned int n;

	pthread_mutex_lock(&p->lock);
	b = &p->slot[ps->next % PAR_SLOTS];
	pthread_mutex_unlock(&p->lock);
	par_replay_batch(p, ps->idx, b);
	__atomic_sub_fetch(&b->refs, 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&p->lock);
	ps->next++;
	ps->scheduled = false;
	n = par_collect_ready(p, ps->wake);
	pthread_mutex_unlock(&p->lock);
	for (unsigned int k = 0; k < n; k++)
		vt_pool_submit(p->pool, &p->st[ps->wake[k]].item, &p->group);
}

/* vt_pool_wait()'s test: every strategy is done with batch @arg. */
static bool par_slot_free(void *arg)
{
	struct par_batch *b = arg;

	return !__atomic_load_n(&b->refs, __ATOMIC_ACQUIRE);
}

/* Batch @seq - 1 is published: queue an item for each strategy it makes ready. */
static void par_publish(struct par *p, struct par_batch *b, long seq)
{
	unsigned int n;

	pthread_mutex_lock(&p->lock);
	__atomic_store_n(&b->refs, (int)p->req->nr_specs, __ATOMIC_RELAXED);
	p->produced = seq;
	n = par_collect_ready(p, p->to_submit);
	pthread_mutex_unlock(&p->lock);
	for (unsigned int k = 0; k < n; k++)
		vt_pool_submit(p->pool, &p->st[p->to_submit[k]].item, &p->group);
}

/* Copy @ev into batch @b (its runs and strings; pointers fixed later). */
static int par_copy(struct par_batch *b, const struct vt_event *ev)
{
	struct vt_event *c = &b->ev[b->n];
	size_t need = 0;

	*c = *ev;
	if (VT_ALLOC_GROW(b->runs, b->nr_runs + ev->nr_runs, b->cap_runs))
		return -ENOMEM;
	if (ev->nr_runs)
		memcpy(b->runs + b->nr_runs, ev->runs,
		       ev->nr_runs * sizeof(*ev->runs));
	c->runs = (void *)(uintptr_t)b->nr_runs;	/* an offset until fixed */
	b->nr_runs += ev->nr_runs;
	if (ev->id.is_str && ev->id.str)
		need += strlen(ev->id.str) + 1;
	if (ev->caller)
		need += strlen(ev->caller) + 1;
	if (VT_ALLOC_GROW(b->strs, b->len_strs + need, b->cap_strs))
		return -ENOMEM;
	if (ev->id.is_str && ev->id.str) {
		size_t n = strlen(ev->id.str) + 1;

		memcpy(b->strs + b->len_strs, ev->id.str, n);
		c->id.str = (char *)(uintptr_t)(b->len_strs + 1);
		b->len_strs += n;
	}
	if (ev->caller) {
		size_t n = strlen(ev->caller) + 1;

		memcpy(b->strs + b->len_strs, ev->caller, n);
		c->caller = (const char *)(uintptr_t)(b->len_strs + 1);
		b->len_strs += n;
	}
	b->n++;
	return 0;
}

/*
 * What an event weighs in a batch, roughly in small events' work: its page
 * runs and its pages (the engine's cost follows both).  A batch closes at
 * PAR_WEIGHT, so a trace of few heavy events still makes many (strategy,
 * batch) items and the threads share the work, not the strategies:
 * 1,024 small vmalloc/vfree events, about 240 of 128 MiB system-heap
 * buffers, one 16 MiB-run vmap or one whole linear map.
 */
static uint64_t par_weight(const struct vt_event *ev)
{
	uint64_t pages = ev->has_pages ? ev->nr_pages : ev->size >> 12;

	return 1 + ev->nr_runs / 4 + pages / 1024;
}

/* The linear_map event just copied: room for its leaders' records. */
static int par_copy_linear(struct par *p, struct par_batch *b)
{
	unsigned int n = p->req->nr_specs;

	if (VT_ALLOC_GROW(b->lin, b->nr_lin + n, b->cap_lin))
		return -ENOMEM;
	b->lin_of[b->n - 1] = (uint32_t)b->nr_lin;
	for (unsigned int i = 0; i < n; i++)
		b->lin[b->nr_lin + i] = (struct vt_linear_rec){ .index = -1 };
	b->nr_lin += n;
	return 0;
}

static void par_fix(struct par_batch *b)
{
	for (int k = 0; k < b->n; k++) {
		struct vt_event *c = &b->ev[k];

		c->runs = c->nr_runs ? b->runs + (uintptr_t)c->runs : NULL;
		if (c->id.is_str && c->id.str)
			c->id.str = b->strs + (uintptr_t)c->id.str - 1;
		if (c->caller)
			c->caller = b->strs + (uintptr_t)c->caller - 1;
	}
}

static int par_cmp_mismap(const void *x, const void *y)
{
	const struct par_mismap *a = x, *b = y;

	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	if (a->strat != b->strat)
		return a->strat < b->strat ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/*
 * The producer of replay_parallel(): parse the trace once and publish it
 * in batches, each waiting for its slot to be released by every strategy
 * (running the pool's queued items meanwhile).
 * Returns vt_trace_next()'s last result (0 at the end, < 0 on an error in
 * @rerr); *@index counts the events read.
 */
static int par_produce(struct par *p, struct vt_trace_reader *rd,
		       const struct vt_replay_cb *cb, long *index,
		       struct vt_error *rerr)
{
	long seq = 0;
	int rret = 0;
	struct vt_event ev;

	for (;;) {
		struct par_batch *b = &p->slot[seq % PAR_SLOTS];
		uint64_t w = 0;

		vt_pool_wait(p->pool, par_slot_free, b, false);
		b->n = 0;
		b->base = *index;
		b->nr_runs = 0;
		b->len_strs = 0;
		b->nr_lin = 0;
		while (b->n < PAR_BATCH && w < PAR_WEIGHT &&
		       (rret = vt_trace_next(rd, &ev, rerr)) > 0) {
			w += par_weight(&ev);
			rret = par_copy(b, &ev);
			if (!rret && p->share && ev.op == VT_OP_LINEAR_MAP)
				rret = par_copy_linear(p, b);
			if (rret) {
				vt_error_set(rerr, rret, "out of memory");
				break;
			}
			(*index)++;
			if (cb && cb->progress && !(*index % VT_PROGRESS_EVENTS))
				cb->progress(cb->ctx, *index, false);
		}
		if (!b->n)
			break;
		par_fix(b);
		par_publish(p, b, ++seq);
		if (rret < 0)
			break;
	}
	return rret;
}

/* The strategy whose error a serial run meets first (by event, then
 * strategy), UINT32_MAX for none; its event in *@err_index. */
static unsigned int par_first_error(struct par *p, long *err_index)
{
	unsigned int first = UINT32_MAX;

	for (unsigned int i = 0; i < p->req->nr_specs; i++) {
		struct par_strat *ps = &p->st[i];

		if (ps->mm_err && !ps->ret) {
			ps->ret = vt_error_set(&ps->err, ps->mm_err, "out of memory");
			ps->err_index = -1;
		}
		if (ps->ret && (first == UINT32_MAX || ps->err_index < *err_index)) {
			first = i;
			*err_index = ps->err_index;
		}
	}
	return first;
}

/* The --verify findings up to the first error, in serial order. */
static int par_report_mismaps(struct par *p, const struct vt_replay_cb *cb,
			      unsigned int first, long err_index,
			      struct vt_error *err)
{
	struct par_mismap *all;
	size_t nr_all = 0, k = 0;

	for (unsigned int i = 0; i < p->req->nr_specs; i++)
		nr_all += p->st[i].nr_mm;
	if (!nr_all)
		return 0;
	all = malloc(nr_all * sizeof(*all));
	if (!all)
		return vt_err_oom(err);
	for (unsigned int i = 0; i < p->req->nr_specs; i++) {
		if (p->st[i].nr_mm)
			memcpy(all + k, p->st[i].mm, p->st[i].nr_mm * sizeof(*all));
		k += p->st[i].nr_mm;
	}
	qsort(all, nr_all, sizeof(*all), par_cmp_mismap);
	for (k = 0; k < nr_all; k++) {
		const struct par_mismap *m = &all[k];

		if (first != UINT32_MAX && (m->index > err_index ||
		    (m->index == err_index && m->strat > first)))
			break;
		cb->mismap(cb->ctx, m->index, m->strat, m->first_va,
			   m->expected_pa, m->found_pa, m->pages);
	}
	free(all);
	return 0;
}

/*
 * Replay the events of @rd on @eng as items of req->pool.  Returns as the
 * serial loop does: 0 with *@events read, or the error a serial run would
 * have met first.
 */
static int replay_parallel(const struct vt_replay_req *req,
			   struct vt_trace_reader *rd, struct vt_engine **eng,
			   struct vt_tally **tally, const unsigned int *group,
			   struct vt_replay_result *res, const struct vt_replay_cb *cb,
			   long *events, struct vt_error *err)
{
	struct par p = { .req = req, .pool = req->pool };
	struct vt_error rerr;
	unsigned int first;
	long index = 0, err_index = -1;
	int ret = 0, rret;

	p.st = aligned_alloc(_Alignof(struct par_strat), req->nr_specs * sizeof(*p.st));
	if (p.st)
		memset(p.st, 0, req->nr_specs * sizeof(*p.st));
	p.to_submit = calloc((size_t)req->nr_specs * (req->nr_specs + 1),
			     sizeof(*p.to_submit));
	p.slot = calloc(PAR_SLOTS, sizeof(*p.slot));
	if (!p.to_submit || !p.st || !p.slot) {
		free(p.to_submit);
		free(p.st);
		free(p.slot);
		return vt_err_oom(err);
	}
	vt_error_init(&rerr);
	pthread_mutex_init(&p.lock, NULL);
	for (unsigned int i = 0; i < req->nr_specs; i++) {
		struct par_strat *ps = &p.st[i];

		ps->item.fn = par_strat_item;
		ps->p = &p;
		ps->idx = i;
		ps->group = group[i];
		p.share |= group[i] != UINT32_MAX;
		/* the producer's list first, then one per strategy */
		ps->wake = p.to_submit + (size_t)req->nr_specs * (i + 1);
		ps->e = eng[i];
		ps->tally = tally[i];
		ps->cb = (struct vt_replay_cb){ .ctx = ps,
						.mismap = cb && cb->mismap ? par_on_mismap : NULL };
		eng[i]->cb = &ps->cb;
		vt_error_init(&ps->err);
	}
	rret = par_produce(&p, rd, cb, &index, &rerr);
	/* every published batch replayed by every strategy */
	vt_pool_wait_group(p.pool, &p.group, false);
	if (cb && cb->progress)
		cb->progress(cb->ctx, index, true);

	first = par_first_error(&p, &err_index);
	ret = par_report_mismaps(&p, cb, first, err_index, err);
	if (!ret && first != UINT32_MAX) {
		*err = p.st[first].err;
		ret = p.st[first].ret;
	} else if (!ret && rret < 0) {
		*err = rerr;
		ret = rret;
	}
	if (!ret)
		*events = index;
	for (unsigned int i = 0; i < req->nr_specs; i++) {
		eng[i]->cb = cb;
		eng[i]->lin_rec = NULL;		/* it pointed into a batch */
		vt_tally_flush(p.st[i].tally, &p.st[i].res);
		res->s[i] = p.st[i].res;
		free(p.st[i].mm);
	}
	for (int k = 0; k < PAR_SLOTS; k++) {
		free(p.slot[k].runs);
		free(p.slot[k].strs);
		free(p.slot[k].lin);
	}
	free(p.slot);
	free(p.to_submit);
	free(p.st);
	pthread_mutex_destroy(&p.lock);
	return ret;
}

/*
 * One thread: every event to every engine in turn, until the end of the
 * trace or req->stop_after (*@stopped).  Returns 0, or < 0 with @err
 * located at the event; *@index counts the events replayed.
 */
static int replay_serial(const struct vt_replay_req *req, struct vt_trace_reader *rd,
			 struct vt_engine **eng, struct vt_tally **tally,
			 struct vt_replay_result *res, const struct vt_replay_cb *cb,
			 long *index, bool *stopped, struct vt_error *err)
{
	struct vt_event ev;
	int ret;

	while ((ret = vt_trace_next(rd, &ev, err)) > 0) {
		for (unsigned int i = 0; i < req->nr_specs; i++) {
			struct vt_engine *e = eng[i];
			uint64_t va;
			int64_t peak = e->mm.tlb_units_peak;

			ret = vt_engine_apply(e, *index, &ev, &va, err);
			if (ret) {
				if (!err->line && ev.line) {
					err->line = ev.line;
					err->column = ev.column;
				}
				err->event = *index;
				if (!err->file[0])
					snprintf(err->file, sizeof(err->file), "%s",
						 req->path);
				return ret;
			}
			account(e, &res->s[i], cb, i, *index, &ev, va, peak, tally[i]);
		}
		if (req->stop_after >= 0 && *index >= req->stop_after) {
			*stopped = true;
			ret = 0;
			break;
		}
		(*index)++;
		if (cb && cb->progress && !(*index % VT_PROGRESS_EVENTS))
			cb->progress(cb->ctx, *index, false);
	}
	if (cb && cb->progress)
		cb->progress(cb->ctx, *index, true);
	return ret;
}

/*
 * Strategies that build the same linear map share one (core/mm/linear.c,
 * vt_linear_same()): the first of each such set leads, the others follow
 * it.  @group[i]: the leader of strategy i's set, UINT32_MAX if it shares
 * with none.  Not for ptdump (req->at_end), which dumps each engine's own
 * tables.
 */
static void linear_groups(const struct vt_replay_req *req, struct vt_engine **eng,
			  unsigned int *group)
{
	for (unsigned int i = 0; i < req->nr_specs; i++)
		group[i] = UINT32_MAX;
	if (req->at_end)
		return;
	for (unsigned int i = 1; i < req->nr_specs; i++)
		for (unsigned int j = 0; j < i; j++)
			if (!eng[j]->lin_leader && vt_linear_same(eng[j], eng[i])) {
				eng[i]->lin_leader = eng[j];
				group[i] = group[j] = j;
				break;
			}
}

int vt_replay_run(const struct vt_replay_req *req, const struct vt_replay_cb *cb,
		  struct vt_replay_result *res, struct vt_error *err)
{
	struct vt_trace_read_opts ro = { .skip_unknown = req->opts->skip_unknown,
					 .max_input = req->opts->max_input };
	struct vt_trace_reader *rd = NULL;
	struct vt_engine **eng = NULL;
	struct vt_tally **tally = NULL;		/* one per strategy */
	unsigned int *group = NULL;		/* linear_groups() */
	struct vt_linear_rec *lin = NULL;	/* a serial run's, one per leader */
	struct vt_model_opts o = *req->opts;
	const struct vt_trace_config *tc;
	long index = 0;
	bool stopped = false;	/* at req->stop_after */
	/* --per-event lines and ptdump --at are interleaved by event */
	bool par = vt_pool_size(req->pool) > 1 && req->nr_specs > 1 &&
		   req->stop_after < 0 && !(cb && cb->event);
	int ret;

	memset(res, 0, sizeof(*res));
	ret = vt_trace_open(req->path, &ro, &rd, err);
	if (ret)
		return ret;
	tc = vt_trace_config(rd);
	if (!req->geometry_from_cli) {
		if (tc->page_shift)
			o.page_shift = tc->page_shift;
		if (tc->va_bits)
			o.va_bits = tc->va_bits;
	}
	res->config.page_shift = o.page_shift;
	res->config.va_bits = o.va_bits;
	res->meta = strdup(vt_trace_meta_json(rd));
	res->nr = req->nr_specs;
	res->s = calloc(req->nr_specs, sizeof(*res->s));
	eng = calloc(req->nr_specs, sizeof(*eng));
	tally = calloc(req->nr_specs, sizeof(*tally));
	group = calloc(req->nr_specs, sizeof(*group));
	lin = calloc(req->nr_specs, sizeof(*lin));
	if (!res->s || !eng || !tally || !group || !lin || !res->meta) {
		ret = vt_err_oom(err);
		goto out;
	}
	for (unsigned int i = 0; i < req->nr_specs; i++) {
		ret = vt_engine_new(&req->specs[i], &o, &eng[i]);
		if (ret == -ENOMEM) {
			vt_err_oom(err);
			goto out;
		}
		if (ret) {
			vt_error_set(err, ret, "%u K pages with %u-bit VA is not a Kconfig-valid pair",
				     1u << (o.page_shift - 10), o.va_bits);
			goto out;
		}
		eng[i]->cb = cb;
		eng[i]->strat_idx = i;
		tally[i] = vt_tally_new(req->profile);
		if (!tally[i]) {
			ret = vt_err_oom(err);
			goto out;
		}
	}
	linear_groups(req, eng, group);
	/* a serial run replays an event on the leader before its followers:
	 * one record per leader (a parallel run keeps them per batch) */
	for (unsigned int i = 0; i < req->nr_specs && !par; i++)
		if (group[i] != UINT32_MAX) {
			lin[group[i]].index = -1;
			eng[i]->lin_rec = &lin[group[i]];
		}
	if (par)
		ret = replay_parallel(req, rd, eng, tally, group, res, cb, &index, err);
	else
		ret = replay_serial(req, rd, eng, tally, res, cb, &index, &stopped, err);
	if (ret < 0)
		goto out;
	/* events read: a --at beyond the trace reads them all (ptdump) */
	res->events = stopped ? index + 1 : index;
	for (unsigned int i = 0; i < req->nr_specs; i++) {
		struct vt_engine *e = eng[i];
		int64_t peak = e->mm.tlb_units_peak;

		if (req->stop_after < 0) {
			ret = vt_engine_finish(e, err);
			if (ret)
				goto out;
			account(e, &res->s[i], cb, i, index, NULL, 0, peak, tally[i]);
		}
		vt_tally_flush(tally[i], &res->s[i]);
		res->s[i].total.m[VT_M_lazy_pages_pending] = e->vmap_lazy_nr;
		res->s[i].total.m[VT_M_tlb_entries] = tlb_peak_entries(e);
		res->s[i].total.m[VT_M_linear_tlb_entries] = linear_tlb_peak_entries(e);
		if (req->at_end) {
			ret = req->at_end(req->at_end_ctx, i, e);
			if (ret)
				goto out;
		}
	}
	if (cb && cb->warn && vt_trace_warnings(rd)[0])
		cb->warn(cb->ctx, vt_trace_warnings(rd));
	ret = 0;
out:
	for (unsigned int i = 0; eng && i < req->nr_specs; i++) {
		vt_engine_free(eng[i]);
		if (tally)
			vt_tally_free(tally[i]);
	}
	free(eng);
	free(tally);
	free(group);
	free(lin);
	vt_trace_close(rd);
	if (ret)
		vt_replay_result_release(res);
	return ret;
}

void vt_replay_result_release(struct vt_replay_result *res)
{
	free(res->s);
	free(res->meta);
	res->s = NULL;
	res->meta = NULL;
	res->nr = 0;
}
