/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one typed reader of the JSON documents vmaptool reads whole (cost
 * profiles, calibration figures, gate baselines and reports): every field
 * is checked for its type and range, a field of the wrong type is an
 * error, never its default (issue 22: "true" for a boolean was read as
 * false, "300" or 300.0 for an integer as 0).  An absent optional field is
 * its default.  Errors are located at the file and the field's place in
 * the document ("cost 'pte_store': \"cycles\" ..."); jansson keeps no
 * positions for values, only for parse errors (vt_json_error(),
 * core/input.h).  The schemas docs/profile.schema.json,
 * docs/figures.schema.json and docs/report.schema.json say the same.
 */
#ifndef VT_JSON_READ_H
#define VT_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/error.h"

struct vt_jr {
	const char *path;	/* the file, for err->file */
	int code;		/* VT_ERR_BAD_PROFILE, VT_ERR_BAD_EXPERIMENT, ... */
	const char *where;	/* prefix of messages ("figure 'x'"), or NULL */
	struct vt_error *err;
};

enum { VT_JR_OPTIONAL = 0, VT_JR_REQUIRED = 1 };

/* A located error "<where>: <message>" in r->err; returns r->code. */
int vt_jr_fail(const struct vt_jr *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "a string", "an integer", ... of @v, for messages */
const char *vt_jr_type(const json_t *v);

int vt_jr_bool(const struct vt_jr *r, const json_t *obj, const char *key,
	       int req, bool def, bool *out);
/* A JSON number (integer or real) from @min to @max. */
int vt_jr_number(const struct vt_jr *r, const json_t *obj, const char *key,
		 int req, double def, double min, double max, double *out);
/* A JSON integer (not 300.0, not "300") from @min to @max. */
int vt_jr_int(const struct vt_jr *r, const json_t *obj, const char *key,
	      int req, int64_t def, int64_t min, int64_t max, int64_t *out);
/* A string that fits @len bytes with its NUL: refused, not cut. */
int vt_jr_string(const struct vt_jr *r, const json_t *obj, const char *key,
		 int req, const char *def, char *buf, size_t len);
/* A string, without a copy: *@out is jansson's (NULL when absent). */
int vt_jr_str(const struct vt_jr *r, const json_t *obj, const char *key,
	      int req, const char **out);
/* An object or an array: *@out is the value, NULL when absent. */
int vt_jr_object(const struct vt_jr *r, const json_t *obj, const char *key,
		 int req, json_t **out);
int vt_jr_array(const struct vt_jr *r, const json_t *obj, const char *key,
		int req, json_t **out);
/* Element @i of the array @key (from vt_jr_array()) as a string. */
int vt_jr_string_at(const struct vt_jr *r, const json_t *arr, const char *key,
		    size_t i, const char **out);

#endif
