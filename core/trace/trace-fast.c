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
 *
 * A JSON Lines line goes first through a hot pass with no call
 * (hot_event(): vmaptool's own layout, each key matched by its first byte
 * and one word compare, an op, integer or repeated caller read in one
 * step); where that meets anything else, fast_event() goes on from the
 * key or separator it stopped at, reading what is in the hot form the
 * same way and the rest through out-of-line cold helpers.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/trace/trace-cursor.h"
#include "core/trace/trace-fast.h"

enum fast_key {
	F_OP, F_ID, F_PAGES, F_SIZE, F_PHYS, F_ALIGN, F_FLAGS, F_PROT,
	F_VA, F_T, F_CPU, F_CALLER, F__NR
};

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

/* An object key and its ':', the cursor before it: F_* or -1 (not a key
 * of events, or not a plain string). */
FAST_INLINE int cursor_key(struct cursor *c)
{
	const char *s;
	size_t len;

	if (!cursor_plain_string(c, &s, &len) || !cursor_expect(c, ':'))
		return -1;
	return key_of(s, len);
}

/* The op names (core/trace/ops.def) and their lengths. */
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

/*
 * Each name with its closing quote as the eight bytes after the opening
 * quote hold it, and the eight after those (zero past the quote), with
 * the masks of its bytes: constants, so that word_op() is a compare of
 * four bytes per op and of the name whole where they match.
 */
