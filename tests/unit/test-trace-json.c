// SPDX-License-Identifier: GPL-2.0
/*
 * Reader and writer of trace format v1 (core/trace-json.c): good traces,
 * every malformed case with its code, field and line, the round trip, and
 * JSON against JSON Lines.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "core/trace/trace.h"

#define HDR "\"format\":\"vmaptool-trace\",\"version\":1"
#define DOC(events) "{" HDR ",\"events\":[" events "]}"

/* A trace with every op and every optional field. */
static const char rich[] =
	"{" HDR ",\"meta\":{\"source\":\"unit \\\"test\\\"\",\"n\":[1,2]},"
	"\"config\":{\"granule\":\"4k\",\"va_bits\":48},\"events\":[\n"
	"{\"op\":\"vmap\",\"id\":1,\"pages\":[{\"pfn\":\"0x80000\",\"order\":8,\"count\":2},"
	"{\"pfn\":\"0x91230\",\"order\":4},{\"pfn\":\"0x12345\",\"order\":0,\"count\":3}],"
	"\"flags\":[\"VM_MAP\"],\"prot\":\"PAGE_KERNEL\",\"caller\":\"system_heap_do_vmap\"},\n"
	"{\"op\":\"vunmap\",\"id\":1},\n"
	"{\"op\":\"vmalloc\",\"id\":\"two\",\"size\":1048576,\"flags\":[\"VM_ALLOW_HUGE_VMAP\"],"
	"\"pages\":[{\"pfn\":\"0x40000\",\"order\":8}],\"align\":65536,\"va\":\"0xffff800080000000\","
	"\"t\":123456789,\"cpu\":3},\n"
	"{\"op\":\"vfree\",\"id\":\"two\"},\n"
	"{\"op\":\"vm_map_ram\",\"id\":4,\"pages\":[{\"pfn\":\"0x50000\",\"count\":4}]},\n"
	"{\"op\":\"vm_unmap_ram\",\"id\":4},\n"
	"{\"op\":\"ioremap\",\"id\":3,\"phys\":\"0x10000000\",\"size\":1048576},\n"
	"{\"op\":\"iounmap\",\"id\":3},\n"
	"{\"op\":\"purge\"},\n"
	"{\"op\":\"linear_map\",\"phys\":\"0x80000000\",\"size\":\"0x40000000\","
	"\"flags\":[\"NO_BLOCK_MAPPINGS\",\"VM_FUTURE_FLAG\"],\"unknown_field\":{\"x\":1}},\n"
	"{\"op\":\"vmap\",\"id\":0,\"pages\":[{\"pfn\":4096}],\"flags\":[\"VM_FUTURE_FLAG\"],\"prot\":\"PAGE_KERNEL_RO\"}\n"
	"]}\n";

struct collected {
	int ret;
	long n;
	struct vt_event ev[32];
	struct vt_page_run runs[32][8];
	char ids[32][32];
	char callers[32][64];
	struct vt_error err;
	char warnings[1024];
	char meta[256];
	bool jsonl;
};

/* Read a whole trace from memory, copying the events out. */
static struct collected *collect(const char *name, const char *buf, size_t len,
				 const struct vt_trace_read_opts *opts)
{
	struct collected *c = calloc(1, sizeof(*c));
	struct vt_trace_reader *r;
	struct vt_event ev;
	int ret;

	vt_error_init(&c->err);
	ret = vt_trace_open_mem(name, buf, len, opts, &r, &c->err);
	if (ret) {
		c->ret = ret;
		return c;
	}
	c->jsonl = vt_trace_is_jsonl(r);
	snprintf(c->meta, sizeof(c->meta), "%s", vt_trace_meta_json(r));
	while ((ret = vt_trace_next(r, &ev, &c->err)) == 1) {
		if (c->n < 32) {
			struct vt_event *e = &c->ev[c->n];

			*e = ev;
			for (uint32_t i = 0; i < ev.nr_runs && i < 8; i++)
				c->runs[c->n][i] = ev.runs[i];
			e->runs = c->runs[c->n];
			if (ev.id.is_str) {
				snprintf(c->ids[c->n], 32, "%s", ev.id.str);
				e->id.str = c->ids[c->n];
			}
			if (ev.caller) {
				snprintf(c->callers[c->n], 64, "%s", ev.caller);
				e->caller = c->callers[c->n];
			}
		}
		c->n++;
	}
	c->ret = ret;
	snprintf(c->warnings, sizeof(c->warnings), "%s", vt_trace_warnings(r));
	vt_trace_close(r);
	return c;
}

static struct collected *collect_str(const char *text,
				     const struct vt_trace_read_opts *opts)
{
	return collect("t.json", text, strlen(text), opts);
}

