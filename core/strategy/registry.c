// SPDX-License-Identifier: GPL-2.0
/*
 * The strategy table and the strategy-name grammar of interfaces.md 1.2:
 *   spec = base [ "@" digits | ":force" ] *( "+" axis )
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "core/mm/engine.h"
#include "core/strategy/registry.h"

/* A test build adds one entry with -DVT_STRATEGY_EXTRA=name (the toy
 * strategy of tests/strategy/, see CMakeLists.txt). */
#ifdef VT_STRATEGY_EXTRA
#define VT_EXTRA(X, n) X(n)	/* expands VT_STRATEGY_EXTRA first */
#define VT_REGISTRY(X) VT_STRATEGY_REGISTRY(X) VT_EXTRA(X, VT_STRATEGY_EXTRA)
#else
#define VT_REGISTRY(X) VT_STRATEGY_REGISTRY(X)
#endif

#define DECLARE(n) extern const struct vt_strategy vt_strategy_##n;
VT_REGISTRY(DECLARE)
#undef DECLARE

#define ENTRY(n) &vt_strategy_##n,
const struct vt_strategy *const vt_strategies[] = {
	VT_REGISTRY(ENTRY)
	NULL,
};
#undef ENTRY

static const struct vt_strategy *const *const strategies = vt_strategies;

/* The strategy called @name, or having it as an alias. */
static const struct vt_strategy *find(const char *name)
{
	for (int i = 0; strategies[i]; i++) {
		const struct vt_strategy_alias *a = strategies[i]->aliases;

		if (!strcmp(strategies[i]->name, name))
			return strategies[i];
		for (; a && a->name; a++)
			if (!strcmp(a->name, name))
				return strategies[i];
	}
	return NULL;
}

/* "batched", or "a or b", of the strategies whose modifier starts with @kind
 * (and is @want, if given) */
static const char *takers(char kind, const char *want, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; strategies[i]; i++) {
		const char *m = strategies[i]->modifier_help;

		if (!m || m[0] != kind || (want && strcmp(m + 1, want)))
			continue;
		len += snprintf(buf + len, len < n ? n - len : 0, "%s%s",
				len ? " or " : "", strategies[i]->name);
	}
	return buf;
}

static const char *modifier_of(char kind)
{
	for (int i = 0; strategies[i]; i++) {
		const char *m = strategies[i]->modifier_help;

		if (m && m[0] == kind)
			return m;
	}
	return "";
}

static const struct {
	const char *name;
	uint32_t bit;
	const char *summary;
	const char *origin;
} axes[] = {
	{ "vfree-perpage", VT_AXIS_VFREE_PERPAGE,
	  "vfree frees every page as order 0 (v6.16 and older)", "mm/vmalloc.c vfree()" },
	{ "vfree-bulk", VT_AXIS_VFREE_BULK,
	  "vfree releases contiguous runs with free_pages_bulk()",
	  "Ryan Roberts, vmalloc: optimize vfree with free_pages_bulk() (mm-new, 2026-04-01)" },
	{ "linear-old", VT_AXIS_LINEAR_OLD,
	  "linear map: fixmap per CONT sub-range, barriers per PTE (<= v6.9)",
	  "arch/arm64/mm/mmu.c before 5c63db59c5f8" },
	{ "linear-p1", VT_AXIS_LINEAR_P1,
	  "linear map: fixmap once per table population",
	  "5c63db59c5f8 arm64: mm: Don't remap pgtables per-cont(pte|pmd) block" },
	{ "linear-p1p2", VT_AXIS_LINEAR_P1P2,
	  "linear map: + batched dsb/isb when populating",
	  "5c63db59c5f8 + 1fcb7cea8a5f" },
	{ "linear-new", VT_AXIS_LINEAR_NEW,
	  "linear map: + no remap for allocate vs populate (v6.10+)",
	  "+ 0e9df1c905d8" },
};

#define VFREE_AXES VT_AXES_VFREE
#define LINEAR_AXES VT_AXES_LINEAR

