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
	/* the caller of the last event the fast path copied (zeroed: "") */
	char caller[VT_TRACE_MAX_STRING + 1];
	size_t caller_len;
};

/*
 * Read the event line @line (@n bytes, no newline) into @ev.  Returns 1 if
 * the line is one the fast path recognises and it is a valid event exactly
 * as the jansson path would read it; 0 if the line is to be read by the
 * jansson path (any other shape, any error, any warning: so messages stay
 * the jansson path's); -ENOMEM.
 */
int vt_trace_fast_event(struct vt_trace_fast *fp, const char *line, size_t n,
			struct vt_event *ev);
/*
 * The same for the JSON Lines line that starts at @p, in a buffer of
 * @avail bytes: the line is the bytes before the first newline, or all
 * @avail bytes if @eof (the end of the input) and there is none.  1 sets
 * *@len, the line's length without its newline: the caller finds the
 * line's end without a scan of its own.  0 also when the line may go on
 * past the buffer (the caller reads on and tries vt_trace_fast_event()).
 */
int vt_trace_fast_line(struct vt_trace_fast *fp, const char *p, size_t avail,
		       bool eof, struct vt_event *ev, size_t *len);
void vt_trace_fast_release(struct vt_trace_fast *fp);

#endif