/* Read @text and write it back (JSON Lines when @jsonl) into a string. */
static char *rewrite(const char *text, size_t len, bool jsonl)
{
	struct vt_trace_reader *r;
	struct vt_trace_writer *w;
	struct vt_error err;
	struct vt_event ev;
	char *out = NULL;
	size_t out_len = 0;
	FILE *f;
	int ret;

	vt_error_init(&err);
	if (vt_trace_open_mem("rt", text, len, NULL, &r, &err))
		return NULL;
	f = open_memstream(&out, &out_len);
	ret = vt_trace_writer_open_file(f, jsonl, vt_trace_config(r),
					vt_trace_meta_json(r), &w, &err);
	while (!ret && (ret = vt_trace_next(r, &ev, &err)) == 1)
		ret = vt_trace_writer_event(w, &ev, &err);
	if (!ret)
		ret = vt_trace_writer_commit(w, &err);
	else
		vt_trace_writer_abort(w);
	vt_trace_close(r);
	fclose(f);
	if (ret) {
		fprintf(stderr, "rewrite: %s\n", err.msg);
		free(out);
		return NULL;
	}
	return out;
}

static void test_good(void)
{
	struct collected *c = collect_str(rich, NULL);
	const struct vt_event *e = c->ev;

	TEST_ASSERT_EQ("rich: ret", c->ret, 0);
	TEST_ASSERT_EQ("rich: events", c->n, 11);
	TEST_ASSERT_VAL("rich: one document", !c->jsonl);
	TEST_ASSERT_VAL("rich: meta kept compact",
			!strcmp(c->meta, "{\"source\":\"unit \\\"test\\\"\",\"n\":[1,2]}"));
	TEST_ASSERT_EQ("vmap op", e[0].op, VT_OP_VMAP);
	TEST_ASSERT_EQ("vmap runs", e[0].nr_runs, 3);
	TEST_ASSERT_EQ("vmap pages", e[0].nr_pages, 512 + 16 + 3);
	TEST_ASSERT_EQ("run 0 pfn", e[0].runs[0].pfn, 0x80000);
	TEST_ASSERT_EQ("run 0 order", e[0].runs[0].order, 8);
	TEST_ASSERT_EQ("run 0 count", e[0].runs[0].count, 2);
	TEST_ASSERT_EQ("run 1 count default", e[0].runs[1].count, 1);
	TEST_ASSERT_EQ("run 2 order", e[0].runs[2].order, 0);
	TEST_ASSERT_EQ("vmap flags", e[0].flags, VT_FLAG(VM_MAP));
	TEST_ASSERT_VAL("vmap caller", !strcmp(e[0].caller, "system_heap_do_vmap"));
	TEST_ASSERT_EQ("vmap line", e[0].line, 2);
	TEST_ASSERT_EQ("vmap column", e[0].column, 1);
	TEST_ASSERT_EQ("vunmap line", e[1].line, 3);
	TEST_ASSERT_VAL("numeric id", e[1].id.present && !e[1].id.is_str &&
			e[1].id.num == 1);
	TEST_ASSERT_VAL("string id", e[2].id.is_str && !strcmp(e[2].id.str, "two"));
	TEST_ASSERT_EQ("vmalloc size", e[2].size, 1048576);
	TEST_ASSERT_EQ("vmalloc align", e[2].align, 65536);
	TEST_ASSERT_VAL("vmalloc va", e[2].has_va && e[2].va == 0xffff800080000000ull);
	TEST_ASSERT_VAL("vmalloc t", e[2].has_t && e[2].t == 123456789);
	TEST_ASSERT_EQ("vmalloc cpu", e[2].cpu, 3);
	TEST_ASSERT_EQ("vm_map_ram pages", e[4].nr_pages, 4);
	TEST_ASSERT_EQ("ioremap phys", e[6].phys, 0x10000000);
	TEST_ASSERT_EQ("ioremap prot default", e[6].prot, VT_PROT_DEVICE);
	TEST_ASSERT_VAL("purge has no id", e[8].op == VT_OP_PURGE && !e[8].id.present);
	TEST_ASSERT_EQ("linear_map size string", e[9].size, 0x40000000);
	TEST_ASSERT_EQ("linear_map flags", e[9].flags, VT_FLAG(NO_BLOCK_MAPPINGS));
	TEST_ASSERT_EQ("id 0", e[10].id.num, 0);
	TEST_ASSERT_EQ("prot ro", e[10].prot, VT_PROT_KERNEL_RO);
	TEST_ASSERT_EQ("cpu absent", e[0].cpu, -1);
	/* one warning per distinct unknown flag, though it appears twice */
	TEST_ASSERT_VAL("warning names the flag",
			strstr(c->warnings, "unknown flag 'VM_FUTURE_FLAG' ignored"));
	TEST_ASSERT_VAL("one warning only",
			!strstr(strstr(c->warnings, "VM_FUTURE_FLAG") + 1,
				"VM_FUTURE_FLAG"));
	TEST_ASSERT_VAL("warning names file:line", !strncmp(c->warnings, "t.json:11:", 10));
	free(c);

	/* config: absent, 16k/47, 64k/52 (pa 52 bits) */
	c = collect_str(DOC(""), NULL);
	TEST_ASSERT_EQ("no config", c->ret, 0);
	TEST_ASSERT_EQ("no events", c->n, 0);
	TEST_ASSERT_VAL("meta default", !strcmp(c->meta, "{}"));
	free(c);
	c = collect_str("{" HDR ",\"config\":{\"granule\":\"16k\",\"va_bits\":47},"
			"\"events\":[{\"op\":\"vmap\",\"id\":1,\"pages\":[{\"pfn\":\"0x800\",\"order\":11}]}]}", NULL);
	TEST_ASSERT_EQ("16k order 11 ok", c->ret, 0);
	free(c);
	c = collect_str("{" HDR ",\"config\":{\"granule\":\"64k\",\"va_bits\":52},"
			"\"events\":[{\"op\":\"vmap\",\"id\":1,\"pages\":[{\"pfn\":\"0xfffffffff\"}]}]}", NULL);
	TEST_ASSERT_EQ("64k/52: 52-bit PA", c->ret, 0);
	free(c);
}

