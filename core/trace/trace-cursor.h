/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The byte scanners of the JSON Lines fast path (trace-fast.c): a cursor
 * over one line that stays in registers, JSON whitespace, plain strings
 * and integers read eight bytes a step (SWAR), "0x..." values.  Private
 * to trace-fast.c; each helper accepts exactly what the jansson path
 * reads the same way, and fails for anything else.
 */
#ifndef VT_TRACE_CURSOR_H
#define VT_TRACE_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The helpers below work on a cursor that lives in registers: they are
 * inlined into their callers (a cursor whose address escapes to a call
 * would be reloaded and stored at every byte). */
#define FAST_INLINE static inline __attribute__((always_inline))

struct cursor {
	const char *p, *e;
	/* a JSON Lines line read in its buffer (vt_trace_fast_next()): a
	 * newline is no whitespace but the end of the line */
	bool nl_ends;
};

/* Eight bytes at @p, the first in the low byte whatever the byte order. */
FAST_INLINE uint64_t load_le64(const char *p)
{
	uint64_t x;

	memcpy(&x, p, sizeof(x));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	return x;
}

FAST_INLINE unsigned int load_le16(const char *p)
{
	return (unsigned char)p[0] | (unsigned char)p[1] << 8;
}

/* The eight bytes of the literal @s from its byte @k (zero past its end)
 * as load_le64() reads them, and the mask of the first @n bytes of a
 * word: constants. */
#define LIT_B(s, k, i) \
	((uint64_t)(unsigned char)(s "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0")[(k) + (i)] << 8 * (i))
#define LIT_WORD_AT(s, k) (LIT_B(s, k, 0) | LIT_B(s, k, 1) | LIT_B(s, k, 2) | \
			   LIT_B(s, k, 3) | LIT_B(s, k, 4) | LIT_B(s, k, 5) | \
			   LIT_B(s, k, 6) | LIT_B(s, k, 7))
#define LIT_WORD(s) LIT_WORD_AT(s, 0)
#define LEN_MASK(n) ((n) >= 8 ? ~0ull : (1ull << (8 * (n) & 63)) - 1)

/* JSON whitespace: the four bytes at or below ' ' that the grammar allows
 * (but a newline that ends the line, see struct cursor) */
FAST_INLINE bool is_ws(const struct cursor *c, unsigned char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || (ch == '\n' && !c->nl_ends);
}

FAST_INLINE void cursor_skip_ws(struct cursor *c)
{
	/* most tokens follow the last one directly: one test for those */
	while (c->p < c->e && (unsigned char)*c->p <= ' ' && is_ws(c, *c->p))
		c->p++;
}

/* Expect @ch after optional whitespace. */
FAST_INLINE bool cursor_expect(struct cursor *c, char ch)
{
	if (c->p < c->e && *c->p == ch) {	/* no whitespace: most tokens */
		c->p++;
		return true;
	}
	cursor_skip_ws(c);
	if (c->p < c->e && *c->p == ch) {
		c->p++;
		return true;
	}
	return false;
}

/* The bytes that end a plain string or make it not one: the quote, the
 * backslash, control bytes and everything outside printable ASCII. */
