// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the cost profile reader: see fuzz-profile.h.
 *
 *   cmake --preset fuzz && cmake --build --preset fuzz
 *   build/fuzz/fuzz-profile -max_total_time=120 /tmp/c tests/fuzz/corpus/profile
 */
#include "fuzz-profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return vt_fuzz_profile(data, size);
}
