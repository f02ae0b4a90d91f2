/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The body of the trace reader's fuzz target, shared by the libFuzzer
 * harness (fuzz-trace-json.c, clang, VT_FUZZ=ON) and the seed replayer
 * (tests/unit/test-fuzz-seeds.c, any compiler, a normal ctest).
 *
 * Reads every event of the input with vt_trace_open_mem()/vt_trace_next()
 * (again with --skip-unknown if an unknown op stopped it), checks that a
 * failure is a located error with a message, and for a trace that reads
 * whole checks the writer's promise: read -> write -> read -> write gives
 * the same events and identical bytes; and the JSON Lines fast path
 * (core/trace/trace-fast.c) reads it exactly as the jansson path does: the same
 * events, errors and warnings (vt_fuzz_json_transcript()).  A broken
 * promise aborts.
 */
#ifndef VT_FUZZ_TRACE_JSON_H
#define VT_FUZZ_TRACE_JSON_H

#define _GNU_SOURCE	/* open_memstream */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace/trace.h"

#include "fuzz-check.h"

/*
 * Read @buf whole; with @out, write what was read to a memory stream
 * returned in *@out (*@out_len bytes, the caller frees).  Returns 0, or the
 * reader's negative code; *@nr counts the events read.
 */
static inline int vt_fuzz_json_read(const char *buf, size_t len, bool skip_unknown,
			     char **out, size_t *out_len, unsigned long *nr)
{
	struct vt_trace_read_opts ro = { .skip_unknown = skip_unknown };
	struct vt_trace_writer *w = NULL;
	struct vt_trace_reader *r;
	struct vt_error err;
	struct vt_event ev;
	FILE *f = NULL;
	int ret;

	*nr = 0;
	vt_error_init(&err);
	ret = vt_trace_open_mem("fuzz", buf, len, &ro, &r, &err);
	if (ret) {
		VT_FUZZ_CHECK(ret < 0 && err.code == ret && err.msg[0]);
		VT_FUZZ_CHECK(!r);
		return ret;
	}
	if (out) {
		f = open_memstream(out, out_len);
		VT_FUZZ_CHECK(f);
		ret = vt_trace_writer_open_file(f, vt_trace_is_jsonl(r),
						vt_trace_config(r),
						vt_trace_meta_json(r), &w, &err);
		VT_FUZZ_CHECK(!ret);
	}
	while ((ret = vt_trace_next(r, &ev, &err)) == 1) {
		(*nr)++;
		VT_FUZZ_CHECK(ev.op < VT_OP__NR);
		VT_FUZZ_CHECK(!ev.has_pages || ev.nr_runs > 0);
		if (w)
			VT_FUZZ_CHECK(!vt_trace_writer_event(w, &ev, &err));
	}
	if (ret)
		VT_FUZZ_CHECK(ret < 0 && err.code == ret && err.msg[0] &&
			      !strcmp(err.file, "fuzz"));
	/* the warnings are one line each */
	{
		const char *wn = vt_trace_warnings(r);

		VT_FUZZ_CHECK(!*wn || wn[strlen(wn) - 1] == '\n');
	}
	vt_trace_close(r);
	if (w) {
		if (ret)
			vt_trace_writer_abort(w);
		else
			VT_FUZZ_CHECK(!vt_trace_writer_commit(w, &err));
		fclose(f);
		if (ret) {
			free(*out);
			*out = NULL;
		}
	}
	return ret;
}

/*
 * Everything a reader yields for @buf, as text (the caller frees): each
 * event with every field and its position, then the error or the end, then
 * the warnings.  @no_fast_path reads through jansson only (and a document
 * whole).  With @path, the file is read instead of @buf.
 */
