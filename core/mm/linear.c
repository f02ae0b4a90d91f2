// SPDX-License-Identifier: GPL-2.0
/*
 * The linear map of map_mem() (arch/arm64/mm/mmu.c, linux-mm/linux-mm @
 * 0118174d4e1c and the older versions arch/arm64/linear-map.c models)
 * shared by the strategies that build the same one.  Each strategy's
 * engine has its own swapper_pg_dir, and an 8 TiB machine's linear map is
 * 100 MiB of tables however much the run tables fold it; the strategies of
 * a compare differ in vmap()/vmalloc() and mostly build the same linear
 * map.  A group of them (core/replay.c) has
 * one leader, which builds it and records what each linear_map event
 * counted; the followers build no linear-map tables and take those counts.
 *
 * Exact because the linear map's counts are a function of the linear-map
 * version, the geometry, the event, the earlier linear_map events and
 * nothing of the vmalloc side, where vt_linear_same() holds:
 * - the linear region [PAGE_OFFSET, PAGE_END) shares no top-level entry
 *   with the rest of the kernel's VA space (modules, vmalloc, vmemmap,
 *   the booted tables of arm64_booted_tables()), so every table below its
 *   PGD entries is built by linear_map events alone;
 * - the arch helpers it calls (arm64_set_entry(), arm64_emit_pte_barriers(),
 *   arm64_flush_tlb_kernel_range() of one fixmap page, the table pool) count
 *   the same whatever the vmalloc side did: the table pool's ids only give
 *   table descriptors their addresses, and lazy MMU mode is never active
 *   between events (core/mm/walk.c leaves it before a walk returns; an
 *   error ends the replay);
 * - of the arch options only those the helpers read (eager_barriers,
 *   tlbi_range, flush_per_page, rodata_rw) could change a count; they are
 *   compared.  patch1, patch2, vmap_cont (the vmalloc area's set_ptes paths),
 *   initial_empty and modules_128m (the tables and area above PAGE_END)
 *   are not read by the linear-map builder.
 * What a follower's own tables would have given: its linear_tlb_entries,
 * its --per-event shapes of a linear_map event (the leader's tables, after
 * the same event) and its --verify findings, all taken from the leader;
 * ptdump, which dumps each engine's own tables, replays unshared.
 */
#include <string.h>

#include "core/mm/engine.h"

enum arm64_linear_variant vt_linear_variant(const struct vt_engine *e)
{
	uint32_t axes = vt_axes_resolve(e->spec.axes, e->o.kernel);

	if (axes & VT_AXIS_LINEAR_OLD)
		return ARM64_LINEAR_OLD;
	if (axes & VT_AXIS_LINEAR_P1)
		return ARM64_LINEAR_P1;
	if (axes & VT_AXIS_LINEAR_P1P2)
		return ARM64_LINEAR_P1P2;
	return ARM64_LINEAR_NEW;
}

/* [PAGE_OFFSET, PAGE_END) starts and ends on a top-level entry boundary:
 * no table of the linear map serves another region (on 52-bit VA with 4K
 * or 16K pages PAGE_END, at VA_BITS_MIN, lies inside the last PGD entry,
 * which the vmalloc area shares, and the linear map is not shared). */
static bool linear_pgd_private(const struct arm64_geom *g)
{
	uint64_t entry = 1ull << g->shift[0];
	uint64_t end = g->page_offset + arm64_linear_size(g);

	return !(g->page_offset & (entry - 1)) && !(end & (entry - 1));
}

bool vt_linear_same(const struct vt_engine *a, const struct vt_engine *b)
{
	const struct arm64_mm_opts *x = &a->mm.o, *y = &b->mm.o;

	return vt_linear_variant(a) == vt_linear_variant(b) &&
	       a->o.page_shift == b->o.page_shift && a->o.va_bits == b->o.va_bits &&
	       a->o.verify == b->o.verify &&
	       x->eager_barriers == y->eager_barriers && x->tlbi_range == y->tlbi_range &&
	       x->flush_per_page == y->flush_per_page && x->rodata_rw == y->rodata_rw &&
	       !memcmp(&a->mm.g, &b->mm.g, sizeof(a->mm.g)) &&
	       linear_pgd_private(&a->mm.g);
}

struct arm64_mm *vt_linear_mm(struct vt_engine *e)
{
	return e->lin_leader ? &e->lin_leader->mm : &e->mm;
}

/* A follower: the leader's record of this event, added to its counts. */
static int linear_follow(struct vt_engine *e, uint64_t *bad, uint64_t *first)
{
	const struct vt_linear_rec *r = e->lin_rec;

	/* the leader stopped earlier (an error that comes first) */
	if (!r || r->index != e->cur_index)
		return vt_error_set(e->err, VT_ERR_INVARIANT,
				    "the shared linear map has no record of event %ld",
				    e->cur_index);
	for (int i = 0; i < ARM64_C__NR; i++)
		e->mm.st->c[i] += r->c.c[i];
	e->mm.st->touched |= r->c.touched;
	e->mm.lin_tlb_units = r->units;
	e->mm.lin_tlb_units_peak = r->units_peak;
	*bad = r->bad;
	*first = r->first;
	return r->ret;
}