const char *vt_axis_name(uint32_t bit)
{
	for (size_t i = 0; i < sizeof(axes) / sizeof(axes[0]); i++)
		if (axes[i].bit == bit)
			return axes[i].name;
	return NULL;
}

/* One '+axis': at most one choice per axis (strategies.md 1). */
static int add_axis(struct vt_strategy_spec *out, size_t i, const char *text,
		    struct vt_error *err)
{
	uint32_t group = (axes[i].bit & VFREE_AXES) ? VFREE_AXES : LINEAR_AXES;

	if (out->axes & axes[i].bit)
		return vt_error_set(err, VT_ERR_BAD_STRATEGY,
				    "'%s': axis '%s' given twice", text, axes[i].name);
	for (size_t j = 0; j < sizeof(axes) / sizeof(axes[0]); j++)
		if (out->axes & group & axes[j].bit)
			return vt_error_set(err, VT_ERR_BAD_STRATEGY,
					    "'%s' and '%s' exclude each other (one %s choice per strategy)",
					    axes[j].name, axes[i].name,
					    group == VFREE_AXES ? "vfree" : "linear-map");
	out->axes |= axes[i].bit;
	return 0;
}

int vt_strategy_parse(const char *text, struct vt_strategy_spec *out,
		      struct vt_error *err)
{
	char buf[sizeof(out->name)], *plus, *mod;
	const char *base;

	memset(out, 0, sizeof(*out));
	if (!text || !*text)
		return vt_error_set(err, VT_ERR_NO_STRATEGY, "empty strategy name");
	if (strlen(text) >= sizeof(buf))
		return vt_error_set(err, VT_ERR_NO_STRATEGY,
				    "strategy name too long");
	strcpy(buf, text);
	strcpy(out->name, text);
	plus = strchr(buf, '+');
	if (plus)
		*plus++ = '\0';
	/* axes */
	while (plus) {
		char *next = strchr(plus, '+');
		bool found = false;

		if (next)
			*next++ = '\0';
		for (size_t i = 0; i < sizeof(axes) / sizeof(axes[0]); i++) {
			int r;

			if (strcmp(plus, axes[i].name))
				continue;
			found = true;
			r = add_axis(out, i, text, err);
			if (r)
				return r;
		}
		if (!found)
			return vt_error_set(err, VT_ERR_NO_STRATEGY,
					    "'%s': unknown axis '%s'", text, plus);
		plus = next;
	}
	/* an axis given alone means zigzag+axis */
	for (size_t i = 0; i < sizeof(axes) / sizeof(axes[0]); i++) {
		if (strcmp(buf, axes[i].name))
			continue;
		/* interfaces.md 1.2: "An axis given alone means zigzag+axis" */
		out->strat = find("zigzag");
		if (!out->strat)
			return vt_error_set(err, VT_ERR_INVARIANT, "no zigzag strategy");
		if (out->strat->spec_default)
			out->strat->spec_default(out);
		return add_axis(out, i, text, err);
	}
	mod = strpbrk(buf, "@:");
	base = buf;
	if (mod) {
		char kind = *mod, who[128];

		*mod++ = '\0';
		out->strat = find(base);
		if (!out->strat)
			return vt_error_set(err, VT_ERR_NO_STRATEGY,
					    "unknown strategy '%s'", base);
		if (out->strat->modifier_help &&
		    out->strat->modifier_help[0] == kind)
			return out->strat->modifier(text, kind, mod, out, err);
		if (kind == ':' && !*takers(':', mod, who, sizeof(who)))
			return vt_error_set(err, VT_ERR_BAD_STRATEGY,
					    "'%s': unknown modifier ':%s'", text, mod);
		takers(kind, kind == ':' ? mod : NULL, who, sizeof(who));
		if (kind == ':')
			return vt_error_set(err, VT_ERR_BAD_STRATEGY,
					    "'%s': only %s takes :%s", text,
					    who, mod);
		return vt_error_set(err, VT_ERR_BAD_STRATEGY,
				    "'%s': only %s takes %s", text,
				    *who ? who : "no strategy", modifier_of(kind));
	}
	out->strat = find(base);
	if (!out->strat) {
		for (const char *c = text; *c; c++)
			if (isupper((unsigned char)*c))
				return vt_error_set(err, VT_ERR_NO_STRATEGY,
						    "unknown strategy '%s' (names are lower case)",
						    text);
		return vt_error_set(err, VT_ERR_NO_STRATEGY,
				    "unknown strategy '%s'", base);
	}
	if (out->strat->spec_default)
		out->strat->spec_default(out);
	return 0;
}

