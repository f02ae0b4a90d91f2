// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the calibration figures reader: see fuzz-figures.h.
 *
 *   cmake --preset fuzz && cmake --build --preset fuzz
 *   build/fuzz/fuzz-figures -max_total_time=120 /tmp/c tests/fuzz/corpus/figures
 */
#include "fuzz-figures.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return vt_fuzz_figures(data, size);
}
