// SPDX-License-Identifier: GPL-2.0
/*
 * Trace format v1 (spec/interfaces.md section 2): the jansson reader and
 * the writer.
 *
 * A trace is one JSON document, or JSON Lines: a file whose first line is a
 * complete JSON object without "events" is read line by line, one event
 * per line, so that memory stays flat however long the trace is.  Every
 * check that needs no replay state is made here (syntax, schema, ranges,
 * overflow); the ones that do (double unmap, live ids, VA exhaustion) are
 * the engine's.
 *
 * jansson keeps no positions for values, so for a one-document trace a
 * small scanner (scan_event_positions()) finds where each element of
 * "events" starts, and schema errors still name a line and column.
 */
#define _GNU_SOURCE	/* asprintf */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "core/input.h"
#include "core/trace/trace.h"
#include "core/trace/trace-fast.h"

#if defined(__SANITIZE_ADDRESS__)
#define VT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VT_ASAN 1
#endif
#endif
#ifdef VT_ASAN
#include <sanitizer/asan_interface.h>
#else
#define ASAN_POISON_MEMORY_REGION(a, n) ((void)(a), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(a, n) ((void)(a), (void)(n))
#endif

#ifndef JSON_PARSER_MAX_DEPTH
#define JSON_PARSER_MAX_DEPTH 2048	/* jansson's src/jansson_config.h */
#endif

/*
 * A bump allocator for the jansson values of one JSON Lines line; see
 * "line arenas" below.
 */
struct line_arena {
	char *buf;
	size_t cap, used;
	bool spilled;		/* some block of this line came from malloc */
};

struct doc_src {
	FILE *f;
	char *buf;		/* file: a window of the file; mem: the buffer */
	size_t cap, off, len;
	size_t mark;		/* keep buf[mark..] on refill; SIZE_MAX: none */
	uint64_t base;		/* file offset of buf[0] */
	bool eof, own, io_error;
	unsigned long line, col;
};

struct vt_trace_reader {
	char name[256];
	unsigned int max_order;
	unsigned int pa_bits;
	bool skip_unknown;
	uint64_t max_input;		/* --max-input, 0: the default */
	struct vt_input *in;		/* the counting stream r->f reads */
	struct vt_trace_config cfg;
	unsigned int page_shift;	/* cfg.page_shift or 12 */
	char *meta;
	bool jsonl;

	/* one document */
	json_t *root;
	json_t *events;
	size_t nr_events;
	size_t next;
	unsigned long *pos;		/* 2 per event: line, column */
	bool doc_stream;		/* read in two streaming passes */
	bool ds_started;
	struct doc_src ds;
	uint64_t ds_events_off;		/* just after "events": [ */
	unsigned long ds_events_line, ds_events_col;

	/* JSON Lines */
	FILE *f;
	const char *mem;
	size_t mem_len, mem_off;
	char *line;			/* the header line, then read blocks */
	size_t line_cap;
	size_t blk_off, blk_len;	/* unread bytes of the block in @line */
	bool blk_eof;
	unsigned long lineno;
	json_t *cur;			/* the line's tree, in @arena */
	struct line_arena *arena;
	bool no_fast_path;
	struct vt_trace_fast *fast;	/* trace-fast.c */

	long index;			/* of the event being read */
	unsigned long ev_line, ev_col;

	struct vt_page_run *runs;
	size_t runs_cap;

	char *warn;
	size_t warn_len, warn_cap;
	char **warned;			/* hash set, warned_cap slots */
	size_t nr_warned, warned_cap;
};

/* ---- errors --------------------------------------------------------- */

static void set_loc(struct vt_error *err, const char *file,
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
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	set_loc(err, r->name, r->ev_line, r->ev_col, r->index);
	return vt_error_set(err, code, "events[%ld]%s", r->index, msg);
}

/* A jansson parse error, reworded where jansson's text is unclear. */
static int json_fail(struct vt_trace_reader *r, struct vt_error *err,
		     const json_error_t *je, unsigned long line_base,
		     long event)
{
	const char *t = je->text;
	unsigned long line = line_base ? line_base : je->line > 0 ? (unsigned long)je->line : 0;
	unsigned long col = je->column > 0 ? (unsigned long)je->column : 1;

	/* out of memory is exit 4, not a syntax error (core/input.h) */
	if (vt_json_error_oom(je)) {
		set_loc(err, r->name, 0, 0, -1);
		return vt_json_error(err, r->name, je, 0, NULL);
	}
	set_loc(err, r->name, line, line ? col : 0, event);
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

/* Record "@what '@name' ignored" once per distinct name. */
static int warn_once(struct vt_trace_reader *r, const char *what,
		     const char *name)
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
		n = snprintf(buf, sizeof(buf), "%s:%lu: %s '%s' ignored\n", r->name,
			     r->ev_line, what, esc);
	}
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	if (r->warn_len + n + 1 > r->warn_cap) {
		size_t cap = (r->warn_cap + n + 1) * 2;
		char *w = realloc(r->warn, cap);

		if (!w)
			return -ENOMEM;
		r->warn = w;
		r->warn_cap = cap;
	}
	memcpy(r->warn + r->warn_len, buf, n + 1);
	r->warn_len += n;
	return 0;
}

/* ---- values --------------------------------------------------------- */

enum num_res { NUM_OK, NUM_TYPE, NUM_NEG, NUM_RANGE };

/* Parse a JSON integer >= 0 or a "0x..." string that fits in 64 bits. */
static enum num_res get_u64(const json_t *v, uint64_t *out)
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

