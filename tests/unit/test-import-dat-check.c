// SPDX-License-Identifier: GPL-2.0
/*
 * The declared sizes of a trace.dat's compressed sections are checked
 * against --max-input before libtracecmd reads the file (issue 22, item
 * 2; core/import/dat-check.c): a 107-byte version 7 file whose compressed
 * header-info section declares 1 GiB is refused under a 64 MiB limit,
 * naming the section and the limit, and accepted under a 2 GiB one; the
 * same for a compressed options section.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/import/dat-check.h"
#include "test.h"

static size_t put(unsigned char *b, size_t o, uint64_t v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		b[o + i] = (unsigned char)(v >> (8 * i));
	return o + n;
}

/* A version 7 file: its options name a header-info section; one of the
 * two (@compressed_options: the options) is compressed and declares @usize. */
static size_t build(unsigned char *b, bool compressed_options, uint64_t usize)
{
	static const unsigned char head[] = "\x17\x08\x44tracing7\0\0\x08";
	size_t o = sizeof(head) - 1, opt, hdr;

	memcpy(b, head, o);
	o = put(b, o, 4096, 4);
	memcpy(b + o, "zlib\0" "1.0\0", 9);
	o += 9;
	opt = o + 8;
	o = put(b, o, opt, 8);
	/* the options section */
	o = put(b, o, 0, 2);
	o = put(b, o, compressed_options, 2);
	o = put(b, o, 0, 4);
	if (compressed_options) {
		o = put(b, o, 12, 8);
		o = put(b, o, 4, 4);		/* compressed size */
		o = put(b, o, usize, 4);	/* uncompressed size */
		return put(b, o, 0, 4);
	}
	o = put(b, o, 28, 8);
	hdr = o + 28;
	o = put(b, o, 16, 2);	/* DAT_OPT_HEADER_INFO */
	o = put(b, o, 8, 4);
	o = put(b, o, hdr, 8);
	o = put(b, o, 0, 2);	/* DAT_OPT_DONE */
	o = put(b, o, 8, 4);
	o = put(b, o, 0, 8);
	/* the header-info section, compressed */
	o = put(b, o, 16, 2);
	o = put(b, o, 1, 2);
	o = put(b, o, 0, 4);
	o = put(b, o, 12, 8);
	o = put(b, o, 4, 4);
	o = put(b, o, usize, 4);
	return put(b, o, 0, 4);
}

static int check(const unsigned char *b, size_t n, uint64_t max, struct vt_error *err)
{
	int fd = memfd_create("v7", MFD_CLOEXEC), ret;

	if (fd < 0 || write(fd, b, n) != (ssize_t)n) {
		perror("memfd");
		exit(TEST_FAIL);
	}
	vt_error_init(err);
	ret = vt_dat_check(fd, n, max, "bomb.dat", err);
	close(fd);
	return ret;
}

int main(void)
{
	unsigned char b[256];
	struct vt_error err;
	size_t n;

	n = build(b, false, 1ull << 30);
	TEST_ASSERT_EQ("1 GiB declared, 64 MiB limit", check(b, n, 64ull << 20, &err),
		       VT_ERR_INPUT_LIMIT);
	TEST_ASSERT_VAL("names the section and the limit",
			strstr(err.msg, "header info section") &&
			strstr(err.msg, "1073741824 bytes uncompressed") &&
			strstr(err.msg, "67108864"));
	TEST_ASSERT_EQ("1 GiB declared, 2 GiB limit", check(b, n, 2ull << 30, &err), 0);
	TEST_ASSERT_EQ("1 GiB declared, the default limit", check(b, n, 0, &err), 0);
	n = build(b, false, (1ull << 30) + 1);
	TEST_ASSERT_EQ("1 GiB + 1 declared, the default limit", check(b, n, 0, &err),
		       VT_ERR_INPUT_LIMIT);
	n = build(b, true, 1ull << 30);
	TEST_ASSERT_EQ("compressed options, 64 MiB limit", check(b, n, 64ull << 20, &err),
		       VT_ERR_INPUT_LIMIT);
	TEST_ASSERT_VAL("names the options section", strstr(err.msg, "options section"));
	TEST_ASSERT_EQ("compressed options, 2 GiB limit", check(b, n, 2ull << 30, &err), 0);
	return test_result("test-import-dat-check");
}
