/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The body of the baseline report fuzz target: the input is a report as
 * 'vmaptool gate --baseline=FILE' reads it (cli/report-read.c):
 * vt_report_load() from a memfd path, then everything gate asks of it
 * (traces, their paths and geometry, the options, strategies and per_op
 * it was made with).  A refusal must be a located error with a message.
 * Shared by fuzz-report.c and tests/unit/test-fuzz-seeds.c, which compile
 * cli/report-read.c in.
 */
#ifndef VT_FUZZ_REPORT_H
#define VT_FUZZ_REPORT_H

#define _GNU_SOURCE	/* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/report-doc.h"

#include "fuzz-check.h"

static int vt_fuzz_report(const uint8_t *data, size_t size)
{
	struct vt_model_opts o;
	struct vt_report *r;
	struct vt_error err;
	char path[64], *strategies = NULL;
	bool per_op;
	int fd;

	fd = memfd_create("vt-fuzz-report", MFD_CLOEXEC);
	VT_FUZZ_CHECK(fd >= 0);
	VT_FUZZ_CHECK(write(fd, data, size) == (ssize_t)size);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	vt_error_init(&err);
	if (vt_report_load(path, &r, &err)) {
		VT_FUZZ_CHECK(err.msg[0] && !r);
		close(fd);
		return 0;
	}
	for (size_t i = 0; i < vt_report_nr_traces(r); i++) {
		unsigned int ps = 0, va = 0;

		(void)vt_report_trace_path(r, i);
		vt_report_trace_geometry(r, i, &ps, &va);
		/* the reader refuses a geometry Kconfig does not offer */
		VT_FUZZ_CHECK(vt_geometry_valid(ps, va));
	}
	vt_error_init(&err);
	if (vt_report_setup(r, &o, &strategies, &per_op, &err))
		VT_FUZZ_CHECK(err.msg[0]);
	free(strategies);
	json_decref(r->root);
	free(r);
	close(fd);
	return 0;
}

#endif
