// SPDX-License-Identifier: GPL-2.0
/*
 * The strategy table and the strategy-name grammar of interfaces.md 1.2:
 *   spec = base [ "@" digits | ":force" ] *( "+" axis )
 */
#include <ctype.h>
#include <string.h>

#include "core/engine.h"

static const struct vt_strategy *const strategies[] = {
	&vt_strategy_pagewise,
	&vt_strategy_zigzag,
	&vt_strategy_batched,
	&vt_strategy_segments,
	NULL,
};

static const struct {
	const char *name;
	uint32_t bit;
	const char *summary;
	const char *origin;
} axes[] = {
	{ "vfree-perpage", VT_AXIS_VFREE_PERPAGE,
	  "vfree frees every page as order 0 (baseline)", "mm/vmalloc.c vfree()" },
	{ "vfree-bulk", VT_AXIS_VFREE_BULK,
	  "vfree releases contiguous runs with free_pages_bulk()",
	  "seed 002: vmalloc: optimize vfree with free_pages_bulk()" },
	{ "linear-old", VT_AXIS_LINEAR_OLD,
	  "linear map: fixmap per CONT sub-range, barriers per PTE (<= v6.9)",
	  "arch/arm64/mm/mmu.c before 5c63db59c5f8" },
	{ "linear-p1", VT_AXIS_LINEAR_P1,
	  "linear map: fixmap once per table population",
	  "5c63db59c5f8 (seed 003)" },
	{ "linear-p1p2", VT_AXIS_LINEAR_P1P2,
	  "linear map: + batched dsb/isb when populating",
	  "5c63db59c5f8 + 1fcb7cea8a5f" },
	{ "linear-new", VT_AXIS_LINEAR_NEW,
	  "linear map: + no remap for allocate vs populate (v6.10+)",
	  "+ 0e9df1c905d8" },
};

/* Axes whose replay this version does not model yet. */
static bool axis_available(uint32_t bit)
{
	(void)bit;
	return false;
}

/*
 * Dependency rules of Barry Song's series (strategies.md 1): 2 needs 1,
 * 4 needs 3, 7 needs 3 and 5, 8 needs 7.
 */
static int check_patches(uint32_t p, struct vt_error *err)
{
	static const struct { int patch, needs; } deps[] = {
		{ 2, 1 }, { 4, 3 }, { 7, 3 }, { 7, 5 }, { 8, 7 },
	};

	for (size_t i = 0; i < sizeof(deps) / sizeof(deps[0]); i++)
		if ((p & (1u << deps[i].patch)) && !(p & (1u << deps[i].needs)))
			return vt_error_set(err, VT_ERR_BAD_STRATEGY,
					    "patch %d needs patch %d",
					    deps[i].patch, deps[i].needs);
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
			if (strcmp(plus, axes[i].name))
				continue;
			found = true;
			if (!axis_available(axes[i].bit))
				return vt_error_set(err, VT_ERR_BAD_STRATEGY,
						    "'%s': axis '%s' is not modelled in this version",
						    text, plus);
			if (out->axes & axes[i].bit)
				return vt_error_set(err, VT_ERR_BAD_STRATEGY,
						    "'%s': axis '%s' given twice", text, plus);
			out->axes |= axes[i].bit;
		}
		if (!found)
			return vt_error_set(err, VT_ERR_NO_STRATEGY,
					    "'%s': unknown axis '%s'", text, plus);
		plus = next;
	}
	/* an axis given alone means zigzag+axis */
	for (size_t i = 0; i < sizeof(axes) / sizeof(axes[0]); i++)
		if (!strcmp(buf, axes[i].name))
			return vt_error_set(err, VT_ERR_BAD_STRATEGY,
					    "'%s': axis '%s' is not modelled in this version",
					    text, buf);
	mod = strpbrk(buf, "@:");
	base = buf;
	if (mod) {
		char kind = *mod;

		*mod++ = '\0';
		if (!strcmp(base, "mainline"))
			base = "zigzag";
		for (int i = 0; strategies[i]; i++)
			if (!strcmp(strategies[i]->name, base))
				out->strat = strategies[i];
		if (!out->strat)
			return vt_error_set(err, VT_ERR_NO_STRATEGY,
					    "unknown strategy '%s'", base);
		if (kind == '@') {
			if (!out->strat->takes_patches)
				return vt_error_set(err, VT_ERR_BAD_STRATEGY,
						    "'%s': only batched takes @patches", text);
			if (!*mod)
				return vt_error_set(err, VT_ERR_BAD_STRATEGY,
						    "'%s': no patch numbers after '@'", text);
			for (char *c = mod; *c; c++) {
				if (*c < '1' || *c > '8')
					return vt_error_set(err, VT_ERR_BAD_STRATEGY,
							    "'%s': patch '%c' is not 1-8", text, *c);
				if (out->patches & (1u << (*c - '0')))
					return vt_error_set(err, VT_ERR_BAD_STRATEGY,
							    "'%s': patch %c given twice", text, *c);
				out->patches |= 1u << (*c - '0');
			}
			return check_patches(out->patches, err);
		}
		if (strcmp(mod, "force"))
			return vt_error_set(err, VT_ERR_BAD_STRATEGY,
					    "'%s': unknown modifier ':%s'", text, mod);
		if (!out->strat->takes_force)
			return vt_error_set(err, VT_ERR_BAD_STRATEGY,
					    "'%s': only segments takes :force", text);
		out->force = true;
		return 0;
	}
	if (!strcmp(base, "mainline"))
		base = "zigzag";
	for (int i = 0; strategies[i]; i++)
		if (!strcmp(strategies[i]->name, base))
			out->strat = strategies[i];
	if (!out->strat) {
		for (const char *c = text; *c; c++)
			if (isupper((unsigned char)*c))
				return vt_error_set(err, VT_ERR_NO_STRATEGY,
						    "unknown strategy '%s' (names are lower case)",
						    text);
		return vt_error_set(err, VT_ERR_NO_STRATEGY,
				    "unknown strategy '%s'", base);
	}
	if (out->strat->takes_patches)
		out->patches = 0x1fe;	/* all eight patches */
	return 0;
}

const struct vt_strategy_info *vt_strategy_infos(void)
{
	static struct vt_strategy_info infos[16];

	if (!infos[0].name) {
		int n = 0;

		for (int i = 0; strategies[i]; i++)
			infos[n++] = (struct vt_strategy_info){
				strategies[i]->name, strategies[i]->summary,
				strategies[i]->origin };
		infos[n++] = (struct vt_strategy_info){
			"mainline", "alias of zigzag", "mm/vmalloc.c (mainline)" };
	}
	return infos;
}
