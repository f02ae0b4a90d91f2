// SPDX-License-Identifier: GPL-2.0
/*
 * The events' shapes, priced once and tallied (core/tally.h).
 *
 * A slot holds one shape: its op, which counts are nonzero (a mask in the
 * words of struct vt_stats' touched bits) and their values in metric
 * order, the prices vt_cost_fill() adds to such an event, and how many
 * events of it are not yet in the results.  The slot of a shape is found
 * by a hash of all that; a hit compares the whole shape, so a collision
 * only costs pricing again: the slot's events go to the results first
 * (flush_slot()).  Slots are many and a trace's shapes few (42 in 50,000
 * small vmalloc/vfree events, 216 in test_vmalloc's every test), so that
 * is rare.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/cost/estimate.h"
#include "core/tally.h"

#define TALLY_SLOTS 1024	/* a power of two */
#define TALLY_PROBE 4		/* slots a shape may take, from its hash's */

/* The metrics vt_cost_fill() writes: every cyc_* of cycles_by_function,
 * cycles and ns (core/cost/estimate.h) */
#define IS_CYC(name, kind, better) +((kind) == VT_MK_CYC)
enum { TALLY_OUT = VT_METRICS(IS_CYC) + 2 };
#undef IS_CYC

struct tally_key {
	uint64_t nz[VT_STATS_WORDS];	/* which counts are nonzero */
	uint64_t overrun;		/* overrun_pages (no metric) */
	unsigned int n;			/* how many: v[0 .. n) */
	uint64_t v[VT_M__NR];		/* their values, in metric order */
};

struct tally_slot {
	uint64_t count;			/* events of the shape not in the results */
	uint64_t nz[VT_STATS_WORDS];
	uint64_t overrun;
	uint8_t op;
	bool used;
	uint8_t n, nout;
	uint8_t out_m[TALLY_OUT];	/* what pricing adds: metric, */
	uint64_t out_v[TALLY_OUT];	/* and value */
	uint64_t v[VT_M__NR];
};

struct vt_tally {
	const struct vt_profile *profile;
	uint8_t out[TALLY_OUT];		/* the metrics pricing writes */
	struct tally_slot slot[TALLY_SLOTS];
};

/*
 * A multiplier per metric for the hash: a count adds count x its
 * metric's multiplier, so a zero count adds nothing (the hash of a shape
 * does not depend on touched bits over zero counts) and the terms do not
 * wait for one another.  Odd constants of splitmix64's sequence.
 */
static uint64_t mult[VT_STATS_WORDS * 64];
static pthread_once_t mult_once = PTHREAD_ONCE_INIT;

static void mult_init(void)
{
	uint64_t x = 0;

	for (unsigned int i = 0; i < VT_STATS_WORDS * 64; i++) {
		uint64_t z = (x += 0x9e3779b97f4a7c15ull);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		mult[i] = (z ^ (z >> 31)) | 1;
	}
}

struct vt_tally *vt_tally_new(const struct vt_profile *p)
{
	struct vt_tally *t = calloc(1, sizeof(*t));
	unsigned int n = 0;

	if (!t)
		return NULL;
	pthread_once(&mult_once, mult_init);
	t->profile = p;
	for (int i = 0; i < VT_M__NR; i++)
		if (vt_metric_kinds[i] == VT_MK_CYC || i == VT_M_cycles || i == VT_M_ns)
			t->out[n++] = (uint8_t)i;
	return t;
}

void vt_tally_free(struct vt_tally *t)
{
	free(t);
}

/*
 * Gather @s's nonzero counts into @k, clearing @s unless @keep; returns
 * their hash with @op's.  Only the touched metrics are visited.  Inlined
 * with @keep a constant: the hot case (clear) has no test of it.
 */
