// SPDX-License-Identifier: GPL-2.0
/*
 * The lazily parsed kallsyms of a trace.dat (core/import/kallsyms.c) must
 * name every address as libtraceevent's own parser does: for texts of
 * every shape tep_parse_kallsyms() reads (aliases at one address, '$'
 * mapping symbols, absolute symbols, module tags, a line it stops at,
 * odd spacing, a 0x prefix, unsorted module symbols, many duplicates) and
 * for the kallsyms of the real recording, vt_ksyms_find() and
 * tep_find_function() on a tep given the same text agree at every
 * symbol's address, next to it and between symbols.  Opening the
 * recording keeps its kallsyms unparsed until a name is asked for.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>
#include <traceevent/event-parse.h>

#include "test.h"
#include "core/import/import.h"
#include "core/import/kallsyms.h"

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:tracecmd_alloc_fd\nleak:libtraceevent.so\nleak:libtracecmd.so\n";
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static unsigned long long checked;

/* Compare at @addr; report the first few differences. */
static void probe(struct vt_ksyms *ks, struct tep_handle *tep, uint64_t addr,
		  const char *what)
{
	const char *want = tep_find_function(tep, addr);
	const char *got = vt_ksyms_find(ks, addr);

	checked++;
	if (!same(got, want)) {
		static int shown;

		if (shown++ < 10)
			fprintf(stderr, "%s: 0x%llx: got %s, libtraceevent %s\n",
				what, (unsigned long long)addr,
				got ? got : "(none)", want ? want : "(none)");
		test_failures++;
	}
}

