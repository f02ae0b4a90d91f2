// SPDX-License-Identifier: GPL-2.0
/*
 * The checks of trace format v1 (spec/interfaces.md section 2) that need
 * no replay state: the header (format, version, config, meta, events) and
 * each event (its keys, their types and ranges, the page runs, and what
 * its op requires: core/trace/ops.def), with the errors and warnings they
 * give.  The ones that need replay state (double unmap, live ids, VA
 * exhaustion) are the engine's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/input.h"
#include "core/suggest.h"
#include "core/trace/trace-reader.h"

/* ---- errors --------------------------------------------------------- */

void vt_trace_set_loc(struct vt_error *err, const char *file,
		      unsigned long line, unsigned long col, long event)
{
	if (!err)
		return;
	snprintf(err->file, sizeof(err->file), "%s", file);
	err->line = line;
	err->column = col;
	err->event = event;
}

/* An error in the event being read: "events[N].<what>: ...". */
static int ev_fail(struct vt_trace_reader *r, struct vt_error *err, int code,
		   const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int ev_fail(struct vt_trace_reader *r, struct vt_error *err, int code,
		   const char *fmt, ...)
{
	char msg[sizeof(err->msg)];
	unsigned long line = r->ev_line, col = r->ev_col;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* the value the message names, where the event's text is at hand */
	if (r->ev_text && line && col)
		vt_trace_value_pos(r->ev_text, r->ev_len, msg, &line, &col);
	vt_trace_set_loc(err, r->name, line, col, r->index);
	return vt_error_set(err, code, "events[%ld]%s", r->index, msg);
}

/* A jansson parse error, reworded where jansson's text is unclear. */
int vt_trace_json_fail(struct vt_trace_reader *r, struct vt_error *err,
		       const json_error_t *je, unsigned long line_base,
		       long event)
{
	const char *t = je->text;
	unsigned long line = line_base ? line_base : je->line > 0 ? (unsigned long)je->line : 0;
	unsigned long col = je->column > 0 ? (unsigned long)je->column : 1;

	/* a tree past the memory --max-input allows (core/input.h) */
	if (r->budget_hit) {
		char what[64];

		r->budget_hit = false;
		vt_json_error_oom(je);	/* consumed: not out of memory */
		if (event >= 0)
			snprintf(what, sizeof(what), "event %ld", event);
		else
			snprintf(what, sizeof(what), "the document");
		vt_trace_set_loc(err, r->name, line, line ? col : 0, event);
		return vt_json_budget_error(err, r->name, line, line ? col : 0, what,
					    r->max_input ? r->max_input : VT_MAX_INPUT_DEFAULT);
	}
	/* out of memory is exit 4, not a syntax error (core/input.h) */
	if (vt_json_error_oom(je)) {
		vt_trace_set_loc(err, r->name, 0, 0, -1);
		return vt_json_oom_error(err, r->name);
	}
	vt_trace_set_loc(err, r->name, line, line ? col : 0, event);
	if (strstr(t, "maximum parsing depth"))
		return vt_error_set(err, VT_ERR_TRACE_SYNTAX,
				    "nesting deeper than %d levels",
				    JSON_PARSER_MAX_DEPTH);
	if (strstr(t, "too big integer") ||
	    strstr(t, "too big negative integer"))
		return vt_error_set(err, VT_ERR_TRACE_SYNTAX,
				    "integer out of range (%s); JSON integers must fit in 63 bits, write larger values as \"0x...\" strings",
				    t);
	if (strstr(t, "real number overflow"))
		return vt_error_set(err, VT_ERR_TRACE_SYNTAX,
				    "number out of range (%s)", t);
	if (vt_json_error_plain(je))
		t = vt_json_error_plain(je);
	return vt_error_set(err, VT_ERR_TRACE_SYNTAX, "invalid JSON: %s", t);
}

/* ---- warnings ------------------------------------------------------- */

/* The names warned about: an open-addressing hash set (FNV-1a). */
static uint64_t warn_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* Whether @name was seen; if not, add it.  -ENOMEM, 0 (new) or 1 (seen). */
static int warn_seen(struct vt_trace_reader *r, const char *name)
{
	size_t mask, i;

	if ((r->nr_warned + 1) * 2 > r->warned_cap) {
		size_t cap = r->warned_cap ? r->warned_cap * 2 : 64;
		char **t = calloc(cap, sizeof(*t));

		if (!t)
			return -ENOMEM;
		for (size_t j = 0; j < r->warned_cap; j++) {
			if (!r->warned[j])
				continue;
			for (i = warn_hash(r->warned[j]) & (cap - 1); t[i];
			     i = (i + 1) & (cap - 1))
				;
			t[i] = r->warned[j];
		}
		free(r->warned);
		r->warned = t;
		r->warned_cap = cap;
	}
	mask = r->warned_cap - 1;
	for (i = warn_hash(name) & mask; r->warned[i]; i = (i + 1) & mask)
		if (!strcmp(r->warned[i], name))
			return 1;
	r->warned[i] = strdup(name);
	if (!r->warned[i])
		return -ENOMEM;
	r->nr_warned++;
	return 0;
}

/* Distinct names listed at most; past it one line says the rest is not. */
#define VT_TRACE_MAX_WARNINGS 1000

/* The known op or flag @name is a likely typo of, or NULL.  A flag is
 * judged by what follows "VM_": 'VM_BAR' is no typo of VM_MAP. */
static const char *name_hint(const char *name, bool flag)
{
	const char *cands[VT_FB__NR], *h;
	size_t skip = flag && !strncmp(name, "VM_", 3) ? 3 : 0;

	if (!flag)
		return vt_suggest(name, vt_op_names, VT_OP__NR);
	for (size_t i = 0; i < VT_FB__NR; i++)
		cands[i] = vt_flag_names[i] + (strncmp(vt_flag_names[i], "VM_", 3) ? 0 : 3);
	h = vt_suggest(name + skip, cands, VT_FB__NR);
	for (size_t i = 0; h && i < VT_FB__NR; i++)
		if (cands[i] == h)
			return vt_flag_names[i];
	return NULL;
}

/*
 * A key of an event or page run that is none of @known (@nr): ignored, as
 * unknown keys are (another tool's fields), but one that is likely a typo
 * of a known key ('ordr', which would leave the order 0) gets a warning
 * naming it.  Keys under three bytes are too short to tell.
 */
static int warn_once(struct vt_trace_reader *r, const char *what,
		     const char *name, const char *hint);
static int unknown_key(struct vt_trace_reader *r, struct vt_error *err,
		       const char *key, const char *const *known, size_t nr)
{
	const char *hint = strlen(key) >= 3 ? vt_suggest(key, known, nr) : NULL;
	int ret = hint ? warn_once(r, "unknown key", key, hint) : 0;

	return ret ? vt_error_set(err, ret, "out of memory") : 0;
}

/* Record "@what '@name' ignored" once per distinct name, with @hint, the
 * known name it is a likely typo of, if any. */
static int warn_once(struct vt_trace_reader *r, const char *what,
		     const char *name, const char *hint)
{
	char buf[VT_TRACE_MAX_STRING + 512];
	int n = warn_seen(r, name);

	if (n)
		return n < 0 ? n : 0;
	if (r->nr_warned > VT_TRACE_MAX_WARNINGS + 1)
		return 0;
	if (r->nr_warned == VT_TRACE_MAX_WARNINGS + 1)
		n = snprintf(buf, sizeof(buf),
			     "%s:%lu: more than %d distinct unknown names; the rest are ignored without a warning\n",
			     r->name, r->ev_line, VT_TRACE_MAX_WARNINGS);
	else {
		/* one warning a line: a newline in the name is escaped too */
		char esc[VT_TRACE_MAX_STRING + 1];	/* cut at a whole escape */

		vt_escape(esc, sizeof(esc), name, false);
		n = snprintf(buf, sizeof(buf), "%s:%lu: %s '%s' ignored%s%s%s\n",
			     r->name, r->ev_line, what, esc,
			     hint ? "; did you mean '" : "", hint ? hint : "",
			     hint ? "'?" : "");
	}
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	if (VT_ALLOC_GROW(r->warn, r->warn_len + n + 1, r->warn_cap))
		return -ENOMEM;
	memcpy(r->warn + r->warn_len, buf, n + 1);
	r->warn_len += n;
	return 0;
}

/* ---- values --------------------------------------------------------- */

enum num_res { NUM_OK, NUM_TYPE, NUM_NEG, NUM_RANGE };

/* Parse a JSON integer >= 0 or a "0x..." string that fits in 64 bits. */
static enum num_res value_u64(const json_t *v, uint64_t *out)
{
	const char *s;
	uint64_t x = 0;

	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);

		if (i < 0)
			return NUM_NEG;
		*out = (uint64_t)i;
		return NUM_OK;
	}
	if (!json_is_string(v))
		return NUM_TYPE;
	s = json_string_value(v);
	if (s[0] != '0' || s[1] != 'x' || !s[2])
		return s[0] == '-' ? NUM_NEG : NUM_TYPE;
	for (s += 2; *s; s++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return NUM_TYPE;
		if (x >> 60)
			return NUM_RANGE;
		x = x << 4 | d;
	}
	*out = x;
	return NUM_OK;
}

