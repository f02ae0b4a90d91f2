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
 *    events, in order, as importing the file.
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

int main(void)
{
	char p[1024];
	FILE *f;

	src = getenv("VT_SRC");
	if (!src)
		src = ".";
	test_seeds();
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
