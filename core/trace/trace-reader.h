/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace reader's private interface, shared by the files that make it
 * (spec/interfaces.md section 2); the callers see core/trace/trace.h.  The
 * files call downwards only:
 *
 *   trace-read.c       open, next, close: one document or JSON Lines
 *   trace-docstream.c  a one-document trace read in two streaming passes
 *   trace-schema.c     the checks of the header and of one event (and the
 *                      errors and warnings they give)
 *   trace-arena.c      the bump arena the jansson values of a line live in
 *   trace-positions.c  where each element of "events" starts
 *   trace-fast.c       the JSON Lines fast path
 *   trace-write.c      the writer (uses trace-schema.c's errors only)
 */
#ifndef VT_TRACE_READER_H
#define VT_TRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "core/trace/trace.h"
#include "core/trace/trace-fast.h"

#ifndef JSON_PARSER_MAX_DEPTH
#define JSON_PARSER_MAX_DEPTH 2048	/* jansson's src/jansson_config.h */
#endif

/*
 * A bump allocator for the jansson values of one JSON Lines line; see
 * core/trace/trace-arena.c.
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
	bool budget_hit;		/* a tree passed its budget (core/input.h) */
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
	unsigned long *pos;		/* 3 per event: line, column, offset */
	const char *doc;		/* the document's text (errors' columns) */
	size_t doc_len;
	char *doc_own;			/* @doc when the reader allocated it */
	bool doc_stream;		/* read in two streaming passes */
	bool ds_started;
	struct doc_src ds;
	uint64_t ds_events_off;		/* just after "events": [ */
	unsigned long ds_events_line, ds_events_col;

	/* JSON Lines */
	FILE *f;
	char *line;			/* the header line, then read blocks */
	size_t line_cap;
	struct vt_trace_lines lines;	/* @line's block, or the memory buffer */
	json_t *cur;			/* the line's tree, in @arena */
	struct line_arena *arena;
	bool no_fast_path;
	struct vt_trace_fast *fast;	/* trace-fast.c */
	bool fast_ready;		/* @fast on, no line's tree to reset */

	long index;			/* of the event being read */
	unsigned long ev_line, ev_col;
	const char *ev_text;		/* its text while it is parsed, or NULL */
	size_t ev_len;

	struct vt_page_run *runs;
	size_t runs_cap;

	char *warn;
	size_t warn_len, warn_cap;
	char **warned;			/* hash set, warned_cap slots */
	size_t nr_warned, warned_cap;
};

/* trace-schema.c: errors */
void vt_trace_set_loc(struct vt_error *err, const char *file,
		      unsigned long line, unsigned long col, long event);
int vt_trace_json_fail(struct vt_trace_reader *r, struct vt_error *err,
		       const json_error_t *je, unsigned long line_base,
		       long event);
/* trace-schema.c: the top-level object (or the JSON Lines header line) */
int vt_trace_parse_header(struct vt_trace_reader *r, const json_t *top,
			  bool jsonl, struct vt_error *err);
/* trace-schema.c: one event object; 0, 1 (an unknown op to skip) or < 0 */
int vt_trace_parse_event(struct vt_trace_reader *r, json_t *obj,
			 struct vt_event *ev, struct vt_error *err);
/* trace-schema.c: one event's JSON text, the fast path first */
int vt_trace_read_event(struct vt_trace_reader *r, const char *p, size_t n,
			struct vt_event *ev, struct vt_error *err);
/* trace-schema.c: "4k", "16k", "64k" for a page shift, else NULL */
const char *vt_trace_granule_name(unsigned int page_shift);

/* trace-positions.c */
bool vt_trace_scan_event_positions(const char *buf, size_t len, size_t n,
				   unsigned long *pos);	/* 3 per event */
/* The position of the value @path (".pages[0].order") names in the event
 * text @p, @n bytes that begin at *@line:*@col: moved there, or to the
 * deepest part of the path found (a missing key: its object). */
void vt_trace_value_pos(const char *p, size_t n, const char *path,
			unsigned long *line, unsigned long *col);

/* trace-arena.c */
struct line_arena *vt_line_arena_new(void);
void vt_line_arena_reset(struct vt_trace_reader *r);
void vt_line_arena_destroy(struct line_arena *a);
json_t *vt_line_arena_loadb(struct vt_trace_reader *r, const char *line,
			    size_t n, json_error_t *je);

/* trace-docstream.c */
int vt_doc_stream_open(struct vt_trace_reader *r, struct vt_error *err);
int vt_doc_stream_next(struct vt_trace_reader *r, struct vt_event *ev,
		       struct vt_error *err);
void vt_doc_src_release(struct doc_src *ds);

#endif