/* Every address a line of @text starts with, and around it. */
static void compare(const char *text, const char *what)
{
	struct vt_ksyms *ks = vt_ksyms_from_text(text);
	struct tep_handle *tep = tep_alloc();
	const char *p = text;
	uint64_t prev = 0;

	TEST_ASSERT_VAL("map and tep", ks && tep);
	if (!ks || !tep)
		goto out;
	/* outside a capture: libtraceevent's parser */
	tep_parse_kallsyms(tep, text);
	TEST_ASSERT_VAL("not parsed before the first lookup", !vt_ksyms_parsed(ks));
	probe(ks, tep, 0, what);
	probe(ks, tep, ~0ull, what);
	while (*p) {
		char *end;
		uint64_t a = strtoull(p, &end, 16);

		if (end != p) {
			probe(ks, tep, a, what);
			probe(ks, tep, a - 1, what);
			probe(ks, tep, a + 1, what);
			probe(ks, tep, a + 4, what);
			probe(ks, tep, a / 2 + prev / 2, what);
			prev = a;
		}
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	TEST_ASSERT_VAL("parsed at the first lookup", vt_ksyms_parsed(ks));
	TEST_ASSERT_VAL("not failed", !vt_ksyms_failed(ks));
out:
	vt_ksyms_free(ks);
	if (tep)
		tep_free(tep);
}

static void test_shapes(void)
{
	static const char *const texts[] = {
		"",
		"\n\n",
		/* aliases: the last line at an address wins exact lookups
		 * as bsearch finds it, the last of a group covers the gap */
		"ffff800080000000 T _text\n"
		"ffff800080000000 t _stext_alias\n"
		"ffff800080000000 T _stext\n"
		"ffff800080001000 T vmalloc\n"
		"ffff800080001000 T __vmalloc_alias\n"
		"ffff800080002000 T vfree\n",
		/* '$' mapping symbols, absolute symbols, module tags */
		"ffff800080000000 t $x\n"
		"0000000000000000 A __per_cpu_start\n"
		"0000000000001000 a __per_cpu_x\n"
		"ffff800080010000 T vmap\n"
		"ffff800080010100 t $d\n"
		"ffff800080020000 T vunmap\n"
		"ffff800000800000 t mod_init\t[test_vmalloc]\n"
		"ffff800000800100 t mod_exit\t[test_vmalloc]\n"
		"ffff800000700000 t other\t[m2]\n",
		/* odd spacing and prefixes go through sscanf */
		"ffff800080000000  T two_spaces\n"
		"  ffff800080000100 T leading\n"
		"0xffff800080000200 T prefixed\n"
		"FFFF800080000300 T UPPER\n"
		"ffff800080000400 T\ttab_before\n"
		"ffff800080000500 Tjoined\n"
		"ffff800080000600 T crlf\r\n"
		"ffff800080000700 T trailing   \n"
		"1ffff800080000800 T seventeen_digits\n"
		"800 t short\n",
		/* a line libtraceevent stops at: what precedes it stays */
		"ffff800080000000 T first\n"
		"ffff800080001000 T second\n"
		"ffff800080002000 T\n"
		"ffff800080003000 T never\n",
		("zzzz T bad_first_line\n"
		 "ffff800080003000 T never\n"),	/* one text of two lines */
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char what[32];

		snprintf(what, sizeof(what), "text %zu", i);
		compare(texts[i], what);
	}
}

/* Many unsorted lines, a third of them aliases: the merge sort's order. */
static void test_random(void)
{
	size_t n = 30000, len = 0, i;
	char *text = malloc(n * 48 + 1);
	uint64_t x = 0x9e3779b97f4a7c15ull;

	TEST_ASSERT_VAL("buffer", text);
	if (!text)
		return;
	for (i = 0; i < n; i++) {
		uint64_t a;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* runs that ascend, then jump down, with equal neighbours */
		a = 0xffff800080000000ull + ((i % 97) ? i * 64 : (x % 4096) * 64);
		if (x % 3 == 0 && i)
			a -= 64;
		len += sprintf(text + len, "%016llx %c s%zu\n",
			       (unsigned long long)a, "tTdDbBrR"[x % 8], i);
	}
	compare(text, "random");
	free(text);
}

/* The real recording: its kallsyms captured, unparsed, then compared. */
static void test_recording(const char *src)
{
	char path[1024];
	struct tracecmd_input *h;
	struct vt_ksyms *ks;
	const char *text;
	int fd;

	snprintf(path, sizeof(path), "%s/tests/data/recordings/fix256_x10.trace.dat", src);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	/* the recording is part of the tree: its absence is a failure */
	TEST_ASSERT_VAL("tests/data/recordings/fix256_x10.trace.dat opens", fd >= 0);
	if (fd < 0)
		return;
	ks = vt_ksyms_new();
	TEST_ASSERT_VAL("capture", ks);
	if (!ks) {
		close(fd);
		return;
	}
	tracecmd_set_loglevel(TEP_LOG_CRITICAL);
	vt_ksyms_capture_begin(ks);
	h = tracecmd_open_fd(fd, TRACECMD_FL_LOAD_NO_PLUGINS);
	vt_ksyms_capture_end();
	TEST_ASSERT_VAL("open the recording", h);
	/* libtracecmd's read_proc_kallsyms() reached our tep_parse_kallsyms() */
	TEST_ASSERT_EQ("kallsyms texts captured", vt_ksyms_texts(ks), 1);
	text = vt_ksyms_text(ks, 0);
	if (h && text) {
		struct tep_handle *tep = tracecmd_get_tep(h);
		char *copy = strdup(text);

		TEST_ASSERT_VAL("the tep has no functions of its own",
				!tep_find_function(tep, 0xffff800080010000ull));
		TEST_ASSERT_EQ("attach", vt_ksyms_attach(ks, tep), 0);
		TEST_ASSERT_VAL("not parsed by opening", !vt_ksyms_parsed(ks));
		/* the resolver answers tep_find_function() */
		TEST_ASSERT_VAL("tep_find_function() goes through the resolver",
				same(tep_find_function(tep, 0), vt_ksyms_find(ks, 0)));
		TEST_ASSERT_VAL("parsed at the first lookup", vt_ksyms_parsed(ks));
		if (copy) {
			size_t before = checked;

			compare(copy, "recording");
			printf("test-import-kallsyms: recording: %zu bytes of kallsyms, %llu lookups compared\n",
			       strlen(copy), checked - before);
			free(copy);
		}
	}
	if (h)
		tracecmd_close(h);
	vt_ksyms_free(ks);
}

int main(void)
{
	const char *src = getenv("VT_SRC");

	test_shapes();
	test_random();
	test_recording(src ? src : ".");
	printf("test-import-kallsyms: %llu lookups compared\n", checked);
	return test_result("test-import-kallsyms");
}
