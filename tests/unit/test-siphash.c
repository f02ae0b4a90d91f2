// SPDX-License-Identifier: GPL-2.0
/*
 * core/siphash.c: vt_siphash_u64(), the unrolled hash of one 64-bit id,
 * is vt_siphash() of the id's eight little-endian bytes, for random keys
 * and values and the edges (0, all ones, one bit set), so that the area
 * table's buckets do not depend on which of the two an id goes through.
 */
#include "core/siphash.h"
#include "prng.h"
#include "test.h"

static void check(const struct vt_siphash_key *k, uint64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	TEST_ASSERT_EQ("u64 == bytes", vt_siphash_u64(k, v), vt_siphash(k, b, sizeof(b)));
}

int main(void)
{
	struct vt_siphash_key k = { { 0, 0 } };

	rnd_s = 7;
	for (int i = 0; i < 2000 && !test_failures; i++) {
		if (i)
			k = (struct vt_siphash_key){ { rnd(), rnd() } };
		check(&k, rnd());
		check(&k, 0);
		check(&k, UINT64_MAX);
		check(&k, 1ull << (i % 64));
	}
	/* a different value or key gives a different hash (no constant) */
	TEST_ASSERT_VAL("value changes the hash", vt_siphash_u64(&k, 1) != vt_siphash_u64(&k, 2));
	return test_result("siphash");
}
