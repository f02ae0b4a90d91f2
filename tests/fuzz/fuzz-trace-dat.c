// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the importer: see fuzz-trace-dat.h.  Built under
 * VT_FUZZ=ON with clang:
 *
 *   cmake --preset fuzz && cmake --build --preset fuzz
 *   build/fuzz/fuzz-trace-dat -max_total_time=120 tests/fuzz/corpus/trace-dat
 */
#include "fuzz-trace-dat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return vt_fuzz_trace_dat(data, size);
}
