/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The body of the xz fuzz target (the importer's xz-compressed text
 * path).  The first byte chooses:
 *   even: the rest is ftrace text, compressed here (LZMA2 at preset 0
 *         with a 4 KiB dictionary, CRC32 check) and imported: the decompressing reader
 *         must give what the plain text gives (same events, or the same
 *         failure);
 *   odd:  the rest follows the xz magic as a (corrupt) xz stream: the
 *         decoder's failures must be located errors.
 * Shared by fuzz-xz.c and tests/unit/test-fuzz-seeds.c.
 */
#ifndef VT_FUZZ_XZ_H
#define VT_FUZZ_XZ_H

#include <lzma.h>

#include "fuzz-trace-dat.h"

/* Import @buf: -1 if it fails, else the number of events. */
static long vt_fuzz_xz_import(const uint8_t *buf, size_t len)
{
	struct vt_import_opts o;
	struct vt_import *im;
	struct vt_error err;
	long n;

	vt_fuzz_import_opts(&o);
	vt_error_init(&err);
	if (vt_import_open_mem("fuzz", buf, len, &o, &im, &err)) {
		VT_FUZZ_CHECK(err.msg[0]);
		return -1;
	}
	n = vt_import_run(im, &err);
	if (n < 0)
		VT_FUZZ_CHECK(err.msg[0]);
	vt_import_close(im);
	return n < 0 ? -1 : n;
}

static int vt_fuzz_xz(const uint8_t *data, size_t size)
{
	static const uint8_t magic[] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
	lzma_options_lzma lz;
	lzma_filter filters[] = { { LZMA_FILTER_LZMA2, &lz },
				  { LZMA_VLI_UNKNOWN, NULL } };
	uint8_t *buf, *text;
	size_t len = 0, cap;

	if (!size)
		return 0;
	if (data[0] & 1) {
		buf = malloc(sizeof(magic) + size);
		VT_FUZZ_CHECK(buf);
		memcpy(buf, magic, sizeof(magic));
		memcpy(buf + sizeof(magic), data + 1, size - 1);
		vt_fuzz_trace_dat(buf, sizeof(magic) + size - 1);
		free(buf);
		return 0;
	}
	/* plain text as fuzz-ftrace-text.h reads it */
	text = malloc(size);
	VT_FUZZ_CHECK(text);
	memcpy(text, data + 1, size - 1);
	if (size > 1 && (text[0] == 0x17 || text[0] == 0xfd))
		text[0] = '#';
	cap = lzma_stream_buffer_bound(size - 1);
	buf = malloc(cap);
	VT_FUZZ_CHECK(buf);
	/* preset 0 with the smallest dictionary: inputs are a few KiB, and
	 * the encoder's and decoder's buffers (256 KiB at preset 0) were most
	 * of an execution's cost under ASan */
	VT_FUZZ_CHECK(!lzma_lzma_preset(&lz, 0));
	lz.dict_size = LZMA_DICT_SIZE_MIN;
	VT_FUZZ_CHECK(lzma_stream_buffer_encode(filters, LZMA_CHECK_CRC32, NULL,
						text, size - 1, buf, &len,
						cap) == LZMA_OK);
	VT_FUZZ_CHECK(vt_fuzz_xz_import(buf, len) == vt_fuzz_xz_import(text, size - 1));
	vt_fuzz_trace_dat(buf, len);
	free(buf);
	free(text);
	return 0;
}

#endif
