/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Metrics of spec/interfaces.md section 4, one X-macro list so that the
 * engine, the report and the tests agree on names and order.
 *
 * X(name, kind, better): kind says how the report renders the key:
 *   VT_MK_TOP   a top-level key of "metrics"
 *   VT_MK_TLBI  a member of "tlbi_by_kind" (name without the "tlbi_" prefix)
 *   VT_MK_DSB   a member of "dsb_by_kind" (extension: dsb = ishst + ish)
 *   VT_MK_VERIFY reported only under --verify (mismapped_pages)
 *   VT_MK_CYC   a member of "cycles_by_function" (name without the "cyc_"
 *               prefix): the cost model's cycles charged to that kernel
 *               function (core/cost/estimate.c, docs/cost-model.md)
 * and better says which way a change is good (the renderers' words and
 * colours, docs/report-format.md), the one place that decides it:
 *   VT_MB_FEWER    work the kernel does or a cost: fewer is better
 *   VT_MB_NEUTRAL  the workload, a state or a shape (pages allocated and
 *                  freed, pages pending, CONT ranges and blocks written,
 *                  how frees split between lists): neither way is better
 *                  by itself, what it costs shows in the other metrics
 */
#ifndef VT_STATS_H
#define VT_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define VT_METRICS(X)                                         \
	X(pte_writes, VT_MK_TOP, VT_MB_FEWER)                 \
	X(pte_clears, VT_MK_TOP, VT_MB_FEWER)                 \
	X(pmd_writes, VT_MK_TOP, VT_MB_FEWER)                 \
	X(pud_writes, VT_MK_TOP, VT_MB_FEWER)                 \
	X(p4d_writes, VT_MK_TOP, VT_MB_FEWER)                 \
	X(pgd_writes, VT_MK_TOP, VT_MB_FEWER)                 \
	X(pmd_clears, VT_MK_TOP, VT_MB_FEWER)                 \
	X(pud_clears, VT_MK_TOP, VT_MB_FEWER)                 \
	X(p4d_clears, VT_MK_TOP, VT_MB_FEWER)                 \
	X(pgd_clears, VT_MK_TOP, VT_MB_FEWER)                 \
	X(set_pte_at_calls, VT_MK_TOP, VT_MB_FEWER)           \
	X(set_huge_pte_at_calls, VT_MK_TOP, VT_MB_FEWER)      \
	X(cont_ranges, VT_MK_TOP, VT_MB_NEUTRAL)              \
	X(block_maps, VT_MK_TOP, VT_MB_NEUTRAL)               \
	X(table_walks, VT_MK_TOP, VT_MB_FEWER)                \
	X(walk_steps, VT_MK_TOP, VT_MB_FEWER)                 \
	X(tables_allocated, VT_MK_TOP, VT_MB_FEWER)           \
	X(tables_freed, VT_MK_TOP, VT_MB_FEWER)               \
	X(tlbi, VT_MK_TOP, VT_MB_FEWER)                       \
	X(tlbi_vaale1is, VT_MK_TLBI, VT_MB_FEWER)             \
	X(tlbi_vaae1is, VT_MK_TLBI, VT_MB_FEWER)              \
	X(tlbi_vmalle1is, VT_MK_TLBI, VT_MB_FEWER)            \
	X(tlbi_rvaale1is, VT_MK_TLBI, VT_MB_FEWER)            \
	X(tlbi_vale1is, VT_MK_TLBI, VT_MB_FEWER)              \
	X(dsb, VT_MK_TOP, VT_MB_FEWER)                        \
	X(dsb_ishst, VT_MK_DSB, VT_MB_FEWER)                  \
	X(dsb_ish, VT_MK_DSB, VT_MB_FEWER)                    \
	X(isb, VT_MK_TOP, VT_MB_FEWER)                        \
	X(dmb, VT_MK_TOP, VT_MB_FEWER)                        \
	X(fixmap_maps, VT_MK_TOP, VT_MB_FEWER)                \
	X(fixmap_stores, VT_MK_TOP, VT_MB_FEWER)              \
	X(pages_allocated, VT_MK_TOP, VT_MB_NEUTRAL)          \
	X(buddy_blocks, VT_MK_TOP, VT_MB_FEWER)               \
	X(rmqueue_locks, VT_MK_TOP, VT_MB_FEWER)              \
	X(free_calls, VT_MK_TOP, VT_MB_FEWER)                 \
	X(pages_freed, VT_MK_TOP, VT_MB_NEUTRAL)              \
	X(free_pcp, VT_MK_TOP, VT_MB_NEUTRAL)                 \
	X(free_buddy, VT_MK_TOP, VT_MB_NEUTRAL)               \
	X(contig_range_calls, VT_MK_TOP, VT_MB_NEUTRAL)       \
	X(pages_prepared, VT_MK_TOP, VT_MB_NEUTRAL)           \
	X(cond_resched, VT_MK_TOP, VT_MB_NEUTRAL)             \
	X(lazy_pages_pending, VT_MK_TOP, VT_MB_NEUTRAL)       \
	X(purges, VT_MK_TOP, VT_MB_NEUTRAL)                   \
	X(purged_pages, VT_MK_TOP, VT_MB_NEUTRAL)             \
	X(tlb_entries, VT_MK_TOP, VT_MB_FEWER)                \
	X(linear_tlb_entries, VT_MK_TOP, VT_MB_FEWER)         \
	X(batch_overrun, VT_MK_TOP, VT_MB_FEWER)              \
	X(cycles, VT_MK_TOP, VT_MB_FEWER)                     \
	X(cyc_alloc_vmap_area, VT_MK_CYC, VT_MB_FEWER)        \
	X(cyc_free_vmap_area_noflush, VT_MK_CYC, VT_MB_FEWER) \
	X(cyc_pgtable_walk, VT_MK_CYC, VT_MB_FEWER)           \
	X(cyc___pte_alloc_kernel, VT_MK_CYC, VT_MB_FEWER)     \
	X(cyc_pmd_free_pte_page, VT_MK_CYC, VT_MB_FEWER)      \
	X(cyc_set_pte_at, VT_MK_CYC, VT_MB_FEWER)             \
	X(cyc_set_huge_pte_at, VT_MK_CYC, VT_MB_FEWER)        \
	X(cyc___set_pte, VT_MK_CYC, VT_MB_FEWER)              \
	X(cyc_emit_pte_barriers, VT_MK_CYC, VT_MB_FEWER)      \
	X(cyc_smp_wmb, VT_MK_CYC, VT_MB_FEWER)                \
	X(cyc_flush_tlb_kernel_range, VT_MK_CYC, VT_MB_FEWER) \
	X(cyc___set_fixmap, VT_MK_CYC, VT_MB_FEWER)           \
	X(cyc___purge_vmap_area_lazy, VT_MK_CYC, VT_MB_FEWER) \
	X(cyc_vm_area_alloc_pages, VT_MK_CYC, VT_MB_FEWER)    \
	X(cyc_rmqueue, VT_MK_CYC, VT_MB_FEWER)                \
	X(cyc___rmqueue, VT_MK_CYC, VT_MB_FEWER)              \
	X(cyc_vfree, VT_MK_CYC, VT_MB_FEWER)                  \
	X(cyc_free_pages_bulk, VT_MK_CYC, VT_MB_FEWER)        \
	X(cyc___free_frozen_pages, VT_MK_CYC, VT_MB_FEWER)    \
	X(cyc___free_one_page, VT_MK_CYC, VT_MB_FEWER)        \
	X(ns, VT_MK_TOP, VT_MB_FEWER)                         \
	X(mismapped_pages, VT_MK_VERIFY, VT_MB_FEWER)

