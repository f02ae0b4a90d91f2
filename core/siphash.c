// SPDX-License-Identifier: GPL-2.0
/*
 * SipHash-1-3: see core/siphash.h.  Mirrors lib/siphash.c (SIPROUND and
 * the finalisation of hsiphash on 64-bit, which is SipHash-1-3).
 */
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "core/siphash.h"

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

#define SIPROUND(v0, v1, v2, v3) do {					\
	v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32);	\
	v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;				\
	v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;				\
	v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32);	\
} while (0)

/* SipHash-1-3's last block (@b: the length byte and the tail) and its
 * three finalisation rounds */
static inline uint64_t siphash_finish(uint64_t v0, uint64_t v1, uint64_t v2,
				      uint64_t v3, uint64_t b)
{
	v3 ^= b;
	SIPROUND(v0, v1, v2, v3);
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	return (v0 ^ v1) ^ (v2 ^ v3);
}

uint64_t vt_siphash(const struct vt_siphash_key *key, const void *data,
		    size_t len)
{
	const unsigned char *p = data;
	uint64_t v0 = 0x736f6d6570736575ull ^ key->k[0];
	uint64_t v1 = 0x646f72616e646f6dull ^ key->k[1];
	uint64_t v2 = 0x6c7967656e657261ull ^ key->k[0];
	uint64_t v3 = 0x7465646279746573ull ^ key->k[1];
	uint64_t b = (uint64_t)len << 56, m;
	size_t left = len & 7;

	for (const unsigned char *end = p + (len - left); p != end; p += 8) {
		m = 0;
		for (int i = 0; i < 8; i++)	/* little-endian, as the reference */
			m |= (uint64_t)p[i] << (8 * i);
		v3 ^= m;
		SIPROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	for (size_t i = 0; i < left; i++)
		b |= (uint64_t)p[i] << (8 * i);
	return siphash_finish(v0, v1, v2, v3, b);
}

/* vt_siphash() of the eight little-endian bytes of @v, its one message
 * block and the length block unrolled: the same value, without the byte
 * loops (the engine hashes an id per event). */
uint64_t vt_siphash_u64(const struct vt_siphash_key *key, uint64_t v)
{
	uint64_t v0 = 0x736f6d6570736575ull ^ key->k[0];
	uint64_t v1 = 0x646f72616e646f6dull ^ key->k[1];
	uint64_t v2 = 0x6c7967656e657261ull ^ key->k[0];
	uint64_t v3 = 0x7465646279746573ull ^ key->k[1];
	const uint64_t b = (uint64_t)8 << 56;

	v3 ^= v;
	SIPROUND(v0, v1, v2, v3);
	v0 ^= v;
	return siphash_finish(v0, v1, v2, v3, b);
}

void vt_siphash_key_random(struct vt_siphash_key *key)
{
	struct timespec ts;
	static uint64_t calls;

	if (getrandom(key->k, sizeof(key->k), GRND_NONBLOCK) == sizeof(key->k))
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	key->k[0] = ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^
		    (uint64_t)(uintptr_t)&ts ^ ((uint64_t)getpid() << 48);
	key->k[1] = (uint64_t)(uintptr_t)key ^ (uint64_t)(uintptr_t)&calls ^
		    ++calls * 0x9e3779b97f4a7c15ull;
	key->k[0] = vt_siphash_u64(key, key->k[0]);
}
