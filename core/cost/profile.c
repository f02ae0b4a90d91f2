// SPDX-License-Identifier: GPL-2.0
/*
 * Cost profiles as JSON files (docs/cost-model.md, "Profile format").
 * Reading is strict about what the estimate needs (every event priced,
 * positive frequency) and lenient about the rest (unknown keys ignored), as
 * the trace reader is.
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/cost/profile.h"
#include "core/input.h"
#include "core/json-read.h"

#ifndef VT_DATA_DIR
#define VT_DATA_DIR "."
#endif
#ifndef VT_BUILD_DIR
#define VT_BUILD_DIR ""
#endif
#ifndef VT_BIN_TO_DATA
#define VT_BIN_TO_DATA "../share"
#endif

const char *const vt_cost_source_names[3] = {
	[VT_SRC_HARDWARE] = "hardware",
	[VT_SRC_MEASURED] = "measured",
	[VT_SRC_FITTED] = "fitted",
};

/*
 * The binary's own data folder, found from /proc/self/exe: run from the
 * build tree it is the source tree; installed, it is
 * <bindir>/VT_BIN_TO_DATA/vmaptool (GNUInstallDirs' DATADIR as seen from
 * BINDIR), so that a moved prefix still finds its own data.
 */
static char data_dir[3968], profile_dir[4000];
static pthread_once_t data_dir_once = PTHREAD_ONCE_INIT;

static void find_data_dir(void)
{
	char exe[PATH_MAX], build[PATH_MAX];
	char *slash;

	snprintf(data_dir, sizeof(data_dir), "%s", VT_DATA_DIR);
	if (realpath("/proc/self/exe", exe) && (slash = strrchr(exe, '/'))) {
		*slash = '\0';
		/* every executable of the build tree is in VT_BUILD_DIR */
		if (!VT_BUILD_DIR[0] || !realpath(VT_BUILD_DIR, build) || strcmp(build, exe)) {
			snprintf(data_dir, sizeof(data_dir), "%.3900s/%s/vmaptool", exe,
				 VT_BIN_TO_DATA);
			if (realpath(data_dir, build) && strlen(build) < sizeof(data_dir))
				strcpy(data_dir, build);	/* without the "bin/.." */
		}
	}
	snprintf(profile_dir, sizeof(profile_dir), "%s/profiles", data_dir);
}

const char *vt_data_dir(void)
{
	pthread_once(&data_dir_once, find_data_dir);
	return data_dir;
}

const char *vt_profile_dir(void)
{
	const char *env = getenv("VMAPTOOL_PROFILES");

	if (env && *env)
		return env;
	pthread_once(&data_dir_once, find_data_dir);
	return profile_dir;
}

static int bad(struct vt_error *err, const char *path, const char *fmt, const char *what)
{
	vt_error_set(err, VT_ERR_BAD_PROFILE, fmt, what);
	snprintf(err->file, sizeof(err->file), "%.255s", path);
	return VT_ERR_BAD_PROFILE;
}

static int load_param(json_t *o, struct vt_cost_param *cp, const char *name,
		      const char *path, struct vt_error *err)
{
	char where[96], src[16];
	struct vt_jr r = { path, VT_ERR_BAD_PROFILE, where, err };
	double cycles = -1;
	int i, ret;

	snprintf(where, sizeof(where), "cost '%s'", name);
	if (!json_is_object(o))
		return bad(err, path, "cost '%s' is not an object", name);
	/* types first (core/json-read.h), then the ranges as they were */
	ret = vt_jr_number(&r, o, "cycles", VT_JR_OPTIONAL, -1, -HUGE_VAL, HUGE_VAL, &cycles);
	if (ret)
		return ret;
	if (!(cycles >= 0) || cycles > VT_PROFILE_MAX_CYCLES)
		return bad(err, path, "cost '%s' needs \"cycles\" from 0 to 1e9", name);
	cp->cycles = cycles;
	ret = vt_jr_number(&r, o, "anchor", VT_JR_OPTIONAL, cp->cycles, -HUGE_VAL, HUGE_VAL,
			   &cp->anchor) ?:
	      vt_jr_number(&r, o, "range", VT_JR_OPTIONAL, 1, -HUGE_VAL, HUGE_VAL, &cp->range);
	if (ret)
		return ret;
	/* the fit keeps a price within anchor / range .. anchor * range */
	if (!(cp->range >= 1) || cp->range > VT_PROFILE_MAX_CYCLES ||
	    !(cp->anchor >= 0) || cp->anchor > VT_PROFILE_MAX_CYCLES)
		return bad(err, path,
			   "cost '%s': \"range\" must be from 1 to 1e9, \"anchor\" from 0 to 1e9",
			   name);
	ret = vt_jr_string(&r, o, "source", VT_JR_OPTIONAL, "hardware", src, sizeof(src));
	if (ret)
		return ret;
	for (i = 0; i < 3; i++)
		if (!strcmp(src, vt_cost_source_names[i]))
			break;
	if (i == 3)
		return bad(err, path, "cost '%s': \"source\" must be hardware, measured or fitted",
			   name);
	cp->source = i;
	return vt_jr_bool(&r, o, "fit", VT_JR_OPTIONAL, cp->source == VT_SRC_FITTED, &cp->fit) ?:
	       vt_jr_number(&r, o, "determined", VT_JR_OPTIONAL, -1, -1, 1,
			    &cp->determined) ?:
	       vt_jr_string(&r, o, "basis", VT_JR_OPTIONAL, "", cp->basis, sizeof(cp->basis));
}