static const char *json_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a float";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		return "null";
	}
	return "a value";
}

/* value_u64() with the error reported against @what of the current event. */
static int ev_u64(struct vt_trace_reader *r, struct vt_error *err,
		  const json_t *v, const char *what, uint64_t *out)
{
	switch (value_u64(v, out)) {
	case NUM_OK:
		return 0;
	case NUM_NEG:
		return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
			       "%s: must not be negative", what);
	case NUM_RANGE:
		return ev_fail(r, err, VT_ERR_OVERFLOW,
			       "%s: %s is 2^64 or more", what,
			       json_string_value(v));
	case NUM_TYPE:
		break;
	}
	if (json_is_string(v))
		return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
			       "%s: expected an integer or \"0x...\" string, got \"%.40s\"",
			       what, json_string_value(v));
	return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
		       "%s: expected an integer or \"0x...\" string, got %s",
		       what, json_kind(v));
}

static int ev_str(struct vt_trace_reader *r, struct vt_error *err,
		  const json_t *v, const char *what, const char **out)
{
	if (!json_is_string(v))
		return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
			       "%s: expected a string, got %s", what,
			       json_kind(v));
	if (json_string_length(v) > VT_TRACE_MAX_STRING)
		return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
			       "%s: string of %zu bytes is too long (max %d)",
			       what, json_string_length(v),
			       VT_TRACE_MAX_STRING);
	*out = json_string_value(v);
	return 0;
}