static const uint64_t op_word[VT_OP__NR][2] = {
#define VT_OP(e, n, r, u, p) [VT_OP_##e] = { LIT_WORD_AT(n "\"", 0), LIT_WORD_AT(n "\"", 8) },
#include "core/trace/ops.def"
#undef VT_OP
};
static const uint64_t op_mask[VT_OP__NR][2] = {
#define VT_OP(e, n, r, u, p) \
	[VT_OP_##e] = { LEN_MASK(sizeof(n)), sizeof(n) > 8 ? LEN_MASK(sizeof(n) - 8) : 0 },
#include "core/trace/ops.def"
#undef VT_OP
};
#define VT_OP(e, n, r, u, p)						\
	_Static_assert(sizeof(n) > 4 && sizeof(n) <= 16,		\
		       "op name " n ": four bytes and its quote in two words");
#include "core/trace/ops.def"
#undef VT_OP

/* @s: a plain string of @len bytes: its op, or -1. */
static int find_op(const char *s, size_t len)
{
	for (int op = 0; op < VT_OP__NR; op++)
		if (op_len[op] == len && !memcmp(s, op_name[op], len))
			return op;
	return -1;
}

/*
 * "op": an op name and its closing quote right after the quote at @p
 * (seventeen bytes readable), the first four bytes of each name compared
 * in turn (bytes equal to a name are a plain string).  The op and *@end
 * past the closing quote, or -1.
 */
FAST_INLINE int word_op(const char *p, const char **end)
{
	uint64_t w = load_le64(p + 1);

#pragma GCC unroll 16
	for (int i = 0; i < VT_OP__NR; i++)
		if ((uint32_t)w == (uint32_t)op_word[i][0] &&
		    (w & op_mask[i][0]) == op_word[i][0] &&
		    (!op_mask[i][1] ||
		     (load_le64(p + 9) & op_mask[i][1]) == op_word[i][1])) {
			*end = p + op_len[i] + 2;
			return i;
		}
	return -1;
}

/* "op": its value, the cursor before it, read as a string and looked up. */
FAST_INLINE int cursor_op(struct cursor *c)
{
	const char *s;
	size_t len;

	if (!cursor_plain_string(c, &s, &len))
		return -1;
	return find_op(s, len);
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
 * The op's own rules (core/trace/ops.def) as check_op_rules() of
 * trace-schema.c checks them, in a table: the keys an op requires (its
 * "pages", "size", "phys", "id": a key read is a key whose value passed),
 * its rules on values, its default protection.
 */
#define RULE_KEYS(rules)						\
	(((rules) & VT_OPR_PAGES ? 1u << F_PAGES : 0) |			\
	 ((rules) & VT_OPR_SIZE ? 1u << F_SIZE : 0) |			\
	 ((rules) & VT_OPR_PHYS ? 1u << F_PHYS : 0) |			\
	 ((rules) & VT_OPR_ID ? 1u << F_ID : 0))
static const struct op_rule {
	uint16_t keys;		/* 1u << F_* */
	uint8_t values;		/* VT_OPR_SIZE, _PHYS, _COVER */
	uint8_t prot;
} op_rule[VT_OP__NR] = {
#define VT_OP(e, n, r, u, p)						\
	[VT_OP_##e] = { RULE_KEYS(r), (r) & (VT_OPR_SIZE | VT_OPR_PHYS | VT_OPR_COVER), p },
#include "core/trace/ops.def"
#undef VT_OP
};
_Static_assert(F__NR <= 16 && VT_PROT__NR <= 256, "op_rule's fields hold them");

/* The rules on values of @values (op_rule[].values), their keys given. */
FAST_INLINE bool op_values_hold(const struct vt_trace_fast *fp,
			   const struct vt_event *ev, unsigned int values)
{
	if ((values & VT_OPR_SIZE) && !ev->size)
		return false;
	if ((values & VT_OPR_PHYS) &&
	    (ev->size > UINT64_MAX - ev->phys ||
	     (fp->pa_bits < 64 && ev->phys + ev->size > (1ull << fp->pa_bits))))
		return false;
	if ((values & VT_OPR_COVER) && ev->has_pages &&
	    ev->nr_pages < (ev->size + (1ull << fp->page_shift) - 1) >> fp->page_shift)
		return false;
	return true;
}

/*
 * *@ev = (struct vt_event){ .cpu = -1 } but its position (the caller's:
 * vt_trace_fast_next(), vt_trace_read_event()), in sixteen-byte stores:
 * GCC makes the compound literal a "rep stos".  The loop is unrolled
 * before it could be seen as a memset().
 */
typedef uint64_t fast_v2 __attribute__((vector_size(16), may_alias, aligned(8)));
FAST_INLINE void event_clear(struct vt_event *ev)
{
	const size_t n = offsetof(struct vt_event, line) / sizeof(fast_v2);

	_Static_assert(offsetof(struct vt_event, line) % sizeof(fast_v2) == 0,
		       "the event before its position is whole stores");
#pragma GCC unroll 16
	for (size_t i = 0; i < n; i++)
		((fast_v2 *)ev)[i] = (fast_v2){ 0, 0 };
	ev->cpu = -1;
}

/*
 * The paths of fast_event() for what is not in vmaptool's own layout
 * (whitespace between tokens, strings where integers are usual, long
 * numbers, a token too near the end of the bytes for a word load):
 * out of line, so that fast_event() keeps its state in registers.  Each
 * reads the token at @p in bytes that end at @e through the cursor
 * helpers and returns the byte after it, or NULL if the fast path does
 * not take it.
 */
#define FAST_COLD static __attribute__((noinline, cold))

FAST_COLD const char *cold_ws(const char *p, const char *e, bool nl_ends)
{
	struct cursor c = { p, e, nl_ends };

	cursor_skip_ws(&c);
	return c.p;
}

/* A key and its ':' (F_* in *@k), whitespace before it. */
FAST_COLD const char *cold_key(const char *p, const char *e, bool nl_ends,
			       int *k)
{
	struct cursor c = { p, e, nl_ends };

	cursor_skip_ws(&c);
	*k = cursor_key(&c);
	return *k < 0 ? NULL : c.p;
}

FAST_COLD const char *cold_op(const char *p, const char *e, bool nl_ends,
			      struct vt_event *ev)
{
	struct cursor c = { p, e, nl_ends };
	int op = cursor_op(&c);

	if (op < 0)
		return NULL;
	ev->op = op;
	return c.p;
}

/* value_u64() of trace-schema.c: an integer >= 0 or a "0x..." string. */
FAST_COLD const char *cold_u64(const char *p, const char *e, bool nl_ends,
			       uint64_t *out)
{
	struct cursor c = { p, e, nl_ends };

	return cursor_u64(&c, out) ? c.p : NULL;
}

/* "id": an integer >= 0 or a plain string, kept in fp->id. */
FAST_COLD const char *cold_id(struct vt_trace_fast *fp, const char *p,
			      const char *e, bool nl_ends, struct vt_event *ev)
{
	struct cursor c = { p, e, nl_ends };
	const char *s;
	size_t len;

	cursor_skip_ws(&c);
	if (c.p < c.e && *c.p == '"') {
		if (!cursor_plain_string(&c, &s, &len) ||
		    len > VT_TRACE_MAX_STRING)
			return NULL;
		memcpy(fp->id, s, len);
		fp->id[len] = '\0';
		ev->id.is_str = true;
		ev->id.str = fp->id;
		return c.p;
	}
	return cursor_plain_int(&c, &ev->id.num) ? c.p : NULL;
}

/* "caller": a plain string of at most VT_TRACE_MAX_STRING bytes, kept in
 * fp->caller for the next event's compare (same_caller()). */
FAST_COLD const char *cold_caller(struct vt_trace_fast *fp, const char *p,
				  const char *e, bool nl_ends,
				  struct vt_event *ev)
{
	struct cursor c = { p, e, nl_ends };
	const char *s;
	size_t n;

	if (!cursor_plain_string(&c, &s, &n) || n > VT_TRACE_MAX_STRING)
		return NULL;
	memcpy(fp->caller, s - 1, n + 1);	/* and its opening quote */
	fp->caller[n + 1] = '\0';
	fp->caller_qlen = n + 1;
	ev->caller = fp->caller + 1;
	return c.p;
}

/* "pages" (not cold: the system heap's vmaps have them); *@nomem:
 * -ENOMEM with NULL, else untouched. */
static __attribute__((noinline)) const char *
value_pages(struct vt_trace_fast *fp, const char *p, const char *e,
	    bool nl_ends, struct vt_event *ev, int *nomem)
{
	struct cursor c = { p, e, nl_ends };
	int ret = get_pages(fp, &c, ev);

	if (ret < 0)
		*nomem = ret;
	return ret > 0 ? c.p : NULL;
}

FAST_COLD const char *cold_flags(const char *p, const char *e, bool nl_ends,
				 struct vt_event *ev)
{
	struct cursor c = { p, e, nl_ends };

	return get_flags(&c, ev) ? c.p : NULL;
}

FAST_COLD const char *cold_prot(const char *p, const char *e, bool nl_ends,
				struct vt_event *ev)
{
	struct cursor c = { p, e, nl_ends };
	const char *s;
	size_t len;
	int prot;

	if (!cursor_plain_string(&c, &s, &len))
		return NULL;
	prot = find_name(s, len, vt_prot_names, VT_PROT__NR);
	if (prot < 0)
		return NULL;
	ev->prot = prot;
	return c.p;
}

/*
 * "caller" if it is the last one the fast path read, which fp->caller
 * still holds after the quote it had in its line (a plain string, so
 * bytes equal to it are one): most events name the caller of the event
 * before them.  Compared in place with that quote, not copied again: the
 * byte after its closing quote, or NULL.
 */
FAST_INLINE const char *same_caller(struct vt_trace_fast *fp, const char *p,
				    const char *e, struct vt_event *ev)
{
	size_t n = fp->caller_qlen;

	if ((size_t)(e - p) <= n || p[n] != '"' ||
	    !same_bytes(p, fp->caller, n))
		return NULL;
	ev->caller = fp->caller + 1;
	return p + n + 1;
}

/* An integer value in one word (word_int()) where it can, else through
 * cold_u64(); @hot as in fast_event(). */
FAST_INLINE const char *value_u64(const char *p, const char *e, uintptr_t hot,
				  bool nl_ends, uint64_t *out)
{
	const char *q;

	if ((uintptr_t)p <= hot && (q = word_int(p, out)))
		return q;
	return cold_u64(p, e, nl_ends, out);
}

/*
 * The value of the key @k (F_*) at @p, read in one step if it starts at
 * or below @hot (VALUE_ROOM bytes readable), the rest as fast_event():
 * the byte after it, or NULL (*@nomem: -ENOMEM, else untouched).  Inlined
 * with @k a constant where a key is matched, a switch where not.
 */
FAST_INLINE const char *fast_value(struct vt_trace_fast *fp, int k,
				   const char *p, const char *e, uintptr_t hot,
				   bool nl_ends, struct vt_event *ev,
				   int *nomem)
{
	const char *q;
	uint64_t v;
	int op;

	switch (k) {
	case F_OP:
		if ((uintptr_t)p <= hot && *p == '"' &&
		    (op = word_op(p, &q)) >= 0) {
			ev->op = op;
			return q;
		}
		return cold_op(p, e, nl_ends, ev);
	case F_ID:
		ev->id.present = true;
		if ((uintptr_t)p <= hot && (q = word_int(p, &ev->id.num)))
			return q;
		return cold_id(fp, p, e, nl_ends, ev);
	case F_PAGES:
		return value_pages(fp, p, e, nl_ends, ev, nomem);
	case F_SIZE:
		return value_u64(p, e, hot, nl_ends, &ev->size);
	case F_PHYS:
		return value_u64(p, e, hot, nl_ends, &ev->phys);
	case F_ALIGN:
		p = value_u64(p, e, hot, nl_ends, &ev->align);
		if (p && (!ev->align || (ev->align & (ev->align - 1))))
			return NULL;
		return p;
	case F_FLAGS:
		return cold_flags(p, e, nl_ends, ev);
	case F_PROT:
		return cold_prot(p, e, nl_ends, ev);
	case F_VA:
		ev->has_va = true;
		return value_u64(p, e, hot, nl_ends, &ev->va);
	case F_T:
		ev->has_t = true;
		return value_u64(p, e, hot, nl_ends, &ev->t);
	case F_CPU:
		p = value_u64(p, e, hot, nl_ends, &v);
		if (!p || v > INT32_MAX)
			return NULL;
		ev->cpu = v;
		return p;
	case F_CALLER:
		if ((q = same_caller(fp, p, e, ev)))
			return q;
		return cold_caller(fp, p, e, nl_ends, ev);
	}
	return NULL;
}

/*
 * The bytes a value's step in fast_value() may read from its start (an
 * op's quote and the two words after it; an integer's word), and a key's
 * in fast_event() with its value's (the quote and the word after it; the
 * op's value after five bytes, any other after at most nine).
 */
#define VALUE_ROOM 17
#define KEY_ROOM (5 + VALUE_ROOM)

/* The limit a step's start must be at or below to have @room bytes. */
FAST_INLINE uintptr_t room_end(const char *line, const char *e, size_t room)
{
	return (size_t)(e - line) >= room ? (uintptr_t)(e - room) : 0;
}

/*
 * The known keys, matched whole by their first byte and one masked
 * compare of the eight bytes after the quote (every key with its '":'
 * fits in eight): KEY(key, F_*) for each candidate of the byte @w holds
 * first.
 */
#define KEY_IS(w, key)							\
	(((w) & LEN_MASK(sizeof(key "\":") - 1)) == LIT_WORD(key "\":"))
#define KEY_LEN(key) (sizeof("\"" key "\":") - 1)
#define FAST_KEYS(w, KEY)						\
	switch ((unsigned char)(w)) {					\
	case 'o': KEY("op", F_OP); break;				\
	case 'i': KEY("id", F_ID); break;				\
	case 's': KEY("size", F_SIZE); break;				\
	case 'a': KEY("align", F_ALIGN); break;				\
	case 'c': KEY("caller", F_CALLER); KEY("cpu", F_CPU); break;	\
	case 'p': KEY("pages", F_PAGES); KEY("phys", F_PHYS);		\
		  KEY("prot", F_PROT); break;				\
	case 'f': KEY("flags", F_FLAGS); break;				\
	case 'v': KEY("va", F_VA); break;				\
	case 't': KEY("t", F_T); break;					\
	}

/*
 * After the event's '}': the op's rules (check_op_rules() of
 * trace-schema.c) and its default protection.  1 or 0.
 */
FAST_INLINE int event_done(const struct vt_trace_fast *fp,
			   struct vt_event *ev, unsigned int seen)
{
	const struct op_rule *rule;

	if (!(seen & (1u << F_OP)))
		return 0;
	rule = &op_rule[ev->op];
	if (!(seen & (1u << F_PROT)))
		ev->prot = rule->prot;
	if ((seen & rule->keys) != rule->keys ||
	    (rule->values && !op_values_hold(fp, ev, rule->values)))
		return 0;
	return 1;
}

/* Where fast_event() starts: at the line's start, or where hot_event()
 * stopped (ORed into the keys seen): at a key, or after a value. */
#define AT_KEY (1u << 30)
#define AT_SEP (1u << 31)

/*
 * The event that starts at @line, in bytes that end at @e, from @p with
 * the keys @seen read (@p = @line and 0: all of it).  With @nl_ends the
 * line ends at the first newline, or at @e if @eof; *@line_len is its
 * length then.  Returns 1, 0 (to jansson) or -ENOMEM.
 *
 * A key that starts at or below @hot (KEY_ROOM bytes before @e), with no
 * whitespace before it, is read with word loads and no further bounds
 * checks, and so is its value: a known key directly followed by ':' is
 * matched whole and its value read right there (an op or an integer in
 * one word, the caller first compared with the last event's in place).
 * Anything else goes by the cold paths above, a value there in one word
 * too if VALUE_ROOM bytes are left.
 */
FAST_INLINE int fast_event(struct vt_trace_fast *fp, const char *line,
			   const char *e, bool nl_ends, bool eof,
			   struct vt_event *ev, size_t *line_len,
			   const char *p, unsigned int seen)
{
	const uintptr_t hot = room_end(line, e, KEY_ROOM);
	int k, nomem = 0;
	uint64_t w;

	if (seen & AT_SEP) {
		seen &= ~AT_SEP;
		goto next;
	}
	if (seen & AT_KEY) {
		seen &= ~AT_KEY;
	} else {
		event_clear(ev);
		if (p >= e || *p != '{') {
			p = cold_ws(p, e, nl_ends);
			if (p >= e || *p != '{')
				return 0;
		}
		p++;
	}
	for (;;) {
		if ((uintptr_t)p > hot || *p != '"')
			goto cold_key;
hot_key:
		w = load_le64(p + 1);
#define KEY(key, f)							\
		if (KEY_IS(w, key)) {					\
			if (seen & (1u << (f)))				\
				return 0;				\
			seen |= 1u << (f);				\
			p = fast_value(fp, (f), p + KEY_LEN(key), e,	\
				       UINTPTR_MAX, nl_ends, ev, &nomem); \
			goto next;					\
		}
		FAST_KEYS(w, KEY);
#undef KEY
cold_key:
		p = cold_key(p, e, nl_ends, &k);
		if (!p)
			return 0;
		if (seen & (1u << k))
			return 0;
		seen |= 1u << k;
		p = fast_value(fp, k, p, e, room_end(line, e, VALUE_ROOM),
			       nl_ends, ev, &nomem);
next:
		if (!p)
			return nomem;
		/* ',' and the next key's quote: one compare */
		if ((uintptr_t)p < hot && load_le16(p) == ('"' << 8 | ',')) {
			p++;
			goto hot_key;
		}
		if (p < e && *p == '}')
			goto close;
		p = cold_ws(p, e, nl_ends);
		if (p >= e || *p != ',')
			break;
		p++;
	}
	if (p >= e || *p != '}')
		return 0;
close:
	p++;
	if (!nl_ends || p >= e || *p != '\n') {
		p = cold_ws(p, e, nl_ends);
		if (nl_ends && p < e && *p == '\n')
			;
		else if (p != e || (nl_ends && !eof))
			return 0;	/* more, or the line may go on past @e */
	}
	if (nl_ends)
		*line_len = p - line;
	return event_done(fp, ev, seen);
}

/*
 * hot_event()'s value of the key @k at @p, as fast_value() reads it in
 * one step (KEY_ROOM bytes readable at the key), or NULL for any value
 * that is not in that form: an id string, "pages", "flags", "prot", a
 * caller not the last event's, a number of more than seven digits or a
 * "0x..." string (fast_event() then reads it again).
 */
FAST_INLINE const char *hot_value(struct vt_trace_fast *fp, int k,
				  const char *p, const char *e,
				  struct vt_event *ev)
{
	const char *q;
	uint64_t v;
	int op;

	switch (k) {
	case F_OP:
		if (*p != '"' || (op = word_op(p, &q)) < 0)
			return NULL;
		ev->op = op;
		return q;
	case F_ID:
		ev->id.present = true;
		return word_int(p, &ev->id.num);
	case F_SIZE:
		return word_int(p, &ev->size);
	case F_PHYS:
		return word_int(p, &ev->phys);
	case F_ALIGN:
		q = word_int(p, &ev->align);
		if (q && (!ev->align || (ev->align & (ev->align - 1))))
			return NULL;
		return q;
	case F_VA:
		ev->has_va = true;
		return word_int(p, &ev->va);
	case F_T:
		ev->has_t = true;
		return word_int(p, &ev->t);
	case F_CPU:
		q = word_int(p, &v);
		if (!q || v > INT32_MAX)
			return NULL;
		ev->cpu = v;
		return q;
	case F_CALLER:
		return same_caller(fp, p, e, ev);
	}
	return NULL;
}

/*
 * The hot pass of a JSON Lines line: vmaptool's own layout (no
 * whitespace, the values in their plain forms: hot_value()) read with no
 * call, so that it needs no saved registers.  1 (*@len set), 0, or 2
 * where it stops (*@at: the byte, *@seen: the keys read and AT_KEY or
 * AT_SEP), for fast_event() to go on from there.
 */
FAST_INLINE int hot_event(struct vt_trace_fast *fp, const char *line,
			  const char *e, struct vt_event *ev, size_t *len,
			  const char **at, unsigned int *at_seen)
{
	const uintptr_t hot = room_end(line, e, KEY_ROOM);
	const char *p = line, *key;
	unsigned int seen = 0;
	uint64_t w;

	event_clear(ev);
	if (p >= e || *p != '{') {
		*at = line;	/* fast_event() from the start */
		*at_seen = 0;
		return 2;
	}
	key = ++p;
	if ((uintptr_t)p > hot || *p != '"')
		goto stop_key;
	for (;;) {
		w = load_le64(p + 1);
#define KEY(key_, f)							\
		if (KEY_IS(w, key_)) {					\
			if (seen & (1u << (f)))				\
				return 0;				\
			seen |= 1u << (f);				\
			p = hot_value(fp, (f), p + KEY_LEN(key_), e, ev); \
			if (!p) {					\
				seen &= ~(1u << (f));			\
				goto stop_key;				\
			}						\
			goto next;					\
		}
		FAST_KEYS(w, KEY);
#undef KEY
		goto stop_key;
next:
		/* ',' and the next key's quote: one compare */
		if ((uintptr_t)p < hot && load_le16(p) == ('"' << 8 | ',')) {
			key = ++p;
			continue;
		}
		if (p + 1 < e && p[0] == '}' && p[1] == '\n') {
			*len = p + 1 - line;
			return event_done(fp, ev, seen);
		}
		*at = p;
		*at_seen = seen | AT_SEP;
		return 2;
	}
stop_key:
	*at = key;
	*at_seen = seen | AT_KEY;
	return 2;
}

int vt_trace_fast_event(struct vt_trace_fast *fp, const char *line, size_t n,
			struct vt_event *ev)
{
	return fast_event(fp, line, line + n, false, true, ev, NULL, line, 0);
}

/* vt_trace_fast_next() from where hot_event() stopped. */
static __attribute__((noinline)) int
fast_next_from(struct vt_trace_fast *fp, struct vt_trace_lines *in,
	       struct vt_event *ev, const char *p, unsigned int seen)
{
	const char *line = in->cur;
	size_t n = 0;

	if (fast_event(fp, line, in->end, true, in->eof, ev, &n, p, seen) != 1)
		return 0;
	in->cur = line + n + (line + n < in->end);	/* and its newline */
	ev->line = ++in->lineno;
	ev->column = 1;
	return 1;
}

int vt_trace_fast_next(struct vt_trace_fast *fp, struct vt_trace_lines *in,
		       struct vt_event *ev)
{
	const char *line = in->cur, *at;
	unsigned int seen;
	size_t n;
	int ret;

	ret = hot_event(fp, line, in->end, ev, &n, &at, &seen);
	if (ret == 2)
		return fast_next_from(fp, in, ev, at, seen);
	if (!ret)
		return 0;
	in->cur = line + n + 1;	/* and its newline */
	ev->line = ++in->lineno;
	ev->column = 1;
	return 1;
}

void vt_trace_fast_release(struct vt_trace_fast *fp)
{
	free(fp->runs);
	fp->runs = NULL;
	fp->runs_cap = 0;
}