struct bad_case {
	const char *name;
	const char *text;
	int code;
	const char *msg;	/* substring of the message */
	unsigned long line;	/* 0: not checked */
	long event;		/* -2: not checked */
};

#define EV1(e) "{" HDR ",\"events\":[\n" e "\n]}"
#define VMAP(pages) EV1("{\"op\":\"vmap\",\"id\":1,\"pages\":[" pages "]}")

static const struct bad_case bad_cases[] = {
	{ "empty", "", VT_ERR_TRACE_SYNTAX, "empty file", 1, -1 },
	{ "blank", "  \n\n", VT_ERR_TRACE_SYNTAX, "empty file", 1, -1 },
	{ "truncated json", "{" HDR ",\"events\":[\n{\"op\":\"vmap\",\"id\":1,\"pages\":[{\"pfn\":\"0x1\"",
	  VT_ERR_TRACE_SYNTAX, "invalid JSON", 2, -1 },
	{ "truncated jsonl", "{" HDR "}\n{\"op\":\"purge\"}\n{\"op\":\"vunmap\",\"id\":1",
	  VT_ERR_TRACE_SYNTAX, "invalid JSON", 3, 1 },
	{ "garbage jsonl line", "{" HDR "}\n{\"op\":\"purge\"}\nnot json at all\n{\"op\":\"purge\"}\n",
	  VT_ERR_TRACE_SYNTAX, "invalid JSON", 3, 1 },
	{ "jsonl line not an object", "{" HDR "}\n[1]\n",
	  VT_ERR_TRACE_SCHEMA, "events[0]: expected an object, got an array", 2, 0 },
	{ "wrong format", "{\"format\":\"perf\",\"version\":1,\"events\":[]}",
	  VT_ERR_TRACE_VERSION, "format: expected \"vmaptool-trace\", got \"perf\"", 1, -1 },
	{ "missing format", "{\"version\":1,\"events\":[]}",
	  VT_ERR_TRACE_VERSION, "format: missing", 1, -1 },
	{ "future version", "{\"format\":\"vmaptool-trace\",\"version\":2,\"events\":[]}",
	  VT_ERR_TRACE_VERSION, "version 2 is newer", 1, -1 },
	{ "version zero", "{\"format\":\"vmaptool-trace\",\"version\":0,\"events\":[]}",
	  VT_ERR_TRACE_SCHEMA, "version: invalid version 0", 1, -1 },
	{ "version string", "{\"format\":\"vmaptool-trace\",\"version\":\"1\",\"events\":[]}",
	  VT_ERR_TRACE_SCHEMA, "version: expected an integer", 1, -1 },
	{ "top level array", "[{" HDR "}]", VT_ERR_TRACE_SCHEMA,
	  "top level: expected an object, got an array", 1, -1 },
	{ "events not array", "{" HDR ",\"events\":{}}", VT_ERR_TRACE_SCHEMA,
	  "events: expected an array, got an object", 1, -1 },
	{ "events missing", "{" HDR ",\n\"meta\":{}}", VT_ERR_TRACE_SCHEMA,
	  "events: missing", 1, -1 },
	{ "meta not object", "{" HDR ",\"meta\":3,\"events\":[]}", VT_ERR_TRACE_SCHEMA,
	  "meta: expected an object", 1, -1 },
	{ "duplicate key", "{" HDR ",\"events\":[],\"events\":[]}", VT_ERR_TRACE_SYNTAX,
	  "duplicate object key", 1, -1 },
	{ "pfn float", VMAP("{\"pfn\":1.5}"), VT_ERR_TRACE_SCHEMA,
	  "events[0].pages[0].pfn: expected an integer or \"0x...\" string, got a float", 2, 0 },
	{ "pfn negative", VMAP("{\"pfn\":-1}"), VT_ERR_TRACE_SCHEMA,
	  "events[0].pages[0].pfn: must not be negative", 2, 0 },
	{ "pfn decimal string", VMAP("{\"pfn\":\"4096\"}"), VT_ERR_TRACE_SCHEMA,
	  "events[0].pages[0].pfn: expected an integer or \"0x...\" string, got \"4096\"", 2, 0 },
	{ "pfn non-numeric", VMAP("{\"pfn\":\"0xzz\"}"), VT_ERR_TRACE_SCHEMA,
	  "events[0].pages[0].pfn: expected", 2, 0 },
	{ "pfn bool", VMAP("{\"pfn\":true}"), VT_ERR_TRACE_SCHEMA,
	  "got a boolean", 2, 0 },
	{ "pfn 2^64 hex", VMAP("{\"pfn\":\"0x10000000000000000\"}"), VT_ERR_OVERFLOW,
	  "events[0].pages[0].pfn: 0x10000000000000000 is 2^64 or more", 2, 0 },
	{ "pfn 2^64 integer", VMAP("{\"pfn\":18446744073709551616}"), VT_ERR_TRACE_SYNTAX,
	  "integer out of range", 2, -1 },
	{ "pfn beyond pa", VMAP("{\"pfn\":\"0x1000000000\"}"), VT_ERR_PFN_RANGE,
	  "events[0].pages[0].pfn: 0x1000000000 + 1 pages is beyond the 48-bit physical address size", 2, 0 },
	{ "run end beyond pa", VMAP("{\"pfn\":\"0xfffffffff\",\"count\":2}"), VT_ERR_PFN_RANGE,
	  "beyond the 48-bit", 2, 0 },
	{ "pfn missing", VMAP("{\"order\":1}"), VT_ERR_TRACE_SCHEMA,
	  "events[0].pages[0].pfn: missing", 2, 0 },
	{ "pfn misaligned", VMAP("{\"pfn\":\"0x80001\",\"order\":1}"), VT_ERR_TRACE_SCHEMA,
	  "not aligned to its order", 2, 0 },
	{ "order too big", VMAP("{\"pfn\":\"0x80000\",\"order\":11}"), VT_ERR_ORDER_RANGE,
	  "events[0].pages[0].order: order 11 out of range (max 10 for 4K pages)", 2, 0 },
	{ "order negative", VMAP("{\"pfn\":\"0x80000\",\"order\":-1}"), VT_ERR_TRACE_SCHEMA,
	  "events[0].pages[0].order: must not be negative", 2, 0 },
	{ "count zero", VMAP("{\"pfn\":\"0x80000\",\"count\":0}"), VT_ERR_TRACE_SCHEMA,
	  "events[0].pages[0].count: must be at least 1", 2, 0 },
	{ "count overflow", VMAP("{\"pfn\":\"0x80000\",\"order\":8,\"count\":\"0x100000000000000\"}"),
	  VT_ERR_OVERFLOW, "events[0].pages[0].count:", 2, 0 },
	{ "vmap no pages", EV1("{\"op\":\"vmap\",\"id\":1}"), VT_ERR_EMPTY_PAGES,
	  "events[0].pages: missing (vmap needs pages)", 2, 0 },
	{ "vmap empty pages", VMAP(""), VT_ERR_EMPTY_PAGES,
	  "events[0].pages: empty page list", 2, 0 },
	{ "vm_map_ram no pages", EV1("{\"op\":\"vm_map_ram\",\"id\":1}"), VT_ERR_EMPTY_PAGES,
	  "vm_map_ram needs pages", 2, 0 },
	{ "pages not array", EV1("{\"op\":\"vmap\",\"id\":1,\"pages\":{}}"), VT_ERR_TRACE_SCHEMA,
	  "events[0].pages: expected an array", 2, 0 },
	{ "unknown op", EV1("{\"op\":\"purge\"},\n{\"op\":\"vmap_pfn\"}"), VT_ERR_UNKNOWN_OP,
	  "events[1].op: unknown op \"vmap_pfn\"", 3, 1 },
	{ "op missing", EV1("{\"id\":1}"), VT_ERR_TRACE_SCHEMA, "events[0].op: missing", 2, 0 },
	{ "op not string", EV1("{\"op\":1}"), VT_ERR_TRACE_SCHEMA,
	  "events[0].op: expected a string, got an integer", 2, 0 },
	{ "unmap without id", EV1("{\"op\":\"vfree\"}"), VT_ERR_TRACE_SCHEMA,
	  "events[0].id: missing (vfree needs", 2, 0 },
	{ "id negative", EV1("{\"op\":\"vfree\",\"id\":-3}"), VT_ERR_TRACE_SCHEMA,
	  "events[0].id: must not be negative", 2, 0 },
	{ "id float", EV1("{\"op\":\"vfree\",\"id\":1.0}"), VT_ERR_TRACE_SCHEMA,
	  "events[0].id: expected an integer or a string, got a float", 2, 0 },
	{ "vmalloc no size", EV1("{\"op\":\"vmalloc\",\"id\":1}"), VT_ERR_TRACE_SCHEMA,
	  "events[0].size: missing", 2, 0 },
	{ "vmalloc size 0", EV1("{\"op\":\"vmalloc\",\"id\":1,\"size\":0}"), VT_ERR_TRACE_SCHEMA,
	  "events[0].size: must be greater than 0", 2, 0 },
	{ "vmalloc pages short", EV1("{\"op\":\"vmalloc\",\"id\":1,\"size\":8192,\"pages\":[{\"pfn\":1}]}"),
	  VT_ERR_TRACE_SCHEMA, "do not cover size", 2, 0 },
	{ "ioremap no phys", EV1("{\"op\":\"ioremap\",\"id\":1,\"size\":4096}"), VT_ERR_TRACE_SCHEMA,
	  "events[0].phys: missing", 2, 0 },
	{ "ioremap beyond pa", EV1("{\"op\":\"ioremap\",\"id\":1,\"size\":4096,\"phys\":\"0xfffffffff000\",\"x\":0},{\"op\":\"ioremap\",\"id\":2,\"size\":8192,\"phys\":\"0xfffffffff000\"}"),
	  VT_ERR_PFN_RANGE, "events[1].phys", 2, 1 },
	{ "linear_map no size", EV1("{\"op\":\"linear_map\",\"phys\":\"0x0\"}"), VT_ERR_TRACE_SCHEMA,
	  "events[0].size: missing", 2, 0 },
	{ "phys + size overflow", EV1("{\"op\":\"linear_map\",\"phys\":\"0xffffffffffffff00\",\"size\":4096}"),
	  VT_ERR_OVERFLOW, "phys + size overflows", 2, 0 },
	{ "align not power of two", EV1("{\"op\":\"vmalloc\",\"id\":1,\"size\":4096,\"align\":3}"),
	  VT_ERR_TRACE_SCHEMA, "events[0].align: 3 is not a power of two", 2, 0 },
	{ "unknown prot", EV1("{\"op\":\"vmap\",\"id\":1,\"pages\":[{\"pfn\":1}],\"prot\":\"PAGE_FOO\"}"),
	  VT_ERR_TRACE_SCHEMA, "events[0].prot: unknown protection \"PAGE_FOO\"", 2, 0 },
	{ "flags not array", EV1("{\"op\":\"vmap\",\"id\":1,\"pages\":[{\"pfn\":1}],\"flags\":\"VM_MAP\"}"),
	  VT_ERR_TRACE_SCHEMA, "events[0].flags: expected an array of strings", 2, 0 },
	{ "flag not string", EV1("{\"op\":\"vmap\",\"id\":1,\"pages\":[{\"pfn\":1}],\"flags\":[7]}"),
	  VT_ERR_TRACE_SCHEMA, "events[0].flags[0]: expected a string", 2, 0 },
	{ "cpu too big", EV1("{\"op\":\"purge\",\"cpu\":4294967296}"), VT_ERR_TRACE_SCHEMA,
	  "events[0].cpu", 2, 0 },
	{ "event not object", EV1("{\"op\":\"purge\"},\n 7"), VT_ERR_TRACE_SCHEMA,
	  "events[1]: expected an object, got an integer", 3, 1 },
	{ "unknown granule", "{" HDR ",\"config\":{\"granule\":\"8k\",\"va_bits\":48},\"events\":[]}",
	  VT_ERR_TRACE_SCHEMA, "config.granule: unknown granule \"8k\"", 1, -1 },
	{ "unknown va size", "{" HDR ",\"config\":{\"granule\":\"4k\",\"va_bits\":40},\"events\":[]}",
	  VT_ERR_TRACE_SCHEMA, "config.va_bits: unknown VA size 40", 1, -1 },
	{ "va_bits string", "{" HDR ",\"config\":{\"va_bits\":\"48\"},\"events\":[]}",
	  VT_ERR_TRACE_SCHEMA, "config.va_bits: expected an integer", 1, -1 },
	{ "invalid pair", "{" HDR ",\"config\":{\"granule\":\"4k\",\"va_bits\":47},\"events\":[]}",
	  VT_ERR_GEOMETRY, "4k pages with 47-bit VA", 1, -1 },
	{ "jsonl header bad version", "{\"format\":\"vmaptool-trace\",\"version\":9}\n{\"op\":\"purge\"}\n",
	  VT_ERR_TRACE_VERSION, "version 9", 1, -1 },
};

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *b = &bad_cases[i];
		struct collected *c = collect_str(b->text, NULL);
		char what[128];

		snprintf(what, sizeof(what), "%s: code", b->name);
		TEST_ASSERT_EQ(what, c->ret, b->code);
		if (!strstr(c->err.msg, b->msg)) {
			fprintf(stderr, "%s: message '%s' lacks '%s'\n", b->name,
				c->err.msg, b->msg);
			test_failures++;
		}
		snprintf(what, sizeof(what), "%s: file", b->name);
		TEST_ASSERT_VAL(what, !strcmp(c->err.file, "t.json"));
		if (b->line) {
			snprintf(what, sizeof(what), "%s: line", b->name);
			TEST_ASSERT_EQ(what, c->err.line, b->line);
			snprintf(what, sizeof(what), "%s: column", b->name);
			TEST_ASSERT_VAL(what, c->err.column >= 1);
		}
		if (b->event != -2) {
			snprintf(what, sizeof(what), "%s: event", b->name);
			TEST_ASSERT_EQ(what, c->err.event, b->event);
		}
		free(c);
	}
}

