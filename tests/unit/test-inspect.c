// SPDX-License-Identifier: GPL-2.0
/*
 * core/inspect/ (the kernel-image reader) and 'vmaptool inspect', 'replay
 * --vmlinux', 'import --vmlinux' on images this test writes with known
 * contents (tests/unit/kimage-build.h): every reported field is checked
 * against what was written, in every container (ELF, Image, Image.gz, EFI
 * zboot), and every broken input is an error with its reason.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/inspect/kimage.h"
#include "kimage-build.h"
#include "test.h"

/* 4K/48, 6.16: ELF vmlinux */
static const char cfg_a[] =
	"#\n# Linux/arm64 6.16.3 Kernel Configuration\n#\n"
	"CONFIG_ARM64=y\nCONFIG_PGTABLE_LEVELS=4\nCONFIG_ARM64_4K_PAGES=y\n"
	"# CONFIG_ARM64_16K_PAGES is not set\n# CONFIG_ARM64_64K_PAGES is not set\n"
	"# CONFIG_ARM64_VA_BITS_39 is not set\nCONFIG_ARM64_VA_BITS_48=y\n"
	"CONFIG_ARM64_VA_BITS=48\nCONFIG_ARM64_CONTPTE=y\n"
	"CONFIG_HAVE_ARCH_HUGE_VMAP=y\nCONFIG_HAVE_ARCH_HUGE_VMALLOC=y\n"
	"# CONFIG_ARM64_LPA2 is not set\nCONFIG_IKCONFIG=y\n";
/* 16K/47, 6.12: no CONTPTE line, huge vmalloc off */
static const char cfg_b[] =
	"CONFIG_ARM64=y\nCONFIG_PGTABLE_LEVELS=3\nCONFIG_ARM64_16K_PAGES=y\n"
	"CONFIG_ARM64_VA_BITS_47=y\nCONFIG_ARM64_VA_BITS=47\n"
	"CONFIG_HAVE_ARCH_HUGE_VMAP=y\n# CONFIG_HAVE_ARCH_HUGE_VMALLOC is not set\n"
	"# CONFIG_ARM64_LPA2 is not set\n";
/* 64K/52, 6.19-rc1: no huge vmap at all */
static const char cfg_c[] =
	"CONFIG_ARM64=y\nCONFIG_PGTABLE_LEVELS=3\nCONFIG_ARM64_64K_PAGES=y\n"
	"CONFIG_ARM64_VA_BITS=52\nCONFIG_ARM64_CONTPTE=y\n"
	"# CONFIG_HAVE_ARCH_HUGE_VMAP is not set\n";
/* 4K/52 with LPA2, 6.14 */
static const char cfg_d[] =
	"CONFIG_ARM64=y\nCONFIG_PGTABLE_LEVELS=5\nCONFIG_ARM64_4K_PAGES=y\n"
	"CONFIG_ARM64_VA_BITS_52=y\nCONFIG_ARM64_VA_BITS=52\nCONFIG_ARM64_LPA2=y\n"
	"CONFIG_ARM64_CONTPTE=y\nCONFIG_HAVE_ARCH_HUGE_VMAP=y\n"
	"CONFIG_HAVE_ARCH_HUGE_VMALLOC=y\n";

static struct vt_kimage *open_ok(const char *what, const struct kb_buf *b)
{
	struct vt_kimage *k = NULL;
	struct vt_error err;

	vt_error_init(&err);
	if (vt_kimage_open_mem(what, b->p, b->len, 0, &k, &err)) {
		fprintf(stderr, "%s: %s\n", what, err.msg);
		TEST_ASSERT_VAL("the image opens", 0);
		return NULL;
	}
	vt_error_init(&err);
	if (vt_kimage_need_config(k, &err)) {
		fprintf(stderr, "%s: %s\n", what, err.msg);
		TEST_ASSERT_VAL("the configuration is complete", 0);
	}
	return k;
}

/* Opening fails with VT_ERR_KIMAGE (or @code) and a message with @needle. */
static void open_fails(const char *what, const void *p, size_t len, int code,
		       const char *needle)
{
	struct vt_kimage *k = NULL;
	struct vt_error err;
	int ret;

	vt_error_init(&err);
	ret = vt_kimage_open_mem(what, p, len, 0, &k, &err);
	if (ret != code || !strstr(err.msg, needle)) {
		fprintf(stderr, "%s: ret %d, message '%s', want %d and '%s'\n", what,
			ret, err.msg, code, needle);
		TEST_ASSERT_VAL("the broken image is refused with its reason", 0);
	}
	TEST_ASSERT_VAL("no image on failure", !k);
	vt_kimage_close(k);
}

