/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cost model's events and the estimate: cycles as a linear function of
 * the engine's exact counts, one price per event, each event charged to the
 * kernel function that does the work (docs/cost-model.md).
 *
 * A price applies to counts found by name (vt_metric_find()), so an event
 * whose count this build does not produce is simply "not counted" and its
 * price contributes nothing; when the engine gains the count, the price
 * takes effect without a change here.
 */
#ifndef VT_COST_ESTIMATE_H
#define VT_COST_ESTIMATE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/stats.h"
#include "core/trace/trace.h"

/*
 * X(name, group, kernel function, what one unit is)
 * @group ties prices the published data cannot tell apart: calibrate fits
 * one common factor per group (walks with their steps, dsb with its isb).
 */
#define VT_COST_EVENTS(X)                                                              \
	X(api_call, "api_call", "alloc_vmap_area()/vm_struct, free_vmap_area_noflush()",     \
	  "one vmap/vmalloc/ioremap/vm_map_ram call or its unmap/free: VA allocation and bookkeeping") \
	X(pte_store, "pte_store", "__set_pte()/__pte_clear() (descriptor stores)",        \
	  "one descriptor store or clear at any level")                                     \
	X(set_pte_at, "set_pte_at", "vmap_pte_range()/vmap_pages_pte_range() + set_pte_at()", \
	  "one set_pte_at() call with the generic per-page loop around it")                  \
	X(set_huge_pte_at, "set_huge_pte_at", "set_huge_pte_at()",                         \
	  "one set_huge_pte_at() call (its stores are priced as pte_store)")                \
	X(table_walk, "walk", "vmap_range_noflush()/__vmap_pages_range_noflush() walk",     \
	  "one top-down descent (pgd_offset_k() and the level calls)")                       \
	X(walk_step, "walk", "vmap_p4d/pud/pmd_range() loops",                            \
	  "one upper-level entry examined")                                                   \
	X(table_alloc, "table_alloc", "__pte_alloc_kernel()/pte_alloc_one_kernel()",       \
	  "one page-table page allocated and zeroed")                                        \
	X(table_free, "table_free", "pmd_free_pte_page()/pte_free_kernel()",              \
	  "one page-table page freed")                                                       \
	X(dsb_ishst, "dsb_isb", "emit_pte_barriers()/arch_leave_lazy_mmu_mode()",          \
	  "one dsb ishst")                                                                    \
	X(isb, "dsb_isb", "emit_pte_barriers()/arch_leave_lazy_mmu_mode()",                \
	  "one isb")                                                                          \
	X(dmb, "dmb", "smp_wmb() before a table is made visible",                          \
	  "one dmb ishst")                                                                    \
	X(tlbi_vaale1is, "tlbi_vaale1is", "flush_tlb_kernel_range()",                      \
	  "one broadcast tlbi vaale1is")                                                      \
	X(tlbi_vaae1is, "tlbi_vaae1is", "__flush_tlb_kernel_pgtable()",                    \
	  "one broadcast tlbi vaae1is")                                                       \
	X(tlbi_vmalle1is, "tlbi_vmalle1is", "flush_tlb_all()",                             \
	  "one broadcast tlbi vmalle1is")                                                     \
	X(tlbi_rvaale1is, "tlbi_rvaale1is", "__flush_tlb_range_op() (FEAT_TLBIRANGE)",     \
	  "one broadcast range tlbi rvaale1is")                                               \
	X(tlbi_vale1is, "tlbi_vale1is", "flush_tlb_kernel_range() (erratum repeat)",       \
	  "one broadcast tlbi vale1is")                                                       \
	X(tlb_sync, "tlb_sync", "flush_tlb_kernel_range(): dsb ish",                       \
	  "one dsb ish: completion of the broadcast invalidations before it")               \
	X(fixmap_cycle, "fixmap_cycle", "__set_fixmap()/clear_fixmap()",                   \
	  "one fixmap map+unmap pair, apart from its counted TLBI and barriers")            \
	X(purge_call, "purge_call", "__purge_vmap_area_lazy()",                            \
	  "one lazy purge: merging the purged areas back into the free tree")               \
	X(page_alloc, "page_alloc", "vm_area_alloc_pages()/alloc_pages_bulk()",            \
	  "one page handed to vmalloc by the page allocator")                                \
	X(zone_lock, "zone_lock", "rmqueue_bulk()/rmqueue_buddy(): zone->lock",           \
	  "one zone->lock hold of the allocation path: a per-CPU list refill (rmqueue_bulk(), any order) or a lone buddy allocation (rmqueue_buddy())") \
	X(buddy_block, "buddy_block", "__rmqueue() (buddy lists)",                         \
	  "one block of order > 0 taken from the buddy lists by __rmqueue(), its zone->lock apart") \
	X(free_call, "free_call", "__free_frozen_pages()",                                 \
	  "one naturally aligned block handed to the free path")                             \
	X(buddy_free, "buddy_free", "__free_one_page() (buddy lists)",                      \
	  "one block freed into the buddy lists (merging under the zone lock) rather than a per-CPU list") \
	X(contig_range, "contig_range", "free_pages_bulk() -> __free_contig_range()",     \
	  "one contiguous run found and released by the bulk free path")                   \
	X(page_free, "page_free", "vfree() per-page accounting (mod_lruvec_page_state())", \
	  "one page released")

