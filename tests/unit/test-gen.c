// SPDX-License-Identifier: GPL-2.0
/*
 * Generator invariants (core/gen.c): natural alignment, no overlap among
 * live blocks, system-heap order rules, sizes, reproducibility, and that
 * every generated trace reads back and round-trips byte for byte.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "core/trace/gen.h"
#include "core/trace/trace.h"

/* Live mappings and their physical ranges, checked for overlap. */
struct range {
	uint64_t id, start, end;	/* pfns [start, end) */
};

struct check {
	unsigned int page_shift;
	uint64_t expect_pages;		/* per vmap, 0: not checked */
	struct range *live;
	size_t nr_live, cap;
	unsigned long maps, unmaps, events, array_allocs;
	unsigned long order_count[16];
	uint64_t last_array_id, last_array_size;
	bool bad_align, overlap, increasing, bad_pages, bad_array;
	bool unknown_unmap;
	FILE *text;			/* the trace, written as it goes */
	struct vt_trace_writer *w;
};

static int check_emit(void *ctx, const struct vt_event *ev,
		      struct vt_error *err)
{
	struct check *c = ctx;

	c->events++;
	if (c->w && vt_trace_writer_event(c->w, ev, err))
		return err->code;
	if (ev->op == VT_OP_VMALLOC && ev->caller &&
	    !strcmp(ev->caller, "system_heap_do_vmap")) {
		c->array_allocs++;
		c->last_array_id = ev->id.num;
		c->last_array_size = ev->size;
	}
	if (ev->op == VT_OP_VMAP || ev->op == VT_OP_VM_MAP_RAM) {
		uint64_t pages = 0;
		unsigned int prev = 99;

		c->maps++;
		for (uint32_t i = 0; i < ev->nr_runs; i++) {
			const struct vt_page_run *r = &ev->runs[i];
			uint64_t start = r->pfn, end = r->pfn + (r->count << r->order);

			if (r->pfn & ((1ull << r->order) - 1))
				c->bad_align = true;
			if (r->order > prev)
				c->increasing = true;
			prev = r->order;
			c->order_count[r->order] += r->count;
			pages += r->count << r->order;
			/* vm_map_ram_test maps the same pages every loop */
			if (ev->op == VT_OP_VM_MAP_RAM)
				continue;
			for (size_t j = 0; j < c->nr_live; j++)
				if (start < c->live[j].end && c->live[j].start < end)
					c->overlap = true;
			if (c->nr_live == c->cap) {
				c->cap = c->cap ? 2 * c->cap : 64;
				c->live = realloc(c->live, c->cap * sizeof(*c->live));
			}
			c->live[c->nr_live++] = (struct range){ ev->id.num, start, end };
		}
		if (pages != ev->nr_pages ||
		    (c->expect_pages && pages != c->expect_pages))
			c->bad_pages = true;
		if (ev->op == VT_OP_VMAP && c->array_allocs &&
		    c->last_array_size != pages * 8)
			c->bad_array = true;
	}
	if (ev->op == VT_OP_IOREMAP) {
		uint64_t start = ev->phys >> c->page_shift;
		uint64_t end = (ev->phys + ev->size + (1ull << c->page_shift) - 1) >> c->page_shift;

		c->maps++;
		for (size_t j = 0; j < c->nr_live; j++)
			if (start < c->live[j].end && c->live[j].start < end)
				c->overlap = true;
		if (c->nr_live == c->cap) {
			c->cap = c->cap ? 2 * c->cap : 64;
			c->live = realloc(c->live, c->cap * sizeof(*c->live));
		}
		c->live[c->nr_live++] = (struct range){ ev->id.num, start, end };
	}
	if (ev->op == VT_OP_VUNMAP || ev->op == VT_OP_IOUNMAP) {
		size_t before = c->nr_live;

		c->unmaps++;
		for (size_t j = 0; j < c->nr_live;)
			if (c->live[j].id == ev->id.num)
				c->live[j] = c->live[--c->nr_live];
			else
				j++;
		if (before == c->nr_live)
			c->unknown_unmap = true;
	}
	return 0;
}

