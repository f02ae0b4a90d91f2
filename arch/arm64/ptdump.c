// SPDX-License-Identifier: GPL-2.0
/*
 * Page-table dump: maximal ranges of like leaf descriptors, in the manner
 * of arch/arm64/mm/ptdump.c (note_page() merges entries whose level and
 * attributes match).
 */
#include "arch/arm64/arm64.h"

struct ptd {
	const struct arm64_mm *mm;
	struct arm64_ptdump_range cur;
	bool have;
	int (*fn)(void *ctx, const struct arm64_ptdump_range *r);
	void *ctx;
};

static int emit(struct ptd *p)
{
	int ret = 0;

	if (p->have)
		ret = p->fn(p->ctx, &p->cur);
	p->have = false;
	return ret;
}

static int note(struct ptd *p, int d, uint64_t va, uint64_t size, uint64_t desc)
{
	const struct arm64_geom *g = &p->mm->g;
	const char *kind = d == (int)g->levels - 1 ?
			   ((desc & PTE_CONT) ? "cont" : "page") : "block";
	uint64_t pa = arm64_desc_to_pa(g, desc), attrs = arm64_desc_attrs(g, desc);
	struct arm64_ptdump_range *c = &p->cur;
	int ret;

	if (p->have && c->va_end == va && c->level == d && c->kind == kind &&
	    c->attrs == attrs && c->pa_start + (c->va_end - c->va_start) == pa) {
		c->va_end += size;
		c->nr++;
		return 0;
	}
	ret = emit(p);
	if (ret)
		return ret;
	*c = (struct arm64_ptdump_range){
		.va_start = va, .va_end = va + size, .pa_start = pa,
		.level = d, .lvl_name = arm64_level_name(g, d), .kind = kind,
		.attrs = attrs, .nr = 1,
	};
	p->have = true;
	return 0;
}

static int walk(struct ptd *p, int d, uint32_t tid, uint64_t base)
{
	const struct arm64_geom *g = &p->mm->g;
	const uint64_t *t = p->mm->tbl[tid];
	int ret = 0;

	if (!t) {
		/* a run table: each run's first leaf, then the rest of the run,
		 * which extend the range note() made of it (same kind and
		 * attributes, output contiguous) */
		struct arm64_run one;
		uint32_t nr;
		const struct arm64_run *r = arm64_table_runs(p->mm, tid, &one, &nr);
		uint64_t size = 1ull << g->shift[d];

		for (uint32_t x = 0; x < nr && !ret; x++) {
			ret = note(p, d, base + ((uint64_t)r[x].first << g->shift[d]),
				   size, r[x].desc0);
			p->cur.va_end += (r[x].len - 1) * size;
			p->cur.nr += r[x].len - 1;
		}
		return ret;
	}
	for (uint64_t i = 0; i < g->ptrs[d] && !ret; i++) {
		uint64_t va = base + (i << g->shift[d]);

		if (d == 0)	/* kernel addresses: sign-extend the top bits */
			va |= ~((1ull << g->va_bits) - 1);
		if (!(t[i] & PTE_VALID)) {
			continue;
		} else if (d < (int)g->levels - 1 && arm64_desc_table(t[i])) {
			uint32_t c = arm64_desc_table_id(p->mm, t[i]);

			if (c != UINT32_MAX)
				ret = walk(p, d + 1, c, va);
		} else {
			ret = note(p, d, va, 1ull << g->shift[d], t[i]);
		}
	}
	return ret;
}

int arm64_ptdump(const struct arm64_mm *mm,
		     int (*fn)(void *ctx, const struct arm64_ptdump_range *r),
		     void *ctx)
{
	struct ptd p = { .mm = mm, .fn = fn, .ctx = ctx };
	int ret = walk(&p, 0, mm->pgd, 0);

	return ret ? ret : emit(&p);
}
