/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The body of the replay fuzz target: the input is a trace (JSON or JSON
 * Lines, as "vmaptool replay" reads it) replayed under every strategy
 * family (with --verify for one input length in four), in memory (a memfd, read through
 * /proc/self/fd/N like any path).  Whatever the input, the replay must
 * end in success or an input error (exit 3) or a memory error (exit 4):
 * never an internal error (exit 5: a broken invariant), never a crash or
 * a sanitizer report.  Shared by fuzz-replay.c and
 * tests/unit/test-fuzz-seeds.c.
 *
 * The input is cut at 64 KiB, and a trace that would map more than
 * VT_FUZZ_REPLAY_MAX_PAGES pages at once is refused by the harness (the
 * engine keeps a page array per live mapping: memory, not a bug).
 */
#ifndef VT_FUZZ_REPLAY_H
#define VT_FUZZ_REPLAY_H

#define _GNU_SOURCE	/* memfd_create */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/model.h"
#include "core/trace/trace.h"

#include "fuzz-check.h"

#define VT_FUZZ_REPLAY_MAX_PAGES (1ull << 13)

/* Pages the trace asks for at most in one event (0 if it does not read). */
static uint64_t vt_fuzz_replay_pages(const char *path)
{
	struct vt_trace_reader *r;
	struct vt_error err;
	struct vt_event ev;
	uint64_t max = 0;
	unsigned int shift = 12;
	int ret;

	vt_error_init(&err);
	if (vt_trace_open(path, NULL, &r, &err))
		return 0;
	if (vt_trace_config(r)->page_shift)
		shift = vt_trace_config(r)->page_shift;
	while ((ret = vt_trace_next(r, &ev, &err)) == 1) {
		uint64_t n = ev.nr_pages;

		if (ev.op == VT_OP_VMALLOC || ev.op == VT_OP_IOREMAP)
			n = (ev.size >> shift) + 1;
		/* a vmalloc allocates the page-pointer array too */
		if (n > max)
			max = n;
	}
	vt_trace_close(r);
	return max;
}

static int vt_fuzz_replay(const uint8_t *data, size_t size)
{
	static const char *const names[] = {
		"pagewise", "zigzag", "batched", "batched@12345678", "segments",
		"segments:force",
	};
	struct vt_strategy_spec specs[sizeof(names) / sizeof(names[0])];
	struct vt_replay_result res;
	struct vt_model_opts o;
	struct vt_replay_req req = {
		.specs = specs, .nr_specs = sizeof(names) / sizeof(names[0]),
		.opts = &o, .stop_after = -1,
	};
	struct vt_error err;
	char path[64];
	int fd, ret;

	if (size > 65536)
		size = 65536;
	fd = memfd_create("vt-fuzz-replay", MFD_CLOEXEC);
	VT_FUZZ_CHECK(fd >= 0);
	VT_FUZZ_CHECK(write(fd, data, size) == (ssize_t)size);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (vt_fuzz_replay_pages(path) > VT_FUZZ_REPLAY_MAX_PAGES) {
		close(fd);
		return 0;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		vt_error_init(&err);
		VT_FUZZ_CHECK(!vt_strategy_parse(names[i], &specs[i], &err));
	}
	/* 4K/48 unless the trace's config says otherwise, as the CLI does */
	vt_model_opts_init(&o);
	/* --verify (its CONT check walks every live page) on one input in 4 */
	o.verify = !(size & 96);
	/* the options that change the flows, from the input's length */
	o.eager_barriers = size & 1;
	o.vmalloc_high_order = !(size & 2);
	o.purge_immediate = size & 4;
	o.use_trace_va = size & 8;
	o.purge_at_end = size & 16;
	req.path = path;
	vt_error_init(&err);
	memset(&res, 0, sizeof(res));
	ret = vt_replay_run(&req, NULL, &res, &err);
	if (ret) {
		if (vt_err_class(ret) == VT_EC_INTERNAL || !err.msg[0])
			fprintf(stderr, "replay: %d %s:%lu:%lu event %ld: %s\n", ret,
				err.file, err.line, err.column, err.event, err.msg);
		VT_FUZZ_CHECK(err.msg[0]);
		VT_FUZZ_CHECK(vt_err_class(ret) == VT_EC_INPUT ||
			      vt_err_class(ret) == VT_EC_USAGE ||
			      ret == -ENOMEM);
	} else {
		vt_replay_result_release(&res);
	}
	close(fd);
	return 0;
}

#endif
