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

enum fast_key {
	F_OP, F_ID, F_PAGES, F_SIZE, F_PHYS, F_ALIGN, F_FLAGS, F_PROT,
	F_VA, F_T, F_CPU, F_CALLER, F__NR
};

struct cursor {
	const char *p, *e;
};

static inline void cursor_skip_ws(struct cursor *c)
{
	while (c->p < c->e &&
	       (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n'))
		c->p++;
}

/* Expect @ch after optional whitespace. */
static inline bool cursor_expect(struct cursor *c, char ch)
{
	cursor_skip_ws(c);
	if (c->p < c->e && *c->p == ch) {
		c->p++;
		return true;
	}
	return false;
}

/*
 * A string of printable ASCII without escapes, the cursor on its opening
 * quote (after whitespace).  Sets @s and @len; false for anything else.
 */
static inline bool cursor_plain_string(struct cursor *c, const char **s,
				       size_t *len)
{
	const char *p;

	if (!cursor_expect(c, '"'))
		return false;
	for (p = c->p; p < c->e; p++) {
		unsigned char ch = *p;

		if (ch == '"') {
			*s = c->p;
			*len = p - c->p;
			c->p = p + 1;
			return true;
		}
		if (ch < 0x20 || ch >= 0x7f || ch == '\\')
			return false;
	}
	return false;
}

/* A JSON integer the jansson path takes as json_int_t >= 0 (18 digits). */
static inline bool cursor_plain_int(struct cursor *c, uint64_t *out)
{
	const char *p = c->p;
	uint64_t x = 0;
	int nd = 0;

	while (p < c->e && *p >= '0' && *p <= '9' && nd <= 18) {
		x = x * 10 + (*p - '0');
		p++;
		nd++;
	}
	if (!nd || nd > 18 || (nd > 1 && c->p[0] == '0'))
		return false;
	if (p < c->e && (*p == '.' || *p == 'e' || *p == 'E' ||
			 (*p >= '0' && *p <= '9')))
		return false;
	c->p = p;
	*out = x;
	return true;
}

/* value_u64() of trace-schema.c: an integer >= 0 or a "0x..." string. */
static inline bool cursor_u64(struct cursor *c, uint64_t *out)
{
	const char *s;
	size_t len;
	uint64_t x = 0;

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
	return !strncmp(s, name, len) && !name[len];
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
		uint64_t pfn = 0, order = 0, count = 1, pages_in_run, v;
		unsigned int seen = 0;
		const char *k;
		size_t klen;

		if (!cursor_expect(c, '{'))
			return 0;
		do {
			unsigned int bit;

			if (!cursor_plain_string(c, &k, &klen) || !cursor_expect(c, ':') ||
			    !cursor_u64(c, &v))
				return 0;
			if (klen == 3 && !memcmp(k, "pfn", 3)) {
				bit = 1;
				pfn = v;
			} else if (klen == 5 && !memcmp(k, "order", 5)) {
				bit = 2;
				order = v;
			} else if (klen == 5 && !memcmp(k, "count", 5)) {
				bit = 4;
				count = v;
			} else {
				return 0;
			}
			if (seen & bit)
				return 0;
			seen |= bit;
		} while (cursor_expect(c, ','));
		if (!cursor_expect(c, '}') || !(seen & 1))
			return 0;
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
static bool fast_op_rules_hold(const struct vt_trace_fast *fp,
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

int vt_trace_fast_event(struct vt_trace_fast *fp, const char *line, size_t n,
			struct vt_event *ev)
{
	struct cursor c = { line, line + n };
	const char *id_s = NULL, *caller_s = NULL, *s;
	size_t id_len = 0, caller_len = 0, len;
	unsigned int seen = 0;
	uint64_t v;
	int op = -1, ret;

	memset(ev, 0, sizeof(*ev));
	ev->cpu = -1;
	if (!cursor_expect(&c, '{'))
		return 0;
	do {
		int k;

		if (!cursor_plain_string(&c, &s, &len) || !cursor_expect(&c, ':'))
			return 0;
		k = key_of(s, len);
		if (k < 0 || (seen & (1u << k)))
			return 0;
		seen |= 1u << k;
		switch (k) {
		case F_OP:
			if (!cursor_plain_string(&c, &s, &len))
				return 0;
			op = find_name(s, len, vt_op_names, VT_OP__NR);
			if (op < 0)
				return 0;
			break;
		case F_ID:
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
			ret = get_pages(fp, &c, ev);
			if (ret <= 0)
				return ret;
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
			if (!get_flags(&c, ev))
				return 0;
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
			if (!cursor_plain_string(&c, &caller_s, &caller_len) ||
			    caller_len > VT_TRACE_MAX_STRING)
				return 0;
			break;
		}
	} while (cursor_expect(&c, ','));
	if (!cursor_expect(&c, '}'))
		return 0;
	cursor_skip_ws(&c);
	if (c.p != c.e || op < 0)
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
	if (caller_s) {
		memcpy(fp->caller, caller_s, caller_len);
		fp->caller[caller_len] = '\0';
		ev->caller = fp->caller;
	}
	return 1;
}

void vt_trace_fast_release(struct vt_trace_fast *fp)
{
	free(fp->runs);
	fp->runs = NULL;
	fp->runs_cap = 0;
}
