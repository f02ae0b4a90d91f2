// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON Lines fast path (core/trace/trace-fast.c) against the jansson path:
 * for every input both readers must yield the same events (every field,
 * every position), the same error (code, file, line, column, event,
 * message) and the same warnings, with and without --skip-unknown
 * (vt_fuzz_json_differential() of tests/fuzz/fuzz-trace-json.h).
 *
 * Inputs: the bundled traces, the fuzz corpus, the CLI test data and the
 * golden cases, each also rewritten as JSON Lines in vmaptool's own shape
 * and in two hand-written shapes (sorted keys with spaces; decimal pfns);
 * generated traces (systemheap, test_vmalloc, ioremap, and random events
 * that use every field, odd strings included); and for the first event
 * lines of each, every one-byte deletion, a one-byte replacement at every
 * offset and every truncation (of JSON Lines and one-document traces alike:
 * a document is streamed by vt_trace_open() and vt_trace_open_mem() unless
 * .no_fast_path reads it whole); edge lines of the page-object reader and
 * of the word-at-a-time readers (check_page_edges(), check_line_edges())
 * and of the hot pass (check_hot_edges()).
 * Also checks that the fast path does take the lines vmaptool writes (else
 * the test would prove nothing).
 */
#define _GNU_SOURCE
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "test.h"
#include "core/trace/gen.h"
#include "core/trace/trace-fast.h"
#include "../fuzz/fuzz-trace-json.h"

static unsigned long nr_inputs, nr_mutants;

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (cap - n < 65536) {
			cap = cap * 2 + 65536;
			buf = realloc(buf, cap);
			if (!buf)
				break;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	fclose(f);
	*len = n;
	return buf;
}

/* The first line (the header) of a JSON Lines buffer, with its newline. */
static size_t header_len(const char *buf, size_t len)
{
	const char *nl = memchr(buf, '\n', len);

	return nl ? (size_t)(nl - buf) + 1 : len;
}

/*
 * Mutate each of the first @lines event lines of a JSON Lines buffer: the
 * header, the mutant and the next line, read both ways.
 */
static void mutate_lines(const char *buf, size_t len, int lines)
{
	static const char subst[] = "\"\\0-1 }],:x{[eE.\x80\t9";
	size_t hl = header_len(buf, len), off = hl;
	char *m = malloc(len + 2);

	for (int l = 0; m && l < lines && off < len; l++) {
		const char *line = buf + off, *nl = memchr(line, '\n', len - off);
		size_t n = nl ? (size_t)(nl - line) : len - off;
		size_t next = nl ? (size_t)(nl - buf) + 1 : len;
		const char *nl2 = memchr(buf + next, '\n', len - next);
		size_t n2 = nl2 ? (size_t)(nl2 - buf) + 1 - next : len - next;

		memcpy(m, buf, hl);
		for (size_t i = 0; i < n; i++) {
			size_t k = hl;

			/* delete byte i */
			memcpy(m + k, line, i);
			memcpy(m + k + i, line + i + 1, n - i - 1);
			k += n - 1;
			m[k++] = '\n';
			memcpy(m + k, buf + next, n2);
			vt_fuzz_json_differential(NULL, m, k + n2);
			/* replace byte i */
			k = hl;
			memcpy(m + k, line, n);
			m[k + i] = subst[(i * 7 + l) % (sizeof(subst) - 1)];
			k += n;
			m[k++] = '\n';
			memcpy(m + k, buf + next, n2);
			vt_fuzz_json_differential(NULL, m, k + n2);
			/* truncate at i (the last line of the file) */
			memcpy(m + hl, line, i);
			vt_fuzz_json_differential(NULL, m, hl + i);
			nr_mutants += 3;
		}
		off = next;
	}
	free(m);
}

static void check_buf(const char *buf, size_t len, bool mutate)
{
	vt_fuzz_json_differential(NULL, buf, len);
	nr_inputs++;
	if (mutate)
		mutate_lines(buf, len, 3);
}

