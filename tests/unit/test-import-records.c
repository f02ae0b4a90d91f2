// SPDX-License-Identifier: GPL-2.0
/*
 * The fast trace.dat fuzz harness (tests/fuzz/fuzz-dat-records.h) is only
 * worth its speed if what it fuzzes is what a trace.dat import runs: the
 * bundled formats and symbols (tests/fuzz/dat-events.h) must read the
 * recording's records as the recording's own header does, and records fed
 * through vt_import_feed_record() must reconstruct what vt_import_run()
 * makes of the file.
 *
 *  - the seed corpus (tests/fuzz/corpus/dat-records/) reconstructs
 *    vmallocs with pages;
 *  - the real recording (tests/data/recordings/fix256_x10.trace.dat), its
 *    records fed one by one with the bundled tep_handle, gives the same
 *    events, in order, as importing the file;
 *  - a kretprobe's records (formats with __probe_func and __probe_ret_ip,
 *    as kernel/trace/trace_kprobe.c defines them) are told from the
 *    entry's: 6.1's stand-ins for the vmalloc:* tracepoints
 *    (docs/recording.md, "Kernels before 6.2") reconstruct a vmalloc, its
 *    vfree and an explicit purge, and the drain worker's purge is not
 *    emitted.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <string.h>

#include <trace-cmd/trace-cmd.h>

#include "test.h"
/* tracecmd_open() of the recording: libtraceevent keeps a few format
 * strings for the process lifetime (as in test-import.c) */
#define VT_FUZZ_OWN_LSAN_SUPPRESSIONS
#include "../fuzz/fuzz-dat-records.h"

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:tracecmd_alloc_fd\nleak:libtraceevent.so\nleak:libtracecmd.so\n";
}

static const char *src;

static bool same_event(const struct vt_event *a, const struct vt_event *b)
{
	if (a->op != b->op || a->va != b->va || a->size != b->size ||
	    a->t != b->t || a->nr_pages != b->nr_pages ||
	    a->nr_runs != b->nr_runs || a->phys != b->phys)
		return false;
	for (uint32_t i = 0; i < a->nr_runs; i++)
		if (a->runs[i].pfn != b->runs[i].pfn ||
		    a->runs[i].count != b->runs[i].count)
			return false;
	return true;
}

