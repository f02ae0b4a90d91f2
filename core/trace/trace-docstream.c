// SPDX-License-Identifier: GPL-2.0
/* One-document traces, streamed (see below). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/input.h"
#include "core/trace/trace-reader.h"

/* ---- one-document traces, streamed ------------------------------------ */

/*
 * A one-document trace is read in two streaming passes so that memory
 * stays flat whatever the file size (issue 14): at open, pass 1 checks the
 * syntax of the whole document (each element of "events" through the fast
 * path or one json_loadb(), then dropped), keeps the other top-level
 * values for vt_trace_parse_header() and counts the events;
 * vt_trace_next() then reads the events again from where the array starts,
 * one element at a time, noting each element's line and column as
 * vt_trace_scan_event_positions() does.  Whatever pass 1 does not
 * recognise (a top-level key with an escape, a duplicate key, an element
 * that is not an object, nesting deeper than DOC_MAX_DEPTH, a syntax or
 * header error, a read error) is handed to the whole-document path, so
 * that every error and its position stays exactly what it was.
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
	if (ds->cap - ds->len < DOC_BLOCK / 2 &&
	    VT_ALLOC_GROW(ds->buf, ds->len + DOC_BLOCK, ds->cap)) {
		ds->io_error = true;
		ds->eof = true;
		return false;
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
 * vt_trace_scan_event_positions() does. */
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

void vt_doc_src_release(struct doc_src *ds)
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
	vt_line_arena_reset(r);
	j = vt_line_arena_loadb(r, p, n, &je);
	r->cur = j;
	vt_line_arena_reset(r);
	return j != NULL;
}

/*
 * Pass 1 over "events", the cursor on its '[': note where the array
 * starts, check and count its elements.  False if pass 1 declines.
 */
static bool ds_scan_events(struct vt_trace_reader *r, struct vt_trace_fast *fp)
{
	struct doc_src *ds = &r->ds;
	int c;

	ds_take(ds);
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
				return false;
			r->nr_events++;
			c = ds_skip_ws(ds);
			if (c != ',')
				break;
			ds_take(ds);
			c = ds_skip_ws(ds);
		}
		if (c != ']')
			return false;
	}
	ds_take(ds);
	return true;
}

/*
 * A member of the top object other than "events" (meta, config) as a
 * jansson value into @top, its tree charged to @bud.  Returns 0, 1 (not
 * one value: the whole-document path) or a negative code (the budget).
 */
static int ds_member(struct vt_trace_reader *r, struct vt_json_budget *bud,
		     json_t *top, const char *key, struct vt_error *err)
{
	struct doc_src *ds = &r->ds;
	unsigned long line = ds->line, col = ds->col + 1;
	const char *p;
	size_t n;
	json_error_t je;
	json_t *v;
	char what[80];

	if (!ds_value(ds, &p, &n))
		return 1;
	v = json_loadb(p, n, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
	if (bud->hit) {
		/* "meta" of 24 times its text: refused where it starts */
		json_decref(v);
		vt_json_error_oom(&je);	/* consumed: not out of memory */
		snprintf(what, sizeof(what), "\"%s\"", key);
		return vt_json_budget_error(err, r->name, line, col, what, bud->max);
	}
	v = vt_json_whole(v);
	if (!v) {
		/* the whole-document path reads it again from the start */
		vt_json_error_oom(&je);
		return 1;
	}
	if (json_object_set_new(top, key, v))
		return 1;
	return 0;
}

/*
 * Pass 1.  Returns 0 (streaming), 1 (use the whole-document path) or a
 * negative code (out of memory).
 */
int vt_doc_stream_open(struct vt_trace_reader *r, struct vt_error *err)
{
	struct doc_src *ds = &r->ds;
	struct vt_trace_fast *fp;
	char keys[DOC_MAX_KEYS][64];
	int nr_keys = 0, c, ret = 1;
	bool have_events = false, budget_on = true;
	struct vt_json_budget bud;
	json_t *top;

	/* the trees of the values beside "events" (core/input.h) */
	vt_json_budget_begin(&bud, r->max_input);

	ds->line = 1;
	ds->mark = SIZE_MAX;
	top = json_object();
	fp = calloc(1, sizeof(*fp));
	if (!r->arena)
		r->arena = vt_line_arena_new();
	if (!top || !fp || !r->arena) {
		ret = vt_err_oom(err);
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
			have_events = true;
			if (!ds_scan_events(r, fp))
				goto out;
			if (json_object_set_new(top, key, json_array()))
				goto out;
		} else {
			ret = ds_member(r, &bud, top, key, err);
			if (ret)
				goto out;
			ret = 1;
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
	/* the header's own copies (json_dumps() of "meta") are not the tree */
	vt_json_budget_end(&bud);
	budget_on = false;
	{
		size_t nr = r->nr_events;

		if (vt_trace_parse_header(r, top, false, err)) {
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
	if (budget_on)
		vt_json_budget_end(&bud);
	if (ret) {
		r->nr_events = 0;
		r->budget_hit = false;	/* an element's: the whole-document path */
		vt_doc_src_release(ds);
	}
	json_decref(top);
	if (fp)
		vt_trace_fast_release(fp);
	free(fp);
	return ret;
}

/* Pass 2: the next element of "events". */
int vt_doc_stream_next(struct vt_trace_reader *r, struct vt_event *ev,
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

		vt_line_arena_reset(r);
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
		ret = vt_trace_read_event(r, p, n, ev, err);
		if (ret == 1)
			continue;
		return ret ? ret : 1;
	}
	return 0;

io_error:
	vt_trace_set_loc(err, r->name, ds->line, 0, -1);
	if (vt_input_limit_hit(r->in, err))
		return err->code;
	return vt_error_set(err, -EIO, "cannot read trace '%s': %s", r->name,
			    "the file changed while it was read");
}