static char *text_of(struct check *c, char **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	c->text = open_memstream(buf, len);
	return NULL;
}

/* Run a generator into @c and the trace text; returns its code. */
typedef int (*gen_fn)(const void *o, const struct vt_gen_out *out,
		      struct vt_error *err);

static int run(gen_fn fn, const void *o, uint64_t seed, unsigned int shift,
	       struct check *c, char **text, struct vt_error *err)
{
	struct vt_trace_config cfg = { .page_shift = shift, .va_bits = 48 };
	struct vt_gen_out out = { check_emit, c, seed, shift, 48 };
	size_t len;
	int ret;

	c->page_shift = shift;
	vt_error_init(err);
	text_of(c, text, &len);
	ret = vt_trace_writer_open_file(c->text, false, &cfg, "{\"unit\":1}",
					&c->w, err);
	if (!ret)
		ret = fn(o, &out, err);
	if (!ret)
		ret = vt_trace_writer_commit(c->w, err);
	else
		vt_trace_writer_abort(c->w);
	fclose(c->text);
	return ret;
}

static int sh(const void *o, const struct vt_gen_out *out, struct vt_error *err)
{
	return vt_gen_systemheap(o, out, err);
}

static int tv(const void *o, const struct vt_gen_out *out, struct vt_error *err)
{
	return vt_gen_test_vmalloc(o, out, err);
}

static int io(const void *o, const struct vt_gen_out *out, struct vt_error *err)
{
	return vt_gen_ioremap(o, out, err);
}

/* The text reads back cleanly and rewrites to the same bytes. */
static void check_reads_back(const char *what, const char *text)
{
	struct vt_trace_reader *r;
	struct vt_trace_writer *w;
	struct vt_error err;
	struct vt_event ev;
	char *out = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	vt_error_init(&err);
	ret = vt_trace_open_mem(what, text, strlen(text), NULL, &r, &err);
	if (ret) {
		fprintf(stderr, "%s: %s\n", what, err.msg);
		TEST_ASSERT_VAL("generated trace opens", 0);
		return;
	}
	f = open_memstream(&out, &len);
	ret = vt_trace_writer_open_file(f, false, vt_trace_config(r),
					vt_trace_meta_json(r), &w, &err);
	while (!ret && (ret = vt_trace_next(r, &ev, &err)) == 1)
		ret = vt_trace_writer_event(w, &ev, &err);
	if (!ret)
		ret = vt_trace_writer_commit(w, &err);
	else
		vt_trace_writer_abort(w);
	fclose(f);
	vt_trace_close(r);
	if (ret)
		fprintf(stderr, "%s: %s\n", what, err.msg);
	TEST_ASSERT_EQ("generated trace reads back", ret, 0);
	TEST_ASSERT_VAL("generated trace round-trips", out && !strcmp(out, text));
	free(out);
}

