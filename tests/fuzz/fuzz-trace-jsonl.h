/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The body of the JSON Lines fuzz target: the input is the event lines of
 * a JSON Lines trace after a fixed, valid header line (one of the
 * Kconfig-valid geometries, chosen by the input's length), so that the
 * fuzzer spends its time in the per-line event reader
 * (core/trace/trace-json.c) and the same read -> write -> read promise of
 * fuzz-trace-json.h is checked.  Shared by fuzz-trace-jsonl.c and
 * tests/unit/test-fuzz-seeds.c.
 */
#ifndef VT_FUZZ_TRACE_JSONL_H
#define VT_FUZZ_TRACE_JSONL_H

#include "fuzz-trace-json.h"

static int vt_fuzz_trace_jsonl(const uint8_t *data, size_t size)
{
	static const char *const headers[] = {
		"{\"format\":\"vmaptool-trace\",\"version\":1,\"config\":{\"granule\":\"4k\",\"va_bits\":48}}\n",
		"{\"format\":\"vmaptool-trace\",\"version\":1,\"config\":{\"granule\":\"16k\",\"va_bits\":36}}\n",
		"{\"format\":\"vmaptool-trace\",\"version\":1,\"config\":{\"granule\":\"64k\",\"va_bits\":52}}\n",
		"{\"format\":\"vmaptool-trace\",\"version\":1}\n",
	};
	const char *h = headers[size % 4];
	size_t hl = strlen(h);
	char *buf = malloc(hl + size + 1);

	VT_FUZZ_CHECK(buf);
	memcpy(buf, h, hl);
	if (size)
		memcpy(buf + hl, data, size);
	vt_fuzz_trace_json((const uint8_t *)buf, hl + size);
	free(buf);
	return 0;
}

#endif
