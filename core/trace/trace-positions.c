// SPDX-License-Identifier: GPL-2.0
/*
 * jansson keeps no positions for values, so for a one-document trace read
 * whole this small scanner finds where each element of "events" starts,
 * and schema errors still name a line and column.
 */
#include <string.h>

#include "core/trace/trace-reader.h"

/* ---- positions of the events of a one-document trace ---------------- */

/*
 * Find where each element of the top-level "events" array starts.  Fills
 * @pos with @n (line, column) pairs and returns true if exactly @n were
 * found; jansson has already validated the text.
 */
bool vt_trace_scan_event_positions(const char *buf, size_t len, size_t n,
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