static int profile_from_json(json_t *root, struct vt_profile *p, const char *path,
			     struct vt_error *err)
{
	struct vt_jr r = { path, VT_ERR_BAD_PROFILE, NULL, err };
	json_t *v, *costs, *o;
	double mhz = 0;
	int ret;

	memset(p, 0, sizeof(*p));
	v = json_object_get(root, "format");
	if (!json_is_string(v) || strcmp(json_string_value(v), VT_PROFILE_FORMAT) ||
	    !json_is_integer(json_object_get(root, "version")) ||
	    json_integer_value(json_object_get(root, "version")) != VT_PROFILE_VERSION)
		return bad(err, path, "not a %s version 1 document", VT_PROFILE_FORMAT);
	ret = vt_jr_string(&r, root, "name", VT_JR_OPTIONAL, "", p->name, sizeof(p->name));
	if (ret)
		return ret;
	if (!p->name[0])
		return bad(err, path, "%s without a \"name\"", "profile");
	ret = vt_jr_string(&r, root, "description", VT_JR_OPTIONAL, "", p->description,
			   sizeof(p->description)) ?:
	      vt_jr_string(&r, root, "cpu", VT_JR_OPTIONAL, "", p->cpu, sizeof(p->cpu)) ?:
	      vt_jr_string(&r, root, "calibration", VT_JR_OPTIONAL, "", p->calibration,
			   sizeof(p->calibration)) ?:
	      vt_jr_number(&r, root, "freq_mhz", VT_JR_OPTIONAL, 0, -HUGE_VAL, HUGE_VAL, &mhz);
	if (ret)
		return ret;
	if (!(mhz >= VT_PROFILE_MIN_MHZ) || mhz > VT_PROFILE_MAX_MHZ)
		return bad(err, path, "%s needs \"freq_mhz\" from 1 to 1e6", "profile");
	p->freq_mhz = mhz;
	ret = vt_jr_string(&r, root, "freq_basis", VT_JR_OPTIONAL, "", p->freq_basis,
			   sizeof(p->freq_basis)) ?:
	      vt_jr_object(&r, root, "features", VT_JR_OPTIONAL, &o);
	if (ret)
		return ret;
	r.where = "features";
	ret = vt_jr_bool(&r, o, "tlbi_range", VT_JR_OPTIONAL, false, &p->tlbi_range);
	r.where = NULL;
	if (!ret)
		ret = vt_jr_object(&r, root, "errata", VT_JR_OPTIONAL, &o);
	if (ret)
		return ret;
	r.where = "errata";
	ret = vt_jr_bool(&r, o, "ARM64_ERRATUM_4118414", VT_JR_OPTIONAL, false,
			 &p->erratum_4118414) ?:
	      vt_jr_string(&r, o, "basis", VT_JR_OPTIONAL, "", p->errata_basis,
			   sizeof(p->errata_basis));
	if (ret)
		return ret;
	costs = json_object_get(root, "costs");
	if (!json_is_object(costs))
		return bad(err, path, "%s needs a \"costs\" object", "profile");
	for (int e = 0; e < VT_CE__NR; e++) {
		o = json_object_get(costs, vt_cost_events[e].name);
		if (!o)
			return bad(err, path, "no price for cost event '%s'", vt_cost_events[e].name);
		ret = load_param(o, &p->p[e], vt_cost_events[e].name, path, err);
		if (ret)
			return ret;
	}
	return 0;
}

static bool is_path(const char *s)
{
	size_t n = strlen(s);

	return strchr(s, '/') || (n > 5 && !strcmp(s + n - 5, ".json"));
}

int vt_profile_load(const char *name_or_path, struct vt_profile *p,
		    struct vt_error *err)
{
	char path[4096];
	json_error_t je;
	json_t *root;
	int ret;

	if (is_path(name_or_path)) {
		snprintf(path, sizeof(path), "%s", name_or_path);
	} else {
		for (const char *c = name_or_path; *c; c++)
			if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
			      *c == '-' || *c == '_' || *c == '.'))
				return vt_error_set(err, VT_ERR_NO_PROFILE,
						    "no such cost profile '%s'", name_or_path);
		snprintf(path, sizeof(path), "%s/%s.json", vt_profile_dir(), name_or_path);
		/* the folder itself missing is a broken install, not a wrong name */
		if (access(vt_profile_dir(), R_OK | X_OK))
			return vt_error_set(err, -errno, "cannot read the profile folder '%s': %s",
					    vt_profile_dir(), strerror(errno));
		if (access(path, R_OK))
			return vt_error_set(err, VT_ERR_NO_PROFILE,
					    "no such cost profile '%s' (looked in %s)",
					    name_or_path, vt_profile_dir());
	}
	/* "-", pipes and devices like every input; held whole: bounded */
	ret = vt_input_load_json_capped(path, "profile", VT_PROFILE_MAX_INPUT, JSON_REJECT_DUPLICATES,
				 &root, &je, err);
	if (ret)
		return ret;
	if (!root)
		return vt_json_error(err, path, &je, VT_ERR_BAD_PROFILE, NULL);
	ret = profile_from_json(root, p, path, err);
	json_decref(root);
	return ret;
}