enum vt_metric_kind { VT_MK_TOP, VT_MK_TLBI, VT_MK_DSB, VT_MK_VERIFY, VT_MK_CYC };
enum vt_metric_better { VT_MB_FEWER, VT_MB_NEUTRAL };

#define VT_M_ENUM(name, kind, better) VT_M_##name,
enum vt_metric { VT_METRICS(VT_M_ENUM) VT_M__NR };
#undef VT_M_ENUM

#define VT_STATS_WORDS ((VT_M__NR + 63) / 64)

/*
 * One counter per metric; plain array so that sums and deltas are loops.
 * overrun_pages is no metric of the report: the pages that the batches
 * counted in batch_overrun map to a physical page other than the array's
 * (the kernel maps pfn, pfn+1, ... of the batch's first page), known
 * without --verify, so that compare can say a speed-up is not valid.
 *
 * touched: bit i set when m[i] may be nonzero.  The engine counts an
 * event into stats of its own through vt_stats_at() (EST(), WST()), which
 * sets the bit, so the replay's accounting visits, prices and clears only
 * the metrics the event moved (core/tally.c): about a dozen of the 70 for
 * a small vmalloc.  A bit over a zero counter is allowed, a zero bit over a
 * nonzero counter never (vt_stats_touched_ok()).  Sums keep it too.
 */
struct vt_stats {
	uint64_t m[VT_M__NR];
	uint64_t overrun_pages;
	uint64_t touched[VT_STATS_WORDS];
};

/* &s->m[i], its touched bit set: every per-event count goes through here */
static inline uint64_t *vt_stats_at(struct vt_stats *s, enum vt_metric i)
{
	s->touched[i / 64] |= 1ull << (i % 64);
	return &s->m[i];
}

/* Whether every metric whose touched bit is clear is zero. */
static inline bool vt_stats_touched_ok(const struct vt_stats *s)
{
	for (int i = 0; i < VT_M__NR; i++)
		if (s->m[i] && !(s->touched[i / 64] & (1ull << (i % 64))))
			return false;
	return true;
}

static inline void vt_stats_clear(struct vt_stats *s)
{
	memset(s, 0, sizeof(*s));
}

static inline void vt_stats_add(struct vt_stats *dst, const struct vt_stats *src)
{
	for (int i = 0; i < VT_M__NR; i++)
		dst->m[i] += src->m[i];
	dst->overrun_pages += src->overrun_pages;
	for (int w = 0; w < VT_STATS_WORDS; w++)
		dst->touched[w] |= src->touched[w];
}

/* dst = a - b, for per-event deltas of monotonic counters. */
static inline void vt_stats_sub(struct vt_stats *dst, const struct vt_stats *a,
				const struct vt_stats *b)
{
	for (int i = 0; i < VT_M__NR; i++)
		dst->m[i] = a->m[i] - b->m[i];
	dst->overrun_pages = a->overrun_pages - b->overrun_pages;
	for (int w = 0; w < VT_STATS_WORDS; w++)
		dst->touched[w] = a->touched[w] | b->touched[w];
}

extern const char *const vt_metric_names[VT_M__NR];
extern const enum vt_metric_kind vt_metric_kinds[VT_M__NR];
extern const enum vt_metric_better vt_metric_better[VT_M__NR];

/* Returns the metric index for @name, or -1. */
int vt_metric_find(const char *name);

#endif
