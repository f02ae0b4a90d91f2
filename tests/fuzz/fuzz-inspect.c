// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the kernel-image reader (inspect, --vmlinux): see fuzz-inspect.h.
 *
 *   cmake --preset fuzz && cmake --build --preset fuzz
 *   build/fuzz/fuzz-inspect -max_total_time=120 /tmp/c tests/fuzz/corpus/inspect
 */
#include "fuzz-inspect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return vt_fuzz_inspect(data, size);
}
