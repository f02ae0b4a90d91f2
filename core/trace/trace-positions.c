// SPDX-License-Identifier: GPL-2.0
/*
 * jansson keeps no positions for values, so for a one-document trace read
 * whole this small scanner finds where each element of "events" starts,
 * and schema errors still name a line and column; and, where the event's
 * text is at hand (a JSON Lines line, an event of a streamed document),
 * where in it the value an error names lies.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace/trace-reader.h"

/* ---- positions of the events of a one-document trace ---------------- */

/* A byte @c inside a JSON string (*@esc: the one after a backslash):
 * false at the string's closing quote. */
static inline bool string_byte(unsigned char c, bool *esc)
{
	if (*esc) {
		*esc = false;
		return true;
	}
	if (c == '\\') {
		*esc = true;
		return true;
	}
	return c != '"';
}


/*
 * Find where each element of the top-level "events" array starts.  Fills
 * @pos with @n (line, column, byte offset) triples and returns true if
 * exactly @n were found; jansson has already validated the text.
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
			if (!string_byte(c, &esc)) {
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
			pos[3 * found] = line;
			pos[3 * found + 1] = col;
			pos[3 * found + 2] = i;
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


/* ---- where a value of one event lies -------------------------------- */

static size_t skip_ws(const char *p, size_t n, size_t i)
{
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
		i++;
	return i;
}

/* Past the value at @i (jansson has validated the text). */
static size_t skip_value(const char *p, size_t n, size_t i)
{
	int depth = 0;
	bool in_str = false, esc = false;

	for (; i < n; i++) {
		char c = p[i];

		if (in_str) {
			if (!string_byte((unsigned char)c, &esc)) {
				in_str = false;
				if (!depth)
					return i + 1;
			}
			continue;
		}
		if (c == '"')
			in_str = true;
		else if (c == '{' || c == '[')
			depth++;
		else if (c == '}' || c == ']') {
			if (!depth)
				return i;	/* the end of a scalar */
			if (!--depth)
				return i + 1;
		} else if (!depth && (c == ',' || c == ' ' || c == '\t' ||
				      c == '\r' || c == '\n'))
			return i;
	}
	return i;
}

/* In the object at @i, the value of member @key (@klen bytes, compared
 * with the key's text as written); SIZE_MAX when it has none. */
static size_t member(const char *p, size_t n, size_t i, const char *key, size_t klen)
{
	if (i >= n || p[i] != '{')
		return SIZE_MAX;
	for (i = skip_ws(p, n, i + 1); i < n && p[i] == '"';) {
		size_t k = i + 1, e = skip_value(p, n, i);
		bool hit = e - k - 1 == klen && !memcmp(p + k, key, klen);

		i = skip_ws(p, n, e);
		if (i >= n || p[i] != ':')
			return SIZE_MAX;
		i = skip_ws(p, n, i + 1);
		if (hit)
			return i;
		i = skip_ws(p, n, skip_value(p, n, i));
		if (i >= n || p[i] != ',')
			return SIZE_MAX;
		i = skip_ws(p, n, i + 1);
	}
	return SIZE_MAX;
}

/* In the array at @i, element @k; SIZE_MAX when it has none. */
static size_t element(const char *p, size_t n, size_t i, unsigned long k)
{
	if (i >= n || p[i] != '[')
		return SIZE_MAX;
	i = skip_ws(p, n, i + 1);
	for (; k; k--) {
		if (i >= n || p[i] == ']')
			return SIZE_MAX;
		i = skip_ws(p, n, skip_value(p, n, i));
		if (i >= n || p[i] != ',')
			return SIZE_MAX;
		i = skip_ws(p, n, i + 1);
	}
	return i < n && p[i] != ']' ? i : SIZE_MAX;
}

void vt_trace_value_pos(const char *p, size_t n, const char *path,
			unsigned long *line, unsigned long *col)
{
	size_t at = skip_ws(p, n, 0);

	/* down the path while it is found: a missing key names its object */
	while (*path == '.' || *path == '[') {
		size_t next;

		if (*path == '.') {
			size_t klen = strcspn(path + 1, ".[:] ");

			next = member(p, n, at, path + 1, klen);
			path += 1 + klen;
		} else {
			char *end;
			unsigned long k = strtoul(path + 1, &end, 10);

			if (*end != ']')
				break;
			next = element(p, n, at, k);
			path = end + 1;
		}
		if (next == SIZE_MAX)
			break;
		at = next;
	}
	for (size_t i = 0; i < at && i < n; i++) {
		if (p[i] == '\n') {
			++*line;
			*col = 1;
		} else if (((unsigned char)p[i] & 0xc0) != 0x80) {
			++*col;
		}
	}
}