static int emit_writer(void *ctx, const struct vt_event *ev,
		       struct vt_error *err)
{
	return vt_trace_writer_event(ctx, ev, err);
}

/*
 * Rewrite what reads of @buf (skipping unknown ops) as JSON Lines in
 * vmaptool's shape; NULL if nothing reads.  *@fast counts the lines the
 * fast path took when the result is read back.
 */
static char *to_jsonl(const char *buf, size_t len, size_t *out_len)
{
	struct vt_trace_read_opts ro = { .skip_unknown = true };
	struct vt_trace_writer *w;
	struct vt_trace_reader *r;
	struct vt_error err;
	struct vt_event ev;
	char *out = NULL;
	FILE *f;
	int ret;

	vt_error_init(&err);
	if (vt_trace_open_mem("in", buf, len, &ro, &r, &err))
		return NULL;
	f = open_memstream(&out, out_len);
	ret = vt_trace_writer_open_file(f, true, vt_trace_config(r),
					vt_trace_meta_json(r), &w, &err);
	TEST_ASSERT_VAL("writer opens", !ret);
	while (!ret && vt_trace_next(r, &ev, &err) == 1)
		ret = vt_trace_writer_event(w, &ev, &err);
	TEST_ASSERT_VAL("writer writes", !ret);
	TEST_ASSERT_VAL("writer commits", !vt_trace_writer_commit(w, &err));
	vt_trace_close(r);
	fclose(f);
	return out;
}

/* Each event line through jansson: keys sorted, ", " and ": " between
 * tokens, and with @decimal the pfns as integers. */
static char *hand_written(const char *buf, size_t len, bool decimal,
			  size_t *out_len)
{
	size_t hl = header_len(buf, len), off = hl;
	char *out = NULL;
	FILE *f = open_memstream(&out, out_len);

	fwrite(buf, 1, hl, f);
	while (off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - buf) - off : len - off;
		json_t *j = json_loadb(buf + off, n, 0, NULL);
		json_t *pages = j ? json_object_get(j, "pages") : NULL;
		char *s;

		for (size_t i = 0; decimal && i < json_array_size(pages); i++) {
			json_t *run = json_array_get(pages, i);
			const char *pfn = json_string_value(json_object_get(run, "pfn"));

			if (pfn)
				json_object_set_new(run, "pfn",
						    json_integer(strtoll(pfn, NULL, 16)));
		}
		s = j ? json_dumps(j, JSON_SORT_KEYS) : NULL;
		if (s)
			fprintf(f, "%s\n", s);
		free(s);
		json_decref(j);
		off += n + 1;
	}
	fclose(f);
	return out;
}

/* How many of the event lines of @buf the fast path takes. */
static void fast_share(const char *buf, size_t len, unsigned long *taken,
		       unsigned long *lines)
{
	struct vt_trace_fast *fp = calloc(1, sizeof(*fp));
	size_t off = header_len(buf, len);

	fp->page_shift = 12;
	fp->max_order = 10;
	fp->pa_bits = 48;
	while (off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - buf) - off : len - off;
		struct vt_event ev;

		*taken += vt_trace_fast_event(fp, buf + off, n, &ev) == 1;
		(*lines)++;
		off += n + 1;
	}
	vt_trace_fast_release(fp);
	free(fp);
}

static void check_file(const char *path)
{
	size_t len, jl_len, hw_len;
	char *buf = slurp(path, &len), *jl, *hw;

	TEST_ASSERT_VAL(path, buf);
	if (!buf)
		return;
	vt_fuzz_json_differential(path, NULL, 0);	/* vt_trace_open() */
	check_buf(buf, len, true);
	jl = to_jsonl(buf, len, &jl_len);
	if (jl) {
		check_buf(jl, jl_len, true);
		for (int d = 0; d < 2; d++) {
			hw = hand_written(jl, jl_len, d, &hw_len);
			check_buf(hw, hw_len, d);
			free(hw);
		}
	}
	free(jl);
	free(buf);
}

