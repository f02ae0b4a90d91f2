// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the JSON Lines event reader: see fuzz-trace-jsonl.h.
 *
 *   cmake --preset fuzz && cmake --build --preset fuzz
 *   build/fuzz/fuzz-trace-jsonl -max_total_time=120 /tmp/c tests/fuzz/corpus/trace-jsonl
 */
#include "fuzz-trace-jsonl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return vt_fuzz_trace_jsonl(data, size);
}