static json_t *param_to_json(const struct vt_cost_param *cp)
{
	json_t *o = json_object();

	/* Six significant digits: enough for any price, stable across libcs. */
	{
		char buf[32];

		snprintf(buf, sizeof(buf), "%.6g", cp->cycles);
		json_object_set_new(o, "cycles", json_real(strtod(buf, NULL)));
		snprintf(buf, sizeof(buf), "%.6g", cp->anchor);
		json_object_set_new(o, "anchor", json_real(strtod(buf, NULL)));
		snprintf(buf, sizeof(buf), "%.6g", cp->range);
		json_object_set_new(o, "range", json_real(strtod(buf, NULL)));
	}
	json_object_set_new(o, "source", json_string(vt_cost_source_names[cp->source]));
	json_object_set_new(o, "fit", json_boolean(cp->fit));
	if (cp->determined >= 0) {
		char buf[16];

		snprintf(buf, sizeof(buf), "%.2f", cp->determined);
		json_object_set_new(o, "determined", json_real(strtod(buf, NULL)));
	}
	json_object_set_new(o, "basis", json_string(cp->basis));
	return o;
}

int vt_profile_write(const struct vt_profile *p, FILE *f, struct vt_error *err)
{
	json_t *root = json_object(), *costs = json_object(), *o;
	int ret = 0;

	json_object_set_new(root, "format", json_string(VT_PROFILE_FORMAT));
	json_object_set_new(root, "version", json_integer(VT_PROFILE_VERSION));
	json_object_set_new(root, "name", json_string(p->name));
	json_object_set_new(root, "description", json_string(p->description));
	json_object_set_new(root, "cpu", json_string(p->cpu));
	json_object_set_new(root, "freq_mhz", json_real(p->freq_mhz));
	json_object_set_new(root, "freq_basis", json_string(p->freq_basis));
	o = json_object();
	json_object_set_new(o, "tlbi_range", json_boolean(p->tlbi_range));
	json_object_set_new(root, "features", o);
	o = json_object();
	json_object_set_new(o, "ARM64_ERRATUM_4118414", json_boolean(p->erratum_4118414));
	json_object_set_new(o, "basis", json_string(p->errata_basis));
	json_object_set_new(root, "errata", o);
	json_object_set_new(root, "calibration", json_string(p->calibration));
	for (int e = 0; e < VT_CE__NR; e++)
		json_object_set_new(costs, vt_cost_events[e].name, param_to_json(&p->p[e]));
	json_object_set_new(root, "costs", costs);

	errno = 0;	/* a short fwrite() says why */
	if (json_dumpf(root, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6)) ||
	    fputc('\n', f) == EOF)
		ret = vt_error_set(err, errno > 0 ? -errno : -EIO, "cannot write profile '%s'",
				   p->name);
	json_decref(root);
	return ret;
}

int vt_profile_save(const struct vt_profile *p, const char *path,
		    struct vt_error *err)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return vt_error_set(err, -errno, "cannot write profile '%s'", path);
	ret = vt_profile_write(p, f, err);
	if (fclose(f) && !ret)
		ret = vt_error_set(err, -errno, "cannot write profile '%s'", path);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int vt_profile_names(char ***names, unsigned int *nr, struct vt_error *err)
{
	DIR *d = opendir(vt_profile_dir());
	struct dirent *de;
	unsigned int n = 0, cap = 0;
	char **v = NULL;

	*names = NULL;
	*nr = 0;
	if (!d)
		return vt_error_set(err, -errno, "cannot read the profile folder '%s': %s",
				    vt_profile_dir(), strerror(errno));
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len <= 5 || strcmp(de->d_name + len - 5, ".json") || de->d_name[0] == '.')
			continue;
		if (VT_ALLOC_GROW(v, n + 1, cap))
			goto nomem;
		v[n] = strndup(de->d_name, len - 5);
		if (!v[n])
			goto nomem;
		n++;
	}
	closedir(d);
	qsort(v, n, sizeof(*v), cmp_str);
	*names = v;
	*nr = n;
	return 0;
nomem:
	closedir(d);
	vt_profile_names_free(v, n);
	return vt_error_set(err, -ENOMEM, "out of memory");
}

void vt_profile_names_free(char **names, unsigned int nr)
{
	for (unsigned int i = 0; i < nr; i++)
		free(names[i]);
	free(names);
}