static void check_glob(const char *src, const char *pattern)
{
	char pat[4096];
	glob_t g;

	snprintf(pat, sizeof(pat), "%s/%s", src, pattern);
	if (glob(pat, 0, NULL, &g))
		return;
	for (size_t i = 0; i < g.gl_pathc; i++)
		check_file(g.gl_pathv[i]);
	globfree(&g);
}

/* Random events that use every field, strings with escapes and UTF-8. */
static int gen_random(const struct vt_gen_out *out, unsigned long n)
{
	static const char *const strs[] = {
		"system_heap_do_vmap", "a\"b", "tab\there", "caf\xc3\xa9",
		"x\x01y", "", "bad\xff", "0x10", "back\\slash",
	};
	struct vt_page_run runs[4];
	struct vt_error err;
	struct vt_rng rng;

	vt_error_init(&err);
	vt_rng_init(&rng, out->seed);
	for (unsigned long i = 0; i < n; i++) {
		struct vt_event ev = { .cpu = -1 };
		uint64_t r = vt_rng_next(&rng);
		int ret;

		ev.op = vt_rng_below(&rng, VT_OP__NR);
		ev.prot = ev.op == VT_OP_IOREMAP ? VT_PROT_DEVICE : VT_PROT_KERNEL;
		ev.id.present = r & 1;
		if (r & 2) {
			ev.id.is_str = true;
			ev.id.str = (char *)strs[vt_rng_below(&rng, 9)];
		} else {
			ev.id.num = vt_rng_below(&rng, 1000);
		}
		if (r & 4) {
			ev.nr_runs = 1 + vt_rng_below(&rng, 4);
			for (uint32_t k = 0; k < ev.nr_runs; k++) {
				runs[k].order = vt_rng_below(&rng, 11);
				runs[k].pfn = vt_rng_below(&rng, 1u << 20) << runs[k].order;
				runs[k].count = 1 + vt_rng_below(&rng, 3);
			}
			ev.runs = runs;
			ev.has_pages = true;
		}
		if (r & 8)
			ev.size = vt_rng_below(&rng, 1 << 24);
		if (r & 16)
			ev.phys = vt_rng_below(&rng, 1ull << 40);
		if (r & 32)
			ev.align = 1ull << vt_rng_below(&rng, 30);
		ev.flags = vt_rng_next(&rng) & ((1u << VT_FB__NR) - 1) & -(r >> 6 & 1);
		if (r & 128)
			ev.prot = vt_rng_below(&rng, VT_PROT__NR);
		ev.has_va = r >> 8 & 1;
		ev.va = vt_rng_next(&rng);
		ev.has_t = r >> 9 & 1;
		ev.t = vt_rng_below(&rng, 1ull << 50);
		if (r >> 10 & 1)
			ev.cpu = vt_rng_below(&rng, 64);
		if (r >> 11 & 1)
			ev.caller = strs[vt_rng_below(&rng, 9)];
		ret = out->emit(out->ctx, &ev, &err);
		if (ret)
			return ret;
	}
	return 0;
}