/* ---- header --------------------------------------------------------- */

struct geometry {
	const char *name;
	unsigned int page_shift;
	unsigned int max_order;	/* ARCH_FORCE_MAX_ORDER default */
	unsigned int va_bits[4];
};

/*
 * The Kconfig-valid granule/VA pairs (arch/arm64/Kconfig ARM64_VA_BITS_*)
 * and each granule's MAX_PAGE_ORDER: arch/arm64/Kconfig
 * ARCH_FORCE_MAX_ORDER defaults to 13 for ARM64_64K_PAGES, 11 for
 * ARM64_16K_PAGES and 10 otherwise (linux-mm/linux-mm, read 2026-04).
 */
static const struct geometry geometries[] = {
	{ "4k", 12, 10, { 39, 48, 52, 0 } },
	{ "16k", 14, 11, { 36, 47, 48, 52 } },
	{ "64k", 16, 13, { 42, 48, 52, 0 } },
};

static const struct geometry *geometry_by_shift(unsigned int shift)
{
	for (size_t i = 0; i < sizeof(geometries) / sizeof(geometries[0]); i++)
		if (geometries[i].page_shift == shift)
			return &geometries[i];
	return NULL;
}

const char *vt_trace_granule_name(unsigned int page_shift)
{
	const struct geometry *g = geometry_by_shift(page_shift);

	return g ? g->name : NULL;
}

static bool va_bits_known(unsigned int bits)
{
	for (size_t i = 0; i < sizeof(geometries) / sizeof(geometries[0]); i++)
		for (int j = 0; j < 4; j++)
			if (geometries[i].va_bits[j] == bits)
				return true;
	return false;
}

static bool geometry_pair_ok(const struct geometry *g, unsigned int bits)
{
	for (int j = 0; j < 4; j++)
		if (g->va_bits[j] == bits)
			return true;
	return false;
}

