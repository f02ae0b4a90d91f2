/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The body of the cost profile fuzz target: the input is a profile as
 * '--profile=FILE' reads it (core/cost/profile.c), loaded from a memfd
 * path.  A refusal must be a message; a profile it accepts must give a
 * finite estimate for any counts the engine can produce (every metric at
 * 2^40, and at 2^63: cycles are rounded into a 64-bit report field, so
 * the prices must keep them in range), and must be written back by
 * vt_profile_save() and read again to the same prices.
 * Shared by fuzz-profile.c and tests/unit/test-fuzz-seeds.c.
 */
#ifndef VT_FUZZ_PROFILE_H
#define VT_FUZZ_PROFILE_H

#define _GNU_SOURCE	/* memfd_create */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/cost/estimate.h"
#include "core/cost/profile.h"

#include "fuzz-check.h"

static char vt_fuzz_profile_tmp[PATH_MAX];

static void vt_fuzz_profile_dir_remove(void)
{
	rmdir(vt_fuzz_profile_tmp);
}

/*
 * One scratch folder per process for the written-back profile, in $TMPDIR
 * (else /tmp), removed at exit (each call removes its file).
 */
static const char *vt_fuzz_profile_dir(void)
{
	if (!vt_fuzz_profile_tmp[0]) {
		const char *tmp = getenv("TMPDIR");
		int n;

		if (!tmp || !*tmp)
			tmp = "/tmp";
		n = snprintf(vt_fuzz_profile_tmp, sizeof(vt_fuzz_profile_tmp),
			     "%s/vt-fuzz-profile.XXXXXX", tmp);
		VT_FUZZ_CHECK(n > 0 && (size_t)n < sizeof(vt_fuzz_profile_tmp));
		VT_FUZZ_CHECK(mkdtemp(vt_fuzz_profile_tmp));
		VT_FUZZ_CHECK(!atexit(vt_fuzz_profile_dir_remove));
	}
	return vt_fuzz_profile_tmp;
}

/* A price as vt_profile_save() writes it: six significant digits. */
static double vt_fuzz_profile_g6(double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.6g", v);
	return strtod(buf, NULL);
}

static void vt_fuzz_profile_estimate(const struct vt_profile *p, uint64_t n)
{
	struct vt_cost_counts c;
	struct vt_cost_estimate e;
	struct vt_stats s;

	for (int i = 0; i < VT_M__NR; i++)
		s.m[i] = n;
	vt_cost_counts_from_stats(&c, &s, n);
	vt_cost_estimate(p, &c, &e);
	VT_FUZZ_CHECK(isfinite(e.total) && e.total >= 0);
	VT_FUZZ_CHECK(isfinite(e.ns) && e.ns >= 0);
	/* the per-op and per-event reports */
	for (int op = 0; op < VT_OP__NR; op++) {
		for (int i = 0; i < VT_M__NR; i++)
			s.m[i] = n;
		vt_cost_fill(p, &s, op);
	}
}

static int vt_fuzz_profile(const uint8_t *data, size_t size)
{
	struct vt_profile *p = malloc(sizeof(*p)), *q = malloc(sizeof(*q));
	struct vt_error err;
	char path[64], out[PATH_MAX];
	int fd;

	VT_FUZZ_CHECK(p && q);
	fd = memfd_create("vt-fuzz-profile", MFD_CLOEXEC);
	VT_FUZZ_CHECK(fd >= 0);
	VT_FUZZ_CHECK(write(fd, data, size) == (ssize_t)size);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	vt_error_init(&err);
	if (vt_profile_load(path, p, &err)) {
		VT_FUZZ_CHECK(err.msg[0]);
		goto out;
	}
	vt_fuzz_profile_estimate(p, 1ull << 40);
	vt_fuzz_profile_estimate(p, 1ull << 63);
	/* written back, it reads as the same prices */
	VT_FUZZ_CHECK(snprintf(out, sizeof(out), "%s/p.json",
			       vt_fuzz_profile_dir()) < (int)sizeof(out));
	vt_error_init(&err);
	VT_FUZZ_CHECK(!vt_profile_save(p, out, &err));
	vt_error_init(&err);
	VT_FUZZ_CHECK(!vt_profile_load(out, q, &err));
	VT_FUZZ_CHECK(q->freq_mhz == vt_fuzz_profile_g6(p->freq_mhz));
	for (int e = 0; e < VT_CE__NR; e++)
		VT_FUZZ_CHECK(q->p[e].cycles == vt_fuzz_profile_g6(p->p[e].cycles));
	unlink(out);
out:
	close(fd);
	free(p);
	free(q);
	return 0;
}

#endif