static void test_systemheap(void)
{
	uint64_t sizes[] = { (64u << 20) + (68u << 10), 1u << 20, 12288 };
	struct vt_gen_systemheap o = {
		.sizes = sizes, .nr_sizes = 3, .buffers = 30, .live = 4,
		.frag = 0.3, .mem_bytes = 1ull << 30,
	};
	struct check c = { 0 }, d = { 0 }, e = { 0 };
	struct vt_error err;
	char *t1, *t2, *t3;

	TEST_ASSERT_EQ("systemheap", run(sh, &o, 7, 12, &c, &t1, &err), 0);
	TEST_ASSERT_EQ("systemheap maps", c.maps, 30);
	TEST_ASSERT_EQ("systemheap unmaps all", c.unmaps, 30);
	TEST_ASSERT_EQ("systemheap nothing left live", c.nr_live, 0);
	TEST_ASSERT_EQ("systemheap page arrays", c.array_allocs, 30);
	TEST_ASSERT_VAL("naturally aligned blocks", !c.bad_align);
	TEST_ASSERT_VAL("no overlap among live blocks", !c.overlap);
	TEST_ASSERT_VAL("orders never increase in a buffer", !c.increasing);
	TEST_ASSERT_VAL("page counts sum", !c.bad_pages);
	TEST_ASSERT_VAL("array vmalloc is 8 bytes a page", !c.bad_array);
	TEST_ASSERT_VAL("unmaps name live buffers", !c.unknown_unmap);
	TEST_ASSERT_VAL("orders 8, 4 and 0 all used",
			c.order_count[8] && c.order_count[4] && c.order_count[0]);
	for (int k = 0; k < 16; k++)
		if (k != 8 && k != 4 && k != 0)
			TEST_ASSERT_EQ("only orders 8, 4, 0", c.order_count[k], 0);
	check_reads_back("systemheap", t1);

	TEST_ASSERT_EQ("systemheap again", run(sh, &o, 7, 12, &d, &t2, &err), 0);
	TEST_ASSERT_VAL("same seed, same bytes", !strcmp(t1, t2));
	TEST_ASSERT_EQ("systemheap seed 8", run(sh, &o, 8, 12, &e, &t3, &err), 0);
	TEST_ASSERT_VAL("another seed, other bytes", strcmp(t1, t3));
	free(t1);
	free(t2);
	free(t3);
	free(c.live);
	free(d.live);
	free(e.live);

	/* no fragmentation, fresh memory: exactly the greedy decomposition */
	sizes[0] = (64u << 20) + (68u << 10);
	o = (struct vt_gen_systemheap){ .sizes = sizes, .nr_sizes = 1,
		.buffers = 1, .live = 1, .mem_bytes = 1ull << 30 };
	memset(&c, 0, sizeof(c));
	c.expect_pages = 16401;
	TEST_ASSERT_EQ("S3' buffer", run(sh, &o, 1, 12, &c, &t1, &err), 0);
	TEST_ASSERT_EQ("S3': 64 x o8", c.order_count[8], 64);
	TEST_ASSERT_EQ("S3': 1 x o4", c.order_count[4], 1);
	TEST_ASSERT_EQ("S3': 1 x o0", c.order_count[0], 1);
	TEST_ASSERT_VAL("S3': pages", !c.bad_pages);
	TEST_ASSERT_VAL("S3': array vmalloc of 131208 bytes",
			strstr(t1, "{\"op\":\"vmalloc\",\"id\":1,\"size\":131208,\"caller\":\"system_heap_do_vmap\"}"));
	free(t1);
	free(c.live);

	/* frag = 1: every high-order attempt fails */
	o.frag = 1;
	o.no_page_array = true;
	memset(&c, 0, sizeof(c));
	TEST_ASSERT_EQ("frag 1", run(sh, &o, 1, 12, &c, &t1, &err), 0);
	TEST_ASSERT_EQ("frag 1: order 0 only", c.order_count[0], 16401);
	TEST_ASSERT_EQ("no page array", c.array_allocs, 0);
	free(t1);
	free(c.live);

	/* 16K granule: orders 8/4/0 are in pages of 16K */
	o.frag = 0;
	sizes[0] = 16u << 20;
	memset(&c, 0, sizeof(c));
	TEST_ASSERT_EQ("16k", run(sh, &o, 1, 14, &c, &t1, &err), 0);
	TEST_ASSERT_EQ("16k: 16M = 4 x o8", c.order_count[8], 4);
	check_reads_back("systemheap 16k", t1);
	free(t1);
	free(c.live);

	/* exhausted model memory is bad input, not a crash */
	sizes[0] = 8u << 20;
	o.mem_bytes = 16u << 20;
	o.buffers = 3;
	o.live = 3;
	memset(&c, 0, sizeof(c));
	TEST_ASSERT_EQ("exhausted", run(sh, &o, 1, 12, &c, &t1, &err),
		       VT_ERR_BAD_REQUEST);
	TEST_ASSERT_VAL("exhausted message", strstr(err.msg, "exhausted"));
	free(t1);
	free(c.live);
}