static int hdr_fail(struct vt_trace_reader *r, struct vt_error *err,
		    int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int hdr_fail(struct vt_trace_reader *r, struct vt_error *err,
		    int code, const char *fmt, ...)
{
	va_list ap;

	vt_trace_set_loc(err, r->name, 1, 1, -1);
	va_start(ap, fmt);
	vt_error_vset(err, code, fmt, ap);
	va_end(ap);
	return code;
}

static int parse_header_config(struct vt_trace_reader *r, const json_t *c,
			       struct vt_error *err)
{
	const json_t *g = json_object_get(c, "granule");
	const json_t *v = json_object_get(c, "va_bits");
	const struct geometry *geo = NULL;

	if (!json_is_object(c))
		return hdr_fail(r, err, VT_ERR_TRACE_SCHEMA,
				"config: expected an object, got %s",
				json_kind(c));
	if (g) {
		const char *s = json_string_value(g);

		if (!s)
			return hdr_fail(r, err, VT_ERR_TRACE_SCHEMA,
					"config.granule: expected a string, got %s",
					json_kind(g));
		for (size_t i = 0; i < sizeof(geometries) / sizeof(geometries[0]); i++)
			if (!strcmp(geometries[i].name, s))
				geo = &geometries[i];
		if (!geo)
			return hdr_fail(r, err, VT_ERR_TRACE_SCHEMA,
					"config.granule: unknown granule \"%.40s\" (expected 4k, 16k or 64k)",
					s);
		r->cfg.page_shift = geo->page_shift;
	}
	if (v) {
		json_int_t bits;

		if (!json_is_integer(v))
			return hdr_fail(r, err, VT_ERR_TRACE_SCHEMA,
					"config.va_bits: expected an integer, got %s",
					json_kind(v));
		bits = json_integer_value(v);
		if (bits <= 0 || bits > 64 || !va_bits_known(bits))
			return hdr_fail(r, err, VT_ERR_TRACE_SCHEMA,
					"config.va_bits: unknown VA size %lld (expected 36, 39, 42, 47, 48 or 52)",
					(long long)bits);
		r->cfg.va_bits = bits;
		if (geo && !geometry_pair_ok(geo, bits))
			return hdr_fail(r, err, VT_ERR_GEOMETRY,
					"config: %s pages with %lld-bit VA is not a Kconfig-valid pair",
					geo->name, (long long)bits);
	}
	return 0;
}

/* Check the top-level object (or the JSON Lines header line). */
int vt_trace_parse_header(struct vt_trace_reader *r, const json_t *top,
			  bool jsonl, struct vt_error *err)
{
	const json_t *fmt, *ver, *meta, *cfg;
	const struct geometry *geo;
	int ret;

	if (!json_is_object(top))
		return hdr_fail(r, err, VT_ERR_TRACE_SCHEMA,
				"top level: expected an object, got %s",
				json_kind(top));
	fmt = json_object_get(top, "format");
	if (!fmt)
		return hdr_fail(r, err, VT_ERR_TRACE_VERSION,
				"format: missing; not a vmaptool trace");
	if (!json_is_string(fmt) || strcmp(json_string_value(fmt), VT_TRACE_FORMAT))
		return hdr_fail(r, err, VT_ERR_TRACE_VERSION,
				"format: expected \"%s\", got %s%.40s%s",
				VT_TRACE_FORMAT,
				json_is_string(fmt) ? "\"" : json_kind(fmt),
				json_is_string(fmt) ? json_string_value(fmt) : "",
				json_is_string(fmt) ? "\"" : "");
	ver = json_object_get(top, "version");
	if (!ver)
		return hdr_fail(r, err, VT_ERR_TRACE_SCHEMA,
				"version: missing");
	if (!json_is_integer(ver))
		return hdr_fail(r, err, VT_ERR_TRACE_SCHEMA,
				"version: expected an integer, got %s",
				json_kind(ver));
	if (json_integer_value(ver) > VT_TRACE_VERSION)
		return hdr_fail(r, err, VT_ERR_TRACE_VERSION,
				"version: trace format version %lld is newer than this vmaptool supports (%d)",
				(long long)json_integer_value(ver),
				VT_TRACE_VERSION);
	if (json_integer_value(ver) != VT_TRACE_VERSION)
		return hdr_fail(r, err, VT_ERR_TRACE_SCHEMA,
				"version: invalid version %lld (expected %d)",
				(long long)json_integer_value(ver),
				VT_TRACE_VERSION);
	cfg = json_object_get(top, "config");
	if (cfg) {
		ret = parse_header_config(r, cfg, err);
		if (ret)
			return ret;
	}
	meta = json_object_get(top, "meta");
	if (meta && !json_is_object(meta))
		return hdr_fail(r, err, VT_ERR_TRACE_SCHEMA,
				"meta: expected an object, got %s",
				json_kind(meta));
	r->meta = meta ? json_dumps(meta, JSON_COMPACT) : strdup("{}");
	if (!r->meta)
		return vt_err_oom(err);
	if (!jsonl) {
		r->events = json_object_get(top, "events");
		if (!r->events)
			return hdr_fail(r, err, VT_ERR_TRACE_SCHEMA,
					"events: missing");
		if (!json_is_array(r->events))
			return hdr_fail(r, err, VT_ERR_TRACE_SCHEMA,
					"events: expected an array, got %s",
					json_kind(r->events));
		r->nr_events = json_array_size(r->events);
	}

	r->page_shift = r->cfg.page_shift ? r->cfg.page_shift : 12;
	geo = geometry_by_shift(r->page_shift);
	if (!r->max_order)
		r->max_order = geo->max_order;
	if (!r->pa_bits)
		r->pa_bits = vt_trace_pa_bits(&r->cfg);
	if (r->pa_bits <= r->page_shift || r->pa_bits > 64)
		return vt_error_set(err, -EINVAL,
				    "physical address size of %u bits is invalid",
				    r->pa_bits);
	return 0;
}

/* ---- events --------------------------------------------------------- */

enum ev_key {
	K_OP, K_ID, K_PAGES, K_SIZE, K_PHYS, K_ALIGN, K_FLAGS, K_PROT,
	K_VA, K_T, K_CPU, K_CALLER, K_RANGE, K__NR
};

static const char *const ev_key_names[K__NR] = {
	"op", "id", "pages", "size", "phys", "align", "flags", "prot",
	"va", "t", "cpu", "caller", "range",
};

static int ev_key_find(const char *k)
{
	for (int i = 0; i < K__NR; i++)
		if (k[0] == ev_key_names[i][0] && !strcmp(k, ev_key_names[i]))
			return i;
	return -1;
}

/*
 * The error of a page run's field that value_u64() refused: the JSON path is
 * formatted here, only on error (snprintf() per run was a sixth of the
 * parse time).
 */
static int run_u64_fail(struct vt_trace_reader *r, struct vt_error *err,
			const json_t *v, size_t i, const char *field)
{
	char what[64];
	uint64_t dummy;

	snprintf(what, sizeof(what), ".pages[%zu].%s", i, field);
	return ev_u64(r, err, v, what, &dummy);
}

static int parse_pages(struct vt_trace_reader *r, const json_t *pages,
		       struct vt_event *ev, struct vt_error *err)
{
	uint64_t pfn_end = (uint64_t)1 << (r->pa_bits - r->page_shift);
	size_t n, i;

	if (!json_is_array(pages))
		return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
			       ".pages: expected an array, got %s",
			       json_kind(pages));
	n = json_array_size(pages);
	if (!n)
		return ev_fail(r, err, VT_ERR_EMPTY_PAGES,
			       ".pages: empty page list");
	if (n > UINT32_MAX)
		return ev_fail(r, err, VT_ERR_OVERFLOW,
			       ".pages: too many page runs");
	if (VT_ALLOC_GROW(r->runs, n, r->runs_cap))
		return vt_err_oom(err);
	ev->runs = r->runs;
	ev->nr_runs = n;
	ev->nr_pages = 0;
	for (i = 0; i < n; i++) {
		const json_t *run = json_array_get(pages, i);
		const json_t *jp, *jo, *jc;
		const char *key;
		json_t *val;
		struct vt_page_run *pr = &r->runs[i];
		uint64_t order = 0, count = 1, pages_in_run;

		if (!json_is_object(run))
			return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
				       ".pages[%zu]: expected an object, got %s",
				       i, json_kind(run));
		jp = jo = jc = NULL;
		json_object_foreach((json_t *)run, key, val) {
			static const char *const run_keys[] = { "pfn", "order", "count" };
			int ret;

			if (!strcmp(key, "pfn"))
				jp = val;
			else if (!strcmp(key, "order"))
				jo = val;
			else if (!strcmp(key, "count"))
				jc = val;
			else if ((ret = unknown_key(r, err, key, run_keys, 3)))
				return ret;
		}
		if (!jp)
			return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
				       ".pages[%zu].pfn: missing", i);
		if (value_u64(jp, &pr->pfn) != NUM_OK)
			return run_u64_fail(r, err, jp, i, "pfn");
		if (jo) {
			if (value_u64(jo, &order) != NUM_OK)
				return run_u64_fail(r, err, jo, i, "order");
			if (order > r->max_order)
				return ev_fail(r, err, VT_ERR_ORDER_RANGE,
					       ".pages[%zu].order: order %llu out of range (max %u for %uK pages)",
					       i, (unsigned long long)order,
					       r->max_order,
					       1u << (r->page_shift - 10));
		}
		if (jc) {
			if (value_u64(jc, &count) != NUM_OK)
				return run_u64_fail(r, err, jc, i, "count");
			if (!count)
				return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
					       ".pages[%zu].count: must be at least 1",
					       i);
		}
		if (count > (UINT64_MAX >> order))
			return ev_fail(r, err, VT_ERR_OVERFLOW,
				       ".pages[%zu].count: %llu blocks of order %llu overflow 64 bits",
				       i, (unsigned long long)count,
				       (unsigned long long)order);
		pages_in_run = count << order;
		if (pr->pfn & ((1ull << order) - 1))
			return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
				       ".pages[%zu].pfn: 0x%llx is not aligned to its order %llu",
				       i, (unsigned long long)pr->pfn,
				       (unsigned long long)order);
		if (pr->pfn >= pfn_end || pages_in_run > pfn_end - pr->pfn)
			return ev_fail(r, err, VT_ERR_PFN_RANGE,
				       ".pages[%zu].pfn: 0x%llx + %llu pages is beyond the %u-bit physical address size",
				       i, (unsigned long long)pr->pfn,
				       (unsigned long long)pages_in_run,
				       r->pa_bits);
		if (ev->nr_pages > UINT64_MAX - pages_in_run)
			return ev_fail(r, err, VT_ERR_OVERFLOW,
				       ".pages[%zu]: page total overflows 64 bits",
				       i);
		ev->nr_pages += pages_in_run;
		pr->order = order;
		pr->count = count;
	}
	return 0;
}

