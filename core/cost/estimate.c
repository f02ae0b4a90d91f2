// SPDX-License-Identifier: GPL-2.0
/*
 * The estimate: cycles = sum over cost events of count x price.  Each
 * event's count comes from the engine's metrics by name (see estimate.h for
 * why by name), so this file is the one place that says which metric a
 * price applies to.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cost/estimate.h"
#include "core/cost/profile.h"

#define VT_CE_INFO(n, g, f, u) [VT_CE_##n] = { #n, g, f, u },
const struct vt_cost_event_info vt_cost_events[VT_CE__NR] = {
	VT_COST_EVENTS(VT_CE_INFO)
};
#undef VT_CE_INFO

/*
 * The metrics each event counts (NULL-terminated).  Descriptor stores at
 * every level are one price: the data never separate a PTE store from a
 * PMD or fixmap-slot store, and the hardware does the same 8-byte store.
 * api_call comes from the op counts, not from a metric.
 */
static const char *const event_metrics[VT_CE__NR][12] = {
	[VT_CE_pte_store] = { "pte_writes", "pte_clears", "pmd_writes", "pud_writes",
			      "p4d_writes", "pgd_writes", "pmd_clears", "pud_clears",
			      "p4d_clears", "pgd_clears", "fixmap_stores", NULL },
	[VT_CE_set_pte_at] = { "set_pte_at_calls", NULL },
	[VT_CE_set_huge_pte_at] = { "set_huge_pte_at_calls", NULL },
	[VT_CE_table_walk] = { "table_walks", NULL },
	[VT_CE_walk_step] = { "walk_steps", NULL },
	[VT_CE_table_alloc] = { "tables_allocated", NULL },
	[VT_CE_table_free] = { "tables_freed", NULL },
	[VT_CE_dsb_ishst] = { "dsb_ishst", NULL },
	[VT_CE_isb] = { "isb", NULL },
	[VT_CE_dmb] = { "dmb", NULL },
	[VT_CE_tlbi_vaale1is] = { "tlbi_vaale1is", NULL },
	[VT_CE_tlbi_vaae1is] = { "tlbi_vaae1is", NULL },
	[VT_CE_tlbi_vmalle1is] = { "tlbi_vmalle1is", NULL },
	[VT_CE_tlbi_rvaale1is] = { "tlbi_rvaale1is", NULL },
	[VT_CE_tlbi_vale1is] = { "tlbi_vale1is", NULL },
	[VT_CE_tlb_sync] = { "dsb_ish", NULL },
	[VT_CE_fixmap_cycle] = { "fixmap_maps", NULL },
	[VT_CE_purge_call] = { "purges", NULL },
	[VT_CE_page_alloc] = { "pages_allocated", NULL },
	/*
	 * zone->lock per hold, __rmqueue() per block: rmqueue_bulk() takes
	 * nr_pcp_alloc() blocks under one hold, rmqueue_buddy() one
	 * (linux-mm/linux-mm @ 6e2201b19890 mm/page_alloc.c)
	 */
	[VT_CE_zone_lock] = { "rmqueue_locks", NULL },
	[VT_CE_buddy_block] = { "buddy_blocks", NULL },
	[VT_CE_free_call] = { "free_calls", NULL },
	/*
	 * Only the lone frees: the blocks free_pcppages_bulk() drains from a
	 * full per-CPU list (vt_page_alloc_stats.pcp_drained) are not priced.
	 * The model drains a fixed pcp->batch at a fixed pcp->high, where
	 * nr_pcp_free() and nr_pcp_high() scale both with free_count
	 * (linux-mm/linux-mm @ 6e2201b19890 mm/page_alloc.c); priced here
	 * and refitted, that count made the fit worse (docs/cost-model.md).
	 */
	[VT_CE_buddy_free] = { "free_buddy", NULL },
	[VT_CE_contig_range] = { "contig_range_calls", NULL },
	[VT_CE_page_free] = { "pages_freed", NULL },
};

/*
 * Metric indices, resolved by name once per process (the replay calls the
 * estimate for every event, from several threads under --jobs).
 */
static struct {
	int metric[VT_CE__NR][12];	/* -1 ends the list */
	int cycles, ns;
	int fn_map[VT_CE__NR], fn_unmap[VT_CE__NR];	/* cyc_* per op side */
	int first_map[VT_CE__NR], first_unmap[VT_CE__NR];	/* first event of that function */
} res;
static pthread_once_t res_once = PTHREAD_ONCE_INIT;

static int function_metric(const char *fn);

static void resolve(void)
{
	for (int e = 0; e < VT_CE__NR; e++) {
		int n = 0;

		for (int k = 0; event_metrics[e][k]; k++) {
			int m = vt_metric_find(event_metrics[e][k]);

			if (m >= 0)
				res.metric[e][n++] = m;
		}
		res.metric[e][n] = -1;
		res.fn_map[e] = function_metric(vt_cost_function(e, VT_OP_VMAP));
		res.fn_unmap[e] = function_metric(vt_cost_function(e, VT_OP_VUNMAP));
		res.first_map[e] = res.first_unmap[e] = e;
		for (int k = e - 1; k >= 0; k--) {
			if (!strcmp(vt_cost_function(k, VT_OP_VMAP), vt_cost_function(e, VT_OP_VMAP)))
				res.first_map[e] = k;
			if (!strcmp(vt_cost_function(k, VT_OP_VUNMAP), vt_cost_function(e, VT_OP_VUNMAP)))
				res.first_unmap[e] = k;
		}
	}
	res.cycles = vt_metric_find("cycles");
	res.ns = vt_metric_find("ns");
}