static void check_generated(void)
{
	static const uint64_t sh_sizes[] = { 1 << 20, 3 << 20 };
	static const uint64_t io_sizes[] = { 4096, 1 << 21, 65536 };
	struct vt_gen_systemheap sh = {
		.sizes = sh_sizes, .nr_sizes = 2, .buffers = 20, .live = 3,
		.frag = 0.3, .mem_bytes = 64 << 20,
	};
	enum vt_tv_test tests[VT_TV__NR];
	struct vt_gen_test_vmalloc tv = {
		.tests = tests, .nr_tests = VT_TV__NR, .loops = 2, .nr_pages = 3,
		.cpus = 2, .busy = 10, .pcpu_objects = 10, .junk = 10,
	};
	struct vt_gen_ioremap io = { .sizes = io_sizes, .nr_sizes = 3,
				     .count = 30, .live = 4 };
	const struct vt_trace_config cfg = { 12, 48 };
	unsigned long taken = 0, lines = 0;

	for (int i = 0; i < VT_TV__NR; i++)
		tests[i] = i;
	for (int g = 0; g < 4; g++) {
		struct vt_trace_writer *w;
		struct vt_error err;
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);
		struct vt_gen_out o;
		int ret;

		vt_error_init(&err);
		ret = vt_trace_writer_open_file(f, true, &cfg, NULL, &w, &err);
		TEST_ASSERT_VAL("writer opens", !ret);
		o = (struct vt_gen_out){ emit_writer, w, 7 + g, 12, 48 };
		switch (g) {
		case 0:
			ret = vt_gen_systemheap(&sh, &o, &err);
			break;
		case 1:
			ret = vt_gen_test_vmalloc(&tv, &o, &err);
			break;
		case 2:
			ret = vt_gen_ioremap(&io, &o, &err);
			break;
		default:
			ret = gen_random(&o, 3000);
			break;
		}
		if (ret)
			fprintf(stderr, "generator %d: %s\n", g, err.msg);
		TEST_ASSERT_VAL("generator runs", !ret);
		TEST_ASSERT_VAL("writer commits", !vt_trace_writer_commit(w, &err));
		fclose(f);
		check_buf(out, len, true);
		if (g < 3)
			fast_share(out, len, &taken, &lines);
		free(out);
	}
	/* vmaptool's own lines all go the fast way */
	printf("fast path took %lu of %lu generated lines\n", taken, lines);
	TEST_ASSERT_VAL("the fast path takes the generators' lines",
			lines > 100 && taken == lines);
}

/*
 * Page-array objects at the edges of the fast path's own shape (its
 * one-pass reader of {"pfn":..,"order":..,"count":..}): digit counts at
 * the limits, leading zeros, an empty "0x", fractions, whitespace, keys
 * in another order, Python's spaces.  Each line is read both ways and mutated.
 */
static void check_page_edges(void)
{
	static const char *const pages[] = {
		"{\"pfn\":\"0x0000000000000100\",\"order\":8,\"count\":4}",
		"{\"pfn\":\"0x00000000000000100\",\"order\":8}",
		"{\"pfn\":\"0x\",\"order\":0}",
		"{\"pfn\":\"0xFfF\",\"order\":0,\"count\":1}",
		"{\"pfn\":\"0x10g\",\"order\":0}",
		"{\"pfn\":256,\"order\":8,\"count\":1}",
		"{\"pfn\":0256,\"order\":8}",
		"{\"pfn\":256,\"order\":08}",
		"{\"pfn\":256,\"order\":8.0}",
		"{\"pfn\":256,\"order\":8e0}",
		"{\"pfn\":256,\"order\":8,\"count\":0}",
		"{\"pfn\":256,\"order\":8,\"count\":000000000000000001}",
		"{\"pfn\":100000000000000000,\"order\":0}",
		"{\"pfn\":1000000000000000000,\"order\":0}",
		"{\"pfn\":256,\"order\":8,\"count\":123456789012345678}",
		"{\"pfn\":256,\"order\":8,\"count\":1234567890123456789}",
		"{\"pfn\":256,\"order\":0,\"count\":9999999999999999999}",
		"{\"pfn\":\"0x10000000000000000\",\"order\":0}",
		"{\"pfn\":256, \"order\":8}",
		"{\"pfn\":256,\"order\":8 }",
		"{\"order\":8,\"pfn\":256}",
		"{\"pfn\":256,\"count\":2,\"order\":8}",
		"{\"pfn\":256,\"order\":8,\"pfn\":512}",
		"{\"pfn\":256,\"order\":8,\"count\":2,\"count\":2}",
		"{\"pfn\":256}",
		"{\"pfn\":256,\"order\":8,\"count\":1,\"x\":1}",
		"{\"pfn\": \"0x100\", \"order\": 8, \"count\": 4}",
		"{ \"pfn\" : 256 , \"order\" : 8 }",
		"{\"pfn\": 256, \"order\": 0 , \"count\": 1}",
		"{\"pfn\":256,\"order\" :8,\"count\" :2}",
		"{\"pfn\":256,\"order\":8,\"count\" 2}",
		"{\"pfn\": 0256, \"order\": 8}",
		"{\"pfn\": 256, \"order\": 8, \"order\": 8}",
	};
	static const char head[] = "{\"format\":\"vmaptool-trace\",\"version\":1}\n";
	char buf[512];

	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		for (int two = 0; two < 3; two++) {
			int n = snprintf(buf, sizeof(buf),
					 "%s{\"op\":\"vmap\",\"id\":1,\"pages\":[%s%s%s]}\n"
					 "{\"op\":\"vunmap\",\"id\":1}\n", head,
					 pages[i], two == 2 ? ", " : two ? "," : "",
					 two ? pages[i] : "");

			TEST_ASSERT_VAL("edge line fits", n > 0 && (size_t)n < sizeof(buf));
			check_buf(buf, n, true);
		}
}