/* get_u64() with the error reported against @what of the current event. */
static int ev_u64(struct vt_trace_reader *r, struct vt_error *err,
		  const json_t *v, const char *what, uint64_t *out)
{
	switch (get_u64(v, out)) {
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

	set_loc(err, r->name, 1, 1, -1);
	va_start(ap, fmt);
	vt_error_vset(err, code, fmt, ap);
	va_end(ap);
	return code;
}

static int parse_config(struct vt_trace_reader *r, const json_t *c,
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
static int parse_header(struct vt_trace_reader *r, const json_t *top,
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
		ret = parse_config(r, cfg, err);
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
		return vt_error_set(err, -ENOMEM, "out of memory");
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
 * The error of a page run's field that get_u64() refused: the JSON path is
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
	if (n > r->runs_cap) {
		size_t cap = n < 64 ? 64 : n;
		struct vt_page_run *nr = realloc(r->runs, cap * sizeof(*nr));

		if (!nr)
			return vt_error_set(err, -ENOMEM, "out of memory");
		r->runs = nr;
		r->runs_cap = cap;
	}
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
			if (!strcmp(key, "pfn"))
				jp = val;
			else if (!strcmp(key, "order"))
				jo = val;
			else if (!strcmp(key, "count"))
				jc = val;
		}
		if (!jp)
			return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
				       ".pages[%zu].pfn: missing", i);
		if (get_u64(jp, &pr->pfn) != NUM_OK)
			return run_u64_fail(r, err, jp, i, "pfn");
		if (jo) {
			if (get_u64(jo, &order) != NUM_OK)
				return run_u64_fail(r, err, jo, i, "order");
			if (order > r->max_order)
				return ev_fail(r, err, VT_ERR_ORDER_RANGE,
					       ".pages[%zu].order: order %llu out of range (max %u for %uK pages)",
					       i, (unsigned long long)order,
					       r->max_order,
					       1u << (r->page_shift - 10));
		}
		if (jc) {
			if (get_u64(jc, &count) != NUM_OK)
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
			ret = warn_once(r, "unknown flag", name);
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

/*
 * Validate one event object and fill @ev.  Returns 0, 1 if the event is
 * an unknown op that is to be skipped, or a negative code.
 */
static int parse_event(struct vt_trace_reader *r, json_t *obj,
		       struct vt_event *ev, struct vt_error *err)
{
	const json_t *v[K__NR] = { NULL };
	const char *key, *s;
	json_t *val;
	int op, ret;

	if (!json_is_object(obj))
		return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
			       ": expected an object, got %s", json_kind(obj));
	json_object_foreach(obj, key, val) {
		int k = ev_key_find(key);

		if (k >= 0)
			v[k] = val;
	}

	memset(ev, 0, sizeof(*ev));
	ev->cpu = -1;
	ev->line = r->ev_line;
	ev->column = r->ev_col;

	if (!v[K_OP])
		return ev_fail(r, err, VT_ERR_TRACE_SCHEMA, ".op: missing");
	ret = ev_str(r, err, v[K_OP], ".op", &s);
	if (ret)
		return ret;
	op = vt_op_find(s);
	if (op < 0) {
		if (!r->skip_unknown)
			return ev_fail(r, err, VT_ERR_UNKNOWN_OP,
				       ".op: unknown op \"%.64s\"", s);
		ret = warn_once(r, "unknown op", s);
		if (ret)
			return vt_error_set(err, ret, "out of memory");
		return 1;
	}
	ev->op = op;
	ev->prot = op == VT_OP_IOREMAP ? VT_PROT_DEVICE : VT_PROT_KERNEL;

	if (v[K_ID]) {
		const json_t *id = v[K_ID];

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
	}
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
	if (v[K_RANGE]) {
		ret = ev_str(r, err, v[K_RANGE], ".range", &s);
		if (ret)
			return ret;
		if (op != VT_OP_VMALLOC)
			return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
				       ".range: only a vmalloc has one");
		if (!strcmp(s, "modules"))
			ev->range = VT_RANGE_MODULES;
		else if (strcmp(s, "vmalloc"))
			return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
				       ".range: unknown range \"%.64s\" (vmalloc, modules)",
				       s);
	}
	if (v[K_FLAGS] && (ret = parse_flags(r, v[K_FLAGS], ev, err)))
		return ret;
	if (v[K_PROT]) {
		int p;

		ret = ev_str(r, err, v[K_PROT], ".prot", &s);
		if (ret)
			return ret;
		p = vt_prot_find(s);
		if (p < 0)
			return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
				       ".prot: unknown protection \"%.64s\"", s);
		ev->prot = p;
	}
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
	if (v[K_CALLER] && (ret = ev_str(r, err, v[K_CALLER], ".caller",
					  &ev->caller)))
		return ret;

	switch (ev->op) {
	case VT_OP_VMAP:
	case VT_OP_VM_MAP_RAM:
		if (!ev->has_pages)
			return ev_fail(r, err, VT_ERR_EMPTY_PAGES,
				       ".pages: missing (%s needs pages)",
				       vt_op_names[ev->op]);
		break;
	case VT_OP_VMALLOC:
		ret = check_size(r, ev, v, false, err);
		if (ret)
			return ret;
		if (ev->has_pages &&
		    ev->nr_pages < (ev->size + (1ull << r->page_shift) - 1) >> r->page_shift)
			return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
				       ".pages: %llu pages do not cover size %llu",
				       (unsigned long long)ev->nr_pages,
				       (unsigned long long)ev->size);
		break;
	case VT_OP_IOREMAP:
	case VT_OP_LINEAR_MAP:
		ret = check_size(r, ev, v, true, err);
		if (ret)
			return ret;
		break;
	case VT_OP_VUNMAP:
	case VT_OP_VFREE:
	case VT_OP_VM_UNMAP_RAM:
	case VT_OP_IOUNMAP:
		if (!ev->id.present)
			return ev_fail(r, err, VT_ERR_TRACE_SCHEMA,
				       ".id: missing (%s needs the id of the mapping)",
				       vt_op_names[ev->op]);
		break;
	case VT_OP_PURGE:
	case VT_OP__NR:
		break;
	}
	return 0;
}

/* ---- positions of the events of a one-document trace ---------------- */

/*
 * Find where each element of the top-level "events" array starts.  Fills
 * @pos with @n (line, column) pairs and returns true if exactly @n were
 * found; jansson has already validated the text.
 */
static bool scan_event_positions(const char *buf, size_t len, size_t n,
				 unsigned long *pos)
{
	unsigned long line = 1, col = 0;
	int depth = 0;
	bool in_str = false, esc = false;
	size_t str_start = 0, found = 0;
	int key_state = 0;	/* 1: saw "events" at depth 1; 2: and ':' */
	bool in_events = false, want_value = false;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = buf[i];

		if (c == '\n') {
			line++;
			col = 0;
			continue;
		}
		if ((c & 0xc0) != 0x80)
			col++;
		if (in_str) {
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"') {
				in_str = false;
				if (depth == 1 && !in_events &&
				    i - str_start == 7 &&
				    !memcmp(buf + str_start + 1, "events", 6))
					key_state = 1;
			}
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r')
			continue;
		if (in_events && depth == 2 && want_value && c != ']') {
			if (found == n)
				return false;
			pos[2 * found] = line;
			pos[2 * found + 1] = col;
			found++;
			want_value = false;
		}
		switch (c) {
		case '"':
			in_str = true;
			str_start = i;
			continue;
		case ':':
			key_state = key_state == 1 ? 2 : 0;
			continue;
		case '{':
		case '[':
			if (depth == 1 && key_state == 2 && c == '[') {
				in_events = true;
				want_value = true;
			}
			key_state = 0;
			depth++;
			continue;
		case '}':
		case ']':
			depth--;
			if (in_events && depth == 1)
				return found == n;
			continue;
		case ',':
			if (in_events && depth == 2)
				want_value = true;
			key_state = 0;
			continue;
		default:
			key_state = 0;
			continue;
		}
	}
	return found == n;
}