static void test_buddyinfo(void)
{
	static const char good[] =
		"Node 0, zone      DMA      3      2      1      0      0      0      0      0      0      0      0\n"
		"Node 0, zone   Normal    300    100     40     20     10      0      0      0      0      0      0\n";
	static const char high[] =
		"Node 0, zone   Normal      0      0      0      0      0      0      0      0     20      0      0\n";
	uint64_t sizes[] = { 1u << 20 };
	struct vt_gen_systemheap o = {
		.sizes = sizes, .nr_sizes = 1, .buffers = 6, .live = 1,
		.buddyinfo = good, .buddyinfo_name = "bi",
	};
	struct check c = { 0 };
	struct vt_error err;
	char *t;

	TEST_ASSERT_EQ("buddyinfo", run(sh, &o, 3, 12, &c, &t, &err), 0);
	TEST_ASSERT_EQ("buddyinfo: no order-8 block free", c.order_count[8], 0);
	TEST_ASSERT_VAL("buddyinfo: order 4 from split blocks", c.order_count[4] > 0);
	TEST_ASSERT_VAL("buddyinfo: aligned", !c.bad_align);
	TEST_ASSERT_VAL("buddyinfo: no overlap", !c.overlap);
	check_reads_back("buddyinfo", t);
	free(t);
	free(c.live);

	o.buddyinfo = high;
	memset(&c, 0, sizeof(c));
	TEST_ASSERT_EQ("buddyinfo high", run(sh, &o, 3, 12, &c, &t, &err), 0);
	TEST_ASSERT_EQ("buddyinfo high: 1M = one order-8 block", c.order_count[8], 6);
	free(t);
	free(c.live);

	/* every pair of order-0 slots of the span holds one free page: placed
	 * by random probing this was refused ("cannot place ..."); also with
	 * free blocks of other orders, the top one included (issue 22) */
	for (int k = 0; k < 2; k++) {
		o.buddyinfo = k ? "Node 0, zone Normal 262144 1000 7 1 0 0 0 0 0 0 20\n" :
				  "Node 0, zone Normal 262144\n";
		memset(&c, 0, sizeof(c));
		TEST_ASSERT_EQ("buddyinfo 262144 order-0 blocks",
			       run(sh, &o, 3, 12, &c, &t, &err), 0);
		TEST_ASSERT_VAL("buddyinfo 262144: aligned", !c.bad_align);
		TEST_ASSERT_VAL("buddyinfo 262144: no overlap", !c.overlap);
		free(t);
		free(c.live);
	}

	o.buddyinfo = "Node 0, zone Normal 1 2 x\n";
	memset(&c, 0, sizeof(c));
	TEST_ASSERT_EQ("buddyinfo garbage", run(sh, &o, 3, 12, &c, &t, &err), -EINVAL);
	TEST_ASSERT_EQ("buddyinfo garbage line", err.line, 1);
	TEST_ASSERT_VAL("buddyinfo garbage names file", !strcmp(err.file, "bi"));
	free(t);
	o.buddyinfo = "Node 0, zone Normal 1 1 1 1 1 1 1 1 1 1 1 1\n";
	TEST_ASSERT_EQ("buddyinfo 12 orders on 4K", run(sh, &o, 3, 12, &c, &t, &err), -EINVAL);
	TEST_ASSERT_VAL("buddyinfo orders message", strstr(err.msg, "MAX_PAGE_ORDER"));
	free(t);
	o.buddyinfo = "hello\n";
	TEST_ASSERT_EQ("buddyinfo not buddyinfo", run(sh, &o, 3, 12, &c, &t, &err), -EINVAL);
	free(t);
	free(c.live);
}