#define VT_CE_ENUM(name, group, fn, unit) VT_CE_##name,
enum vt_cost_event { VT_COST_EVENTS(VT_CE_ENUM) VT_CE__NR };
#undef VT_CE_ENUM

struct vt_cost_event_info {
	const char *name;
	const char *group;
	const char *function;
	const char *unit;
};
extern const struct vt_cost_event_info vt_cost_events[VT_CE__NR];

/* Returns the event for @name, or -1. */
int vt_cost_event_find(const char *name);

/* Counts of the cost events, as the estimate and the fit see them. */
struct vt_cost_counts {
	double n[VT_CE__NR];
	bool counted[VT_CE__NR];	/* the engine produces this count */
};

/*
 * Ops that are API calls (priced as api_call): every op that creates or
 * destroys a mapping.  A purge or a boot-time linear_map is not one.
 */
bool vt_cost_op_is_api(enum vt_op op);

/*
 * vt_cost_counts_from_stats() - the cost events in @s (one strategy's
 * totals, one op's or one event's) with @api_calls API calls.
 */
void vt_cost_counts_from_stats(struct vt_cost_counts *c, const struct vt_stats *s,
			       uint64_t api_calls);
void vt_cost_counts_add(struct vt_cost_counts *dst, const struct vt_cost_counts *src,
			double factor);

struct vt_profile;

/*
 * The parts of the work an estimate can be restricted to (--cost-of,
 * docs/cost-model.md "Parts of the work"): the page-table work of mapping
 * and unmapping with its TLB maintenance and barriers; the allocation of
 * the VA range (alloc_vmap_area()) and of the pages; their freeing
 * (free_vmap_area_noflush(), the lazy purge, the page free path).
 */
enum vt_cost_part {
	VT_COST_MAP = 1 << 0,
	VT_COST_ALLOC = 1 << 1,
	VT_COST_FREE = 1 << 2,
	VT_COST_ALL = VT_COST_MAP | VT_COST_ALLOC | VT_COST_FREE,
};

/* The part event @e is work of; an API call is alloc on the mapping side
 * of an op (@unmap false), free on the unmapping side. */
enum vt_cost_part vt_cost_event_part(enum vt_cost_event e, bool unmap);

/* "map", "alloc", "free" or "all" for @part, or NULL; and back (-1). */
const char *vt_cost_part_name(unsigned int part);
int vt_cost_part_find(const char *name);

/* Whether an API call of @op is priced under @p's --cost-of. */
bool vt_cost_api_priced(const struct vt_profile *p, enum vt_op op);

/* The estimate of one set of counts under one profile. */
struct vt_cost_estimate {
	double cycles[VT_CE__NR];	/* per event, errata included */
	double total;			/* cycles */
	double ns;
};

/*
 * vt_cost_estimate() - cycles and ns of @c under @p.  A pure function: the
 * same counts and profile give the same numbers on every machine.
 * ARM64_ERRATUM_4118414 (a profile switch) repeats every broadcast TLBI and
 * its dsb ish, doubling their price.  Under a restriction of the profile
 * (p->cost_of) the events of the other parts cost nothing; API calls are
 * priced as counted (the caller counts only those of the sides priced,
 * vt_cost_api_priced()).
 */
void vt_cost_estimate(const struct vt_profile *p, const struct vt_cost_counts *c,
		      struct vt_cost_estimate *out);

/*
 * The integer the reports carry (rounded once, here), saturated at
 * UINT64_MAX: a profile's prices are bounded (profile.h), but counts near
 * 2^64 times a price still pass the 64-bit field.
 */
static inline uint64_t vt_cost_round(double v)
{
	if (!(v > 0))
		return 0;
	return v >= 0x1p64 ? UINT64_MAX : (uint64_t)(v + 0.5);
}

/* True for the broadcast TLBI events and their completion (errata x2). */
bool vt_cost_event_is_broadcast_tlbi(enum vt_cost_event e);

/*
 * The kernel function an event's cycles are charged to, the key of
 * "cycles_by_function" in reports.  An API call is charged to the VA
 * allocator's side the op is on: alloc_vmap_area() for an op that maps,
 * free_vmap_area_noflush() for one that unmaps.
 */
const char *vt_cost_function(enum vt_cost_event e, enum vt_op op);

/*
 * vt_cost_fill() - write the estimate of @s (one event's deltas, or an
 * op's) into its cost metrics: "cycles", "ns" and the per-function
 * cycles, found by name (a build without them is left alone).  @op says
 * whether the counts include an API call.  Each function's cycles are
 * rounded once and "cycles" is their sum, so per-event lines, per-op
 * tables and totals add up exactly.
 */
void vt_cost_fill(const struct vt_profile *p, struct vt_stats *s, enum vt_op op);

/* One line of "why is B faster than A": an event and its counts. */
struct vt_cost_reason {
	enum vt_cost_event e;
	double n_a, n_b;	/* counts under A and under B */
	double cycles;		/* cycles A spends on it minus B's */
};

/*
 * vt_cost_explain() - the events that explain the cycle difference
 * between @a and @b, largest |difference| first; returns how many were
 * written to @out (at most @max, only events whose counts differ).
 */
unsigned int vt_cost_explain(const struct vt_profile *p, const struct vt_cost_counts *a,
			     const struct vt_cost_counts *b, struct vt_cost_reason *out,
			     unsigned int max);

#endif