static const unsigned char str_stop[256] = {
	[0 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1, [0x7f ... 0xff] = 1,
};

/*
 * The bytes of @x that are in str_stop, as the high bit of each (SWAR:
 * "x + 1" sets a high bit from 0x7f, "x - 0x20" from a byte below 0x20,
 * bytes of 0x80 and above have theirs set; a byte is 0 after the XOR
 * exactly when it equals the byte compared).  A carry or borrow leaves a
 * flagged byte only, and can flag a byte above it, never one below: the
 * lowest flag is the first stop byte (the first in memory).
 */
FAST_INLINE uint64_t stop_bits(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ull, high = ones << 7;
	uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');

	return (((q - ones) & ~q) | ((b - ones) & ~b) |
		x | (x + ones) | (x - ones * 0x20)) & high;
}

/*
 * A string of printable ASCII without escapes, the cursor on its opening
 * quote (after whitespace).  Sets @s and @len; false for anything else.
 */
FAST_INLINE bool cursor_plain_string(struct cursor *c, const char **s,
				     size_t *len)
{
	const char *p;

	if (!cursor_expect(c, '"'))
		return false;
	p = c->p;
	/* eight bytes a step to the first byte that stops the string */
	for (; c->e - p >= 8; p += 8) {
		uint64_t m = stop_bits(load_le64(p));

		if (m) {
			p += __builtin_ctzll(m) >> 3;
			goto stop;
		}
	}
	while (p < c->e && !str_stop[(unsigned char)*p])
		p++;
stop:
	if (p == c->e || *p != '"')
		return false;
	*s = c->p;
	*len = p - c->p;
	c->p = p + 1;
	return true;
}

/*
 * Whether the @len bytes at @p equal the @len at @q (both readable).
 * Eight bytes a step, the last step overlapping; zero bytes are never
 * equal (@q holds nothing then).
 */
FAST_INLINE bool same_bytes(const char *p, const char *q, size_t len)
{
	size_t i;

	if (len < 8) {
		for (i = 0; i < len; i++)
			if (p[i] != q[i])
				return false;
		return len;
	}
	if (load_le64(p) != load_le64(q))
		return false;
	for (i = 8; i + 8 < len; i += 8)
		if (load_le64(p + i) != load_le64(q + i))
			return false;
	return load_le64(p + len - 8) == load_le64(q + len - 8);
}

/*
 * The digits at @p, eight bytes of which are readable: 1 to 7 digits and
 * the byte after them, that byte not a digit, as cursor_plain_int() reads
 * them (SWAR): "t + 0x76" sets the high bit of a byte above '9', "w - '0'"
 * (t) of one below '0' (a borrow leaves such a byte only); the digits
 * before the first such byte are moved to the top of the word (zeros
 * above them are leading zeros) and combined in pairs, fours and eights
 * by three multiplications (x * 10 + (x >> 8) adds ten times each byte
 * to the byte below it, and so on).  Returns the end of the digits,
 * or NULL: eight digits or more, none, a leading zero (then
 * cursor_plain_int() reads them, or fails likewise).
 */
FAST_INLINE const char *word_int(const char *p, uint64_t *out)
{
	const uint64_t ones = 0x0101010101010101ull, high = ones << 7;
	uint64_t w = load_le64(p), t = w - ones * '0';
	uint64_t stop = (t | (t + ones * 0x76)) & high;
	unsigned int top;	/* 8 * digits + 7 */

	if (!stop)
		return NULL;
	top = __builtin_ctzll(stop);
	/* the byte after the digits is none; a '.', 'e' or 'E' there fails
	 * where every caller then expects ',', '}' or whitespace */
	if (top < 8)
		return NULL;
	if (__builtin_expect((unsigned char)w == '0', 0) && top > 15)
		return NULL;
	t <<= (7 - top) & 63;	/* by 64 - 8 * digits */
	t = (t * 10 + (t >> 8)) & 0x00ff00ff00ff00ffull;
	t = (t * (1 + (100ull << 16)) >> 16) & 0x0000ffff0000ffffull;
	*out = t * (1 + (10000ull << 32)) >> 32;
	return p + (top >> 3);
}

/* A JSON integer the jansson path takes as json_int_t >= 0 (18 digits). */
FAST_INLINE bool cursor_plain_int(struct cursor *c, uint64_t *out)
{
	const char *p = c->p, *s = p, *lim;
	uint64_t x;
	unsigned int d;

	if (c->e - p >= 8) {
		const char *q = word_int(p, out);

		if (q) {
			c->p = q;
			return true;
		}
		/* eight digits or more; or none, or a leading zero, which
		 * the loop below refuses too */
	}
	if (p == c->e || (d = (unsigned char)(*p - '0')) > 9)
		return false;
	x = d;
	p++;
	/* at most 19 digits read: a 19th makes it too long */
	lim = c->e - s > 19 ? s + 19 : c->e;
	while (p < lim && (d = (unsigned char)(*p - '0')) <= 9) {
		x = x * 10 + d;
		p++;
	}
	if (p - s > 18 || (p - s > 1 && s[0] == '0'))
		return false;
	if (p < c->e && (*p == '.' || (*p | 0x20) == 'e' ||
			 (unsigned char)(*p - '0') <= 9))
		return false;
	c->p = p;
	*out = x;
	return true;
}

/* value_u64() of trace-schema.c: an integer >= 0 or a "0x..." string. */
FAST_INLINE bool cursor_u64(struct cursor *c, uint64_t *out)
{
	const char *s;
	size_t len;
	uint64_t x = 0;

	if (c->p < c->e && (unsigned char)(*c->p - '0') <= 9)
		return cursor_plain_int(c, out);	/* most values */
	cursor_skip_ws(c);
	if (c->p >= c->e)
		return false;
	if (*c->p != '"')
		return cursor_plain_int(c, out);
	if (!cursor_plain_string(c, &s, &len) || len < 3 || s[0] != '0' ||
	    s[1] != 'x')
		return false;
	for (size_t i = 2; i < len; i++) {
		unsigned int d;

		if (s[i] >= '0' && s[i] <= '9')
			d = s[i] - '0';
		else if (s[i] >= 'a' && s[i] <= 'f')
			d = s[i] - 'a' + 10;
		else if (s[i] >= 'A' && s[i] <= 'F')
			d = s[i] - 'A' + 10;
		else
			return false;
		if (x >> 60)
			return false;
		x = x << 4 | d;
	}
	*out = x;
	return true;
}

#endif
