/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The body of the importer's fuzz target (core/import.h), shared by the
 * libFuzzer harness (fuzz-trace-dat.c) and the seed replayer
 * (tests/unit/test-fuzz-seeds.c).
 *
 * The input is a recording as "vmaptool import" reads it: trace-cmd
 * trace.dat (by its magic) or ftrace / trace-cmd report text, plain or
 * xz-compressed.  vt_import_open_mem() + vt_import_run(); a failure must be
 * a located error with a message.  What an import reconstructs is written
 * with the trace writer and must read back as a valid trace with the same
 * number of events (import must never emit what replay would refuse).
 *
 * Environment: VT_FUZZ_NO_READBACK skips the read-back check.
 */
#ifndef VT_FUZZ_TRACE_DAT_H
#define VT_FUZZ_TRACE_DAT_H

#define _GNU_SOURCE	/* open_memstream */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/import/import.h"
#include "core/trace/trace.h"

#include "fuzz-check.h"

/*
 * LeakSanitizer's suppressions for this binary: libtracecmd leaks the
 * tep_handle of tracecmd_alloc_fd() when it refuses a trace.dat header
 * (a truncated "tracing7" file); that is the library's, not ours.
 */
#ifndef VT_FUZZ_OWN_LSAN_SUPPRESSIONS
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:tracecmd_alloc_fd\n";
}
#endif

/* pages of an import above which it is not written and read back */
#define VT_FUZZ_READBACK_PAGES (1u << 14)

/*
 * The imports' --max-input: 16 MiB.  It bounds the recording and each
 * page list the import writes (a list replay would refuse under the limit
 * is not made): a line of fuzz input may ask for a vmap of a terabyte.
 */
static inline void vt_fuzz_import_opts(struct vt_import_opts *o)
{
	vt_import_opts_init(o);
	o->max_input = 16u << 20;
}

/*
 * The checks on an import @im that vt_import_run() returned @ret for: a
 * failure has a message; what it reconstructs reads back (closes @im).
 */
static int vt_fuzz_import_check(struct vt_import *im, int ret,
				struct vt_error *errp)
{
	struct vt_trace_writer *w;
	struct vt_trace_reader *r;
	struct vt_error err;
	struct vt_event ev;
	size_t nr, got = 0, len = 0;
	uint64_t pages = 0;
	char *text = NULL;
	FILE *f;

	if (ret < 0) {
		VT_FUZZ_CHECK(errp->msg[0]);
		vt_import_close(im);
		return 0;
	}
	nr = vt_import_nr_events(im);
	VT_FUZZ_CHECK((size_t)ret == nr);
	for (size_t i = 0; i < nr; i++)
		VT_FUZZ_CHECK(vt_import_event(im, i)->op < VT_OP__NR);
	(void)vt_import_summary(im);
	(void)vt_import_warnings(im);

	/*
	 * The reconstructed trace is one the reader accepts (set
	 * VT_FUZZ_NO_READBACK in the environment to fuzz on past a known
	 * failure of this check).
	 */
	if (getenv("VT_FUZZ_NO_READBACK")) {
		vt_import_close(im);
		return 0;
	}
	/*
	 * A recording of a few hundred bytes may hold a legitimate vmap of
	 * gigabytes whose pages are synthesised one run per page: writing
	 * and re-reading them takes about 50 us a run in the fuzz build (a
	 * recording asking for 58,000 pages took 3 s, and timed out at 10 s
	 * on a loaded machine: a timeout, not a bug).  Above
	 * VT_FUZZ_READBACK_PAGES pages the runs are checked here instead:
	 * they add up to each event's page count.
	 */
	for (size_t i = 0; i < nr; i++) {
		const struct vt_event *e = vt_import_event(im, i);
		uint64_t sum = 0;

		if (!e->has_pages)
			continue;
		for (uint32_t j = 0; j < e->nr_runs; j++) {
			VT_FUZZ_CHECK(e->runs[j].count && !e->runs[j].order &&
				      sum + e->runs[j].count > sum);
			sum += e->runs[j].count;
		}
		VT_FUZZ_CHECK(sum == e->nr_pages);
		pages += sum;
	}
	if (pages > VT_FUZZ_READBACK_PAGES) {
		vt_import_close(im);
		return 0;
	}
	f = open_memstream(&text, &len);
	VT_FUZZ_CHECK(f);
	ret = vt_trace_writer_open_file(f, false, vt_import_config(im),
					vt_import_meta_json(im), &w, &err);
	VT_FUZZ_CHECK(!ret);
	ret = vt_import_write(im, w, &err);
	VT_FUZZ_CHECK(!ret);
	VT_FUZZ_CHECK(!vt_trace_writer_commit(w, &err));
	fclose(f);
	vt_import_close(im);

	vt_error_init(&err);
	ret = vt_trace_open_mem("fuzz-import", text, len, NULL, &r, &err);
	if (!ret) {
		while ((ret = vt_trace_next(r, &ev, &err)) == 1)
			got++;
		vt_trace_close(r);
	}
	if (ret)
		fprintf(stderr, "imported trace does not read back: %s:%lu:%lu: %s\n",
			err.file, err.line, err.column, err.msg);
	VT_FUZZ_CHECK(!ret && got == nr);
	free(text);
	return 0;
}

static __attribute__((unused)) int vt_fuzz_trace_dat(const uint8_t *data, size_t size)
{
	struct vt_import_opts o;
	struct vt_import *im;
	struct vt_error err;
	int ret;

	vt_fuzz_import_opts(&o);
	vt_error_init(&err);
	ret = vt_import_open_mem("fuzz", data, size, &o, &im, &err);
	if (ret) {
		VT_FUZZ_CHECK(ret < 0 && err.msg[0] && !im);
		return 0;
	}
	ret = vt_import_run(im, &err);
	return vt_fuzz_import_check(im, ret, &err);
}

#endif
