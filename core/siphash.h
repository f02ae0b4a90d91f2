/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SipHash-1-3 (Aumasson and Bernstein), keyed: the hash of the tables
 * whose keys come from input (trace ids), so that a trace cannot choose
 * keys that collide without knowing the key.  The kernel uses the same
 * function for its hash tables keyed by outside data (lib/siphash.c,
 * hsiphash()).  The output chooses buckets only: nothing that iterates a
 * table may let bucket order reach the output.
 */
#ifndef VT_SIPHASH_H
#define VT_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

struct vt_siphash_key {
	uint64_t k[2];
};

uint64_t vt_siphash(const struct vt_siphash_key *key, const void *data,
		    size_t len);
uint64_t vt_siphash_u64(const struct vt_siphash_key *key, uint64_t v);
/* A key from getrandom(2); from the clock and address-space layout if
 * getrandom is unavailable (the key must be unpredictable, not secret). */
void vt_siphash_key_random(struct vt_siphash_key *key);

#endif