static int parse_flags(struct vt_trace_reader *r, const json_t *flags,
		       struct vt_event *ev, struct vt_error *err)
{
	size_t i;

	if (!json_is_array(flags))
		return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
			       ".flags: expected an array of strings, got %s",
			       json_kind(flags));
	for (i = 0; i < json_array_size(flags); i++) {
		const json_t *f = json_array_get(flags, i);
		const char *name;
		uint32_t bit;
		int ret;

		if (json_is_string(f) &&
		    json_string_length(f) <= VT_TRACE_MAX_STRING) {
			name = json_string_value(f);
		} else {
			char what[32];

			snprintf(what, sizeof(what), ".flags[%zu]", i);
			ret = ev_str(r, err, f, what, &name);
			if (ret)
				return ret;
		}
		bit = vt_flag_find(name);
		if (bit) {
			ev->flags |= bit;
		} else {
			ret = warn_once(r, "unknown flag", name, name_hint(name, true));
			if (ret)
				return vt_error_set(err, ret, "out of memory");
		}
	}
	return 0;
}

/* Require a size > 0 and, with @phys, a physical range inside PA size. */
static int check_size(struct vt_trace_reader *r, struct vt_event *ev,
		      const json_t *const *v, bool with_phys,
		      struct vt_error *err)
{
	const char *op = vt_op_names[ev->op];

