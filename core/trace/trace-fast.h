/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The JSON Lines fast path (core/trace/trace-fast.c): a reader of its own
 * for the event lines vmaptool writes and the common hand-written shapes.
 * Private to the trace reader (core/trace/trace-read.c, trace-reader.h).
 */
#ifndef VT_TRACE_FAST_H
#define VT_TRACE_FAST_H

#include <stddef.h>

#include "core/trace/trace.h"

/* Strings the reader keeps (op, id, caller, flag names) are short. */
#define VT_TRACE_MAX_STRING 4096

struct vt_trace_fast {
	/* the reader's limits, as vt_trace_parse_event() applies them */
	unsigned int page_shift;
	unsigned int max_order;
	unsigned int pa_bits;
	/* storage of the last event read */
	struct vt_page_run *runs;
	size_t runs_cap;
	char id[VT_TRACE_MAX_STRING + 1];
	/* the last caller the fast path read, a plain string, after the
	 * quote it had in its line; @caller_qlen: its length with that
	 * quote (0: none read) */
	char caller[VT_TRACE_MAX_STRING + 2];
	size_t caller_qlen;
};

/*
 * Read the event line @line (@n bytes, no newline) into @ev, all but its
 * line and column (the caller's to set).  Returns 1 if the line is one
 * the fast path recognises and it is a valid event exactly as the jansson
 * path would read it; 0 if the line is to be read by the jansson path
 * (any other shape, any error, any warning: so messages stay the jansson
 * path's); -ENOMEM.
 */
int vt_trace_fast_event(struct vt_trace_fast *fp, const char *line, size_t n,
			struct vt_event *ev);
/*
 * Where a JSON Lines reader is in its input (core/trace/trace-read.c):
 * the bytes at hand not read yet, from @cur to @end; @eof when nothing
 * follows them; @lineno: the number of the last line read.
 */
struct vt_trace_lines {
	const char *cur, *end;
	bool eof;
	unsigned long lineno;
};

/*
 * Read the next line of @in through the fast path, where it lies: the
 * line is the bytes before the first newline, or all the rest if @in->eof
 * and there is none, and its end is found by the parse, not by a scan
 * before it.  1 with the event in @ev (at line @in->lineno, column 1) and
 * @in past the line and its newline; 0 and @in unmoved if the fast path
 * does not take the line (as vt_trace_fast_event() would not) or the line
 * may go on past the bytes at hand.
 */
int vt_trace_fast_next(struct vt_trace_fast *fp, struct vt_trace_lines *in,
		       struct vt_event *ev);
void vt_trace_fast_release(struct vt_trace_fast *fp);

#endif
