// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the importer's trace.dat records below
 * libtracecmd: see fuzz-dat-records.h.
 *
 *   cmake --preset fuzz && cmake --build --preset fuzz
 *   build/fuzz/fuzz-dat-records -max_total_time=120 /tmp/c tests/fuzz/corpus/dat-records
 */
#include "fuzz-dat-records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return vt_fuzz_dat_records(data, size);
}
