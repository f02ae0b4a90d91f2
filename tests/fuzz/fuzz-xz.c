// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the importer's xz path: see fuzz-xz.h.
 *
 *   cmake --preset fuzz && cmake --build --preset fuzz
 *   build/fuzz/fuzz-xz -max_total_time=120 /tmp/c tests/fuzz/corpus/xz
 */
#include "fuzz-xz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return vt_fuzz_xz(data, size);
}