const struct vt_strategy_info *vt_strategy_infos(void)
{
	/* every strategy, then every alias ("alias of NAME"), then the end */
	static struct vt_strategy_info infos[64];
	static char alias_of[16][64];

	if (!infos[0].name) {
		int n = 0, k = 0;

		for (int i = 0; strategies[i] && n < 62; i++)
			infos[n++] = (struct vt_strategy_info){
				strategies[i]->name, strategies[i]->summary,
				strategies[i]->origin };
		for (int i = 0; strategies[i]; i++) {
			const struct vt_strategy_alias *a = strategies[i]->aliases;

			for (; a && a->name && n < 63 && k < 16; a++, k++) {
				snprintf(alias_of[k], sizeof(alias_of[k]),
					 "alias of %s", strategies[i]->name);
				infos[n++] = (struct vt_strategy_info){
					a->name, alias_of[k], a->origin };
			}
		}
		for (size_t i = 0; i < sizeof(axes) / sizeof(axes[0]) && n < 63; i++)
			infos[n++] = (struct vt_strategy_info){
				axes[i].name, axes[i].summary, axes[i].origin };
	}
	return infos;
}

const char *vt_strategy_default_list(void)
{
	static char list[512];

	if (!list[0]) {
		size_t len = 0;

		for (int i = 0; strategies[i]; i++)
			if (strategies[i]->in_default)
				len += snprintf(list + len,
						len < sizeof(list) ? sizeof(list) - len : 0,
						"%s%s", len ? "," : "",
						strategies[i]->name);
	}
	return list;
}

/* The strategy registered under exactly @n bytes of @name (no alias). */
static const struct vt_strategy *strategy_named(const char *name, size_t n)
{
	for (int i = 0; strategies[i]; i++)
		if (strlen(strategies[i]->name) == n &&
		    !strncmp(strategies[i]->name, name, n))
			return strategies[i];
	return NULL;
}

const char *vt_strategy_ablation_names(void)
{
	static char names[256];

	if (!names[0]) {
		size_t len = 0;

		for (int i = 0; strategies[i]; i++)
			if (strategies[i]->ablation)
				len += snprintf(names + len,
						len < sizeof(names) ? sizeof(names) - len : 0,
						"%s'%s'", len ? " or " : "",
						strategies[i]->name);
	}
	return names;
}

char *vt_strategy_expand_ablation(const char *list, bool *found)
{
	size_t cap = 1, len = 0;
	const char *p;
	char *out;

	*found = false;
	for (p = list;; p++) {
		size_t n = strcspn(p, ",");
		const struct vt_strategy *s = strategy_named(p, n);

		cap += 1 + (s && s->ablation ? strlen(s->ablation) : n);
		p += n;
		if (!*p)
			break;
	}
	out = malloc(cap);
	if (!out)
		return NULL;
	for (p = list;; p++) {
		size_t n = strcspn(p, ",");
		const struct vt_strategy *s = strategy_named(p, n);
		const char *src = s && s->ablation ? s->ablation : p;
		size_t sn = s && s->ablation ? strlen(s->ablation) : n;

		*found |= s && s->ablation;
		if (len)
			out[len++] = ',';
		memcpy(out + len, src, sn);
		len += sn;
		p += n;
		if (!*p)
			break;
	}
	out[len] = '\0';
	return out;
}

const char *vt_strategy_mainline(void)
{
	for (int i = 0; strategies[i]; i++)
		for (const struct vt_strategy_alias *a = strategies[i]->aliases;
		     a && a->name; a++)
			if (!strcmp(a->name, "mainline"))
				return strategies[i]->name;
	return strategies[0]->name;
}