/* ---- line arenas ---------------------------------------------------- */

/*
 * json_loadb() of one JSON Lines line makes a dozen small mallocs (the
 * object, its hash buckets, one per key and string) and json_decref() frees
 * them again: with glibc that is a sixth of the parse time, plus the tree
 * walk of json_delete().  So each line is parsed into a per-reader bump
 * arena that is reset, not walked, when the next line is read.
 *
 * jansson's allocator is process-global, so the hooks installed below (once,
 * before main(), while the process is single-threaded) are plain
 * malloc()/free() except on a thread that is inside an arena window:
 * tl_arena is thread-local and set only around json_loadb() of a line and
 * around a json_decref() of such a tree.  Other threads and all other
 * jansson users (the header, one-document traces, the report writer) never
 * see the arena.  A block that does not fit (a long string) comes from
 * malloc(); a line that spilled is freed with json_decref() (arena blocks
 * are ignored by arena_free()), and the arena grows for the next line.
 */
#define ARENA_MIN (64 * 1024)
#define ARENA_MAX (4 * 1024 * 1024)
#define ARENA_ALIGN 16
#ifdef VT_ASAN
#define ARENA_REDZONE 16	/* poisoned gap between blocks */
#else
#define ARENA_REDZONE 0
#endif

static _Thread_local struct line_arena *tl_arena;

static void *arena_malloc(size_t size)
{
	struct line_arena *a = tl_arena;
	void *p;

	if (a) {
		size_t need = (size + ARENA_REDZONE + ARENA_ALIGN - 1) &
			      ~(size_t)(ARENA_ALIGN - 1);

		if (size <= a->cap && need <= a->cap - a->used) {
			p = a->buf + a->used;

			a->used += need;
			ASAN_UNPOISON_MEMORY_REGION(p, size);
			return p;
		}
		a->spilled = true;
	}
	p = malloc(size);
	if (!p)
		vt_json_alloc_failed();	/* out of memory, not bad JSON: core/input.c */
	return p;
}

static void arena_free(void *p)
{
	struct line_arena *a = tl_arena;

	if (a && (char *)p >= a->buf && (char *)p < a->buf + a->cap)
		return;
	free(p);
}

__attribute__((constructor)) static void arena_install(void)
{
	json_set_alloc_funcs(arena_malloc, arena_free);
}

static struct line_arena *arena_new(void)
{
	struct line_arena *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->buf = malloc(ARENA_MIN);
	if (!a->buf) {
		free(a);
		return NULL;
	}
	a->cap = ARENA_MIN;
	ASAN_POISON_MEMORY_REGION(a->buf, a->cap);
	return a;
}

/* Drop @r->cur and empty the arena for the next line. */
static void arena_reset(struct vt_trace_reader *r)
{
	struct line_arena *a = r->arena;

	if (!a) {
		json_decref(r->cur);
		r->cur = NULL;
		return;
	}
	if (a->spilled) {
		struct line_arena *saved = tl_arena;

		/* free the malloc()ed blocks; arena ones are skipped */
		tl_arena = a;
		json_decref(r->cur);
		tl_arena = saved;
		if (a->cap < ARENA_MAX) {
			char *nb = malloc(a->cap * 2);

			if (nb) {
				ASAN_UNPOISON_MEMORY_REGION(a->buf, a->cap);
				free(a->buf);
				a->buf = nb;
				a->cap *= 2;
				a->used = 1;	/* poison it below */
			}
		}
		a->spilled = false;
	}
	r->cur = NULL;
	if (a->used) {
		ASAN_POISON_MEMORY_REGION(a->buf, a->cap);
		a->used = 0;
	}
}

static void arena_destroy(struct line_arena *a)
{
	if (!a)
		return;
	ASAN_UNPOISON_MEMORY_REGION(a->buf, a->cap);
	free(a->buf);
	free(a);
}

/* json_loadb() of one line into @r's arena. */
static json_t *arena_loadb(struct vt_trace_reader *r, const char *line,
			   size_t n, json_error_t *je)
{
	struct line_arena *saved = tl_arena;
	json_t *j;

	tl_arena = r->arena;
	j = json_loadb(line, n, JSON_REJECT_DUPLICATES, je);
	tl_arena = saved;
	return j;
}

/* ---- opening -------------------------------------------------------- */

static struct vt_trace_reader *reader_alloc(const char *name,
					    const struct vt_trace_read_opts *opts)
{
	struct vt_trace_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	snprintf(r->name, sizeof(r->name), "%s", name);
	if (opts) {
		r->skip_unknown = opts->skip_unknown;
		r->max_order = opts->max_order;
		r->pa_bits = opts->pa_bits;
		r->max_input = opts->max_input;
		r->no_fast_path = opts->no_fast_path;
	}
	r->index = -1;
	return r;
}

static bool all_space(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
			return false;
	return true;
}

/* The fast path, with the limits parse_header() settled. */
static int fast_setup(struct vt_trace_reader *r, struct vt_error *err)
{
	if (r->no_fast_path)
		return 0;
	r->fast = calloc(1, sizeof(*r->fast));
	if (!r->fast)
		return vt_error_set(err, -ENOMEM, "out of memory");
	r->fast->page_shift = r->page_shift;
	r->fast->max_order = r->max_order;
	r->fast->pa_bits = r->pa_bits;
	return 0;
}

/*
 * Try @first (the first line, without its newline) as a JSON Lines header.
 * Returns 1 and keeps the header if it is one, 0 if the file is to be read
 * as one document, or a negative code.
 */
static int try_jsonl_header(struct vt_trace_reader *r, const char *first,
			    size_t len, struct vt_error *err)
{
	json_error_t je;
	json_t *h = json_loadb(first, len, JSON_REJECT_DUPLICATES, &je);
	int ret;

	if (!h)
		return 0;
	if (!json_is_object(h) || json_object_get(h, "events")) {
		json_decref(h);
		return 0;
	}
	r->jsonl = true;
	r->lineno = 1;
	r->arena = arena_new();
	if (!r->arena) {
		json_decref(h);
		return vt_error_set(err, -ENOMEM, "out of memory");
	}
	ret = parse_header(r, h, true, err);
	json_decref(h);
	if (ret)
		return ret;
	ret = fast_setup(r, err);
	return ret ? ret : 1;
}