static void check_a(const struct vt_kimage *k)
{
	const struct vt_kimage_info *in = vt_kimage_info(k);
	char buf[128];

	TEST_ASSERT_VAL("ELF", in->elf && !strcmp(in->format, "ELF vmlinux"));
	TEST_ASSERT_VAL("release", !strcmp(in->release, "6.16.3-test"));
	TEST_ASSERT_VAL("banner", !strncmp(in->banner, "Linux version 6.16.3-test (builder@test)", 40));
	TEST_ASSERT_EQ("version", in->version[0] * 10000 + in->version[1] * 100 + in->version[2], 61603);
	TEST_ASSERT_EQ("config from IKCONFIG", in->config_source, VT_KCONFIG_IKCONFIG);
	TEST_ASSERT_EQ("config bytes", in->config_bytes, strlen(cfg_a));
	TEST_ASSERT_EQ("granule", in->page_shift, 12);
	TEST_ASSERT_EQ("no header granule", in->header_page_shift, 0);
	TEST_ASSERT_EQ("VA_BITS", in->va_bits, 48);
	TEST_ASSERT_EQ("levels", in->pgtable_levels, 4);
	TEST_ASSERT_EQ("contpte", in->contpte, VT_TRI_YES);
	TEST_ASSERT_EQ("huge vmalloc", in->huge_vmalloc, VT_TRI_YES);
	TEST_ASSERT_EQ("huge vmap", in->huge_vmap, VT_TRI_YES);
	TEST_ASSERT_EQ("lpa2", in->lpa2, VT_TRI_NO);
	TEST_ASSERT_EQ("function symbols", in->nr_functions, 5);
	TEST_ASSERT_VAL("nearest", in->has_nearest && in->nearest == VT_KERNEL_V6_16);
	TEST_ASSERT_VAL("reason", strstr(in->reason, "6.16 is v6.16 or later"));
	/* symbols */
	TEST_ASSERT_VAL("inside vmap", vt_kimage_symbolize(k, KB_TEXT + 0x120, true, buf, sizeof(buf)) &&
			!strcmp(buf, "vmap+0x20"));
	TEST_ASSERT_VAL("start of vmap", vt_kimage_symbolize(k, KB_TEXT + 0x100, true, buf, sizeof(buf)) &&
			!strcmp(buf, "vmap"));
	TEST_ASSERT_VAL("no offset", vt_kimage_symbolize(k, KB_TEXT + 0x17f, false, buf, sizeof(buf)) &&
			!strcmp(buf, "vmap"));
	TEST_ASSERT_VAL("past vmap's size", !vt_kimage_symbolize(k, KB_TEXT + 0x180, true, buf, sizeof(buf)));
	TEST_ASSERT_VAL("assembly, to the next symbol",
			vt_kimage_symbolize(k, KB_TEXT + 0x4ff, true, buf, sizeof(buf)) &&
			!strcmp(buf, "asm_func+0xff"));
	TEST_ASSERT_VAL("last byte", vt_kimage_symbolize(k, KB_TEXT + 0x13ff, true, buf, sizeof(buf)) &&
			!strcmp(buf, "copy_process+0x3ff"));
	TEST_ASSERT_VAL("beyond", !vt_kimage_symbolize(k, KB_TEXT + 0x1400, true, buf, sizeof(buf)));
	TEST_ASSERT_VAL("before every symbol", !vt_kimage_symbolize(k, KB_TEXT - 1, true, buf, sizeof(buf)));
	TEST_ASSERT_VAL("an object is no function", !vt_kimage_symbolize(k, KB_TEXT + 0x2010, true, buf, sizeof(buf)));
}