	if (!v[K_SIZE])
		return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
			       ".size: missing (%s needs a size)", op);
	if (!ev->size)
		return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
			       ".size: must be greater than 0");
	if (!with_phys)
		return 0;
	if (!v[K_PHYS])
		return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
			       ".phys: missing (%s needs a physical address)",
			       op);
	if (ev->size > UINT64_MAX - ev->phys)
		return ev_fail(r, err, VT_ERR_OVERFLOW,
			       ".size: phys + size overflows 64 bits");
	if (r->pa_bits < 64 && ev->phys + ev->size > (1ull << r->pa_bits))
		return ev_fail(r, err, VT_ERR_PFN_RANGE,
			       ".phys: 0x%llx + 0x%llx is beyond the %u-bit physical address size",
			       (unsigned long long)ev->phys,
			       (unsigned long long)ev->size, r->pa_bits);
	return 0;
}

/* What the event's op requires of it (core/trace/ops.def). */
static int check_op_rules(struct vt_trace_reader *r, struct vt_event *ev,
			  const json_t *const *v, struct vt_error *err)
{
	unsigned int rules = vt_ops[ev->op].rules;
	int ret;

	if ((rules & VT_OPR_PAGES) && !ev->has_pages)
		return ev_fail(r, err, VT_ERR_EMPTY_PAGES,
			       ".pages: missing (%s needs pages)",
			       vt_op_names[ev->op]);
	if (rules & VT_OPR_SIZE) {
		ret = check_size(r, ev, v, rules & VT_OPR_PHYS, err);
		if (ret)
			return ret;
	}
	if ((rules & VT_OPR_COVER) && ev->has_pages &&
	    ev->nr_pages < (ev->size + (1ull << r->page_shift) - 1) >> r->page_shift)
		return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
			       ".pages: %llu pages do not cover size %llu",
			       (unsigned long long)ev->nr_pages,
			       (unsigned long long)ev->size);
	if ((rules & VT_OPR_ID) && !ev->id.present)
		return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
			       ".id: missing (%s needs the id of the mapping)",
			       vt_op_names[ev->op]);
	return 0;
}