static inline __attribute__((always_inline)) uint64_t
take_key(struct vt_stats *s, enum vt_op op, bool keep, struct tally_key *k)
{
	uint64_t h = (uint64_t)op * 0x9e3779b97f4a7c15ull;
	unsigned int n = 0;

	for (int w = 0; w < VT_STATS_WORDS; w++) {
		uint64_t *m = &s->m[w * 64], nz = s->touched[w];
		const uint64_t *mu = &mult[w * 64];

		for (uint64_t t = nz; t; t &= t - 1) {
			int b = __builtin_ctzll(t);
			uint64_t v = m[b];

			if (!keep)
				m[b] = 0;
			if (__builtin_expect(!v, 0)) {	/* touched, but 0 */
				nz &= ~(1ull << b);
				continue;
			}
			k->v[n++] = v;
			h += v * mu[b];
		}
		if (!keep)
			s->touched[w] = 0;
		k->nz[w] = nz;
		h ^= nz * 0xbf58476d1ce4e5b9ull;
	}
	k->n = n;
	k->overrun = s->overrun_pages;
	if (!keep)
		s->overrun_pages = 0;
	h += k->overrun * 0x94d049bb133111ebull;
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

static bool same_shape(const struct tally_slot *sl, enum vt_op op, const struct tally_key *k)
{
	if (sl->op != op || sl->n != k->n || sl->overrun != k->overrun)
		return false;
	for (int w = 0; w < VT_STATS_WORDS; w++)
		if (sl->nz[w] != k->nz[w])
			return false;
	for (unsigned int i = 0; i < k->n; i++)
		if (sl->v[i] != k->v[i])
			return false;
	return true;
}

/* The slot's events into @r: count times its counts and its prices. */
static void flush_slot(struct tally_slot *sl, struct vt_strategy_result *r)
{
	struct vt_stats *tot = &r->total, *row = &r->per_op[sl->op];
	uint64_t c = sl->count;
	unsigned int j = 0;

	for (int w = 0; w < VT_STATS_WORDS; w++)
		for (uint64_t t = sl->nz[w]; t; t &= t - 1) {
			int i = w * 64 + __builtin_ctzll(t);
			uint64_t x = c * sl->v[j++];

			tot->m[i] += x;
			row->m[i] += x;
		}
	for (unsigned int k = 0; k < sl->nout; k++) {
		uint64_t x = c * sl->out_v[k];

		tot->m[sl->out_m[k]] += x;
		row->m[sl->out_m[k]] += x;
	}
	tot->overrun_pages += c * sl->overrun;
	row->overrun_pages += c * sl->overrun;
	sl->count = 0;
}

/* @sl becomes shape @k of @op, priced as vt_cost_fill() prices such an event. */
static void price(struct vt_tally *t, struct tally_slot *sl, enum vt_op op,
		  const struct tally_key *k)
{
	struct vt_stats s;
	uint64_t before[TALLY_OUT];
	unsigned int j = 0;

	vt_stats_clear(&s);
	for (int w = 0; w < VT_STATS_WORDS; w++)
		for (uint64_t b = k->nz[w]; b; b &= b - 1)
			s.m[w * 64 + __builtin_ctzll(b)] = k->v[j++];
	s.overrun_pages = k->overrun;
	memcpy(sl->nz, k->nz, sizeof(sl->nz));
	memcpy(sl->v, k->v, k->n * sizeof(k->v[0]));
	sl->n = (uint8_t)k->n;
	sl->overrun = k->overrun;
	sl->op = (uint8_t)op;
	sl->used = true;
	sl->nout = 0;
	if (!t->profile)
		return;
	for (unsigned int i = 0; i < TALLY_OUT; i++)
		before[i] = s.m[t->out[i]];
	vt_cost_fill(t->profile, &s, op);
	for (unsigned int i = 0; i < TALLY_OUT; i++)
		if (s.m[t->out[i]] != before[i]) {
			sl->out_m[sl->nout] = t->out[i];
			sl->out_v[sl->nout++] = s.m[t->out[i]] - before[i];
		}
}

void vt_tally_add(struct vt_tally *t, struct vt_strategy_result *r, enum vt_op op,
		  struct vt_stats *s, bool keep)
{
	struct tally_key k;
	struct tally_slot *sl;
	uint64_t h = keep ? take_key(s, op, true, &k) : take_key(s, op, false, &k);
	unsigned int i;

	/* the shape's slot or the first free one of TALLY_PROBE in a row
	 * (a trace's few dozen shapes in 1,024 slots collide more often
	 * than not); else the first is flushed and taken */
	for (i = 0; i < TALLY_PROBE; i++) {
		sl = &t->slot[(h + i) & (TALLY_SLOTS - 1)];
		if (!sl->used) {
			price(t, sl, op, &k);
			break;
		}
		if (same_shape(sl, op, &k))
			break;
	}
	if (i == TALLY_PROBE) {
		sl = &t->slot[h & (TALLY_SLOTS - 1)];
		if (sl->count)
			flush_slot(sl, r);
		price(t, sl, op, &k);
	}
	sl->count++;
	if (keep)
		for (unsigned int j = 0; j < sl->nout; j++)
			*vt_stats_at(s, sl->out_m[j]) += sl->out_v[j];
}

void vt_tally_flush(struct vt_tally *t, struct vt_strategy_result *r)
{
	for (unsigned int i = 0; i < TALLY_SLOTS; i++)
		if (t->slot[i].count)
			flush_slot(&t->slot[i], r);
}