static void test_library(void)
{
	struct kb_buf a = { 0 }, b = { 0 }, c = { 0 }, cimg = { 0 }, d = { 0 }, dimg = { 0 };
	struct kb_buf dgz = { 0 }, z = { 0 }, x86 = { 0 }, noc = { 0 }, bad = { 0 };
	const struct vt_kimage_info *in;
	struct vt_kimage *k;
	struct vt_error err;

	kb_elf(&a, EM_AARCH64, "6.16.3-test", cfg_a);
	k = open_ok("elf", &a);
	if (k)
		check_a(k);
	vt_kimage_close(k);

	kb_image(&b, 14, "6.12.5", cfg_b);
	k = open_ok("image", &b);
	if (k) {
		in = vt_kimage_info(k);
		TEST_ASSERT_VAL("Image", !in->elf && !strcmp(in->format, "arm64 Image"));
		TEST_ASSERT_EQ("header granule", in->header_page_shift, 14);
		TEST_ASSERT_EQ("granule", in->page_shift, 14);
		TEST_ASSERT_EQ("VA_BITS", in->va_bits, 47);
		TEST_ASSERT_EQ("levels", in->pgtable_levels, 3);
		TEST_ASSERT_EQ("no CONTPTE line: no", in->contpte, VT_TRI_NO);
		TEST_ASSERT_EQ("huge vmalloc", in->huge_vmalloc, VT_TRI_NO);
		TEST_ASSERT_EQ("huge vmap", in->huge_vmap, VT_TRI_YES);
		TEST_ASSERT_EQ("no symbols", in->nr_functions, 0);
		TEST_ASSERT_VAL("6.12", in->nearest == VT_KERNEL_V6_12 &&
				!strcmp(in->reason, "the release is 6.12"));
	}
	vt_kimage_close(k);

	kb_image(&cimg, 16, "6.19.0-rc1", cfg_c);
	kb_gzip(&c, cimg.p, cimg.len);
	k = open_ok("image.gz", &c);
	if (k) {
		in = vt_kimage_info(k);
		TEST_ASSERT_VAL("gzip", !strcmp(in->format, "gzip-compressed arm64 Image"));
		TEST_ASSERT_EQ("granule", in->page_shift, 16);
		TEST_ASSERT_EQ("VA_BITS", in->va_bits, 52);
		TEST_ASSERT_EQ("huge vmap", in->huge_vmap, VT_TRI_NO);
		TEST_ASSERT_EQ("huge vmalloc absent: no", in->huge_vmalloc, VT_TRI_NO);
		TEST_ASSERT_EQ("lpa2 absent: no", in->lpa2, VT_TRI_NO);
		TEST_ASSERT_VAL("mainline", in->nearest == VT_KERNEL_MAINLINE);
	}
	vt_kimage_close(k);

	kb_image(&dimg, 12, "6.14.2", cfg_d);
	kb_gzip(&dgz, dimg.p, dimg.len);
	kb_zboot(&d, "gzip", &dgz);
	k = open_ok("zboot", &d);
	if (k) {
		in = vt_kimage_info(k);
		TEST_ASSERT_VAL("zboot", !strcmp(in->format, "EFI zboot (gzip) of arm64 Image"));
		TEST_ASSERT_EQ("granule", in->page_shift, 12);
		TEST_ASSERT_EQ("VA_BITS", in->va_bits, 52);
		TEST_ASSERT_EQ("levels", in->pgtable_levels, 5);
		TEST_ASSERT_EQ("lpa2", in->lpa2, VT_TRI_YES);
		TEST_ASSERT_VAL("6.14 is nearest v6.12, and the reason says what differs",
				in->nearest == VT_KERNEL_V6_12 && strstr(in->reason, "--kernel-flush"));
	}
	vt_kimage_close(k);

	/* the broken ones */
	kb_zboot(&z, "zstd", &dgz);
	open_fails("zstd zboot", z.p, z.len, VT_ERR_KIMAGE, "compressed with 'zstd'");
	open_fails("zboot cut", d.p, 600, VT_ERR_KIMAGE, "truncated EFI zboot");
	kb_elf(&x86, EM_X86_64, "6.16.3-test", cfg_a);
	open_fails("x86", x86.p, x86.len, VT_ERR_KIMAGE, "machine 62, not EM_AARCH64");
	x86.p[EI_CLASS] = ELFCLASS32;
	open_fails("32-bit", x86.p, x86.len, VT_ERR_KIMAGE, "32-bit ELF");
	open_fails("ELF cut in the header", a.p, 40, VT_ERR_KIMAGE, "truncated ELF");
	open_fails("ELF cut before its section headers", a.p, a.len - 100, VT_ERR_KIMAGE, "truncated");
	open_fails("text", "hello, world\n", 13, VT_ERR_KIMAGE, "not an arm64 kernel image");
	open_fails("empty", "", 0, VT_ERR_KIMAGE, "shorter than any of their headers");
	open_fails("gzip cut", c.p, c.len / 2, VT_ERR_KIMAGE, "truncated");
	/* IKCONFIG without its end marker, and with corrupt gzip data */
	open_fails("IKCONFIG cut", b.p, b.len - 40, VT_ERR_KIMAGE, "no \"IKCFG_ED\" end marker");
	bad = (struct kb_buf){ 0 };
	kb_put(&bad, b.p, b.len);
	{
		uint8_t *s = memmem(bad.p, bad.len, "IKCFG_ST", 8);

		memset(s + 8 + 10, 0xff, 8);
		open_fails("IKCONFIG corrupt", bad.p, bad.len, VT_ERR_KIMAGE, "not valid gzip data");
	}
	/* more than --max-input */
	{
		struct vt_kimage *k2 = NULL;

		vt_error_init(&err);
		TEST_ASSERT_VAL("--max-input bounds the payload",
				vt_kimage_open_mem("gz", c.p, c.len, 4096, &k2, &err) ==
				VT_ERR_INPUT_LIMIT && !k2);
	}

	/* a gzip of a gzip (issue 22): opens, the outer buffer is freed
	 * (LeakSanitizer under the asan preset), and both layers together
	 * are bounded by --max-input, not each */
	{
		struct kb_buf gg = { 0 };
		struct vt_kimage *k2 = NULL;
		uint64_t both = cimg.len + c.len;

		kb_gzip(&gg, c.p, c.len);
		k2 = open_ok("image.gz.gz", &gg);
		if (k2)
			TEST_ASSERT_VAL("gzip of gzip",
					!strcmp(vt_kimage_info(k2)->format,
						"gzip-compressed gzip-compressed arm64 Image"));
		vt_kimage_close(k2);
		k2 = NULL;
		vt_error_init(&err);
		TEST_ASSERT_VAL("--max-input bounds the layers together",
				vt_kimage_open_mem("gg", gg.p, gg.len, both - 1, &k2, &err) ==
				VT_ERR_INPUT_LIMIT && !k2);
		vt_kimage_close(k2);
		k2 = NULL;
		vt_error_init(&err);
		TEST_ASSERT_VAL("all layers within --max-input open",
				!vt_kimage_open_mem("gg", gg.p, gg.len, both, &k2, &err));
		vt_kimage_close(k2);
		k2 = NULL;
		free(gg.p);
	}

	/* no IKCONFIG: what is unknown, then --kconfig */
	kb_image(&noc, 12, "6.12.117+deb12-arm64", NULL);
	vt_error_init(&err);
	TEST_ASSERT_VAL("opens", !vt_kimage_open_mem("noc", noc.p, noc.len, 0, &k, &err));
	if (k) {
		in = vt_kimage_info(k);
		TEST_ASSERT_EQ("no config", in->config_source, VT_KCONFIG_NONE);
		TEST_ASSERT_EQ("header granule still read", in->header_page_shift, 12);
		vt_error_init(&err);
		TEST_ASSERT_VAL("no IKCONFIG is an error naming what is unknown",
				vt_kimage_need_config(k, &err) == VT_ERR_KIMAGE &&
				strstr(err.msg, "no IKCONFIG") && strstr(err.msg, "VA_BITS") &&
				strstr(err.msg, "LPA2") &&
				strstr(err.msg, "/boot/config-6.12.117+deb12-arm64"));
		vt_error_init(&err);
		TEST_ASSERT_VAL("a config that is not arm64's",
				!vt_kimage_set_config_text(k, "x86", "CONFIG_X86=y\nCONFIG_64BIT=y\n", 26, &err) &&
				vt_kimage_need_config(k, &err) == VT_ERR_KIMAGE &&
				strstr(err.msg, "not an arm64"));
		vt_error_init(&err);
		TEST_ASSERT_VAL("a config of other pages than the header's",
				!vt_kimage_set_config_text(k, "b", cfg_b, strlen(cfg_b), &err) &&
				vt_kimage_need_config(k, &err) == VT_ERR_KIMAGE &&
				strstr(err.msg, "different kernels"));
		vt_error_init(&err);
		TEST_ASSERT_VAL("not a configuration",
				vt_kimage_set_config_text(k, "bin", "\x7f" "ELF\0\0", 6, &err) == VT_ERR_KIMAGE);
		vt_error_init(&err);
		TEST_ASSERT_VAL("--kconfig", !vt_kimage_set_config_text(k, "d", cfg_d, strlen(cfg_d), &err) &&
				!vt_kimage_need_config(k, &err));
		TEST_ASSERT_EQ("source", in->config_source, VT_KCONFIG_FILE);
		TEST_ASSERT_EQ("VA_BITS", in->va_bits, 52);
		TEST_ASSERT_EQ("lpa2", in->lpa2, VT_TRI_YES);
		TEST_ASSERT_VAL("6.12", in->nearest == VT_KERNEL_V6_12);
	}
	vt_kimage_close(k);

	free(a.p); free(b.p); free(c.p); free(cimg.p); free(d.p); free(dimg.p);
	free(dgz.p); free(z.p); free(x86.p); free(noc.p); free(bad.p);
}

