// SPDX-License-Identifier: GPL-2.0
/* The typed JSON reader: see core/json-read.h. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/json-read.h"

int vt_jr_fail(const struct vt_jr *r, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	vt_error_set(r->err, r->code, "%s%s%s", r->where ? r->where : "",
		     r->where ? ": " : "", msg);
	snprintf(r->err->file, sizeof(r->err->file), "%.255s", r->path);
	r->err->line = r->err->column = 0;
	return r->code;
}

const char *vt_jr_type(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a real number";
	case JSON_TRUE: return "true";
	case JSON_FALSE: return "false";
	case JSON_NULL: return "null";
	}
	return "a value";
}

/* @key of @obj, or NULL; absent and required: the error */
static int get(const struct vt_jr *r, const json_t *obj, const char *key,
	       int req, const char *want, json_t **v)
{
	*v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
	if (!*v && req)
		return vt_jr_fail(r, "\"%s\" is missing: it must be %s", key, want);
	return 0;
}

int vt_jr_bool(const struct vt_jr *r, const json_t *obj, const char *key,
	       int req, bool def, bool *out)
{
	json_t *v;
	int ret = get(r, obj, key, req, "true or false", &v);

	if (ret)
		return ret;
	if (v && !json_is_boolean(v))
		return vt_jr_fail(r, "\"%s\" must be true or false, not %s", key,
				  vt_jr_type(v));
	*out = v ? json_is_true(v) : def;
	return 0;
}

int vt_jr_number(const struct vt_jr *r, const json_t *obj, const char *key,
		 int req, double def, double min, double max, double *out)
{
	json_t *v;
	int ret = get(r, obj, key, req, "a number", &v);
	double d;

	if (ret)
		return ret;
	if (!v) {
		*out = def;
		return 0;
	}
	if (!json_is_number(v)) {
		if (isinf(min) && isinf(max))	/* no range to name */
			return vt_jr_fail(r, "\"%s\" must be a number, not %s", key,
					  vt_jr_type(v));
		return vt_jr_fail(r, "\"%s\" must be a number from %g to %g, not %s",
				  key, min, max, vt_jr_type(v));
	}
	d = json_number_value(v);
	if (!(d >= min && d <= max))
		return vt_jr_fail(r, "\"%s\" must be a number from %g to %g, not %g",
				  key, min, max, d);
	*out = d;
	return 0;
}

int vt_jr_int(const struct vt_jr *r, const json_t *obj, const char *key,
	      int req, int64_t def, int64_t min, int64_t max, int64_t *out)
{
	json_t *v;
	int ret = get(r, obj, key, req, "an integer", &v);
	json_int_t i;

	if (ret)
		return ret;
	if (!v) {
		*out = def;
		return 0;
	}
	if (!json_is_integer(v))
		return vt_jr_fail(r, "\"%s\" must be an integer from %lld to %lld, not %s",
				  key, (long long)min, (long long)max, vt_jr_type(v));
	i = json_integer_value(v);
	if (i < min || i > max)
		return vt_jr_fail(r, "\"%s\" must be an integer from %lld to %lld, not %lld",
				  key, (long long)min, (long long)max, (long long)i);
	*out = i;
	return 0;
}

int vt_jr_string(const struct vt_jr *r, const json_t *obj, const char *key,
		 int req, const char *def, char *buf, size_t len)
{
	json_t *v;
	int ret = get(r, obj, key, req, "a string", &v);
	const char *s;

	if (ret)
		return ret;
	if (v && !json_is_string(v))
		return vt_jr_fail(r, "\"%s\" must be a string, not %s", key, vt_jr_type(v));
	s = v ? json_string_value(v) : def;
	if (strlen(s) >= len)
		return vt_jr_fail(r, "\"%s\" is longer than %zu bytes", key, len - 1);
	snprintf(buf, len, "%s", s);
	return 0;
}

int vt_jr_str(const struct vt_jr *r, const json_t *obj, const char *key,
	      int req, const char **out)
{
	json_t *v;
	int ret = get(r, obj, key, req, "a string", &v);

	if (ret)
		return ret;
	if (v && !json_is_string(v))
		return vt_jr_fail(r, "\"%s\" must be a string, not %s", key, vt_jr_type(v));
	*out = v ? json_string_value(v) : NULL;
	return 0;
}

int vt_jr_object(const struct vt_jr *r, const json_t *obj, const char *key,
		 int req, json_t **out)
{
	int ret = get(r, obj, key, req, "an object", out);

	if (!ret && *out && !json_is_object(*out))
		return vt_jr_fail(r, "\"%s\" must be an object, not %s", key,
				  vt_jr_type(*out));
	return ret;
}

int vt_jr_array(const struct vt_jr *r, const json_t *obj, const char *key,
		int req, json_t **out)
{
	int ret = get(r, obj, key, req, "an array", out);

	if (!ret && *out && !json_is_array(*out))
		return vt_jr_fail(r, "\"%s\" must be an array, not %s", key,
				  vt_jr_type(*out));
	return ret;
}

int vt_jr_string_at(const struct vt_jr *r, const json_t *arr, const char *key,
		    size_t i, const char **out)
{
	json_t *v = json_array_get(arr, i);

	if (!json_is_string(v))
		return vt_jr_fail(r, "\"%s\"[%zu] must be a string, not %s", key, i,
				  vt_jr_type(v));
	*out = json_string_value(v);
	return 0;
}