/* Whether an event's count exists in this build (the estimate skips it). */
static bool counted(int e)
{
	return e == VT_CE_api_call || res.metric[e][0] >= 0;
}

int vt_cost_event_find(const char *name)
{
	for (int i = 0; i < VT_CE__NR; i++)
		if (!strcmp(vt_cost_events[i].name, name))
			return i;
	return -1;
}

bool vt_cost_op_is_api(enum vt_op op)
{
	return op != VT_OP_PURGE && op != VT_OP_LINEAR_MAP && op < VT_OP__NR;
}

bool vt_cost_event_is_broadcast_tlbi(enum vt_cost_event e)
{
	switch (e) {
	case VT_CE_tlbi_vaale1is:
	case VT_CE_tlbi_vaae1is:
	case VT_CE_tlbi_vmalle1is:
	case VT_CE_tlbi_rvaale1is:
	case VT_CE_tlbi_vale1is:
	case VT_CE_tlb_sync:
		return true;
	default:
		return false;
	}
}

void vt_cost_counts_from_stats(struct vt_cost_counts *c, const struct vt_stats *s,
			       uint64_t api_calls)
{
	pthread_once(&res_once, resolve);
	memset(c, 0, sizeof(*c));
	for (int e = 0; e < VT_CE__NR; e++) {
		c->counted[e] = counted(e);
		for (int k = 0; res.metric[e][k] >= 0; k++)
			c->n[e] += (double)s->m[res.metric[e][k]];
	}
	c->n[VT_CE_api_call] = (double)api_calls;
}

void vt_cost_counts_add(struct vt_cost_counts *dst, const struct vt_cost_counts *src,
			double factor)
{
	for (int e = 0; e < VT_CE__NR; e++) {
		dst->n[e] += factor * src->n[e];
		dst->counted[e] |= src->counted[e];
	}
}

enum vt_cost_part vt_cost_event_part(enum vt_cost_event e, bool unmap)
{
	switch (e) {
	case VT_CE_api_call:
		/* alloc_vmap_area() / free_vmap_area_noflush() */
		return unmap ? VT_COST_FREE : VT_COST_ALLOC;
	case VT_CE_page_alloc:		/* vm_area_alloc_pages() */
	case VT_CE_zone_lock:		/* rmqueue_bulk()/rmqueue_buddy() */
	case VT_CE_buddy_block:		/* __rmqueue() */
		return VT_COST_ALLOC;
	case VT_CE_purge_call:		/* __purge_vmap_area_lazy(): VA back to the free tree */
	case VT_CE_free_call:		/* __free_frozen_pages() */
	case VT_CE_buddy_free:		/* __free_one_page() */
	case VT_CE_contig_range:	/* free_pages_bulk() */
	case VT_CE_page_free:		/* vfree()'s per-page accounting */
		return VT_COST_FREE;
	default:
		/* descriptor stores, walks, page-table pages, barriers, TLBIs,
		 * fixmap: the page-table work of mapping and of unmapping */
		return VT_COST_MAP;
	}
}

static const char *const part_names[] = {
	[VT_COST_MAP] = "map", [VT_COST_ALLOC] = "alloc", [VT_COST_FREE] = "free",
	[VT_COST_ALL] = "all",
};

const char *vt_cost_part_name(unsigned int part)
{
	return part < sizeof(part_names) / sizeof(part_names[0]) ? part_names[part] : NULL;
}

int vt_cost_part_find(const char *name)
{
	for (unsigned int i = 0; i < sizeof(part_names) / sizeof(part_names[0]); i++)
		if (part_names[i] && !strcmp(part_names[i], name))
			return (int)i;
	return -1;
}

bool vt_cost_api_priced(const struct vt_profile *p, enum vt_op op)
{
	bool unmap = op < VT_OP__NR && !vt_op_is_map(op);

	return !p->cost_of || (p->cost_of & vt_cost_event_part(VT_CE_api_call, unmap));
}

/* Whether @p prices event @e (an API call: as counted, see estimate.h). */
static bool part_priced(const struct vt_profile *p, int e)
{
	if (!p->cost_of || e == VT_CE_api_call)
		return true;
	return p->cost_of & vt_cost_event_part(e, false);
}

void vt_cost_estimate(const struct vt_profile *p, const struct vt_cost_counts *c,
		      struct vt_cost_estimate *out)
{
	memset(out, 0, sizeof(*out));
	for (int e = 0; e < VT_CE__NR; e++) {
		double k = 1;

		if (!part_priced(p, e))
			continue;	/* --cost-of: another part of the work */
		if (p->erratum_4118414 && vt_cost_event_is_broadcast_tlbi(e))
			k = 2;
		out->cycles[e] = k * c->n[e] * p->p[e].cycles;
		out->total += out->cycles[e];
	}
	out->ns = p->freq_mhz > 0 ? out->total * 1000.0 / p->freq_mhz : 0;
}

