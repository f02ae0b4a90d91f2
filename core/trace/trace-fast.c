// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON Lines fast path: one pass over an event line, straight into a
 * struct vt_event, with no tree and no allocation.
 *
 * It accepts a strict subset of what the jansson path (vt_trace_parse_event() in
 * trace-schema.c, on a json_loadb(JSON_REJECT_DUPLICATES) tree) accepts, and
 * yields the same event for it:
 *   - one object of the known event keys, each at most once, any order,
 *     JSON whitespace anywhere between tokens;
 *   - strings of printable ASCII without escapes (jansson would hand back
 *     the same bytes);
 *   - integers of at most 18 digits, no sign, no leading zero, no fraction
 *     or exponent (always inside json_int_t), or "0x..." strings;
 *   - "pages": a non-empty array of {"pfn","order","count"} objects;
 *     "flags": an array of known flag names;
 *   - and every check of vt_trace_parse_event() and parse_pages() passes.
 * Anything else (an unknown key, an escape, a non-ASCII byte, a float, a
 * negative number, an unknown op or flag, a check that fails) returns 0
 * and the line goes to jansson, so that errors, warnings and the handling
 * of odd but valid JSON are exactly the jansson path's.  A differential
 * test (tests/unit/test-trace-fast.c) reads the bundled traces, the fuzz
 * corpus, generated traces and mutations of all of them both ways.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/trace/trace-fast.h"

/* The helpers below work on a cursor that lives in registers: they are
 * inlined into their callers (a cursor whose address escapes to a call
 * would be reloaded and stored at every byte). */
#define FAST_INLINE static inline __attribute__((always_inline))

enum fast_key {
	F_OP, F_ID, F_PAGES, F_SIZE, F_PHYS, F_ALIGN, F_FLAGS, F_PROT,
	F_VA, F_T, F_CPU, F_CALLER, F__NR
};

struct cursor {
	const char *p, *e;
	/* a JSON Lines line read in its buffer (vt_trace_fast_line()): a
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

/* The first eight bytes of the literal @s (zero past its end) as
 * load_le64() reads them, and the mask of its first @n bytes: constants. */
#define LIT_B(s, i) ((uint64_t)(unsigned char)(s "\0\0\0\0\0\0\0")[i] << 8 * (i))
#define LIT_WORD(s) (LIT_B(s, 0) | LIT_B(s, 1) | LIT_B(s, 2) | LIT_B(s, 3) | \
		     LIT_B(s, 4) | LIT_B(s, 5) | LIT_B(s, 6) | LIT_B(s, 7))
