/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The body of the ftrace text fuzz target: the input is always read as
 * the text of ftrace's trace/trace_pipe or of 'trace-cmd report' (a first
 * byte that would make it a trace.dat or an xz file is changed), through
 * the import body of fuzz-trace-dat.h: a failure is a located error, and
 * what import reconstructs reads back as a valid trace with as many
 * events.  Shared by fuzz-ftrace-text.c and tests/unit/test-fuzz-seeds.c.
 */
#ifndef VT_FUZZ_FTRACE_TEXT_H
#define VT_FUZZ_FTRACE_TEXT_H

#include "fuzz-trace-dat.h"

static int vt_fuzz_ftrace_text(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size + 1);

	VT_FUZZ_CHECK(buf);
	if (size)
		memcpy(buf, data, size);
	/* the magics of trace.dat (0x17) and xz (0xfd) */
	if (size && (buf[0] == 0x17 || buf[0] == 0xfd))
		buf[0] = '#';
	vt_fuzz_trace_dat(buf, size);
	free(buf);
	return 0;
}

#endif
