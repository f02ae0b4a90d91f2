// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the baseline report reader: see fuzz-report.h.
 *
 *   cmake --preset fuzz && cmake --build --preset fuzz
 *   build/fuzz/fuzz-report -max_total_time=120 /tmp/c tests/fuzz/corpus/report
 */
#include "fuzz-report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return vt_fuzz_report(data, size);
}