#define LEN_MASK(n) ((n) >= 8 ? ~0ull : (1ull << 8 * (n)) - 1)

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
 * Whether the @len bytes at @p equal the @len at @q and @p[@len] is a
 * quote (@q: a plain string the fast path read before; @p + @len inside
 * the cursor's bytes).  Eight bytes a step, the last step overlapping.
 */
FAST_INLINE bool same_then_quote(const char *p, const char *q, size_t len)
{
	size_t i;

	if (p[len] != '"')
		return false;
	if (len < 8) {
		for (i = 0; i < len; i++)
			if (p[i] != q[i])
				return false;
		return true;
	}
	for (i = 0; i + 8 < len; i += 8)
		if (load_le64(p + i) != load_le64(q + i))
			return false;
	return load_le64(p + len - 8) == load_le64(q + len - 8);
}

/*
 * A JSON integer the jansson path takes as json_int_t >= 0 (18 digits).
 * With eight bytes at the cursor, eight at once (SWAR): "t + 0x76" sets
 * the high bit of a byte above '9', "w - '0'" (t) of one below '0' (a
 * borrow leaves such a byte only); the digits before the first such byte
 * are moved to the top of the word (zeros above them are leading zeros)
 * and combined in pairs, fours and eights by three multiplications.
 */
FAST_INLINE bool cursor_plain_int(struct cursor *c, uint64_t *out)
{
	const uint64_t ones = 0x0101010101010101ull, high = ones << 7;
	const char *p = c->p, *s = p, *lim;
	uint64_t x;
	unsigned int d;

	if (c->e - p >= 8) {
		uint64_t w = load_le64(p), t = w - ones * '0';
		uint64_t stop = (t | (t + ones * 0x76)) & high;

		if (stop) {
			unsigned int nd = __builtin_ctzll(stop) >> 3;

			/* the byte after the digits is none; a '.', 'e' or
			 * 'E' there fails where every caller then expects
			 * ',', '}' or whitespace */
			if (!nd || (nd > 1 && (unsigned char)w == '0'))
				return false;
			t <<= 8 * (8 - nd);
			t = (t * 10 + (t >> 8)) & 0x00ff00ff00ff00ffull;
			t = (t * 100 + (t >> 16)) & 0x0000ffff0000ffffull;
			t = (t * 10000 + (t >> 32)) & 0xffffffffull;
			c->p = p + nd;
			*out = t;
			return true;
		}
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

static inline bool name_is(const char *s, size_t len, const char *name)
{
	/* @s is printable ASCII (no NUL): a shorter name stops at its end */
	for (size_t i = 0; i < len; i++)
		if (name[i] != s[i])
			return false;
	return !name[len];
}

static int find_name(const char *s, size_t len, const char *const *names,
		     int nr)
{
	for (int i = 0; i < nr; i++)
		if (names[i] && name_is(s, len, names[i]))
			return i;
	return -1;
}

static int key_of(const char *k, size_t len)
{
	switch (len) {
	case 1:
		return k[0] == 't' ? F_T : -1;
	case 2:
		return k[0] == 'o' && k[1] == 'p' ? F_OP :
		       k[0] == 'i' && k[1] == 'd' ? F_ID :
		       k[0] == 'v' && k[1] == 'a' ? F_VA : -1;
	case 3:
		return !memcmp(k, "cpu", 3) ? F_CPU : -1;
	case 4:
		return !memcmp(k, "size", 4) ? F_SIZE :
		       !memcmp(k, "phys", 4) ? F_PHYS :
		       !memcmp(k, "prot", 4) ? F_PROT : -1;
	case 5:
		return !memcmp(k, "pages", 5) ? F_PAGES :
		       !memcmp(k, "align", 5) ? F_ALIGN :
		       !memcmp(k, "flags", 5) ? F_FLAGS : -1;
	case 6:
		return !memcmp(k, "caller", 6) ? F_CALLER : -1;
	}
	return -1;
}

/* Whether the @n bytes at the cursor are @lit (a constant: the compare
 * is a load or two); the cursor moves past them if so. */
#define cursor_lit(c, lit) cursor_lit_((c), (lit), sizeof(lit) - 1)
FAST_INLINE bool cursor_lit_(struct cursor *c, const char *lit, size_t n)
{
	if ((size_t)(c->e - c->p) < n || memcmp(c->p, lit, n))
		return false;
	c->p += n;
	return true;
}

/*
 * An object key and its ':', the cursor before it: F_* or -1 (not a
 * key of events, or not a plain string).  A known key directly followed
 * by ':' is matched whole: its first byte picks the candidates, one
 * masked compare of the eight bytes after the quote decides (every key
 * with its '":' fits in eight).  Any other shape, and a key too near the
 * end of the line for the load, is read as a string and looked up.
 */
FAST_INLINE int cursor_key(struct cursor *c)
{
	const char *s;
	size_t len;

	if (c->e - c->p >= 9 && *c->p == '"') {
		uint64_t w = load_le64(c->p + 1);

#define KEY_TRY(key, f)							\
		if ((w & LEN_MASK(sizeof(key "\":") - 1)) == LIT_WORD(key "\":")) { \
			c->p += sizeof("\"" key "\":") - 1;		\
			return f;					\
		}
		switch ((unsigned char)w) {
		case 'o':
			KEY_TRY("op", F_OP);
			break;
		case 'i':
			KEY_TRY("id", F_ID);
			break;
		case 's':
			KEY_TRY("size", F_SIZE);
			break;
		case 'a':
			KEY_TRY("align", F_ALIGN);
			break;
		case 'c':
			KEY_TRY("caller", F_CALLER);
			KEY_TRY("cpu", F_CPU);
			break;
		case 'p':
			KEY_TRY("pages", F_PAGES);
			KEY_TRY("phys", F_PHYS);
			KEY_TRY("prot", F_PROT);
			break;
		case 'f':
			KEY_TRY("flags", F_FLAGS);
			break;
		case 'v':
			KEY_TRY("va", F_VA);
			break;
		case 't':
			KEY_TRY("t", F_T);
			break;
		}
#undef KEY_TRY
	}
	if (!cursor_plain_string(c, &s, &len) || !cursor_expect(c, ':'))
		return -1;
	return key_of(s, len);
}

/* The op names (core/trace/ops.def) and their lengths, each name padded
 * with zeros to a whole number of words, so that a lookup is a compare of
 * the length and of one word (and of the rest of a longer name). */
static const char op_name[VT_OP__NR][16] = {
#define VT_OP(e, n, r, u, p) [VT_OP_##e] = n,
#include "core/trace/ops.def"
#undef VT_OP
};
static const unsigned char op_len[VT_OP__NR] = {
#define VT_OP(e, n, r, u, p) [VT_OP_##e] = sizeof(n) - 1,
#include "core/trace/ops.def"
#undef VT_OP
};
#define VT_OP(e, n, r, u, p) \
	_Static_assert(sizeof(n) <= sizeof(op_name[0]), "op name " n " fits with its NUL");
#include "core/trace/ops.def"
#undef VT_OP

/* The op whose name is the @len bytes that @w holds (zero above them). */
FAST_INLINE int op_of_word(uint64_t w, size_t len)
{
#pragma GCC unroll 16
	for (int i = 0; i < VT_OP__NR; i++)
		if (op_len[i] == len && load_le64(op_name[i]) == w)
			return i;
	return -1;
}

/* @s: a plain string of @len bytes followed by its closing quote, inside
 * the cursor's bytes that end at @e. */
FAST_INLINE int find_op(const char *s, size_t len, const char *e)
{
	uint64_t w;
	int op;

	if (e - s >= 8) {
		w = load_le64(s) & LEN_MASK(len);
	} else {	/* near the end of the line: byte by byte */
		w = 0;
		for (size_t i = 0; i < len && i < 8; i++)
			w |= (uint64_t)(unsigned char)s[i] << 8 * i;
	}
	if (len <= 8)
		return op_of_word(w, len);
	for (op = 0; op < VT_OP__NR; op++)
		if (op_len[op] == len && load_le64(op_name[op]) == w &&
		    name_is(s + 8, len - 8, op_name[op] + 8))
			return op;
	return -1;
}

/*
 * "op": its value, the cursor before it.  A name of up to seven bytes
 * right after the quote is found from the first quote in the eight bytes
 * there and one compare per op (bytes equal to a name are a plain string);
 * any other shape is read as a string and looked up.
 */
FAST_INLINE int cursor_op(struct cursor *c)
{
	const uint64_t ones = 0x0101010101010101ull, high = ones << 7;
	const char *s;
	size_t len;
	int op;

	if (c->e - c->p >= 9 && *c->p == '"') {
		uint64_t w = load_le64(c->p + 1), q = w ^ (ones * '"');
		uint64_t m = (q - ones) & ~q & high;

		if (m) {
			len = __builtin_ctzll(m) >> 3;
			op = op_of_word(w & LEN_MASK(len), len);
			if (op >= 0) {
				c->p += len + 2;
				return op;
			}
		}
	}
	if (!cursor_plain_string(c, &s, &len))
		return -1;
	return find_op(s, len, c->e);
}

/* A hex digit's value plus one; 0 for any other byte. */
static const unsigned char hex_val[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6,
	['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/*
 * The digits of an integer at @p (before @e) after which the caller
 * expects ',' or '}' (past whitespace): that rules out the fraction, the
 * exponent and a leading zero's next digit, which cursor_plain_int()
 * tests itself.  NULL if there is no digit or there are more than 18.
 */
static inline const char *page_run_int(const char *p, const char *e,
				       uint64_t *out)
{
	const char *lim = e - p > 18 ? p + 18 : e, *s = p;
	uint64_t x;

	if (p == e || (unsigned char)(*p - '0') > 9)
		return NULL;
	x = (unsigned char)(*p++ - '0');
	if (x)
		while (p < lim && (unsigned char)(*p - '0') <= 9)
			x = x * 10 + (unsigned char)(*p++ - '0');
	if (p - s == 18 && p < e && (unsigned char)(*p - '0') <= 9)
		return NULL;
	*out = x;
	return p;
}

/* A key of a page-array object and its ':', whitespace around either. */
#define cursor_page_key(c, key) \
	(cursor_skip_ws(c), cursor_lit((c), "\"" key "\"") && cursor_expect((c), ':'))
/* ',' and the next key: vmaptool's bytes in one 8-byte compare, else with
 * whitespace (a failed ':' fails the second try too: the object falls back) */
#define cursor_page_next(c, key) \
	((cursor_lit((c), ",\"" key "\"") && cursor_expect((c), ':')) || \
	 (cursor_expect((c), ',') && cursor_page_key(c, key)))

/*
 * One page-array object with its keys in vmaptool's order, the cursor on
 * its '{': {"pfn":V,"order":N} or {"pfn":V,"order":N,"count":N}, JSON
 * whitespace between tokens (Python's json.dumps() puts a space after ':'
 * and ','), V a "0x..." string of at most 16 digits or an integer.  True
 * with the values read as get_page_object() reads them from the same bytes
 * (so it would accept them too); false, the cursor unmoved, for any other
 * shape, which get_page_object() then reads.  This is the loop over the
 * system heap's page arrays: one pass, no key lookup.
 */
static inline bool cursor_page_run(struct cursor *c, uint64_t *pfn,
				   uint64_t *order, uint64_t *count)
{
	struct cursor t = *c;
	uint64_t x = 0;
	const char *p;

	if (!cursor_lit(&t, "{\"pfn\":")) {
		t.p++;	/* past the '{' */
		if (!cursor_page_key(&t, "pfn"))
			return false;
	}
	cursor_skip_ws(&t);
	p = t.p;
	if (p < t.e && *p == '"') {
		const char *digits, *lim;
		unsigned int v;

		if (t.e - p < 3 || p[1] != '0' || p[2] != 'x')
			return false;
		digits = p += 3;
		lim = t.e - p > 16 ? p + 16 : t.e;
		while (p < lim && (v = hex_val[(unsigned char)*p])) {
			x = x << 4 | (v - 1);
			p++;
		}
		if (p == digits || p == t.e || *p != '"')
			return false;
		p++;
	} else if (!(p = page_run_int(p, t.e, &x))) {
		return false;
	}
	*pfn = x;
	t.p = p;
	if (!cursor_page_next(&t, "order"))
		return false;
	cursor_skip_ws(&t);
	if (!(t.p = page_run_int(t.p, t.e, order)))
		return false;
	*count = 1;
	if (t.p < t.e && *t.p != '}' && !(t.p[0] <= ' ' && is_ws(&t, t.p[0]))) {
		if (!cursor_page_next(&t, "count"))
			return false;
		cursor_skip_ws(&t);
		if (!(t.p = page_run_int(t.p, t.e, count)))
			return false;
	}
	if (!cursor_expect(&t, '}'))
		return false;
	*c = t;
	return true;
}

/* One page-array object of any shape parse_pages() of trace-schema.c
 * takes ("pfn" required, "order" and "count" optional, any order). */
static bool get_page_object(struct cursor *c, uint64_t *pfn, uint64_t *order,
			    uint64_t *count)
{
	unsigned int seen = 0;
	const char *k;
	size_t klen;
	uint64_t v;

	*pfn = 0;
	*order = 0;
	*count = 1;
	if (!cursor_expect(c, '{'))
		return false;
	do {
		unsigned int bit;

		if (!cursor_plain_string(c, &k, &klen) || !cursor_expect(c, ':') ||
		    !cursor_u64(c, &v))
			return false;
		if (klen == 3 && !memcmp(k, "pfn", 3)) {
			bit = 1;
			*pfn = v;
		} else if (klen == 5 && !memcmp(k, "order", 5)) {
			bit = 2;
			*order = v;
		} else if (klen == 5 && !memcmp(k, "count", 5)) {
			bit = 4;
			*count = v;
		} else {
			return false;
		}
		if (seen & bit)
			return false;
		seen |= bit;
	} while (cursor_expect(c, ','));
	return cursor_expect(c, '}') && (seen & 1);
}

/*
 * "pages": the checks of parse_pages() in trace-schema.c, each failure a
 * fallback.  Returns 1, 0 (fallback) or -ENOMEM.
 */
static int get_pages(struct vt_trace_fast *fp, struct cursor *c,
		     struct vt_event *ev)
{
	uint64_t pfn_end = (uint64_t)1 << (fp->pa_bits - fp->page_shift);
	size_t n = 0;

	if (!cursor_expect(c, '['))
		return 0;
	ev->nr_pages = 0;
	do {
		uint64_t pfn, order, count, pages_in_run;

		cursor_skip_ws(c);
		if (c->p < c->e && *c->p == '{' &&
		    cursor_page_run(c, &pfn, &order, &count)) {
			/* vmaptool's own shape */
		} else if (!get_page_object(c, &pfn, &order, &count)) {
			return 0;
		}
		if (order > fp->max_order || !count ||
		    count > (UINT64_MAX >> order))
			return 0;
		pages_in_run = count << order;
		if (pfn & ((1ull << order) - 1))
			return 0;
		if (pfn >= pfn_end || pages_in_run > pfn_end - pfn)
			return 0;
		if (ev->nr_pages > UINT64_MAX - pages_in_run)
			return 0;
		if (VT_ALLOC_GROW(fp->runs, n + 1, fp->runs_cap))
			return -ENOMEM;
		fp->runs[n].pfn = pfn;
		fp->runs[n].order = order;
		fp->runs[n].count = count;
		n++;
		ev->nr_pages += pages_in_run;
	} while (cursor_expect(c, ','));
	if (!cursor_expect(c, ']') || n > UINT32_MAX)
		return 0;
	ev->runs = fp->runs;
	ev->nr_runs = n;
	ev->has_pages = true;
	return 1;
}

/* "flags": an array of known flag names (an unknown one warns: jansson). */
static bool get_flags(struct cursor *c, struct vt_event *ev)
{
	const char *s;
	size_t len;

	if (!cursor_expect(c, '['))
		return false;
	if (cursor_expect(c, ']'))
		return true;
	do {
		int b;

		if (!cursor_plain_string(c, &s, &len))
			return false;
		b = find_name(s, len, vt_flag_names, VT_FB__NR);
		if (b < 0)
			return false;
		ev->flags |= 1u << b;
	} while (cursor_expect(c, ','));
	return cursor_expect(c, ']');
}

/*
 * The op's own rules (core/trace/ops.def), as check_op_rules() of
 * trace-schema.c checks them; @seen: the F_* keys given.
 */
FAST_INLINE bool fast_op_rules_hold(const struct vt_trace_fast *fp,
				    const struct vt_event *ev, unsigned int seen)
{
	unsigned int rules = vt_ops[ev->op].rules;

	if ((rules & VT_OPR_PAGES) && !ev->has_pages)
		return false;
	if ((rules & VT_OPR_SIZE) && (!(seen & (1u << F_SIZE)) || !ev->size))
		return false;
	if ((rules & VT_OPR_PHYS) &&
	    (!(seen & (1u << F_PHYS)) || ev->size > UINT64_MAX - ev->phys ||
	     (fp->pa_bits < 64 && ev->phys + ev->size > (1ull << fp->pa_bits))))
		return false;
	if ((rules & VT_OPR_COVER) && ev->has_pages &&
	    ev->nr_pages < (ev->size + (1ull << fp->page_shift) - 1) >> fp->page_shift)
		return false;
	if ((rules & VT_OPR_ID) && !ev->id.present)
		return false;
	return true;
}

/*
 * "caller": a plain string of at most VT_TRACE_MAX_STRING bytes, the
 * cursor before its opening quote.  Most events name the caller of the
 * event before them: the bytes are compared with that one's, which
 * fp->caller still holds (a plain string, so bytes equal to it are one),
 * and not copied again; *@s is NULL then.
 */
FAST_INLINE bool cursor_caller(struct vt_trace_fast *fp, struct cursor *c,
			       const char **s, size_t *len)
{
	size_t n = fp->caller_len;

	if (c->p < c->e && *c->p == '"' && (size_t)(c->e - c->p) > n + 1 &&
	    same_then_quote(c->p + 1, fp->caller, n)) {
		c->p += n + 2;
		*s = NULL;
		*len = n;
		return true;
	}
	return cursor_plain_string(c, s, len) && *len <= VT_TRACE_MAX_STRING;
}

/*
 * *@ev = (struct vt_event){ .cpu = -1 } in sixteen-byte stores: GCC makes
 * the compound literal a "rep stos" of 20 steps.  The loop is unrolled
 * before it could be seen as a memset().
 */
typedef uint64_t fast_v2 __attribute__((vector_size(16), may_alias, aligned(8)));
FAST_INLINE void event_clear(struct vt_event *ev)
{
	_Static_assert(sizeof(*ev) % sizeof(fast_v2) == 0, "the event is whole stores");
#pragma GCC unroll 16
	for (size_t i = 0; i < sizeof(*ev) / sizeof(fast_v2); i++)
		((fast_v2 *)ev)[i] = (fast_v2){ 0, 0 };
	ev->cpu = -1;
}

/*
 * The event that starts at @line, in bytes that end at @e.  With @nl_ends
 * the line ends at the first newline, or at @e if @eof; *@len is its
 * length then.  Returns 1, 0 (to jansson) or -ENOMEM.
 */
FAST_INLINE int fast_event(struct vt_trace_fast *fp, const char *line,
			   const char *e, bool nl_ends, bool eof,
			   struct vt_event *ev, size_t *line_len)
{
	struct cursor c = { line, e, nl_ends }, t;
	const char *id_s = NULL, *caller_s = NULL, *s;
	size_t id_len = 0, caller_len = 0, len;
	unsigned int seen = 0;
	bool caller = false;
	uint64_t v;
	int op = -1, ret;

	event_clear(ev);
	if (!cursor_expect(&c, '{'))
		return 0;
	do {
		int k;

		if (c.p < c.e && *c.p != '"')
			cursor_skip_ws(&c);
		k = cursor_key(&c);
		if (k < 0 || (seen & (1u << k)))
			return 0;
		seen |= 1u << k;
		switch (k) {
		case F_OP:
			op = cursor_op(&c);
			if (op < 0)
				return 0;
			break;
		case F_ID:
			if (c.p < c.e && (unsigned char)(*c.p - '0') <= 9) {
				if (!cursor_plain_int(&c, &ev->id.num))
					return 0;
				ev->id.present = true;
				break;
			}
			cursor_skip_ws(&c);
			if (c.p < c.e && *c.p == '"') {
				if (!cursor_plain_string(&c, &id_s, &id_len) ||
				    id_len > VT_TRACE_MAX_STRING)
					return 0;
			} else if (!cursor_plain_int(&c, &ev->id.num)) {
				return 0;
			}
			ev->id.present = true;
			break;
		case F_PAGES:
			t = c;	/* the cursor stays in registers */
			ret = get_pages(fp, &t, ev);
			if (ret <= 0)
				return ret;
			c = t;
			break;
		case F_SIZE:
			if (!cursor_u64(&c, &ev->size))
				return 0;
			break;
		case F_PHYS:
			if (!cursor_u64(&c, &ev->phys))
				return 0;
			break;
		case F_ALIGN:
			if (!cursor_u64(&c, &ev->align) || !ev->align ||
			    (ev->align & (ev->align - 1)))
				return 0;
			break;
		case F_FLAGS:
			t = c;
			if (!get_flags(&t, ev))
				return 0;
			c = t;
			break;
		case F_PROT:
			if (!cursor_plain_string(&c, &s, &len))
				return 0;
			ret = find_name(s, len, vt_prot_names, VT_PROT__NR);
			if (ret < 0)
				return 0;
			ev->prot = ret;
			break;
		case F_VA:
			if (!cursor_u64(&c, &ev->va))
				return 0;
			ev->has_va = true;
			break;
		case F_T:
			if (!cursor_u64(&c, &ev->t))
				return 0;
			ev->has_t = true;
			break;
		case F_CPU:
			if (!cursor_u64(&c, &v) || v > INT32_MAX)
				return 0;
			ev->cpu = v;
			break;
		case F_CALLER:
			if (!cursor_caller(fp, &c, &caller_s, &caller_len))
				return 0;
			caller = true;
			break;
		}
	} while (cursor_expect(&c, ','));
	if (!cursor_expect(&c, '}'))
		return 0;
	if (c.p != c.e) {
		cursor_skip_ws(&c);
		if (nl_ends && c.p < c.e && *c.p == '\n')
			*line_len = c.p - line;
		else if (c.p != c.e)
			return 0;
	}
	if (nl_ends && c.p == c.e) {
		if (!eof)
			return 0;	/* the line may go on past @e */
		*line_len = c.p - line;
	}
	if (op < 0)
		return 0;

	ev->op = op;
	if (!(seen & (1u << F_PROT)))
		ev->prot = vt_ops[op].prot;
	if (!fast_op_rules_hold(fp, ev, seen))
		return 0;
	if (id_s) {
		memcpy(fp->id, id_s, id_len);
		fp->id[id_len] = '\0';
		ev->id.is_str = true;
		ev->id.str = fp->id;
	}
	if (caller) {
		if (caller_s) {	/* not the last event's */
			memcpy(fp->caller, caller_s, caller_len);
			fp->caller[caller_len] = '\0';
			fp->caller_len = caller_len;
		}
		ev->caller = fp->caller;
	}
	return 1;
}

int vt_trace_fast_event(struct vt_trace_fast *fp, const char *line, size_t n,
			struct vt_event *ev)
{
	return fast_event(fp, line, line + n, false, true, ev, NULL);
}

int vt_trace_fast_line(struct vt_trace_fast *fp, const char *p, size_t avail,
		       bool eof, struct vt_event *ev, size_t *len)
{
	return fast_event(fp, p, p + avail, true, eof, ev, len);
}

void vt_trace_fast_release(struct vt_trace_fast *fp)
{
	free(fp->runs);
	fp->runs = NULL;
	fp->runs_cap = 0;
}
