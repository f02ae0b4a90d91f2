/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The body of the inspect fuzz target (core/inspect/: kernel images read
 * with libelf and zlib).  The first byte chooses what the rest is:
 *   0: a kernel image as it is (ELF, Image, gzip, EFI zboot or junk);
 *   1: the configuration text of a well-formed ELF vmlinux's IKCONFIG;
 *   2: the body of an arm64 Image after its header (banner and IKCONFIG
 *      markers found by scanning);
 *   3: bytes xor-ed into the start of a well-formed ELF vmlinux (its ELF
 *      and section headers) which is then cut to a length the input picks;
 *   4: gzip-compressed as it is, then read (the gzip path and what is inside).
 * An image either opens with sane fields or fails with a message; nothing
 * crashes, leaks or reads outside the buffer.  Shared by fuzz-inspect.c and
 * tests/unit/test-fuzz-seeds.c.
 */
#ifndef VT_FUZZ_INSPECT_H
#define VT_FUZZ_INSPECT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/inspect/kimage.h"
#include "../unit/kimage-build.h"

#include "fuzz-check.h"

/* Open @len bytes at @p and check what comes out. */
static void vt_fuzz_inspect_one(const uint8_t *p, size_t len)
{
	const struct vt_kimage_info *in;
	struct vt_kimage *k = NULL;
	struct vt_error err;
	char buf[160];

	vt_error_init(&err);
	if (vt_kimage_open_mem("fuzz", p, len, 16u << 20, &k, &err)) {
		VT_FUZZ_CHECK(!k && err.msg[0]);
		return;
	}
	in = vt_kimage_info(k);
	VT_FUZZ_CHECK(in->format[0]);
	VT_FUZZ_CHECK(in->page_shift == 0 || in->page_shift == 12 ||
		      in->page_shift == 14 || in->page_shift == 16);
	VT_FUZZ_CHECK(in->va_bits <= 64 && in->pgtable_levels <= 64);
	VT_FUZZ_CHECK(!in->has_nearest || in->nearest < VT_KERNEL__NR);
	VT_FUZZ_CHECK(strlen(in->release) < sizeof(in->release));
	vt_error_init(&err);
	if (vt_kimage_need_config(k, &err))
		VT_FUZZ_CHECK(err.msg[0]);
	for (uint64_t a = KB_TEXT - 8; a < KB_TEXT + 0x1500; a += 0xf8)
		if (vt_kimage_symbolize(k, a, a & 8, buf, sizeof(buf)))
			VT_FUZZ_CHECK(buf[0]);
	VT_FUZZ_CHECK(!vt_kimage_symbolize(k, 0, true, buf, sizeof(buf)) || buf[0]);
	vt_kimage_close(k);
}

static int vt_fuzz_inspect(const uint8_t *data, size_t size)
{
	struct kb_buf b = { 0 };
	char *text;

	if (!size)
		return 0;
	switch (data[0] % 5) {
	case 0:
		vt_fuzz_inspect_one(data + 1, size - 1);
		break;
	case 1:
		text = malloc(size);
		VT_FUZZ_CHECK(text);
		memcpy(text, data + 1, size - 1);
		text[size - 1] = '\0';
		kb_elf(&b, EM_AARCH64, "6.16.0", text);
		vt_fuzz_inspect_one(b.p, b.len);
		free(text);
		break;
	case 2: {
		uint8_t h[64] = { 'M', 'Z' };

		memcpy(h + 56, "ARM\x64", 4);
		kb_put(&b, h, sizeof(h));
		kb_put(&b, data + 1, size - 1);
		vt_fuzz_inspect_one(b.p, b.len);
		break;
	}
	case 3: {
		size_t cut;

		kb_elf(&b, EM_AARCH64, "6.12.1", "CONFIG_ARM64=y\nCONFIG_ARM64_4K_PAGES=y\n"
		       "CONFIG_ARM64_VA_BITS=48\n");
		for (size_t i = 1; i < size && i - 1 < b.len; i++)
			b.p[i - 1] ^= data[i];
		cut = size > 1 ? b.len - (data[size - 1] * 37u) % b.len : b.len;
		vt_fuzz_inspect_one(b.p, cut);
		/* and the section headers, at the end */
		for (size_t i = 1; i < size && i <= b.len; i++)
			b.p[b.len - i] ^= data[i];
		vt_fuzz_inspect_one(b.p, b.len);
		break;
	}
	case 4:
		kb_gzip(&b, data + 1, size - 1);
		vt_fuzz_inspect_one(b.p, b.len);
		break;
	}
	free(b.p);
	return 0;
}

#endif