/*
 * Event lines at the edges of the fast path's word-at-a-time readers, read
 * both ways: strings of every length up to 40 with a stop byte (quote,
 * backslash, control bytes, 0x7f, 0x80, 0xff, a newline) at the start, the
 * middle or the end of a word, each line again with the caller of the
 * line before it (compared in place, not copied) and one differing in its
 * last byte; integers of 0 to 21 digits with leading zeros, signs,
 * fractions, exponents; keys that share a prefix with a known one; op
 * names one byte off; JSON whitespace (a CR, spaces) around every token.
 * From memory (the line's end found by its parse) and from a file whose
 * lines cross the reader's 256 KiB blocks.
 */
static void check_line_edges(void)
{
	static const char *const stops[] = {
		"", "\"", "\\\\", "\\\"", "\x01", "\x1f", "\x7f", "\x80", "\xff",
		"\t", "\n", " ", "~", "\r",
	};
	static const char *const keys[] = {
		"o", "opp", "i", "idd", "siz", "sizes", "c", "cp", "cpux", "calle",
		"callerx", "caller ", "p", "page", "pagess", "phy", "pro", "flag",
		"v", "vaa", "tt", "alig", "alignx", "range", "op\\u0000",
	};
	static const char *const ops[] = {
		"vmap", "vmapp", "vma", "vfree", "vfrea", "purge", "purgf",
		"vmalloc", "vmallod", "vmalloc ", "ioremap", "iounmap", "ioremaq",
		"vm_map_ram", "vm_map_raN", "linear_map", "vm_unmap_ram",
		"vm_unmap_rap", "VMALLOC", "",
	};
	static const char *const tails[] = { "", ".0", "e1", "E1", " ", "x", "0" };
	static const char head[] = "{\"format\":\"vmaptool-trace\",\"version\":1}\n";
	char num[32], str[64], *buf = NULL, path[] = "/tmp/test-trace-fast-XXXXXX";
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int fd;

	fputs(head, f);
	for (int n = 0; n <= 40; n++)
		for (size_t k = 0; k < sizeof(stops) / sizeof(stops[0]); k++)
			for (int at = 0; at < 3; at++) {
				int pos = at == 0 ? 0 : at == 1 ? n / 2 : n;

				memset(str, 'a' + n % 26, n);
				str[n] = '\0';
				fprintf(f, "{\"op\":\"vfree\",\"id\":3,\"caller\":\"%.*s%s%s\"}\n",
					pos, str, stops[k], str + pos);
				fprintf(f, "{\"op\":\"vfree\",\"id\":3,\"caller\":\"%s\"}\n", str);
				fprintf(f, "{\"op\":\"vfree\",\"id\":4,\"caller\":\"%s\"}\n", str);
				if (n)
					str[n - 1] ^= 1;
				fprintf(f, "{\"op\":\"vfree\",\"caller\":\"%s\",\"id\":4}\n", str);
				fprintf(f, "{\"op\":\"vmalloc\",\"id\":\"%.*s%s%s\",\"size\":1}\n",
					pos, str, stops[k], str + pos);
			}
	for (int d = 0; d <= 21; d++)
		for (int lead = 0; lead < 4; lead++)
			for (size_t t = 0; t < sizeof(tails) / sizeof(tails[0]); t++) {
				int k = snprintf(num, sizeof(num), "%s", (const char *[]){ "", "0", "-", "+" }[lead]);

				for (int i = 0; i < d; i++)
					num[k++] = '0' + (i * 7 + d) % 10;
				num[k] = '\0';
				fprintf(f, "{\"op\":\"vmalloc\",\"id\":%s%s,\"size\":4096}\n", num, tails[t]);
				fprintf(f, "{\"op\":\"vmalloc\",\"id\":1,\"size\":%s%s}\n", num, tails[t]);
				fprintf(f, "{\"op\":\"vmalloc\",\"id\":1,\"size\":4096,\"align\":%s%s}\n", num, tails[t]);
				fprintf(f, "{\"op\":\"vfree\",\"id\":1,\"cpu\":%s%s}\n", num, tails[t]);
			}
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		fprintf(f, "{\"op\":\"vmalloc\",\"id\":1,\"size\":4096,\"%s\":1}\n", keys[k]);
		fprintf(f, "{\"%s\":\"x\",\"op\":\"vfree\",\"id\":1}\n", keys[k]);
		fprintf(f, "{\"op\":\"vfree\",\"%s\":1}\n", keys[k]);
	}
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		fprintf(f, "{\"op\":\"%s\",\"id\":1,\"size\":4096,\"phys\":0}\n", ops[k]);
		fprintf(f, "{\"op\":\"%s\"}\n", ops[k]);
		fprintf(f, "{ \"op\" : \"%s\" , \"id\" : 1 , \"size\" : 4096 }\r\n", ops[k]);
	}
	fprintf(f, "{\"op\":\"vfree\",\"id\":1}");	/* no newline at the end */
	fclose(f);
	check_buf(buf, len, false);
	free(buf);

	/* lines of every length across the block boundaries of a file */
	fd = mkstemp(path);
	TEST_ASSERT_VAL("temporary file", fd >= 0);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		return;
	fputs(head, f);
	for (long i = 0; ftell(f) < 600 * 1024; i++)
		fprintf(f, "{\"op\":\"vmalloc\",\"id\":%ld,\"size\":4096,\"caller\":\"%.*s\"}\n",
			i, (int)(i % 61), "fix_size_alloc_test_fix_size_alloc_test_fix_size_alloc_test__");
	fprintf(f, "{\"op\":\"vfree\",\"id\":1}");
	fclose(f);
	vt_fuzz_json_differential(path, NULL, 0);
	nr_inputs++;
	unlink(path);
}

