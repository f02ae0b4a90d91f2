/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The seeded generator of the property tests (splitmix64): the same seed
 * gives the same traces on every machine, so a failure's seed reproduces
 * it.  Each test file has its own state; set rnd_s to seed it.
 */
#ifndef VT_TEST_PRNG_H
#define VT_TEST_PRNG_H

#include <stdbool.h>
#include <stdint.h>

static uint64_t rnd_s;

static inline uint64_t rnd(void)
{
	uint64_t z = (rnd_s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* uniform in [lo, hi] (the whole 64-bit range too) */
static inline uint64_t rr(uint64_t lo, uint64_t hi)
{
	return hi - lo == UINT64_MAX ? rnd() : lo + rnd() % (hi - lo + 1);
}

static inline bool chance(unsigned int pct)
{
	return rnd() % 100 < pct;
}

/* log-uniform in [1, max] */
static inline uint64_t rlog(uint64_t max)
{
	unsigned int bits = 64 - __builtin_clzll(max);
	uint64_t v;

	do {
		unsigned int b = rr(0, bits - 1);

		v = (1ull << b) + (b ? rnd() % (1ull << b) : 0);
	} while (v > max);
	return v;
}

#endif