static inline char *vt_fuzz_json_transcript(const char *path, const char *buf,
					    size_t len, bool skip_unknown,
					    bool no_fast_path)
{
	struct vt_trace_read_opts ro = { .skip_unknown = skip_unknown,
					 .no_fast_path = no_fast_path };
	struct vt_trace_reader *r;
	struct vt_error err;
	struct vt_event ev;
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);
	int ret;

	VT_FUZZ_CHECK(f);
	vt_error_init(&err);
	if (path)
		ret = vt_trace_open(path, &ro, &r, &err);
	else
		ret = vt_trace_open_mem("fuzz", buf, len, &ro, &r, &err);
	while (!ret && (ret = vt_trace_next(r, &ev, &err)) == 1) {
		ret = 0;
		fprintf(f, "%lu:%lu op=%d id=%d,%d,%llu,%s flags=%#x prot=%u size=%llu phys=%llu align=%llu",
			ev.line, ev.column, ev.op, ev.id.present, ev.id.is_str,
			(unsigned long long)ev.id.num,
			ev.id.is_str ? ev.id.str : "", ev.flags, ev.prot,
			(unsigned long long)ev.size, (unsigned long long)ev.phys,
			(unsigned long long)ev.align);
		fprintf(f, " pages=%d,%u,%llu:", ev.has_pages, ev.nr_runs,
			(unsigned long long)ev.nr_pages);
		for (uint32_t i = 0; i < ev.nr_runs; i++)
			fprintf(f, " %llx/%u/%llu", (unsigned long long)ev.runs[i].pfn,
				ev.runs[i].order, (unsigned long long)ev.runs[i].count);
		fprintf(f, " va=%d,%llu t=%d,%llu cpu=%d caller=%s\n", ev.has_va,
			(unsigned long long)ev.va, ev.has_t,
			(unsigned long long)ev.t, ev.cpu,
			ev.caller ? ev.caller : "(none)");
	}
	if (ret)
		fprintf(f, "error %d %s:%lu:%lu event %ld: %s\n", err.code, err.file,
			err.line, err.column, err.event, err.msg);
	else
		fprintf(f, "end\n");
	if (r) {
		fprintf(f, "warnings:\n%s", vt_trace_warnings(r));
		vt_trace_close(r);
	}
	fclose(f);
	return out;
}

/* The fast path reads @buf (or the file @path) exactly as the jansson
 * path does. */
static inline void vt_fuzz_json_differential(const char *path,
					     const char *buf, size_t len)
{
	for (int skip = 0; skip < 2; skip++) {
		char *fast = vt_fuzz_json_transcript(path, buf, len, skip, false);
		char *slow = vt_fuzz_json_transcript(path, buf, len, skip, true);

		if (strcmp(fast, slow))
			fprintf(stderr, "fast path:\n%s\njansson path:\n%s\n", fast, slow);
		VT_FUZZ_CHECK(!strcmp(fast, slow));
		free(fast);
		free(slow);
	}
}

static inline int vt_fuzz_trace_json(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	bool skip = false;
	char *w1 = NULL, *w2 = NULL;
	size_t n1 = 0, n2 = 0;
	unsigned long nr, nr2;
	int ret;

	vt_fuzz_json_differential(NULL, buf, size);
	ret = vt_fuzz_json_read(buf, size, false, &w1, &n1, &nr);
	if (ret == VT_ERR_UNKNOWN_OP) {
		skip = true;
		ret = vt_fuzz_json_read(buf, size, true, &w1, &n1, &nr);
	}
	if (ret)
		return 0;
	/* what the writer wrote reads back to the same events and bytes */
	ret = vt_fuzz_json_read(w1, n1, skip, &w2, &n2, &nr2);
	if (ret)
		fprintf(stderr, "re-reading the written trace failed (%d):\n%.*s\n",
			ret, (int)(n1 < 2000 ? n1 : 2000), w1);
	VT_FUZZ_CHECK(!ret);
	VT_FUZZ_CHECK(nr2 == nr);
	VT_FUZZ_CHECK(n1 == n2 && !memcmp(w1, w2, n1));
	free(w1);
	free(w2);
	return 0;
}

#endif