/* Parse @buf as one JSON document. */
static int open_document(struct vt_trace_reader *r, const char *buf,
			 size_t len, struct vt_error *err)
{
	json_error_t je;
	int ret;

	if (all_space(buf, len)) {
		set_loc(err, r->name, 1, 1, -1);
		return vt_error_set(err, VT_ERR_TRACE_SYNTAX,
				    "empty file: expected a JSON trace");
	}
	r->root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!r->root)
		return json_fail(r, err, &je, 0, -1);
	ret = parse_header(r, r->root, false, err);
	if (ret)
		return ret;
	if (r->nr_events) {
		r->pos = malloc(2 * r->nr_events * sizeof(*r->pos));
		if (!r->pos)
			return vt_error_set(err, -ENOMEM, "out of memory");
		if (!scan_event_positions(buf, len, r->nr_events, r->pos)) {
			free(r->pos);
			r->pos = NULL;
		}
	}
	return 0;
}

/* ---- one-document traces, streamed ------------------------------------ */

/*
 * A one-document trace is read in two streaming passes so that memory
 * stays flat whatever the file size (issue 14): at open, pass 1 checks the
 * syntax of the whole document (each element of "events" through the fast
 * path or one json_loadb(), then dropped), keeps the other top-level
 * values for parse_header() and counts the events; vt_trace_next() then
 * reads the events again from where the array starts, one element at a
 * time, noting each element's line and column as scan_event_positions()
 * does.  Whatever pass 1 does not recognise (a top-level key with an
 * escape, a duplicate key, an element that is not an object, nesting
 * deeper than DOC_MAX_DEPTH, a syntax or header error, a read error) is
 * handed to the whole-document path, so that every error and its position
 * stays exactly what it was.
 */
#define DOC_MAX_DEPTH 1024	/* well inside jansson's 2048 */
#define DOC_MAX_KEYS 64
#define DOC_BLOCK (256 * 1024)


/* Read more of the file; false at the end (or on an error). */
static bool ds_fill(struct doc_src *ds)
{
	size_t keep = ds->mark < ds->off ? ds->mark : ds->off, got;

	if (ds->eof)
		return false;
	if (keep) {
		memmove(ds->buf, ds->buf + keep, ds->len - keep);
		ds->len -= keep;
		ds->off -= keep;
		if (ds->mark != SIZE_MAX)
			ds->mark -= keep;
		ds->base += keep;
	}
	if (ds->cap - ds->len < DOC_BLOCK / 2) {
		size_t cap = ds->cap ? ds->cap * 2 : DOC_BLOCK;
		char *nb = realloc(ds->buf, cap);

		if (!nb) {
			ds->io_error = true;
			ds->eof = true;
			return false;
		}
		ds->buf = nb;
		ds->cap = cap;
	}
	got = fread(ds->buf + ds->len, 1, ds->cap - ds->len, ds->f);
	ds->len += got;
	if (!got) {
		ds->eof = true;
		ds->io_error = ferror(ds->f);
	}
	return got > 0;
}

static inline int ds_peek(struct doc_src *ds)
{
	while (ds->off == ds->len)
		if (!ds_fill(ds))
			return -1;
	return (unsigned char)ds->buf[ds->off];
}

/* Take the byte ds_peek() saw, counting lines and columns as
 * scan_event_positions() does. */
static inline void ds_take(struct doc_src *ds)
{
	unsigned char c = ds->buf[ds->off++];

	if (c == '\n') {
		ds->line++;
		ds->col = 0;
	} else if ((c & 0xc0) != 0x80) {
		ds->col++;
	}
}