/*
 * The lines of vmaptool's own layout that the fast path's hot pass reads
 * with no call (hot_event()), and where it stops and fast_event() goes on
 * (a key or a separator): each line alone, with the lines after it that
 * repeat its caller or not; each as the last line with and without its
 * newline and cut at every byte (a key or value near the end of the
 * input has no room for a word load); and with one byte inserted at
 * every offset (whitespace, a digit, a quote, a comma, a newline), so
 * that every token in turn is not in the hot form.  Also every op name,
 * one byte longer and shorter and with its last byte changed, in a line
 * that satisfies every op's rules.
 */
static void check_hot_edges(void)
{
	static const char *const lines[] = {
		"{\"op\":\"vmalloc\",\"id\":1,\"size\":4096,\"caller\":\"fix_size_alloc_test\"}",
		"{\"op\":\"vfree\",\"id\":1,\"caller\":\"fix_size_alloc_test\"}",
		"{\"op\":\"vmalloc\",\"id\":12501,\"size\":16384,\"align\":512,\"caller\":\"random_size_align_alloc_test\"}",
		"{\"op\":\"vmap\",\"id\":7,\"pages\":[{\"pfn\":\"0x100\",\"order\":0}],\"flags\":[\"VM_MAP\"],\"prot\":\"PAGE_KERNEL_RO\",\"caller\":\"x\"}",
		"{\"op\":\"vunmap\",\"id\":7,\"caller\":\"xy\"}",
		"{\"op\":\"ioremap\",\"id\":2,\"size\":65536,\"phys\":1048576,\"va\":123,\"t\":5,\"cpu\":3}",
		"{\"op\":\"iounmap\",\"id\":2,\"cpu\":0,\"t\":0}",
		"{\"op\":\"vm_map_ram\",\"id\":3,\"pages\":[{\"pfn\":256,\"order\":1,\"count\":2}]}",
		"{\"op\":\"vm_unmap_ram\",\"id\":3}",
		"{\"op\":\"linear_map\",\"size\":1073741824,\"phys\":0}",
		"{\"op\":\"purge\"}",
		"{\"caller\":\"fix_size_alloc_test\",\"size\":4096,\"id\":1,\"op\":\"vmalloc\"}",
		"{\"op\":\"vmalloc\",\"id\":1,\"size\":4096,\"id\":2}",
		"{\"op\":\"vmalloc\",\"id\":1,\"size\":0,\"caller\":\"fix_size_alloc_test\"}",
		"{\"op\":\"vmalloc\",\"id\":1,\"size\":8192,\"align\":3}",
		"{\"op\":\"vfree\",\"caller\":\"fix_size_alloc_test_\"}",
	};
	static const char ins[] = " \t\r\n0\",x";
	static const char head[] = "{\"format\":\"vmaptool-trace\",\"version\":1}\n";
	char buf[1024];
	int n;

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		const char *l = lines[i];
		size_t ll = strlen(l), hl = sizeof(head) - 1;

		for (int nl = 0; nl < 2; nl++) {
			n = snprintf(buf, sizeof(buf), "%s%s\n%s\n%s%s", head, l,
				     lines[(i + 1) % 3], l, nl ? "\n" : "");
			TEST_ASSERT_VAL("hot edge fits", n > 0 && (size_t)n < sizeof(buf));
			check_buf(buf, n, false);
		}
		for (size_t at = 0; at <= ll; at++) {
			/* cut: the last line, no newline */
			memcpy(buf, head, hl);
			memcpy(buf + hl, l, at);
			check_buf(buf, hl + at, false);
			for (size_t k = 0; k < sizeof(ins) - 1; k++) {
				n = snprintf(buf, sizeof(buf), "%s%.*s%c%s\n%s\n",
					     head, (int)at, l, ins[k], l + at, l);
				check_buf(buf, n, false);
				nr_mutants++;
			}
		}
	}
	for (int op = 0; op < VT_OP__NR; op++)
		for (int v = 0; v < 4; v++) {
			const char *name = vt_op_names[op];
			int len = strlen(name) - (v == 1);

			n = snprintf(buf, sizeof(buf), "%s{\"op\":\"%.*s%s%s\",\"id\":1,"
				     "\"pages\":[{\"pfn\":\"0x100\",\"order\":0}],"
				     "\"size\":4096,\"phys\":4096}\n{\"op\":\"%s\"}",
				     head, len - (v == 3), name, v == 2 ? "p" : "",
				     v == 3 ? "!" : "", name);
			check_buf(buf, n, false);
		}
}

int main(void)
{
	const char *src = getenv("VT_SRC");

	if (!src) {
		fprintf(stderr, "VT_SRC is not set\n");
		return TEST_SKIP;
	}
	check_generated();
	check_page_edges();
	check_line_edges();
	check_hot_edges();
	check_glob(src, "traces/*.json*");
	check_glob(src, "traces/*/*.json*");
	check_glob(src, "tests/fuzz/corpus/trace-json/*");
	check_glob(src, "tests/cli/data/*.json*");
	check_glob(src, "tests/golden/*/*.json*");
	printf("%lu inputs, %lu mutants, each read both ways\n", nr_inputs,
	       nr_mutants);
	TEST_ASSERT_VAL("inputs found", nr_inputs > 30);
	return test_result("test-trace-fast");
}