/* ---- the command line ------------------------------------------------- */

static char dir[64];

static void write_file(const char *name, const void *p, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, len, f) != len || fclose(f))
		abort();
}

/* Run "VT_BIN @args" in dir; stdout into @out (malloc'd), the exit status. */
static int run(const char *args, char **out)
{
	char cmd[2048], path[128];
	FILE *f;
	long n;
	int st;

	snprintf(path, sizeof(path), "%s/out", dir);
	snprintf(cmd, sizeof(cmd), "cd %s && \"%s\" %s >out 2>err", dir, getenv("VT_BIN"), args);
	st = system(cmd);
	*out = NULL;
	f = fopen(path, "rb");
	if (f) {
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		rewind(f);
		*out = calloc(1, (size_t)n + 1);
		if (fread(*out, 1, (size_t)n, f) != (size_t)n)
			abort();
		fclose(f);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool err_has(const char *needle)
{
	char path[128], buf[4096] = "";
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/err", dir);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	if (!strstr(buf, needle))
		fprintf(stderr, "stderr '%s' lacks '%s'\n", buf, needle);
	return strstr(buf, needle) != NULL;
}

/* A function-tracer recording whose vmalloc caller is an address. */
static const char recording[] =
	"# tracer: function\n#\n"
	"            init-1       [000] .....    51.109047: __vmalloc_node_range_noprof <-0xffff800080011120\n"
	"            init-1       [000] .....    51.109121: alloc_vmap_area: va_start: 18446603338419601408 size=20480 align=32768 vstart=0xffff800080000000 vend=0xffffc1ffbf800000 failed=0\n"
	"            init-1       [000] d....    51.109191: bulk: (alloc_pages_bulk_noprof+0x0/0x628) gfp=0x2dc2 nr=4\n"
	"            init-1       [000] d....    51.109276: vmap_pages: (__vmap_pages_range_noflush+0x0/0x140) addr=0xffff800083090000 end=0xffff800083094000 page_shift=12\n"
	"            init-1       [000] d....    51.109318: vmap_small: (vmap_small_pages_range_noflush+0x0/0x560) addr=0xffff800083090000 end=0xffff800083094000\n";

static void test_cli(void)
{
	struct kb_buf a = { 0 }, x86 = { 0 }, img = { 0 };
	json_error_t je;
	json_t *j;
	char *out, args[512];
	int rc;

	if (!getenv("VT_BIN") || !getenv("VT_SRC")) {
		printf("test-inspect: VT_BIN/VT_SRC not set: the command-line part is not run\n");
		return;
	}
	snprintf(dir, sizeof(dir), "/tmp/vt-inspect.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	kb_elf(&a, EM_AARCH64, "6.16.3-test", cfg_a);
	write_file("vmlinux", a.p, a.len);
	write_file("vmlinux-cut", a.p, a.len / 2);
	kb_elf(&x86, EM_X86_64, "6.16.3-test", cfg_a);
	write_file("vmlinux-x86", x86.p, x86.len);
	kb_image(&img, 14, "6.12.5", NULL);
	write_file("Image", img.p, img.len);
	write_file("config-b", cfg_b, strlen(cfg_b));
	write_file("rec.txt", recording, strlen(recording));

	rc = run("inspect --vmlinux=vmlinux -j", &out);
	TEST_ASSERT_EQ("inspect -j", rc, 0);
	j = out ? json_loads(out, 0, &je) : NULL;
	TEST_ASSERT_VAL("JSON", j);
	if (j) {
		TEST_ASSERT_VAL("format", !strcmp(json_string_value(json_object_get(j, "format")), "vmaptool-inspect"));
		TEST_ASSERT_VAL("release", !strcmp(json_string_value(json_object_get(j, "release")), "6.16.3-test"));
		TEST_ASSERT_VAL("image_format", !strcmp(json_string_value(json_object_get(j, "image_format")), "ELF vmlinux"));
		TEST_ASSERT_VAL("granule", !strcmp(json_string_value(json_object_get(j, "granule")), "4k"));
		TEST_ASSERT_VAL("header_granule", json_is_null(json_object_get(j, "header_granule")));
		TEST_ASSERT_EQ("va_bits", json_integer_value(json_object_get(j, "va_bits")), 48);
		TEST_ASSERT_EQ("levels", json_integer_value(json_object_get(j, "pgtable_levels")), 4);
		TEST_ASSERT_VAL("contpte", json_is_true(json_object_get(j, "contpte")));
		TEST_ASSERT_VAL("huge_vmalloc", json_is_true(json_object_get(j, "huge_vmalloc")));
		TEST_ASSERT_VAL("huge_vmap", json_is_true(json_object_get(j, "huge_vmap")));
		TEST_ASSERT_VAL("lpa2", json_is_false(json_object_get(j, "lpa2")));
		TEST_ASSERT_EQ("functions", json_integer_value(json_object_get(j, "functions")), 5);
		TEST_ASSERT_VAL("config", !strcmp(json_string_value(json_object_get(
			json_object_get(j, "config"), "source")), "ikconfig"));
		TEST_ASSERT_VAL("kernel", !strcmp(json_string_value(json_object_get(
			json_object_get(j, "kernel"), "nearest")), "v6.16"));
		TEST_ASSERT_VAL("replay options", !strcmp(json_string_value(json_object_get(j, "replay_options")),
							  "--granule=4k --va-bits=48 --kernel=v6.16"));
		json_decref(j);
	}
	free(out);

	/* the output against its schema (python3-jsonschema, scripts/setup.sh) */
	snprintf(args, sizeof(args), "cd %s && python3 -c 'import json, jsonschema, sys; "
		 "jsonschema.validate(json.load(open(\"out\")), json.load(open(sys.argv[1])))' "
		 "%s/docs/inspect.schema.json", dir, getenv("VT_SRC"));
	TEST_ASSERT_VAL("inspect -j validates against docs/inspect.schema.json", system(args) == 0);

	rc = run("inspect --vmlinux=vmlinux", &out);
	TEST_ASSERT_EQ("inspect", rc, 0);
	TEST_ASSERT_VAL("text", out && strstr(out, "release       6.16.3-test\n") &&
			strstr(out, "VA_BITS       48 ") && strstr(out, "LPA2          no ") &&
			strstr(out, "kernel        v6.16: ") &&
			strstr(out, "symbols       5 function(s)"));
	free(out);

	rc = run("inspect -j --vmlinux=Image --kconfig=config-b", &out);
	TEST_ASSERT_EQ("inspect -j Image --kconfig", rc, 0);
	free(out);
	TEST_ASSERT_VAL("and that one too", system(args) == 0);
	rc = run("inspect --vmlinux=Image --kconfig=config-b", &out);
	TEST_ASSERT_EQ("inspect Image --kconfig", rc, 0);
	TEST_ASSERT_VAL("text", out && strstr(out, "granule       16k ") &&
			strstr(out, "(arm64 Image, 16k pages in its header)") &&
			strstr(out, "replay with   --granule=16k --va-bits=47 --kernel=v6.12 --nohugevmalloc\n"));
	free(out);

	/* errors: exit 3 with the reason, nothing on stdout */
	rc = run("inspect --vmlinux=Image", &out);
	TEST_ASSERT_EQ("no IKCONFIG", rc, 3);
	TEST_ASSERT_VAL("says what is unknown", err_has("no IKCONFIG") && err_has("VA_BITS"));
	TEST_ASSERT_VAL("nothing on stdout", out && !*out);
	free(out);
	rc = run("inspect --vmlinux=vmlinux-x86", &out);
	TEST_ASSERT_EQ("x86", rc, 3);
	TEST_ASSERT_VAL("machine", err_has("not EM_AARCH64"));
	free(out);
	rc = run("inspect --vmlinux=vmlinux-cut", &out);
	TEST_ASSERT_EQ("truncated", rc, 3);
	TEST_ASSERT_VAL("truncated", err_has("truncated"));
	free(out);
	rc = run("inspect --vmlinux=rec.txt", &out);
	TEST_ASSERT_EQ("text", rc, 3);
	TEST_ASSERT_VAL("not an image", err_has("not an arm64 kernel image"));
	free(out);
	rc = run("inspect --vmlinux=missing", &out);
	TEST_ASSERT_EQ("missing file", rc, 4);
	free(out);
	rc = run("inspect", &out);
	TEST_ASSERT_EQ("no image", rc, 2);
	free(out);
	rc = run("inspect --kconfig=config-b", &out);
	TEST_ASSERT_EQ("--kconfig alone", rc, 2);
	free(out);

	/* replay --vmlinux: geometry and generation, explicit options win */
	snprintf(args, sizeof(args), "replay -j --strategy=zigzag --vmlinux=vmlinux %s/traces/default.json",
		 getenv("VT_SRC"));
	rc = run(args, &out);
	TEST_ASSERT_EQ("replay --vmlinux", rc, 0);
	j = out ? json_loads(out, 0, &je) : NULL;
	if (j) {
		json_t *c = json_object_get(j, "config");

		TEST_ASSERT_VAL("granule", !strcmp(json_string_value(json_object_get(c, "granule")), "4k"));
		TEST_ASSERT_EQ("va_bits", json_integer_value(json_object_get(c, "va_bits")), 48);
		TEST_ASSERT_VAL("kernel", !strcmp(json_string_value(json_object_get(c, "kernel_model")), "v6.16"));
		json_decref(j);
	} else {
		TEST_ASSERT_VAL("replay JSON", 0);
	}
	free(out);
	snprintf(args, sizeof(args), "replay -j --strategy=zigzag --granule=16k --va-bits=47 --kernel=v6.12 "
		 "--vmlinux=vmlinux --barriers=lazy %s/traces/default.json", getenv("VT_SRC"));
	rc = run(args, &out);
	TEST_ASSERT_EQ("replay --vmlinux with overrides", rc, 0);
	j = out ? json_loads(out, 0, &je) : NULL;
	if (j) {
		json_t *c = json_object_get(j, "config");

		TEST_ASSERT_VAL("granule given", !strcmp(json_string_value(json_object_get(c, "granule")), "16k"));
		TEST_ASSERT_EQ("va_bits given", json_integer_value(json_object_get(c, "va_bits")), 47);
		TEST_ASSERT_VAL("kernel given", !strncmp(json_string_value(json_object_get(c, "kernel_model")), "v6.12", 5));
		TEST_ASSERT_VAL("barriers given before --vmlinux still win",
				!strcmp(json_string_value(json_object_get(json_object_get(c, "options"), "barriers")), "lazy"));
		json_decref(j);
	} else {
		TEST_ASSERT_VAL("replay JSON", 0);
	}
	free(out);
	snprintf(args, sizeof(args), "replay --vmlinux=Image %s/traces/default.json", getenv("VT_SRC"));
	rc = run(args, &out);
	TEST_ASSERT_EQ("replay of an image without configuration", rc, 3);
	TEST_ASSERT_VAL("says so", err_has("--kconfig=FILE"));
	free(out);

	/* import --vmlinux: the caller address becomes name+0xoff */
	rc = run("import --vmlinux=vmlinux rec.txt", &out);
	TEST_ASSERT_EQ("import --vmlinux", rc, 0);
	TEST_ASSERT_VAL("caller resolved", out && strstr(out, "\"caller\":\"copy_process+0x120\""));
	free(out);
	rc = run("import rec.txt", &out);
	TEST_ASSERT_EQ("import", rc, 0);
	TEST_ASSERT_VAL("caller as recorded", out && strstr(out, "\"caller\":\"0xffff800080011120\""));
	free(out);
	rc = run("import --vmlinux=Image --kconfig=config-b rec.txt", &out);
	TEST_ASSERT_EQ("import with an image without symbols", rc, 3);
	TEST_ASSERT_VAL("says so", err_has("no function symbols"));
	free(out);

	snprintf(args, sizeof(args), "rm -rf %s", dir);
	if (system(args))
		fprintf(stderr, "cannot remove %s\n", dir);
	free(a.p);
	free(x86.p);
	free(img.p);
}

int main(void)
{
	test_library();
	test_cli();
	return test_result("test-inspect");
}
