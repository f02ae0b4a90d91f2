// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the replay (reader + engine + --verify): see
 * fuzz-replay.h.
 *
 *   cmake --preset fuzz && cmake --build --preset fuzz
 *   build/fuzz/fuzz-replay -max_total_time=120 /tmp/c tests/fuzz/corpus/replay
 */
#include "fuzz-replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return vt_fuzz_replay(data, size);
}