/* Limits: options, deep nesting, long strings, skip_unknown. */
static void test_limits(void)
{
	struct vt_trace_read_opts o = { .max_order = 4 };
	struct collected *c;
	size_t depth = 100000, len;
	char *buf;

	c = collect_str(VMAP("{\"pfn\":\"0x80000\",\"order\":5}"), &o);
	TEST_ASSERT_EQ("opts max_order", c->ret, VT_ERR_ORDER_RANGE);
	TEST_ASSERT_VAL("opts max_order message", strstr(c->err.msg, "max 4"));
	free(c);
	o = (struct vt_trace_read_opts){ .pa_bits = 40 };
	c = collect_str(VMAP("{\"pfn\":\"0x10000000\"}"), &o);
	TEST_ASSERT_EQ("opts pa_bits", c->ret, VT_ERR_PFN_RANGE);
	free(c);

	o = (struct vt_trace_read_opts){ .skip_unknown = true };
	c = collect_str(EV1("{\"op\":\"purge\"},{\"op\":\"vmap_pfn\"},{\"op\":\"vmap_pfn\"},{\"op\":\"purge\"}"), &o);
	TEST_ASSERT_EQ("skip_unknown ret", c->ret, 0);
	TEST_ASSERT_EQ("skip_unknown events", c->n, 2);
	TEST_ASSERT_VAL("skip_unknown warns", strstr(c->warnings, "unknown op 'vmap_pfn' ignored"));
	TEST_ASSERT_VAL("skip_unknown warns once",
			!strstr(strstr(c->warnings, "vmap_pfn") + 1, "vmap_pfn"));
	free(c);

	/* 100,000-deep nesting in an ignored field, both forms */
	len = 2 * depth + 256;
	buf = malloc(len);
	for (int jsonl = 0; jsonl < 2; jsonl++) {
		size_t n = sprintf(buf, jsonl ? "{" HDR "}\n{\"op\":\"purge\",\"x\":" :
				   "{" HDR ",\"events\":[{\"op\":\"purge\",\"x\":");
		memset(buf + n, '[', depth);
		memset(buf + n + depth, ']', depth);
		n += 2 * depth;
		n += sprintf(buf + n, jsonl ? "}\n" : "}]}");
		c = collect("deep", buf, n, NULL);
		TEST_ASSERT_EQ("deep nesting", c->ret, VT_ERR_TRACE_SYNTAX);
		TEST_ASSERT_VAL("deep nesting message", strstr(c->err.msg, "nesting deeper than"));
		TEST_ASSERT_EQ("deep nesting line", c->err.line, jsonl ? 2 : 1);
		free(c);
	}
	free(buf);

	/* a 50 MB string: in meta it is kept, as a caller it is refused */
	len = 50u << 20;
	buf = malloc(len + 256);
	for (int where = 0; where < 2; where++) {
		size_t n = sprintf(buf, where ? "{" HDR ",\"events\":[{\"op\":\"purge\",\"caller\":\"" :
				   "{" HDR ",\"meta\":{\"s\":\"");
		memset(buf + n, 'a', len);
		n += len;
		n += sprintf(buf + n, where ? "\"}]}" : "\"},\"events\":[{\"op\":\"purge\"}]}");
		c = collect("big", buf, n, NULL);
		if (where) {
			TEST_ASSERT_EQ("50 MB caller", c->ret, VT_ERR_TRACE_SCHEMA);
			TEST_ASSERT_VAL("50 MB caller message",
					strstr(c->err.msg, "events[0].caller: string of 52428800 bytes is too long"));
		} else {
			TEST_ASSERT_EQ("50 MB meta string", c->ret, 0);
			TEST_ASSERT_EQ("50 MB meta events", c->n, 1);
		}
		free(c);
	}
	free(buf);
}

