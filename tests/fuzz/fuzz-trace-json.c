// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the trace reader (and, on what it accepts, the
 * writer): see fuzz-trace-json.h.  Built under VT_FUZZ=ON with clang:
 *
 *   cmake --preset fuzz && cmake --build --preset fuzz
 *   build/fuzz/fuzz-trace-json -max_total_time=120 tests/fuzz/corpus/trace-json
 */
#include "fuzz-trace-json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return vt_fuzz_trace_json(data, size);
}