/* Every seed, one after the other, as one input: vmallocs with pages. */
static void test_seeds(void)
{
	char dir[1024], path[1300];
	uint8_t *all = NULL;
	size_t len = 0, nr_vmalloc = 0, nr_pages = 0;
	struct dirent **names;
	struct vt_import *im;
	struct vt_error err;
	int n, ret;

	snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/dat-records", src);
	n = scandir(dir, &names, NULL, alphasort);
	TEST_ASSERT_VAL("the dat-records corpus", n > 2);
	for (int i = 0; i < n; i++) {
		FILE *f;
		long sz;

		if (names[i]->d_name[0] == '.') {
			free(names[i]);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		free(names[i]);
		f = fopen(path, "rb");
		TEST_ASSERT_VAL(path, f);
		if (!f)
			continue;
		fseek(f, 0, SEEK_END);
		sz = ftell(f);
		rewind(f);
		all = realloc(all, len + (size_t)sz);
		TEST_ASSERT_VAL("memory", all);
		if (!all || fread(all + len, 1, (size_t)sz, f) != (size_t)sz)
			TEST_ASSERT_VAL("read a seed", false);
		else
			len += (size_t)sz;
		fclose(f);
	}
	free(names);

	/* the harness body itself passes its checks */
	TEST_ASSERT_EQ("harness", vt_fuzz_dat_records(all, len), 0);

	vt_error_init(&err);
	ret = vt_import_open_records("seeds", vt_fuzz_dat_tep_get(), NULL, &im, &err);
	TEST_ASSERT_EQ("open", ret, 0);
	for (size_t pos = 0; !ret && pos + VT_DAT_REC_HEAD <= len;) {
		struct tep_record r = { 0 };
		unsigned char buf[256 + 16] = { 0 };
		size_t l = all[pos + 3];

		if (l > len - pos - VT_DAT_REC_HEAD)
			l = len - pos - VT_DAT_REC_HEAD;
		memcpy(buf, all + pos + VT_DAT_REC_HEAD, l);
		r.ts = pos;
		r.size = (int)l;
		r.data = buf;
		TEST_ASSERT_EQ("feed", vt_import_feed_record(im, &r, 0), 0);
		pos += VT_DAT_REC_HEAD + l;
	}
	ret = vt_import_run(im, &err);
	TEST_ASSERT_VAL(err.msg, ret > 0);
	for (size_t i = 0; ret > 0 && i < vt_import_nr_events(im); i++) {
		const struct vt_event *e = vt_import_event(im, i);

		if (e->op == VT_OP_VMALLOC) {
			nr_vmalloc++;
			nr_pages += e->nr_pages;
		}
	}
	TEST_ASSERT_VAL("the seeds reconstruct vmallocs", nr_vmalloc > 0);
	TEST_ASSERT_VAL("... with pages", nr_pages > 0);
	vt_import_close(im);
	free(all);
}

static int feed_cb(struct tracecmd_input *h, struct tep_record *r, int cpu,
		   void *data)
{
	(void)h;
	return vt_import_feed_record(data, r, cpu) ? -1 : 0;
}

/* The recording fed record by record with the bundled formats = the file. */
static void test_recording(const char *path)
{
	struct vt_import *whole, *fed;
	struct tracecmd_input *h;
	struct vt_error err;
	int nw, nf;

	vt_error_init(&err);
	TEST_ASSERT_EQ(err.msg, vt_import_open(path, NULL, &whole, &err), 0);
	nw = vt_import_run(whole, &err);
	TEST_ASSERT_VAL(err.msg, nw > 0);

	TEST_ASSERT_EQ("open records", vt_import_open_records("fed", vt_fuzz_dat_tep_get(),
							       NULL, &fed, &err), 0);
	h = tracecmd_open(path, 0);
	TEST_ASSERT_VAL("tracecmd_open", h);
	if (h) {
		TEST_ASSERT_VAL("iterate", tracecmd_iterate_events(h, NULL, 0, feed_cb, fed) >= 0);
		tracecmd_close(h);
	}
	nf = vt_import_run(fed, &err);
	TEST_ASSERT_EQ("events, fed and whole", nf, nw);
	for (int i = 0; nf == nw && i < nw; i++)
		if (!same_event(vt_import_event(fed, (size_t)i),
				vt_import_event(whole, (size_t)i))) {
			fprintf(stderr, "event %d differs\n", i);
			test_failures++;
			break;
		}
	TEST_ASSERT_EQ("records", vt_import_summary(fed)->records,
		       vt_import_summary(whole)->records);
	TEST_ASSERT_EQ("areas", vt_import_summary(fed)->areas,
		       vt_import_summary(whole)->areas);
	vt_import_close(fed);
	vt_import_close(whole);
}

/* ---- a kretprobe's records in a trace.dat ---------------------------- */

#define KP_HEAD								\
	"format:\n"							\
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
#define KP_U64(name, off) "\tfield:u64 " name ";\toffset:" #off ";\tsize:8;\tsigned:0;\n"

static const char *const kret_formats[] = {
	"name: alloc_va\nID: 2001\n" KP_HEAD
	"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	KP_U64("size", 16) KP_U64("align", 24) KP_U64("vstart", 32) KP_U64("vend", 40)
	"\nprint fmt: \"(%lx)\", REC->__probe_ip\n",
	"name: alloc_va_ret\nID: 2002\n" KP_HEAD
	"\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	KP_U64("va", 24) KP_U64("va_start", 32) KP_U64("va_end", 40)
	"\nprint fmt: \"(%lx <- %lx)\", REC->__probe_func, REC->__probe_ret_ip\n",
	"name: bulk\nID: 2003\n" KP_HEAD
	"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	KP_U64("gfp", 16) KP_U64("nr", 24)
	"\nprint fmt: \"(%lx)\", REC->__probe_ip\n",
	"name: vmap_pages\nID: 2004\n" KP_HEAD
	"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	KP_U64("addr", 16) KP_U64("end", 24) KP_U64("page_shift", 32)
	"\nprint fmt: \"(%lx)\", REC->__probe_ip\n",
	"name: free_va\nID: 2005\n" KP_HEAD
	"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	KP_U64("va_start", 16) KP_U64("va_end", 24)
	"\nprint fmt: \"(%lx)\", REC->__probe_ip\n",
	"name: purge_ret\nID: 2006\n" KP_HEAD
	"\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	KP_U64("ret", 24)
	"\nprint fmt: \"(%lx <- %lx)\", REC->__probe_func, REC->__probe_ret_ip\n",
};

/* 6.1.0-57's text addresses (its kallsyms) of the functions involved */
static const struct { const char *name; unsigned long long addr; } kret_funcs[] = {
	{ "free_vmap_area_noflush", 0xffff800008327200ull },
	{ "__purge_vmap_area_lazy", 0xffff8000083279e0ull },
	{ "alloc_vmap_area", 0xffff800008328920ull },
	{ "__get_vm_area_node", 0xffff800008329260ull },
	{ "pcpu_get_vm_areas", 0xffff800008329440ull },
	{ "_vm_unmap_aliases.part.0", 0xffff80000832a000ull },
	{ "vm_map_ram", 0xffff80000832abb4ull },
	{ "__vmap_pages_range_noflush", 0xffff80000832b000ull },
	{ "drain_vmap_area_work", 0xffff80000832c000ull },
	{ "__alloc_pages_bulk", 0xffff80000832d000ull },
	{ "__alloc_pages", 0xffff80000832e000ull },
};

static void kret_feed(struct vt_import *im, unsigned long long ts, int id,
		      const unsigned long long *f, int n)
{
	unsigned char buf[64];
	struct tep_record r;

	memset(buf, 0, sizeof(buf));
	buf[0] = (unsigned char)id;
	buf[1] = (unsigned char)(id >> 8);
	buf[4] = 1;	/* common_pid */
	memcpy(buf + 8, f, (size_t)n * 8);
	memset(&r, 0, sizeof(r));
	r.ts = ts;
	r.size = r.record_size = 8 + n * 8;
	r.data = buf;
	TEST_ASSERT_EQ("fed", vt_import_feed_record(im, &r, 0), 0);
}

static void test_kretprobe_records(void)
{
	const unsigned long long va = 0xffff80000a035000ull, vs = 0xffff800008000000ull,
		ve = 0xfffffbfff0000000ull;
	const struct vt_import_summary *s;
	struct tep_handle *tep = tep_alloc();
	struct vt_import_opts o;
	struct vt_import *im = NULL;
	struct vt_error err;
	size_t i;

	TEST_ASSERT_VAL("tep", tep);
	if (!tep)
		return;
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, 4096);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	for (i = 0; i < sizeof(kret_formats) / sizeof(kret_formats[0]); i++) {
		struct tep_event *e = NULL;

		TEST_ASSERT_EQ("format", tep_parse_format(tep, &e, kret_formats[i],
							  strlen(kret_formats[i]), "kp"), 0);
	}
	for (i = 0; i < sizeof(kret_funcs) / sizeof(kret_funcs[0]); i++)
		TEST_ASSERT_EQ("function", tep_register_function(tep, (char *)kret_funcs[i].name,
								 kret_funcs[i].addr, NULL), 0);
	vt_import_opts_init(&o);
	vt_error_init(&err);
	TEST_ASSERT_EQ("open", vt_import_open_records("kretprobes", tep, &o, &im, &err), 0);
	if (!im) {
		tep_free(tep);
		return;
	}
	/* vmalloc(8192): alloc_vmap_area(12288, 1, VMALLOC_START, VMALLOC_END) */
	kret_feed(im, 1000, 2001, (const unsigned long long[]){ 0xffff800008328920ull,
		  12288, 1, vs, ve }, 5);
	kret_feed(im, 2000, 2002, (const unsigned long long[]){ 0xffff800008328920ull,
		  0xffff8000083292c0ull, 0xffff0000080527c0ull, va, va + 12288 }, 5);
	kret_feed(im, 3000, 2003, (const unsigned long long[]){ 0xffff80000832d000ull,
		  0x2cc2, 2 }, 3);
	kret_feed(im, 4000, 2004, (const unsigned long long[]){ 0xffff80000832b000ull,
		  va, va + 8192, 12 }, 4);
	kret_feed(im, 5000, 2005, (const unsigned long long[]){ 0xffff800008327200ull,
		  va, va + 12288 }, 3);
	/* vm_unmap_aliases(): returns into _vm_unmap_aliases.part.0 */
	kret_feed(im, 6000, 2006, (const unsigned long long[]){ 0xffff8000083279e0ull,
		  0xffff80000832a160ull, 1 }, 3);
	/* the drain worker's purge: not emitted */
	kret_feed(im, 7000, 2006, (const unsigned long long[]){ 0xffff8000083279e0ull,
		  0xffff80000832c050ull, 1 }, 3);
	TEST_ASSERT_VAL("run", vt_import_run(im, &err) >= 0);
	s = vt_import_summary(im);
	TEST_ASSERT_EQ("alloc_vmap_area from the kretprobe", s->alloc_vmap_area, 1);
	TEST_ASSERT_EQ("free_vmap_area", s->free_vmap_area, 1);
	TEST_ASSERT_EQ("explicit purge", s->purges_explicit, 1);
	TEST_ASSERT_EQ("drain purge", s->purges_lazy, 1);
	TEST_ASSERT_EQ("events", vt_import_nr_events(im), 3);
	if (vt_import_nr_events(im) == 3) {
		TEST_ASSERT_EQ("vmalloc", vt_import_event(im, 0)->op, VT_OP_VMALLOC);
		TEST_ASSERT_EQ("va", vt_import_event(im, 0)->va, va);
		TEST_ASSERT_EQ("size", vt_import_event(im, 0)->size, 8192);
		TEST_ASSERT_EQ("vfree", vt_import_event(im, 1)->op, VT_OP_VFREE);
		TEST_ASSERT_EQ("purge", vt_import_event(im, 2)->op, VT_OP_PURGE);
	}
	vt_import_close(im);
	tep_free(tep);
}

int main(void)
{
	char p[1024];
	FILE *f;

	src = getenv("VT_SRC");
	if (!src)
		src = ".";
	test_seeds();
	test_kretprobe_records();
	/* the recording is part of the tree: its absence is a failure */
	snprintf(p, sizeof(p), "%s/tests/data/recordings/fix256_x10.trace.dat", src);
	f = fopen(p, "rb");
	TEST_ASSERT_VAL("tests/data/recordings/fix256_x10.trace.dat opens", f);
	if (f) {
		fclose(f);
		test_recording(p);
	}
	return test_result("test-import-records");
}