static bool event_equal(const struct vt_event *x, const struct vt_event *y)
{
	bool same = x->op == y->op && x->id.present == y->id.present &&
		    x->id.is_str == y->id.is_str && x->id.num == y->id.num &&
		    (!x->id.is_str || !strcmp(x->id.str, y->id.str)) &&
		    x->flags == y->flags && x->prot == y->prot &&
		    x->size == y->size && x->phys == y->phys &&
		    x->align == y->align && x->nr_runs == y->nr_runs &&
		    x->has_pages == y->has_pages && x->nr_pages == y->nr_pages &&
		    x->has_va == y->has_va && x->va == y->va &&
		    x->has_t == y->has_t && x->t == y->t && x->cpu == y->cpu &&
		    !x->caller == !y->caller &&
		    (!x->caller || !strcmp(x->caller, y->caller));

	for (uint32_t i = 0; same && i < x->nr_runs; i++)
		same = x->runs[i].pfn == y->runs[i].pfn &&
		       x->runs[i].order == y->runs[i].order &&
		       x->runs[i].count == y->runs[i].count;
	if (!same)
		fprintf(stderr, "events differ: op %d/%d line %lu/%lu\n",
			x->op, y->op, x->line, y->line);
	return same;
}

/* read -> write -> read -> write is byte-identical; JSON and JSONL agree. */
static void test_round_trip(void)
{
	for (int jsonl = 0; jsonl < 2; jsonl++) {
		char *w1 = rewrite(rich, strlen(rich), jsonl);
		char *w2 = w1 ? rewrite(w1, strlen(w1), jsonl) : NULL;
		char *w3 = w2 ? rewrite(w2, strlen(w2), !jsonl) : NULL;
		char *w4 = w3 ? rewrite(w3, strlen(w3), jsonl) : NULL;

		TEST_ASSERT_VAL("round trip wrote", w1 && w2 && w3 && w4);
		if (w1 && w2)
			TEST_ASSERT_VAL("round trip identical", !strcmp(w1, w2));
		if (w4 && w1)
			TEST_ASSERT_VAL("through the other form identical", !strcmp(w1, w4));
		if (w1 && jsonl)
			TEST_ASSERT_VAL("jsonl: header line first",
					!strncmp(w1, "{\"format\":\"vmaptool-trace\",\"version\":1,\"meta\":", 44) &&
					strstr(w1, "}\n{\"op\":\"vmap\",\"id\":1,"));
		if (w1 && !jsonl)
			TEST_ASSERT_VAL("json: key order",
					strstr(w1, "\"version\":1,\"meta\":{") &&
					strstr(w1, "},\"config\":{\"granule\":\"4k\",\"va_bits\":48},\"events\":["));
		if (w1) {
			struct collected *a = collect_str(rich, NULL);
			struct collected *b = collect("w1", w1, strlen(w1), NULL);

			TEST_ASSERT_EQ("forms: same count", a->n, b->n);
			TEST_ASSERT_EQ("forms: jsonl detected", b->jsonl, jsonl);
			for (long i = 0; i < a->n && i < b->n; i++) {
				const struct vt_event *x = &a->ev[i], *y = &b->ev[i];

				TEST_ASSERT_VAL("forms: same event", event_equal(x, y));
				if (jsonl)
					TEST_ASSERT_EQ("jsonl: real line numbers", y->line, i + 2);
			}
			free(a);
			free(b);
		}
		free(w1);
		free(w2);
		free(w3);
		free(w4);
	}
}

