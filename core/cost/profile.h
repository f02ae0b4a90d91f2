/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU cost profiles: the frequency, the price in cycles of every cost event
 * (core/cost/estimate.h) with where each price came from, the errata
 * workarounds and features that change costs.  Profiles are JSON files
 * (format "vmaptool-profile", version 1; docs/cost-model.md); the built-in
 * ones live in the project's profiles/ folder.
 */
#ifndef VT_COST_PROFILE_H
#define VT_COST_PROFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "core/cost/estimate.h"
#include "core/error.h"

#define VT_PROFILE_FORMAT "vmaptool-profile"
#define VT_PROFILE_VERSION 1
#define VT_PROFILE_DEFAULT "generic-a76"

enum vt_cost_source {
	VT_SRC_HARDWARE,	/* a hardware default: documented latencies, never fitted to figures */
	VT_SRC_MEASURED,	/* a published micro-benchmark of this very event */
	VT_SRC_FITTED,		/* fitted to published figures by vmaptool calibrate */
};
extern const char *const vt_cost_source_names[3];

struct vt_cost_param {
	double cycles;		/* the price used */
	double anchor;		/* the hardware anchor the range is around */
	double range;		/* plausible factor: anchor / range .. anchor * range */
	enum vt_cost_source source;
	bool fit;		/* calibrate may move it */
	double determined;	/* 0..1: share of the prior's variance the data removed; -1 unknown */
	char basis[512];	/* where the anchor comes from */
};

struct vt_profile {
	char name[64];
	char description[320];
	char cpu[96];
	double freq_mhz;
	char freq_basis[320];
	bool tlbi_range;	/* FEAT_TLBIRANGE (the replay's --tlbi-range unless given) */
	bool erratum_4118414;	/* ARM64_ERRATUM_4118414: repeat of each broadcast TLBI + dsb */
	bool erratum_overridden; /* set by the caller for a run (--erratum-4118414), never read
				  * from or written to a file: the report says so */
	unsigned int cost_of;	/* enum vt_cost_part: the parts priced (0: all); set by the
				 * caller for a run (--cost-of), never read from or written
				 * to a file: the report says so */
	char errata_basis[320];
	struct vt_cost_param p[VT_CE__NR];
	char calibration[320];	/* how the fitted values were obtained (free text) */
};

/*
 * Bounds of a profile's numbers (docs/cost-model.md, "Profiles"): a price
 * of at most a second of a 1 GHz core per event and a clock between 1 MHz
 * and 1 THz keep every estimate finite for any count a report can hold.
 */
#define VT_PROFILE_MAX_CYCLES 1e9
#define VT_PROFILE_MIN_MHZ 1.0
#define VT_PROFILE_MAX_MHZ 1e6
/* A profile file is a few KiB: larger input is refused unread. */
#define VT_PROFILE_MAX_INPUT (1ull << 20)

/* Where the built-in profiles live: $VMAPTOOL_PROFILES, else the installed
 * binary's <bindir>/../share/vmaptool/profiles, else (run from the build
 * tree) the source tree's profiles/. */
const char *vt_profile_dir(void);
/* The folder of the shipped data (profiles/, calibration/): the installed
 * binary's <bindir>/../share/vmaptool, or the source tree when run from the
 * build tree. */
const char *vt_data_dir(void);

/*
 * vt_profile_load() - read @name_or_path: a path (contains '/' or ends in
 * ".json") or the name of a built-in profile.  Every event must have a
 * price; unknown keys are ignored.  Errors: VT_ERR_BAD_PROFILE (malformed,
 * with file:line:column), -ENOENT (no such profile).
 */
int vt_profile_load(const char *name_or_path, struct vt_profile *p,
		    struct vt_error *err);

/* Write @p as a profile JSON document to @f (calibrate --write opens @f
 * through cli/output.c: whole or not at all, like every output file). */
int vt_profile_write(const struct vt_profile *p, FILE *f, struct vt_error *err);
/* The same into a new file @path (tests and fuzz harnesses). */
int vt_profile_save(const struct vt_profile *p, const char *path,
		    struct vt_error *err);

/* Names of the built-in profiles, sorted; free with vt_profile_names_free(). */
int vt_profile_names(char ***names, unsigned int *nr, struct vt_error *err);
void vt_profile_names_free(char **names, unsigned int nr);

#endif