/* "op": 0, 1 for an unknown op to skip, or a negative code. */
static int parse_op(struct vt_trace_reader *r, const json_t *v,
		    struct vt_event *ev, struct vt_error *err)
{
	const char *s;
	int op, ret;

	if (!v)
		return ev_fail(r, err, VT_ERR_TRACE_SCHEMA, ".op: missing");
	ret = ev_str(r, err, v, ".op", &s);
	if (ret)
		return ret;
	op = vt_op_find(s);
	if (op < 0) {
		const char *hint = name_hint(s, false);

		if (!r->skip_unknown)
			return ev_fail(r, err, VT_ERR_UNKNOWN_OP,
				       ".op: unknown op \"%.64s\"%s%s%s", s,
				       hint ? "; did you mean '" : "", hint ? hint : "",
				       hint ? "'?" : "");
		ret = warn_once(r, "unknown op", s, hint);
		if (ret)
			return vt_error_set(err, ret, "out of memory");
		return 1;
	}
	ev->op = op;
	ev->prot = vt_ops[op].prot;
	return 0;
}

static int parse_id(struct vt_trace_reader *r, const json_t *id,
		    struct vt_event *ev, struct vt_error *err)
{
	const char *s;
	int ret;

	ev->id.present = true;
	if (json_is_string(id)) {
		ret = ev_str(r, err, id, ".id", &s);
		if (ret)
			return ret;
		ev->id.is_str = true;
		ev->id.str = (char *)s;
	} else if (json_is_integer(id)) {
		if (json_integer_value(id) < 0)
			return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
				       ".id: must not be negative");
		ev->id.num = json_integer_value(id);
	} else {
		return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
			       ".id: expected an integer or a string, got %s",
			       json_kind(id));
	}
	return 0;
}

static int parse_range(struct vt_trace_reader *r, const json_t *v,
		       struct vt_event *ev, struct vt_error *err)
{
	const char *s;
	int ret = ev_str(r, err, v, ".range", &s);

	if (ret)
		return ret;
	if (!(vt_ops[ev->op].rules & VT_OPR_RANGE))
		return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
			       ".range: only a vmalloc has one");
	if (!strcmp(s, "modules"))
		ev->range = VT_RANGE_MODULES;
	else if (strcmp(s, "vmalloc"))
		return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
			       ".range: unknown range \"%.64s\" (vmalloc, modules)",
			       s);
	return 0;
}

static int parse_prot(struct vt_trace_reader *r, const json_t *v,
		      struct vt_event *ev, struct vt_error *err)
{
	const char *s;
	int p, ret = ev_str(r, err, v, ".prot", &s);

	if (ret)
		return ret;
	p = vt_prot_find(s);
	if (p < 0)
		return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
			       ".prot: unknown protection \"%.64s\"", s);
	ev->prot = p;
	return 0;
}

/* "va", "t" and "cpu". */
static int parse_where_when(struct vt_trace_reader *r, const json_t *const *v,
			    struct vt_event *ev, struct vt_error *err)
{
	int ret;