static void test_test_vmalloc(void)
{
	enum vt_tv_test all[VT_TV__NR];
	struct vt_gen_test_vmalloc o = { .loops = 5, .nr_pages = 16,
					 .use_huge = true, .cpus = 8,
					 .junk = 10, .busy = 7, .pcpu_objects = 100 };
	struct check c = { 0 };
	struct vt_error err;
	char *t, *t2;

	for (int i = 0; i < VT_TV__NR; i++)
		all[i] = i;
	o.tests = all;
	o.nr_tests = 1;
	TEST_ASSERT_EQ("fix_size", run(tv, &o, 1, 12, &c, &t, &err), 0);
	TEST_ASSERT_EQ("fix_size events", c.events, 10);
	TEST_ASSERT_VAL("fix_size: vmalloc_huge of 16 pages",
			strstr(t, "{\"op\":\"vmalloc\",\"id\":1,\"size\":65536,\"flags\":[\"VM_ALLOW_HUGE_VMAP\"],\"caller\":\"fix_size_alloc_test\"}"));
	free(t);

	all[0] = VT_TV_fix_align_alloc_test;
	memset(&c, 0, sizeof(c));
	TEST_ASSERT_EQ("fix_align", run(tv, &o, 1, 12, &c, &t, &err), 0);
	TEST_ASSERT_VAL("fix_align: 5 pages, THREAD_ALIGN << 1",
			strstr(t, "\"size\":20480,\"align\":65536,"));
	free(t);
	memset(&c, 0, sizeof(c));
	TEST_ASSERT_EQ("fix_align 64k", run(tv, &o, 1, 16, &c, &t, &err), 0);
	TEST_ASSERT_VAL("fix_align 64K pages: 256K",
			strstr(t, "\"size\":327680,\"align\":262144,"));
	free(t);

	all[0] = VT_TV_full_fit_alloc_test;
	memset(&c, 0, sizeof(c));
	TEST_ASSERT_EQ("full_fit", run(tv, &o, 1, 12, &c, &t, &err), 0);
	/* 2 arrays, 2 x junk allocs, junk frees, 2 x loops, junk frees, 2 */
	TEST_ASSERT_EQ("full_fit events", c.events, 2 + 20 + 10 + 10 + 10 + 2);
	free(t);

	all[0] = VT_TV_long_busy_list_alloc_test;
	memset(&c, 0, sizeof(c));
	TEST_ASSERT_EQ("long_busy", run(tv, &o, 1, 12, &c, &t, &err), 0);
	TEST_ASSERT_EQ("long_busy events", c.events, 1 + 7 + 4 * 5 + 7 + 1);
	TEST_ASSERT_VAL("long_busy: 100 pages", strstr(t, "\"size\":409600,"));
	free(t);

	/* every test, twice the same, all reading back */
	o.tests = all;
	for (int i = 0; i < VT_TV__NR; i++)
		all[i] = i;
	o.nr_tests = VT_TV__NR;
	memset(&c, 0, sizeof(c));
	TEST_ASSERT_EQ("all tests", run(tv, &o, 9, 12, &c, &t, &err), 0);
	TEST_ASSERT_VAL("vm_map_ram pages aligned", !c.bad_align && !c.bad_pages);
	check_reads_back("test_vmalloc", t);
	memset(&c, 0, sizeof(c));
	TEST_ASSERT_EQ("all tests again", run(tv, &o, 9, 12, &c, &t2, &err), 0);
	TEST_ASSERT_VAL("test_vmalloc reproducible", !strcmp(t, t2));
	free(t2);
	memset(&c, 0, sizeof(c));
	TEST_ASSERT_EQ("all tests seed 10", run(tv, &o, 10, 12, &c, &t2, &err), 0);
	TEST_ASSERT_VAL("test_vmalloc seed changes random sizes", strcmp(t, t2));
	free(t);
	free(t2);
	free(c.live);

	/* random_size sizes stay within 1..100 pages */
	all[0] = VT_TV_random_size_alloc_test;
	o.nr_tests = 1;
	o.loops = 200;
	memset(&c, 0, sizeof(c));
	TEST_ASSERT_EQ("random_size", run(tv, &o, 4, 12, &c, &t, &err), 0);
	{
		struct vt_trace_reader *r;
		struct vt_event ev;
		bool ok = true;

		if (!vt_trace_open_mem("rs", t, strlen(t), NULL, &r, &err)) {
			while (vt_trace_next(r, &ev, &err) == 1)
				if (ev.op == VT_OP_VMALLOC &&
				    (ev.size < 4096 || ev.size > 409600 || ev.size % 4096))
					ok = false;
			vt_trace_close(r);
		}
		TEST_ASSERT_VAL("random_size within 1..100 pages", ok);
	}
	free(t);
}