static int count_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* The file is written whole on commit and not at all on abort. */
static void test_writer_file(void)
{
	char dir[] = "/tmp/vt-test-trace-XXXXXX", path[64];
	struct vt_trace_config cfg = { .page_shift = 14, .va_bits = 47 };
	struct vt_trace_writer *w;
	struct vt_event ev = { .op = VT_OP_PURGE, .cpu = -1 };
	struct vt_error err;
	struct collected *c;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	vt_error_init(&err);
	if (!mkdtemp(dir)) {
		TEST_ASSERT_VAL("mkdtemp", 0);
		return;
	}
	snprintf(path, sizeof(path), "%s/t.jsonl", dir);
	TEST_ASSERT_EQ("writer open", vt_trace_writer_open(path, true, &cfg, NULL, &w, &err), 0);
	TEST_ASSERT_EQ("writer event", vt_trace_writer_event(w, &ev, &err), 0);
	TEST_ASSERT_EQ("nothing published before commit", access(path, F_OK), -1);
	vt_trace_writer_abort(w);
	TEST_ASSERT_EQ("abort leaves nothing", count_dir(dir), 0);

	TEST_ASSERT_EQ("writer open 2", vt_trace_writer_open(path, true, &cfg, "{\"a\": 1}", &w, &err), 0);
	TEST_ASSERT_EQ("writer event 2", vt_trace_writer_event(w, &ev, &err), 0);
	TEST_ASSERT_EQ("commit", vt_trace_writer_commit(w, &err), 0);
	TEST_ASSERT_EQ("one file after commit", count_dir(dir), 1);
	f = fopen(path, "r");
	if (f) {
		char buf[4096];

		len = fread(buf, 1, sizeof(buf) - 1, f);
		buf[len] = 0;
		fclose(f);
		text = strdup(buf);
	}
	TEST_ASSERT_VAL("written jsonl", text && !strcmp(text,
		"{\"format\":\"vmaptool-trace\",\"version\":1,\"meta\":{\"a\":1},"
		"\"config\":{\"granule\":\"16k\",\"va_bits\":47}}\n{\"op\":\"purge\"}\n"));
	c = text ? collect("f", text, len, NULL) : NULL;
	TEST_ASSERT_VAL("written file reads", c && c->ret == 0 && c->n == 1 && c->jsonl);
	free(c);
	free(text);

	/* the path reader: the same file through vt_trace_open */
	{
		struct vt_trace_reader *r;

		TEST_ASSERT_EQ("open path", vt_trace_open(path, NULL, &r, &err), 0);
		if (!err.code) {
			TEST_ASSERT_EQ("path config", vt_trace_config(r)->page_shift, 14);
			TEST_ASSERT_EQ("path next", vt_trace_next(r, &ev, &err), 1);
			TEST_ASSERT_EQ("path end", vt_trace_next(r, &ev, &err), 0);
			vt_trace_close(r);
		}
	}
	unlink(path);
	{
		struct vt_trace_reader *r = NULL;

		TEST_ASSERT_EQ("open missing file",
			       vt_trace_open(path, NULL, &r, &err), -ENOENT);
		TEST_ASSERT_VAL("missing file: no reader", !r);
	}
	TEST_ASSERT_VAL("missing file message", strstr(err.msg, "cannot open trace"));
	TEST_ASSERT_VAL("bad meta refused",
			vt_trace_writer_open(path, false, NULL, "[1]", &w, &err) == -EINVAL);
	TEST_ASSERT_EQ("refused meta leaves nothing", count_dir(dir), 0);
	rmdir(dir);
}

