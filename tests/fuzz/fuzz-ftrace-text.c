// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the ftrace text reader: see fuzz-ftrace-text.h.
 *
 *   cmake --preset fuzz && cmake --build --preset fuzz
 *   build/fuzz/fuzz-ftrace-text -max_total_time=120 /tmp/c tests/fuzz/corpus/ftrace-text
 */
#include "fuzz-ftrace-text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return vt_fuzz_ftrace_text(data, size);
}