	if (v[K_VA]) {
		ret = ev_u64(r, err, v[K_VA], ".va", &ev->va);
		if (ret)
			return ret;
		ev->has_va = true;
	}
	if (v[K_T]) {
		ret = ev_u64(r, err, v[K_T], ".t", &ev->t);
		if (ret)
			return ret;
		ev->has_t = true;
	}
	if (v[K_CPU]) {
		uint64_t cpu;

		ret = ev_u64(r, err, v[K_CPU], ".cpu", &cpu);
		if (ret)
			return ret;
		if (cpu > INT32_MAX)
			return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
				       ".cpu: %llu is out of range",
				       (unsigned long long)cpu);
		ev->cpu = cpu;
	}
	return 0;
}

/*
 * Validate one event object and fill @ev.  Returns 0, 1 if the event is
 * an unknown op that is to be skipped, or a negative code.  The keys are
 * checked in a fixed order (op, id, pages, size, phys, align, range,
 * flags, prot, va, t, cpu, caller, then the op's rules), so that the
 * first error of an event is always the same one.
 */
int vt_trace_parse_event(struct vt_trace_reader *r, json_t *obj,
			 struct vt_event *ev, struct vt_error *err)
{
	const json_t *v[K__NR] = { NULL };
	const char *key;
	json_t *val;
	int ret;

	if (!json_is_object(obj))
		return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
			       ": expected an object, got %s", json_kind(obj));
	json_object_foreach(obj, key, val) {
		int k = ev_key_find(key);

		if (k >= 0)
			v[k] = val;
		else if ((ret = unknown_key(r, err, key, ev_key_names, K__NR)))
			return ret;
	}

	memset(ev, 0, sizeof(*ev));
	ev->cpu = -1;
	ev->line = r->ev_line;
	ev->column = r->ev_col;

	ret = parse_op(r, v[K_OP], ev, err);
	if (ret)
		return ret;
	if (v[K_ID] && (ret = parse_id(r, v[K_ID], ev, err)))
		return ret;
	if (v[K_PAGES]) {
		ret = parse_pages(r, v[K_PAGES], ev, err);
		if (ret)
			return ret;
		ev->has_pages = true;
	}
	if (v[K_SIZE] && (ret = ev_u64(r, err, v[K_SIZE], ".size", &ev->size)))
		return ret;
	if (v[K_PHYS] && (ret = ev_u64(r, err, v[K_PHYS], ".phys", &ev->phys)))
		return ret;
	if (v[K_ALIGN]) {
		ret = ev_u64(r, err, v[K_ALIGN], ".align", &ev->align);
		if (ret)
			return ret;
		if (!ev->align || (ev->align & (ev->align - 1)))
			return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
				       ".align: %llu is not a power of two",
				       (unsigned long long)ev->align);
	}
	if (v[K_RANGE] && (ret = parse_range(r, v[K_RANGE], ev, err)))
		return ret;
	if (v[K_FLAGS] && (ret = parse_flags(r, v[K_FLAGS], ev, err)))
		return ret;
	if (v[K_PROT] && (ret = parse_prot(r, v[K_PROT], ev, err)))
		return ret;
	ret = parse_where_when(r, v, ev, err);
	if (ret)
		return ret;
	if (v[K_CALLER] && (ret = ev_str(r, err, v[K_CALLER], ".caller",
					  &ev->caller)))
		return ret;
	return check_op_rules(r, ev, v, err);
}

/* ---- one event's text ----------------------------------------------- */

/*
 * One event's JSON text @p (@n bytes) at r->ev_line:r->ev_col, for both
 * the document and the JSON Lines reader: the fast path for the line
 * shapes vmaptool writes (core/trace/trace-fast.c), else jansson and
 * vt_trace_parse_event().  Returns 0 with *@ev filled, 1 for an event to
 * skip, or a negative error.
 */
int vt_trace_read_event(struct vt_trace_reader *r, const char *p, size_t n,
			struct vt_event *ev, struct vt_error *err)
{
	json_error_t je;
	int ret;

	if (r->fast) {
		ret = vt_trace_fast_event(r->fast, p, n, ev);
		if (ret < 0)
			return vt_error_set(err, ret, "out of memory");
		if (ret) {
			ev->line = r->ev_line;
			ev->column = r->ev_col;
			return 0;
		}
	}
	r->cur = vt_line_arena_loadb(r, p, n, &je);
	if (!r->cur)
		return vt_trace_json_fail(r, err, &je, r->ev_line, r->index);
	r->ev_text = p;
	r->ev_len = n;
	ret = vt_trace_parse_event(r, r->cur, ev, err);
	r->ev_text = NULL;
	return ret;
}