static const char *const event_function[VT_CE__NR] = {
	[VT_CE_api_call] = "alloc_vmap_area",
	[VT_CE_pte_store] = "__set_pte",
	[VT_CE_set_pte_at] = "set_pte_at",
	[VT_CE_set_huge_pte_at] = "set_huge_pte_at",
	[VT_CE_table_walk] = "pgtable_walk",
	[VT_CE_walk_step] = "pgtable_walk",
	[VT_CE_table_alloc] = "__pte_alloc_kernel",
	[VT_CE_table_free] = "pmd_free_pte_page",
	[VT_CE_dsb_ishst] = "emit_pte_barriers",
	[VT_CE_isb] = "emit_pte_barriers",
	[VT_CE_dmb] = "smp_wmb",
	[VT_CE_tlbi_vaale1is] = "flush_tlb_kernel_range",
	[VT_CE_tlbi_vaae1is] = "flush_tlb_kernel_range",
	[VT_CE_tlbi_vmalle1is] = "flush_tlb_kernel_range",
	[VT_CE_tlbi_rvaale1is] = "flush_tlb_kernel_range",
	[VT_CE_tlbi_vale1is] = "flush_tlb_kernel_range",
	[VT_CE_tlb_sync] = "flush_tlb_kernel_range",
	[VT_CE_fixmap_cycle] = "__set_fixmap",
	[VT_CE_purge_call] = "__purge_vmap_area_lazy",
	[VT_CE_page_alloc] = "vm_area_alloc_pages",
	[VT_CE_zone_lock] = "rmqueue",
	[VT_CE_buddy_block] = "__rmqueue",
	[VT_CE_free_call] = "__free_frozen_pages",
	[VT_CE_buddy_free] = "__free_one_page",
	[VT_CE_contig_range] = "free_pages_bulk",
	[VT_CE_page_free] = "vfree",
};

const char *vt_cost_function(enum vt_cost_event e, enum vt_op op)
{
	if (e == VT_CE_api_call && op < VT_OP__NR && !vt_op_is_map(op))
		return "free_vmap_area_noflush";
	return event_function[e];
}

/* The metric of a function's cycles: "cyc_" + the function name. */
static int function_metric(const char *fn)
{
	char name[64];

	snprintf(name, sizeof(name), "cyc_%s", fn);
	return vt_metric_find(name);
}

void vt_cost_fill(const struct vt_profile *p, struct vt_stats *s, enum vt_op op)
{
	bool unmap = op < VT_OP__NR && !vt_op_is_map(op);
	const int *fn = unmap ? res.fn_unmap : res.fn_map;
	const int *first = unmap ? res.first_unmap : res.first_map;
	struct vt_cost_counts c;
	struct vt_cost_estimate est;
	double per_fn[VT_CE__NR] = { 0 };
	uint64_t total = 0;

	if (!p)
		return;
	vt_cost_counts_from_stats(&c, s, vt_cost_op_is_api(op) &&
				  vt_cost_api_priced(p, op) ? 1 : 0);
	if (res.cycles < 0 || res.ns < 0)
		return;
	vt_cost_estimate(p, &c, &est);
	/* Sum per function first, then round each function once. */
	for (int e = 0; e < VT_CE__NR; e++)
		per_fn[first[e]] += est.cycles[e];
	for (int e = 0; e < VT_CE__NR; e++) {
		uint64_t v = vt_cost_round(per_fn[e]);

		if (!v)
			continue;
		total += v;
		if (fn[e] >= 0)
			s->m[fn[e]] += v;
	}
	s->m[res.cycles] += total;
	s->m[res.ns] += vt_cost_round(est.ns);
}

static int cmp_reason(const void *x, const void *y)
{
	const struct vt_cost_reason *p = x, *q = y;
	double a = fabs(p->cycles), b = fabs(q->cycles);

	if (a != b)
		return a < b ? 1 : -1;
	return (int)p->e - (int)q->e;	/* ties in event order, on every libc */
}

unsigned int vt_cost_explain(const struct vt_profile *p, const struct vt_cost_counts *a,
			     const struct vt_cost_counts *b, struct vt_cost_reason *out,
			     unsigned int max)
{
	struct vt_cost_reason all[VT_CE__NR];
	struct vt_cost_estimate ea, eb;
	unsigned int n = 0;

	vt_cost_estimate(p, a, &ea);
	vt_cost_estimate(p, b, &eb);
	for (int e = 0; e < VT_CE__NR; e++) {
		if (a->n[e] == b->n[e])
			continue;
		all[n++] = (struct vt_cost_reason){ e, a->n[e], b->n[e],
						    ea.cycles[e] - eb.cycles[e] };
	}
	qsort(all, n, sizeof(all[0]), cmp_reason);
	if (n > max)
		n = max;
	memcpy(out, all, n * sizeof(all[0]));
	return n;
}
