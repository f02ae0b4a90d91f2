// SPDX-License-Identifier: GPL-2.0
/*
 * Trace format v1 (spec/interfaces.md section 2): opening a trace, reading
 * its events, closing it.
 *
 * A trace is one JSON document, or JSON Lines: a file whose first line is a
 * complete JSON object without "events" is read line by line, one event
 * per line, so that memory stays flat however long the trace is.  A one-
 * document trace is streamed in two passes where it can be
 * (trace-docstream.c), else read whole, its event positions found by
 * trace-positions.c.  Every event is checked by trace-schema.c.
 */
#define _GNU_SOURCE	/* getline */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/input.h"
#include "core/trace/trace-reader.h"

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

/* The fast path, with the limits vt_trace_parse_header() settled. */
static int fast_setup(struct vt_trace_reader *r, struct vt_error *err)
{
	if (r->no_fast_path)
		return 0;
	r->fast = calloc(1, sizeof(*r->fast));
	if (!r->fast)
		return vt_err_oom(err);
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
	struct vt_json_budget b;
	json_error_t je;
	json_t *h;
	int ret;

	/* a one-line document is parsed whole here: bounded, and past the
	 * bound read as a document, streamed (core/input.h) */
	vt_json_budget_begin(&b, r->max_input);
	h = json_loadb(first, len, JSON_REJECT_DUPLICATES, &je);
	if (vt_json_budget_end(&b)) {
		vt_json_error_oom(&je);	/* consumed: not out of memory */
		json_decref(h);
		return 0;
	}
	h = vt_json_whole(h);
	if (!h && vt_json_error_oom(&je))	/* not "not a header" */
		return vt_json_oom_error(err, r->name);
	if (!h)
		return 0;
	if (!json_is_object(h) || json_object_get(h, "events")) {
		json_decref(h);
		return 0;
	}
	r->jsonl = true;
	r->lines.lineno = 1;
	r->arena = vt_line_arena_new();
	if (!r->arena) {
		json_decref(h);
		return vt_err_oom(err);
	}
	ret = vt_trace_parse_header(r, h, true, err);
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
		vt_trace_set_loc(err, r->name, 1, 1, -1);
		return vt_error_set(err, VT_ERR_TRACE_SYNTAX,
				    "empty file: expected a JSON trace");
	}
	{
		struct vt_json_budget b;

		/* the whole tree: a pipe's document (core/input.h) */
		vt_json_budget_begin(&b, r->max_input);
		r->root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
		if (vt_json_budget_end(&b)) {
			r->budget_hit = true;
			json_decref(r->root);
			r->root = NULL;
		} else {
			r->root = vt_json_whole(r->root);
		}
	}
	if (!r->root)
		return vt_trace_json_fail(r, err, &je, 0, -1);
	ret = vt_trace_parse_header(r, r->root, false, err);
	if (ret)
		return ret;
	if (r->nr_events) {
		r->pos = malloc(3 * r->nr_events * sizeof(*r->pos));
		if (!r->pos)
			return vt_err_oom(err);
		if (!vt_trace_scan_event_positions(buf, len, r->nr_events, r->pos)) {
			free(r->pos);
			r->pos = NULL;
		}
	}
	r->doc = buf;
	r->doc_len = len;
	return 0;
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
		return vt_err_oom(err);
	nl = memchr(buf, '\n', len);
	ret = try_jsonl_header(r, buf, nl ? (size_t)(nl - buf) : len, err);
	if (ret == 1) {
		r->lines.cur = nl ? nl + 1 : buf + len;
		r->lines.end = buf + len;
		r->lines.eof = true;	/* no more to read than @buf */
		ret = 0;
	} else if (ret == 0) {
		ret = 1;
		if (!r->no_fast_path) {
			r->ds.buf = (char *)buf;
			r->ds.len = len;
			r->ds.eof = true;
			ret = vt_doc_stream_open(r, err);
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
		return vt_err_oom(err);
	/* "-", pipes and devices too; bounded by --max-input (core/input.h) */
	vt_trace_set_loc(err, path, 0, 0, -1);
	ret = vt_input_open(path, "trace", r->max_input, &r->f, &r->in, err);
	if (ret)
		goto fail;
	/* per line until the first line says: JSON Lines is limited per line
	 * from its first byte, one document whole (vt_input_whole() below) */
	vt_input_per_line(r->in);
	errno = 0;
	n = getline(&r->line, &r->line_cap, r->f);
	if (n < 0 || ferror(r->f)) {
		if (ferror(r->f) || errno)
			goto io_error;
		vt_trace_set_loc(err, path, 1, 1, -1);
		ret = vt_error_set(err, VT_ERR_TRACE_SYNTAX,
				   "empty file: expected a JSON trace");
		goto fail;
	}
	len = n;
	ret = try_jsonl_header(r, r->line, n && r->line[n - 1] == '\n' ? n - 1 : n,
			       err);
	if (ret == 1) {
		r->lines.cur = r->line;	/* no block read yet */
		r->lines.end = r->line;
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
		ret = vt_doc_stream_open(r, err);
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
		ret = vt_err_oom(err);
		goto fail;
	}
	memcpy(buf, r->line, len);
	for (;;) {
		size_t got;

		if (cap - len < 65536 && VT_ALLOC_GROW(buf, cap * 2, cap)) {
			ret = vt_err_oom(err);
			goto fail;
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
	r->doc_own = buf;	/* kept for the columns of errors */
	buf = NULL;
	if (ret)
		goto fail;
	*out = r;
	return 0;

io_error:
	ret = errno ? -errno : -EIO;
	vt_trace_set_loc(err, path, 0, 0, -1);
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
 * Next line of a JSON Lines trace (without newline): its length, -1 at
 * the end or -2 on an error.  A file is read in large blocks into r->line
 * (so a line costs a memchr(), not a getline() call); lines of any length.
 */
static ssize_t next_line(struct vt_trace_reader *r, const char **line,
			 struct vt_error *err)
{
	struct vt_trace_lines *in = &r->lines;

	in->lineno++;
	for (;;) {
		const char *s = in->cur, *nl;
		size_t left = in->end - s, got;

		nl = memchr(s, '\n', left);
		if (nl) {
			in->cur = nl + 1;
			*line = s;
			return nl - s;
		}
		if (in->eof) {
			if (!left)
				return -1;
			in->cur = in->end;
			*line = s;
			return left;
		}
		/* keep the partial line, make room, read on */
		memmove(r->line, s, left);
		in->cur = r->line;
		in->end = r->line + left;
		if (r->line_cap - left < VT_READ_BLOCK / 2 &&
		    VT_ALLOC_GROW(r->line, left + VT_READ_BLOCK, r->line_cap)) {
			vt_trace_set_loc(err, r->name, in->lineno, 0, -1);
			vt_err_oom(err);
			return -2;
		}
		/* through the counting stream: --max-input per line */
		errno = 0;
		got = fread(r->line + left, 1, r->line_cap - left, r->f);
		in->cur = r->line;
		in->end = r->line + left + got;
		if (got < r->line_cap - left) {
			if (ferror(r->f)) {
				int e = errno ? errno : EIO;

				vt_trace_set_loc(err, r->name, in->lineno, 0, -1);
				if (!vt_input_limit_hit(r->in, err))
					vt_error_set(err, -e, "cannot read trace '%s': %s",
						     r->name, strerror(e));
				else
					err->line = in->lineno;
				return -2;
			}
			in->eof = true;
		}
	}
}

/*
 * The next event of a JSON Lines trace: each line through the fast path
 * (@tried: the line at hand was, and it did not take it), else the
 * general way (next_line(), jansson, core/trace/trace-schema.c).
 */
static __attribute__((noinline)) int next_jsonl(struct vt_trace_reader *r,
						 struct vt_event *ev,
						 struct vt_error *err,
						 bool tried)
{
	for (;;) {
		const char *line;
		ssize_t n;
		int ret;

		if (r->cur || r->arena->used || r->arena->spilled)
			vt_line_arena_reset(r);
		if (r->fast) {
			r->fast_ready = true;
			if (!tried && vt_trace_fast_next(r->fast, &r->lines, ev)) {
				r->index++;
				return 1;
			}
		}
		tried = false;
		n = next_line(r, &line, err);
		if (n == -1)
			return 0;
		if (n < 0)
			return err && err->code ? err->code : -EIO;
		if (all_space(line, n))
			continue;
		r->index++;
		r->ev_line = r->lines.lineno;
		r->ev_col = 1;
		r->fast_ready = false;	/* the line's tree stays until the next */
		ret = vt_trace_read_event(r, line, (size_t)n, ev, err);
		if (ret == 1)
			continue;
		return ret ? ret : 1;
	}
}

int vt_trace_next(struct vt_trace_reader *r, struct vt_event *ev,
		  struct vt_error *err)
{
	/* most lines of a JSON Lines trace: the fast path, nothing to reset */
	if (r->fast_ready) {
		if (vt_trace_fast_next(r->fast, &r->lines, ev)) {
			r->index++;
			return 1;
		}
		return next_jsonl(r, ev, err, true);
	}
	if (r->jsonl)
		return next_jsonl(r, ev, err, false);
	if (r->doc_stream)
		return vt_doc_stream_next(r, ev, err);
	while (r->next < r->nr_events) {
		size_t i = r->next++;
		int ret;

		r->index = i;
		r->ev_line = r->pos ? r->pos[3 * i] : 0;
		r->ev_col = r->pos ? r->pos[3 * i + 1] : 0;
		if (r->pos) {
			r->ev_text = r->doc + r->pos[3 * i + 2];
			r->ev_len = r->doc_len - r->pos[3 * i + 2];
		}
		ret = vt_trace_parse_event(r, json_array_get(r->events, i), ev, err);
		r->ev_text = NULL;
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
	vt_line_arena_reset(r);
	vt_line_arena_destroy(r->arena);
	vt_doc_src_release(&r->ds);
	if (r->fast)
		vt_trace_fast_release(r->fast);
	free(r->fast);
	json_decref(r->root);
	free(r->line);
	free(r->pos);
	free(r->doc_own);
	free(r->meta);
	free(r->runs);
	free(r->warn);
	for (size_t i = 0; i < r->warned_cap; i++)
		free(r->warned[i]);
	free(r->warned);
	free(r);
}

