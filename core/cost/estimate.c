// SPDX-License-Identifier: GPL-2.0
/*
 * The estimate: cycles = sum over cost events of count x price.  Each
 * event's count comes from the engine's metrics by name (see estimate.h for
 * why by name), so this file is the one place that says which metric a
 * price applies to.
 */
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
	[VT_CE_buddy_block] = { "buddy_blocks", NULL },
	[VT_CE_free_call] = { "free_calls", NULL },
	/* pcp_drained: blocks a full per-CPU list hands back to the buddy */
	[VT_CE_buddy_free] = { "free_buddy", "pcp_drained", NULL },
	[VT_CE_contig_range] = { "contig_range_calls", NULL },
	[VT_CE_page_free] = { "pages_freed", NULL },
};

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
	memset(c, 0, sizeof(*c));
	c->n[VT_CE_api_call] = (double)api_calls;
	c->counted[VT_CE_api_call] = true;
	for (int e = 0; e < VT_CE__NR; e++) {
		for (int k = 0; event_metrics[e][k]; k++) {
			int m = vt_metric_find(event_metrics[e][k]);

			if (m < 0)
				continue;
			c->counted[e] = true;
			c->n[e] += (double)s->m[m];
		}
	}
}

void vt_cost_counts_add(struct vt_cost_counts *dst, const struct vt_cost_counts *src,
			double factor)
{
	for (int e = 0; e < VT_CE__NR; e++) {
		dst->n[e] += factor * src->n[e];
		dst->counted[e] |= src->counted[e];
	}
}

void vt_cost_estimate(const struct vt_profile *p, const struct vt_cost_counts *c,
		      struct vt_cost_estimate *out)
{
	memset(out, 0, sizeof(*out));
	for (int e = 0; e < VT_CE__NR; e++) {
		double k = 1;

		if (p->erratum_4118414 && vt_cost_event_is_broadcast_tlbi(e))
			k = 2;
		out->cycles[e] = k * c->n[e] * p->p[e].cycles;
		out->total += out->cycles[e];
	}
	out->ns = p->freq_mhz > 0 ? out->total * 1000.0 / p->freq_mhz : 0;
}