static inline int ds_skip_ws(struct doc_src *ds)
{
	int c;

	while ((c = ds_peek(ds)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		ds_take(ds);
	return c;
}

/*
 * The extent of the JSON value at the cursor (not checked: jansson or the
 * fast path does that): *@p and *@n, valid until the next read.  False at
 * the end of the file or beyond DOC_MAX_DEPTH.
 */
static bool ds_value(struct doc_src *ds, const char **p, size_t *n)
{
	int c = ds_peek(ds), depth = 0;
	bool in_str = false, esc = false;

	if (c < 0)
		return false;
	ds->mark = ds->off;
	if (c != '{' && c != '[' && c != '"') {
		/* a number, true, false, null (or garbage) */
		while ((c = ds_peek(ds)) >= 0 && c != ',' && c != '}' &&
		       c != ']' && c != ' ' && c != '\t' && c != '\n' && c != '\r')
			ds_take(ds);
		goto done;
	}
	while ((c = ds_peek(ds)) >= 0) {
		ds_take(ds);
		if (in_str) {
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"' && !depth)
				break;
			else if (c == '"')
				in_str = false;
			continue;
		}
		if (c == '"') {
			in_str = true;
		} else if (c == '{' || c == '[') {
			if (++depth > DOC_MAX_DEPTH)
				return false;
		} else if (c == '}' || c == ']') {
			if (!--depth)
				break;
		}
	}
	if (c < 0)
		return false;
done:
	*p = ds->buf + ds->mark;
	*n = ds->off - ds->mark;
	ds->mark = SIZE_MAX;
	return *n > 0;
}

/* A top-level key: printable ASCII without escapes, else false. */
static bool ds_key(struct doc_src *ds, char *key, size_t size)
{
	size_t n = 0;
	int c;

	if (ds_peek(ds) != '"')
		return false;
	ds_take(ds);
	while ((c = ds_peek(ds)) >= 0 && c != '"') {
		if (c < 0x20 || c >= 0x7f || c == '\\' || n + 1 >= size)
			return false;
		key[n++] = c;
		ds_take(ds);
	}
	if (c < 0)
		return false;
	ds_take(ds);
	key[n] = '\0';
	return true;
}

static void ds_release(struct doc_src *ds)
{
	if (ds->own)
		free(ds->buf);
	memset(ds, 0, sizeof(*ds));
}

/* Whether the element at @p is valid JSON (it is an object, checked). */
static bool element_valid(struct vt_trace_reader *r,
			  struct vt_trace_fast *fp, const char *p, size_t n)
{
	struct vt_event ev;
	json_error_t je;
	json_t *j;

	if (vt_trace_fast_event(fp, p, n, &ev) == 1)
		return true;
	arena_reset(r);
	j = arena_loadb(r, p, n, &je);
	r->cur = j;
	arena_reset(r);
	return j != NULL;
}

/*
 * Pass 1.  Returns 0 (streaming), 1 (use the whole-document path) or a
 * negative code (out of memory).
 */
static int doc_stream_open(struct vt_trace_reader *r, struct vt_error *err)
{
	struct doc_src *ds = &r->ds;
	struct vt_trace_fast *fp;
	char keys[DOC_MAX_KEYS][64];
	int nr_keys = 0, c, ret = 1;
	bool have_events = false;
	json_t *top;

	ds->line = 1;
	ds->mark = SIZE_MAX;
	top = json_object();
	fp = calloc(1, sizeof(*fp));
	if (!r->arena)
		r->arena = arena_new();
	if (!top || !fp || !r->arena) {
		ret = vt_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	/* syntax only: limits that refuse nothing the syntax allows */
	fp->page_shift = 12;
	fp->max_order = 63;
	fp->pa_bits = 64;

	if (ds_skip_ws(ds) != '{')
		goto out;
	ds_take(ds);
	c = ds_skip_ws(ds);
	if (c == '}')
		goto end;
	for (;;) {
		char *key = keys[nr_keys];

		if (nr_keys == DOC_MAX_KEYS || !ds_key(ds, key, sizeof(keys[0])))
			goto out;
		for (int i = 0; i < nr_keys; i++)
			if (!strcmp(keys[i], key))
				goto out;
		nr_keys++;
		if (ds_skip_ws(ds) != ':')
			goto out;
		ds_take(ds);
		c = ds_skip_ws(ds);
		if (!strcmp(key, "events")) {
			if (c != '[')
				goto out;
			ds_take(ds);
			have_events = true;
			r->ds_events_off = ds->base + ds->off;
			r->ds_events_line = ds->line;
			r->ds_events_col = ds->col;
			c = ds_skip_ws(ds);
			if (c != ']') {
				for (;;) {
					const char *p;
					size_t n;

					if (c != '{' || !ds_value(ds, &p, &n) ||
					    !element_valid(r, fp, p, n))
						goto out;
					r->nr_events++;
					c = ds_skip_ws(ds);
					if (c != ',')
						break;
					ds_take(ds);
					c = ds_skip_ws(ds);
				}
				if (c != ']')
					goto out;
			}
			ds_take(ds);
			if (json_object_set_new(top, key, json_array()))
				goto out;
		} else {
			const char *p;
			size_t n;
			json_error_t je;
			json_t *v;

			if (!ds_value(ds, &p, &n))
				goto out;
			v = json_loadb(p, n, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
			if (!v || json_object_set_new(top, key, v))
				goto out;
		}
		c = ds_skip_ws(ds);
		if (c == '}')
			break;
		if (c != ',')
			goto out;
		ds_take(ds);
		ds_skip_ws(ds);
	}
end:
	ds_take(ds);
	if (ds_skip_ws(ds) >= 0 || ds->io_error || !have_events)
		goto out;
	{
		size_t nr = r->nr_events;

		if (parse_header(r, top, false, err)) {
			free(r->meta);
			r->meta = NULL;
			r->nr_events = 0;
			goto out;
		}
		r->nr_events = nr;
	}
	r->root = top;
	top = NULL;
	r->doc_stream = true;
	r->ds_started = false;
	ret = 0;
out:
	if (ret) {
		r->nr_events = 0;
		ds_release(ds);
	}
	json_decref(top);
	if (fp)
		vt_trace_fast_release(fp);
	free(fp);
	return ret;
}

/* Pass 2: the next element of "events". */
/*
 * One event's JSON text @p (@n bytes) at r->ev_line:r->ev_col, for both
 * the document and the JSON Lines reader: the fast path for the line
 * shapes vmaptool writes (core/trace/trace-fast.c), else jansson and
 * parse_event().  Returns 0 with *@ev filled, 1 for an event to skip, or
 * a negative error.
 */
static int read_event(struct vt_trace_reader *r, const char *p, size_t n,
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
	r->cur = arena_loadb(r, p, n, &je);
	if (!r->cur)
		return json_fail(r, err, &je, r->ev_line, r->index);
	return parse_event(r, r->cur, ev, err);
}

static int next_doc_stream(struct vt_trace_reader *r, struct vt_event *ev,
			   struct vt_error *err)
{
	struct doc_src *ds = &r->ds;

	if (!r->ds_started) {
		r->ds_started = true;
		if (ds->f) {
			if (fseek(ds->f, r->ds_events_off, SEEK_SET))
				goto io_error;
			ds->base = r->ds_events_off;
			ds->off = ds->len = 0;
			ds->eof = false;
		} else {
			ds->off = r->ds_events_off;
		}
		ds->mark = SIZE_MAX;
		ds->line = r->ds_events_line;
		ds->col = r->ds_events_col;
	}
	while (r->next < r->nr_events) {
		const char *p;
		size_t n;
		int ret;

		arena_reset(r);
		ds_skip_ws(ds);
		if (r->next) {
			ds_take(ds);	/* ',' */
			ds_skip_ws(ds);
		}
		r->index = r->next++;
		r->ev_line = ds->line;
		r->ev_col = ds->col + 1;
		if (!ds_value(ds, &p, &n))
			goto io_error;
		ret = read_event(r, p, n, ev, err);
		if (ret == 1)
			continue;
		return ret ? ret : 1;
	}
	return 0;

io_error:
	set_loc(err, r->name, ds->line, 0, -1);
	if (vt_input_limit_hit(r->in, err))
		return err->code;
	return vt_error_set(err, -EIO, "cannot read trace '%s': %s", r->name,
			    "the file changed while it was read");
}

int vt_trace_open_mem(const char *name, const char *buf, size_t len,
		      const struct vt_trace_read_opts *opts,
		      struct vt_trace_reader **out, struct vt_error *err)
{
	struct vt_trace_reader *r = reader_alloc(name, opts);
	const char *nl;
	int ret;

	*out = NULL;
	if (!r)
		return vt_error_set(err, -ENOMEM, "out of memory");
	nl = memchr(buf, '\n', len);
	ret = try_jsonl_header(r, buf, nl ? (size_t)(nl - buf) : len, err);
	if (ret == 1) {
		r->mem = buf;
		r->mem_len = len;
		r->mem_off = nl ? (size_t)(nl - buf) + 1 : len;
		ret = 0;
	} else if (ret == 0) {
		ret = 1;
		if (!r->no_fast_path) {
			r->ds.buf = (char *)buf;
			r->ds.len = len;
			r->ds.eof = true;
			ret = doc_stream_open(r, err);
			if (!ret)
				ret = fast_setup(r, err);
		}
		if (ret == 1)
			ret = open_document(r, buf, len, err);
	}
	if (ret) {
		vt_trace_close(r);
		return ret;
	}
	*out = r;
	return 0;
}

int vt_trace_open(const char *path, const struct vt_trace_read_opts *opts,
		  struct vt_trace_reader **out, struct vt_error *err)
{
	struct vt_trace_reader *r = reader_alloc(path, opts);
	char *buf = NULL;
	size_t cap = 0, len;
	ssize_t n;
	int ret;

	*out = NULL;
	if (!r)
		return vt_error_set(err, -ENOMEM, "out of memory");
	/* "-", pipes and devices too; bounded by --max-input (core/input.h) */
	set_loc(err, path, 0, 0, -1);
	ret = vt_input_open(path, "trace", r->max_input, &r->f, &r->in, err);
	if (ret)
		goto fail;
	errno = 0;
	n = getline(&r->line, &r->line_cap, r->f);
	if (n < 0 || ferror(r->f)) {
		if (ferror(r->f) || errno)
			goto io_error;
		set_loc(err, path, 1, 1, -1);
		ret = vt_error_set(err, VT_ERR_TRACE_SYNTAX,
				   "empty file: expected a JSON trace");
		goto fail;
	}
	len = n;
	ret = try_jsonl_header(r, r->line, n && r->line[n - 1] == '\n' ? n - 1 : n,
			       err);
	if (ret == 1) {
		vt_input_per_line(r->in);
		*out = r;
		return 0;
	}
	if (ret < 0)
		goto fail;

	/*
	 * One document: --max-input limits it whole (docs/reliability.md),
	 * streamed or not.  Streamed in two passes if the input can be read
	 * twice (a regular file, through the same counting stream); else, and
	 * when the streaming parser declines, read whole: the first line
	 * plus the rest of a stream, or the file again from the start.
	 */
	ret = vt_input_whole(r->in, err);
	if (ret)
		goto fail;
	if (!r->no_fast_path && vt_input_seekable(r->in) &&
	    !fseek(r->f, 0, SEEK_SET)) {
		r->ds.f = r->f;
		r->ds.own = true;
		ret = doc_stream_open(r, err);
		if (!ret)
			ret = fast_setup(r, err);
		if (ret <= 0) {
			if (ret)
				goto fail;
			*out = r;
			return 0;
		}
		if (fseek(r->f, 0, SEEK_SET))
			goto io_error;
		clearerr(r->f);
		len = 0;	/* read it again from the start */
	}
	cap = len + 65536;
	buf = malloc(cap);
	if (!buf) {
		ret = vt_error_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	memcpy(buf, r->line, len);
	for (;;) {
		size_t got;

		if (cap - len < 65536) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				ret = vt_error_set(err, -ENOMEM, "out of memory");
				goto fail;
			}
			buf = nb;
			cap *= 2;
		}
		got = fread(buf + len, 1, cap - len, r->f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(r->f))
		goto io_error;
	vt_input_close(r->in, r->f);
	r->in = NULL;
	r->f = NULL;
	ret = open_document(r, buf, len, err);
	free(buf);
	buf = NULL;
	if (ret)
		goto fail;
	*out = r;
	return 0;

io_error:
	ret = errno ? -errno : -EIO;
	set_loc(err, path, 0, 0, -1);
	if (vt_input_limit_hit(r->in, err))
		ret = err->code;
	else
		vt_error_set(err, ret, "cannot read trace '%s': %s", path,
			     strerror(-ret));
fail:
	free(buf);
	vt_trace_close(r);
	return ret;
}

const struct vt_trace_config *vt_trace_config(const struct vt_trace_reader *r)
{
	return &r->cfg;
}

const char *vt_trace_meta_json(const struct vt_trace_reader *r)
{
	return r->meta ? r->meta : "{}";
}

bool vt_trace_is_jsonl(const struct vt_trace_reader *r)
{
	return r->jsonl;
}

const char *vt_trace_warnings(const struct vt_trace_reader *r)
{
	return r->warn ? r->warn : "";
}

/* ---- reading events ------------------------------------------------- */

#define VT_READ_BLOCK (256 * 1024)

/*
 * Next line of a JSON Lines file, read in large blocks into r->line (so a
 * line costs a memchr(), not a getline() call); lines of any length.
 */
static ssize_t next_file_line(struct vt_trace_reader *r, const char **line,
			      struct vt_error *err)
{
	for (;;) {
		char *s = r->line + r->blk_off, *nl;
		size_t left = r->blk_len - r->blk_off, got;

		nl = memchr(s, '\n', left);
		if (nl) {
			r->blk_off += nl - s + 1;
			*line = s;
			return nl - s;
		}
		if (r->blk_eof) {
			if (!left)
				return -1;
			r->blk_off = r->blk_len;
			*line = s;
			return left;
		}
		/* keep the partial line, make room, read on */
		memmove(r->line, s, left);
		r->blk_len = left;
		r->blk_off = 0;
		if (r->line_cap - left < VT_READ_BLOCK / 2) {
			size_t cap = r->line_cap < VT_READ_BLOCK ? VT_READ_BLOCK : r->line_cap * 2;
			char *nb = realloc(r->line, cap);

			if (!nb) {
				set_loc(err, r->name, r->lineno, 0, -1);
				vt_error_set(err, -ENOMEM, "out of memory");
				return -2;
			}
			r->line = nb;
			r->line_cap = cap;
		}
		/* through the counting stream: --max-input per line */
		errno = 0;
		got = fread(r->line + left, 1, r->line_cap - left, r->f);
		r->blk_len += got;
		if (got < r->line_cap - left) {
			if (ferror(r->f)) {
				int e = errno ? errno : EIO;

				set_loc(err, r->name, r->lineno, 0, -1);
				if (!vt_input_limit_hit(r->in, err))
					vt_error_set(err, -e, "cannot read trace '%s': %s",
						     r->name, strerror(e));
				else
					err->line = r->lineno;
				return -2;
			}
			r->blk_eof = true;
		}
	}
}

/* Next line of a JSON Lines trace (without newline): length, or -1. */
static ssize_t next_line(struct vt_trace_reader *r, const char **line,
			 struct vt_error *err)
{
	ssize_t n;

	r->lineno++;
	if (r->mem) {
		const char *s = r->mem + r->mem_off, *nl;
		size_t left = r->mem_len - r->mem_off;

		if (!left)
			return -1;
		nl = memchr(s, '\n', left);
		n = nl ? nl - s : (ssize_t)left;
		r->mem_off += nl ? (size_t)n + 1 : left;
		*line = s;
		return n;
	}
	return next_file_line(r, line, err);
}

static int next_jsonl(struct vt_trace_reader *r, struct vt_event *ev,
		      struct vt_error *err)
{
	for (;;) {
		const char *line;
		ssize_t n;
		int ret;

		arena_reset(r);
		n = next_line(r, &line, err);
		if (n == -1)
			return 0;
		if (n < 0)
			return err && err->code ? err->code : -EIO;
		if (all_space(line, n))
			continue;
		r->index++;
		r->ev_line = r->lineno;
		r->ev_col = 1;
		ret = read_event(r, line, (size_t)n, ev, err);
		if (ret == 1)
			continue;
		return ret ? ret : 1;
	}
}

int vt_trace_next(struct vt_trace_reader *r, struct vt_event *ev,
		  struct vt_error *err)
{
	if (r->jsonl)
		return next_jsonl(r, ev, err);
	if (r->doc_stream)
		return next_doc_stream(r, ev, err);
	while (r->next < r->nr_events) {
		size_t i = r->next++;
		int ret;

		r->index = i;
		r->ev_line = r->pos ? r->pos[2 * i] : 0;
		r->ev_col = r->pos ? r->pos[2 * i + 1] : 0;
		ret = parse_event(r, json_array_get(r->events, i), ev, err);
		if (ret == 1)
			continue;
		return ret ? ret : 1;
	}
	return 0;
}

void vt_trace_close(struct vt_trace_reader *r)
{
	if (!r)
		return;
	if (r->f || r->in)
		vt_input_close(r->in, r->f);
	arena_reset(r);
	arena_destroy(r->arena);
	ds_release(&r->ds);
	if (r->fast)
		vt_trace_fast_release(r->fast);
	free(r->fast);
	json_decref(r->root);
	free(r->line);
	free(r->pos);
	free(r->meta);
	free(r->runs);
	free(r->warn);
	for (size_t i = 0; i < r->warned_cap; i++)
		free(r->warned[i]);
	free(r->warned);
	free(r);
}

/* ---- writer --------------------------------------------------------- */

struct vt_trace_writer {
	FILE *f;
	bool own;		/* @f is our temporary file */
	bool jsonl;
	bool first;
	char *path;
	char *tmp;
	unsigned int page_shift;
};

/*
 * The trace writer's output primitives (core never prints diagnostics; these
 * write the trace file itself).
 */
static void out_str(FILE *f, const char *s)
{
	fwrite(s, 1, strlen(s), f);
}

static void out_fmt(FILE *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void out_fmt(FILE *f, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		fwrite(buf, 1, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1, f);
}

/* Length of the valid UTF-8 sequence at @s (RFC 3629), 0 if invalid. */
static int utf8_len(const unsigned char *s)
{
	int n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) ||	/* overlong */
	    (s[0] == 0xed && s[1] >= 0xa0) ||	/* surrogates */
	    (s[0] == 0xf0 && s[1] < 0x90) ||	/* overlong */
	    (s[0] == 0xf4 && s[1] >= 0x90))	/* beyond U+10FFFF */
		return 0;
	return n;
}

/*
 * A JSON string.  Bytes that are not valid UTF-8 (an imported recording
 * can carry any) become U+FFFD, so the output is always valid JSON.
 */
static void put_str(FILE *f, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	putc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;
		int n = utf8_len((const unsigned char *)s);

		if (!n) {
			out_str(f, "\\ufffd");
			continue;
		}
		if (n > 1) {
			fwrite(s, 1, n, f);
			s += n - 1;
			continue;
		}

		if (c == '"' || c == '\\') {
			putc('\\', f);
			putc(c, f);
		} else if (c == '\n') {
			out_str(f, "\\n");
		} else if (c == '\t') {
			out_str(f, "\\t");
		} else if (c < 0x20 || c == 0x7f) {
			out_str(f, "\\u00");
			putc(hex[c >> 4], f);
			putc(hex[c & 15], f);
		} else {
			putc(c, f);
		}
	}
	putc('"', f);
}

static void put_hex(FILE *f, uint64_t x)
{
	out_fmt(f, "\"0x%llx\"", (unsigned long long)x);
}

/* Sizes are integers; a value beyond JSON's signed 64 bits is "0x...". */
static void put_size(FILE *f, uint64_t x)
{
	if (x > INT64_MAX)
		put_hex(f, x);
	else
		out_fmt(f, "%llu", (unsigned long long)x);
}

static int writer_io_error(struct vt_trace_writer *w, struct vt_error *err)
{
	int e = errno ? errno : EIO;

	set_loc(err, w->path ? w->path : "<stdout>", 0, 0, -1);
	return vt_error_set(err, -e, "cannot write trace '%s': %s",
			    w->path ? w->path : "<stdout>", strerror(e));
}

static int writer_header(struct vt_trace_writer *w,
			 const struct vt_trace_config *cfg,
			 const char *meta_json, struct vt_error *err)
{
	const struct geometry *geo = NULL;
	char *meta = NULL;

	if (meta_json) {
		json_error_t je;
		json_t *m = json_loads(meta_json, JSON_REJECT_DUPLICATES, &je);

		if (!m || !json_is_object(m)) {
			json_decref(m);
			return vt_error_set(err, -EINVAL,
					    "trace meta is not a JSON object");
		}
		meta = json_dumps(m, JSON_COMPACT);
		json_decref(m);
		if (!meta)
			return vt_error_set(err, -ENOMEM, "out of memory");
	}
	if (cfg && cfg->page_shift) {
		geo = geometry_by_shift(cfg->page_shift);
		if (!geo) {
			free(meta);
			return vt_error_set(err, -EINVAL,
					    "page shift %u is not 12, 14 or 16",
					    cfg->page_shift);
		}
		w->page_shift = cfg->page_shift;
	}
	out_fmt(w->f, "{\"format\":\"%s\",\"version\":%d,\"meta\":",
		VT_TRACE_FORMAT, VT_TRACE_VERSION);
	out_str(w->f, meta ? meta : "{}");
	free(meta);
	if (cfg && (cfg->page_shift || cfg->va_bits)) {
		const char *sep = "";

		out_str(w->f, ",\"config\":{");
		if (geo) {
			out_fmt(w->f, "\"granule\":\"%s\"", geo->name);
			sep = ",";
		}
		if (cfg->va_bits)
			out_fmt(w->f, "%s\"va_bits\":%u", sep, cfg->va_bits);
		putc('}', w->f);
	}
	out_str(w->f, w->jsonl ? "}\n" : ",\"events\":[");
	if (ferror(w->f))
		return writer_io_error(w, err);
	return 0;
}

static struct vt_trace_writer *writer_alloc(FILE *f, bool jsonl)
{
	struct vt_trace_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->f = f;
	w->jsonl = jsonl;
	w->first = true;
	return w;
}

int vt_trace_writer_open_file(FILE *f, bool jsonl,
			      const struct vt_trace_config *cfg,
			      const char *meta_json,
			      struct vt_trace_writer **out, struct vt_error *err)
{
	struct vt_trace_writer *w = writer_alloc(f, jsonl);
	int ret;

	*out = NULL;
	if (!w)
		return vt_error_set(err, -ENOMEM, "out of memory");
	ret = writer_header(w, cfg, meta_json, err);
	if (ret) {
		free(w);
		return ret;
	}
	*out = w;
	return 0;
}

int vt_trace_writer_open(const char *path, bool jsonl,
			 const struct vt_trace_config *cfg,
			 const char *meta_json, struct vt_trace_writer **out,
			 struct vt_error *err)
{
	struct vt_trace_writer *w = writer_alloc(NULL, jsonl);
	int fd, ret;

	*out = NULL;
	if (!w)
		return vt_error_set(err, -ENOMEM, "out of memory");
	w->path = strdup(path);
	if (!w->path || asprintf(&w->tmp, "%s.tmpXXXXXX", path) < 0) {
		w->tmp = NULL;
		ret = vt_error_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	fd = mkstemp(w->tmp);
	if (fd < 0) {
		ret = -errno;
		set_loc(err, path, 0, 0, -1);
		vt_error_set(err, ret, "cannot create '%s': %s", path,
			     strerror(-ret));
		free(w->tmp);
		w->tmp = NULL;
		goto fail;
	}
	/* mkstemp() makes 0600; give the file the mode open(2) would. */
	{
		mode_t mask = umask(0);

		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	w->f = fdopen(fd, "w");
	if (!w->f) {
		ret = -errno;
		close(fd);
		unlink(w->tmp);
		vt_error_set(err, ret, "cannot create '%s': %s", path,
			     strerror(-ret));
		goto fail;
	}
	w->own = true;
	ret = writer_header(w, cfg, meta_json, err);
	if (ret) {
		vt_trace_writer_abort(w);
		return ret;
	}
	*out = w;
	return 0;
fail:
	free(w->tmp);
	free(w->path);
	free(w);
	return ret;
}

int vt_trace_writer_event(struct vt_trace_writer *w, const struct vt_event *ev,
			  struct vt_error *err)
{
	FILE *f = w->f;
	bool any_flag = false;

	if (ev->op >= VT_OP__NR)
		return vt_error_set(err, -EINVAL, "invalid op %d", ev->op);
	if (!w->jsonl)
		out_str(f, w->first ? "\n" : ",\n");
	w->first = false;
	out_fmt(f, "{\"op\":\"%s\"", vt_op_names[ev->op]);
	if (ev->id.present) {
		out_str(f, ",\"id\":");
		if (ev->id.is_str)
			put_str(f, ev->id.str ? ev->id.str : "");
		else if (ev->id.num > INT64_MAX)
			return vt_error_set(err, -EINVAL,
					    "id %llu does not fit a JSON integer",
					    (unsigned long long)ev->id.num);
		else
			out_fmt(f, "%llu", (unsigned long long)ev->id.num);
	}
	if (ev->size || ev->op == VT_OP_VMALLOC || ev->op == VT_OP_IOREMAP ||
	    ev->op == VT_OP_LINEAR_MAP) {
		out_str(f, ",\"size\":");
		put_size(f, ev->size);
	}
	if (ev->op == VT_OP_IOREMAP || ev->op == VT_OP_LINEAR_MAP || ev->phys) {
		out_str(f, ",\"phys\":");
		put_hex(f, ev->phys);
	}
	if (ev->align) {
		out_str(f, ",\"align\":");
		put_size(f, ev->align);
	}
	if (ev->range == VT_RANGE_MODULES)
		out_str(f, ",\"range\":\"modules\"");
	if (ev->has_pages || ev->nr_runs) {
		out_str(f, ",\"pages\":[");
		for (uint32_t i = 0; i < ev->nr_runs; i++) {
			const struct vt_page_run *pr = &ev->runs[i];

			out_fmt(f, "%s{\"pfn\":\"0x%llx\",\"order\":%u",
				i ? "," : "", (unsigned long long)pr->pfn,
				pr->order);
			if (pr->count != 1)
				out_fmt(f, ",\"count\":%llu",
					(unsigned long long)pr->count);
			putc('}', f);
		}
		putc(']', f);
	}
	for (int b = 0; b < VT_FB__NR; b++) {
		if (!(ev->flags & (1u << b)))
			continue;
		out_fmt(f, "%s\"%s\"", any_flag ? "," : ",\"flags\":[",
			vt_flag_names[b]);
		any_flag = true;
	}
	if (any_flag)
		putc(']', f);
	if (ev->prot != (ev->op == VT_OP_IOREMAP ? VT_PROT_DEVICE : VT_PROT_KERNEL)) {
		if (ev->prot >= VT_PROT__NR)
			return vt_error_set(err, -EINVAL, "invalid prot %u",
					    ev->prot);
		out_fmt(f, ",\"prot\":\"%s\"", vt_prot_names[ev->prot]);
	}
	if (ev->has_va) {
		out_str(f, ",\"va\":");
		put_hex(f, ev->va);
	}
	if (ev->has_t) {
		/* as sizes: a time of 2^63 ns or more is "0x..." */
		out_str(f, ",\"t\":");
		put_size(f, ev->t);
	}
	if (ev->cpu >= 0)
		out_fmt(f, ",\"cpu\":%d", ev->cpu);
	if (ev->caller) {
		out_str(f, ",\"caller\":");
		put_str(f, ev->caller);
	}
	out_str(f, w->jsonl ? "}\n" : "}");
	if (ferror(f))
		return writer_io_error(w, err);
	return 0;
}

int vt_trace_writer_commit(struct vt_trace_writer *w, struct vt_error *err)
{
	int ret = 0;

	if (!w->jsonl)
		out_str(w->f, w->first ? "]}\n" : "\n]}\n");
	if (fflush(w->f) || ferror(w->f))
		ret = writer_io_error(w, err);
	if (w->own) {
		if (fclose(w->f) && !ret)
			ret = writer_io_error(w, err);
		w->f = NULL;
		if (!ret && rename(w->tmp, w->path))
			ret = writer_io_error(w, err);
		if (ret)
			unlink(w->tmp);
	}
	free(w->tmp);
	free(w->path);
	free(w);
	return ret;
}

void vt_trace_writer_abort(struct vt_trace_writer *w)
{
	if (!w)
		return;
	if (w->own) {
		if (w->f)
			fclose(w->f);
		unlink(w->tmp);
	}
	free(w->tmp);
	free(w->path);
	free(w);
}