static void test_ioremap(void)
{
	uint64_t sizes[] = { 1u << 20, 3u << 20, 8192 };
	struct vt_gen_ioremap o = { .sizes = sizes, .nr_sizes = 3, .count = 50,
				    .live = 5 };
	struct check c = { 0 };
	struct vt_error err;
	char *t;

	TEST_ASSERT_EQ("ioremap", run(io, &o, 2, 12, &c, &t, &err), 0);
	TEST_ASSERT_EQ("ioremap maps", c.maps, 50);
	TEST_ASSERT_EQ("ioremap unmaps", c.unmaps, 50);
	TEST_ASSERT_VAL("ioremap no overlap", !c.overlap);
	TEST_ASSERT_VAL("ioremap 3M at a 2M boundary",
			strstr(t, "\"size\":3145728,\"phys\":\"0x") != NULL);
	check_reads_back("ioremap", t);
	{
		struct vt_trace_reader *r;
		struct vt_event ev;
		bool aligned = true;

		if (!vt_trace_open_mem("io", t, strlen(t), NULL, &r, &err)) {
			while (vt_trace_next(r, &ev, &err) == 1)
				if (ev.op == VT_OP_IOREMAP &&
				    ev.phys & ((ev.size >= (2u << 20) ? 2u << 20 :
						ev.size >= (1u << 20) ? 1u << 20 : 8192) - 1))
					aligned = false;
			vt_trace_close(r);
		}
		TEST_ASSERT_VAL("ioremap natural alignment", aligned);
	}
	free(t);
	free(c.live);

	o.phys_align = 3;
	memset(&c, 0, sizeof(c));
	TEST_ASSERT_EQ("ioremap bad align", run(io, &o, 2, 12, &c, &t, &err), VT_ERR_BAD_OPTION);
	free(t);
}

static void test_rng(void)
{
	struct vt_rng a, b;
	bool same = true, differ = false;

	vt_rng_init(&a, 42);
	vt_rng_init(&b, 42);
	for (int i = 0; i < 100; i++)
		if (vt_rng_next(&a) != vt_rng_next(&b))
			same = false;
	vt_rng_init(&b, 43);
	for (int i = 0; i < 100; i++)
		if (vt_rng_next(&a) != vt_rng_next(&b))
			differ = true;
	TEST_ASSERT_VAL("rng reproducible", same);
	TEST_ASSERT_VAL("rng seeds differ", differ);
	vt_rng_init(&a, 1);
	for (int i = 0; i < 1000; i++) {
		uint64_t x = vt_rng_below(&a, 7);
		double d = vt_rng_double(&a);

		if (x >= 7 || d < 0 || d >= 1)
			same = false;
	}
	TEST_ASSERT_VAL("rng ranges", same);
}

int main(void)
{
	test_rng();
	test_systemheap();
	test_buddyinfo();
	test_test_vmalloc();
	test_ioremap();
	return test_result("test-gen");
}
