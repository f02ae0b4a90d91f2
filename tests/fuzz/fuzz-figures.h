/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The body of the calibration figures fuzz target: the input is a figures
 * file as 'vmaptool calibrate --check=FILE' reads it (core/cost/calibrate.c,
 * the format of calibration/figures.json), loaded from a memfd path.  A
 * refusal must be a message.  Of a file it accepts, every experiment's
 * what-if option words are parsed as the runner parses them (a refusal is
 * a message), and the prediction from counts of one of every event, under
 * a profile pricing every event at one cycle, is a number, not NaN.
 * Running the experiments (gen and replay) is cmd-calibrate's and is
 * fuzzed by the trace and replay targets.
 * Shared by fuzz-figures.c and tests/unit/test-fuzz-seeds.c.
 */
#ifndef VT_FUZZ_FIGURES_H
#define VT_FUZZ_FIGURES_H

#define _GNU_SOURCE	/* memfd_create */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/cost/calibrate.h"

#include "fuzz-check.h"

static int vt_fuzz_figures(const uint8_t *data, size_t size)
{
	struct vt_figure_set set;
	struct vt_profile *p = calloc(1, sizeof(*p));
	struct vt_error err;
	char path[64];
	int fd;

	VT_FUZZ_CHECK(p);
	fd = memfd_create("vt-fuzz-figures", MFD_CLOEXEC);
	VT_FUZZ_CHECK(fd >= 0);
	VT_FUZZ_CHECK(write(fd, data, size) == (ssize_t)size);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	vt_error_init(&err);
	if (vt_figures_load(path, &set, &err)) {
		VT_FUZZ_CHECK(err.msg[0]);
		goto out;
	}
	snprintf(p->name, sizeof(p->name), "fuzz");
	p->freq_mhz = 1000;
	for (int e = 0; e < VT_CE__NR; e++)
		p->p[e].cycles = p->p[e].anchor = p->p[e].range = 1;
	for (unsigned int i = 0; i < set.nr; i++) {
		struct vt_figure *f = &set.v[i];
		struct vt_model_opts o;

		if (f->state != VT_FIG_EXPRESSED)
			continue;
		vt_model_opts_init(&o);
		vt_error_init(&err);
		if (vt_exp_side_opts(&f->before, &o, &err))
			VT_FUZZ_CHECK(err.msg[0]);
		vt_model_opts_init(&o);
		vt_error_init(&err);
		if (vt_exp_side_opts(&f->after, &o, &err))
			VT_FUZZ_CHECK(err.msg[0]);
		for (int e = 0; e < VT_CE__NR; e++) {
			f->cb.n[e] = f->ca.n[e] = 1;
			f->cb.counted[e] = f->ca.counted[e] = true;
		}
		f->ran = true;
		VT_FUZZ_CHECK(!isnan(vt_calibrate_predict(p, f)));
	}
	vt_figure_set_release(&set);
out:
	close(fd);
	free(p);
	return 0;
}

#endif