/* Every worked-example scenario trace of the spec reads cleanly. */
static void test_scenarios(void)
{
	const char *src = getenv("VT_SRC");
	char dir[512];
	struct dirent *de;
	DIR *d;
	int n = 0;

	/* the scenarios are part of the tree: their absence is a failure */
	snprintf(dir, sizeof(dir), "%s/tests/data/scenarios", src ? src : ".");
	d = opendir(dir);
	TEST_ASSERT_VAL("tests/data/scenarios exists", d);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct vt_trace_reader *r = NULL;
		struct vt_error err;
		struct vt_event ev;
		char path[1024];
		int ret;

		if (!strstr(de->d_name, ".json"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		vt_error_init(&err);
		ret = vt_trace_open(path, NULL, &r, &err);
		while (!ret && (ret = vt_trace_next(r, &ev, &err)) == 1)
			ret = 0;
		if (ret)
			fprintf(stderr, "%s:%lu: %s\n", path, err.line, err.msg);
		TEST_ASSERT_EQ("scenario trace reads", ret, 0);
		vt_trace_close(r);
		n++;
	}
	closedir(d);
	TEST_ASSERT_VAL("scenario traces found", n > 0);
}

int main(void)
{
	test_good();
	test_bad();
	test_limits();
	test_round_trip();
	test_writer_file();
	test_scenarios();
	return test_result("test-trace-json");
}