/* arm64___create_pgd_mapping() (and with --verify arm64_linear_verify():
 * *bad pages, the *first) on @e's own tables, recorded in *e->lin_rec if
 * set; a follower takes all of it from its leader's record instead. */
static int vt_linear_map(struct vt_engine *e, enum arm64_linear_variant v, uint64_t phys,
		  uint64_t virt, uint64_t size, uint64_t prot, unsigned int flags,
		  uint64_t *bad, uint64_t *first)
{
	struct vt_linear_rec *r = e->lin_rec;
	struct arm64_counters before;
	int ret;

	*bad = 0;
	*first = UINT64_MAX;
	if (e->lin_leader)
		return linear_follow(e, bad, first);
	if (r)
		before = *e->mm.st;
	ret = arm64___create_pgd_mapping(&e->mm, v, phys, virt, size, prot, flags);
	if (!ret && e->o.verify)
		*bad = arm64_linear_verify(&e->mm, phys, virt, size, prot, first);
	if (r) {
		r->index = e->cur_index;
		r->ret = ret;
		for (int i = 0; i < ARM64_C__NR; i++)
			r->c.c[i] = e->mm.st->c[i] - before.c[i];
		r->c.touched = e->mm.st->touched;	/* what it may have moved */
		r->units = e->mm.lin_tlb_units;
		r->units_peak = e->mm.lin_tlb_units_peak;
		r->bad = *bad;
		r->first = *first;
	}
	return ret;
}

/*
 * A linear_map event: one __map_memblock() of map_mem() (boot, rodata
 * writable), built by the version of arch/arm64/mm/mmu.c the strategy's
 * linear axis names (vt_axes_resolve(): default linear-new).  With --verify every page of
 * the range is checked once, here: nothing later changes it.
 */
int vt_map_mem(struct vt_engine *e, const struct vt_event *ev, uint64_t *va)
{
	const struct arm64_geom *g = &e->mm.g;
	unsigned int flags = 0;
	uint64_t virt, prot = arm64_linear_prot(g), bad, first;
	int ret;

	if (ev->flags & VT_FLAG(NO_BLOCK_MAPPINGS))
		flags |= ARM64_NO_BLOCK_MAPPINGS;
	if (ev->flags & VT_FLAG(NO_CONT_MAPPINGS))
		flags |= ARM64_NO_CONT_MAPPINGS;
	if (ev->flags & VT_FLAG(NO_EXEC_MAPPINGS))
		flags |= ARM64_NO_EXEC_MAPPINGS;
	if (!ev->size)
		return vt_error_set(e->err, VT_ERR_BAD_REQUEST, "linear_map of size 0");
	if (!e->memstart_set) {
		/* memstart_addr = round_down(memblock_start_of_DRAM(),
		 * ARM64_MEMSTART_ALIGN) */
		e->memstart = ev->phys & ~(arm64_memstart_align(g) - 1);
		e->memstart_set = true;
	}
	if (ev->phys < e->memstart || ev->phys - e->memstart > arm64_linear_size(g) ||
	    ev->size > arm64_linear_size(g) - (ev->phys - e->memstart))
		return vt_error_set(e->err, VT_ERR_BAD_REQUEST,
				    "linear_map of [0x%llx, +0x%llx) outside the linear region (PHYS_OFFSET 0x%llx, %llu GiB)",
				    (unsigned long long)ev->phys,
				    (unsigned long long)ev->size,
				    (unsigned long long)e->memstart,
				    (unsigned long long)(arm64_linear_size(g) >> 30));
	virt = arm64_linear_virt(g, e->memstart, ev->phys);
	*va = virt;
	/* its own tables, or those of the strategies it shares them with */
	ret = vt_linear_map(e, vt_linear_variant(e), ev->phys, virt, ev->size, prot,
			    flags, &bad, &first);
	if (ret == ARM64_LINEAR_EBUG)
		return vt_error_set(e->err, VT_ERR_BAD_REQUEST,
				    "linear_map of [0x%llx, +0x%llx) over a different mapping: the kernel would BUG()",
				    (unsigned long long)ev->phys,
				    (unsigned long long)ev->size);
	if (ret)
		return ret;
	if (bad) {
		*vt_stats_at(e->w.st, VT_M_mismapped_pages) += bad;
		if (e->cb && e->cb->mismap)
			e->cb->mismap(e->cb->ctx, e->cur_index, e->strat_idx, first,
				      ev->phys + (first - virt), UINT64_MAX, bad);
	}
	return 0;
}
