// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptool import, the back end's second half: deciding each area once it
 * is final (or at the end), building its page runs, writing the events in
 * trace order as the window allows, the two passes of a text recording,
 * and the finished trace (vt_import_event(), vt_import_write()).  The
 * rules that turn records into areas are reconstruct.c; both use areas.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/import/areas.h"

/* ---- finishing: decide every area, build page runs ----------------- */

/* Append @n order-0 pfns as runs of contiguous pages. */
static bool add_pfns(struct vt_import *im, const uint64_t *pfn, size_t n,
		     size_t stride, uint64_t per, size_t *first)
{
	size_t i;

	*first = im->nruns;
	for (i = 0; i < n; i++) {
		uint64_t p = pfn[i * stride];
		struct vt_page_run *last = im->nruns > *first ?
			&im->runs[im->nruns - 1] : NULL;
		uint64_t cnt = per ? per : (uint64_t)1 << pfn[i * stride + 1];

		if (last && last->pfn + last->count == p) {
			last->count += cnt;
			continue;
		}
		if (VT_ALLOC_GROW(im->runs, im->nruns + 1, im->runs_cap))
			return false;
		im->runs[im->nruns].pfn = p;
		im->runs[im->nruns].count = cnt;
		im->runs[im->nruns].order = 0;
		im->nruns++;
	}
	return true;
}

/*
 * The pages vm->pages[] held, best source first: the physical address
 * of each chunk of a huge mapping; the pages vfree freed (in array
 * order); the pages allocated between the VA and the mapping.
 */
static int area_pages(struct vt_import *im, struct area *a, size_t *first,
		      uint64_t *nr)
{
	uint64_t need = a->map_size >> PAGE_SHIFT_4K;
	uint64_t per, got = 0;
	size_t i;

	*nr = 0;
	if (!need)
		return 0;
	if (a->page_shift > PAGE_SHIFT_4K && a->page_shift < 40) {
		per = 1ULL << (a->page_shift - PAGE_SHIFT_4K);
		if (a->chunks.n && a->chunks.n * per == need) {
			if (!add_pfns(im, a->chunks.v, a->chunks.n, 1, per,
				      first))
				return -ENOMEM;
			*nr = need;
			im->sum.pages_from_chunks++;
			return 1;
		}
	}
	if (a->freed.n == need) {
		if (!add_pfns(im, a->freed.v, a->freed.n, 1, 1, first))
			return -ENOMEM;
		*nr = need;
		im->sum.pages_from_free++;
		return 1;
	}
	for (i = 0; i + 1 < a->alloc.n; i += 2)
		got += a->alloc.v[i + 1] < 20 ? 1ULL << a->alloc.v[i + 1] : 0;
	if (got == need) {
		if (!add_pfns(im, a->alloc.v, a->alloc.n / 2, 2, 0, first))
			return -ENOMEM;
		*nr = need;
		im->sum.pages_from_alloc++;
		return 1;
	}
	return 0;
}

#define SYNTH_PFN_BASE 0x1000000ull

/* Whether @n more synthesised pages stay below @pfn_end. */
static bool synth_fits(const struct vt_import *im, uint64_t n,
		       uint64_t pfn_end)
{
	uint64_t next = im->synth_pfn ? im->synth_pfn : SYNTH_PFN_BASE;

	return next < pfn_end && n <= (pfn_end - next) / 2;
}

/*
 * Page lists the recording does not hold (the caller's pages of a vmap or
 * vm_map_ram, allocated before it or by another task, or in bulk):
 * order-0 pages that are never physically adjacent, from a pool above
 * 64 GiB of physical address.  The page-array walk of the recorded
 * kernel does not depend on which pages they are.
 */
static bool synth_pages(struct vt_import *im, uint64_t n, size_t *first)
{
	*first = im->nruns;
	if (!im->synth_pfn)
		im->synth_pfn = SYNTH_PFN_BASE;
	if (VT_ALLOC_GROW(im->runs, im->nruns + n, im->runs_cap))
		return false;
	for (uint64_t i = 0; i < n; i++) {
		im->runs[im->nruns++] = (struct vt_page_run){ im->synth_pfn, 1, 0 };
		im->synth_pfn += 2;
	}
	return true;
}

/* Whether the runs from @first on end at or below @pfn_end. */
static bool runs_below(const struct vt_import *im, size_t first,
		       uint64_t pfn_end)
{
	for (size_t i = first; i < im->nruns; i++)
		if (im->runs[i].pfn >= pfn_end ||
		    im->runs[i].count > pfn_end - im->runs[i].pfn)
			return false;
	return true;
}

/* The mapping @a is of kind ... in the recording; the trace has it if
 * @s is emitted (a nested array: if its vmalloc is, the engine makes it). */
static void count_mapping(struct vt_import *im, const struct area *a,
			  const struct slot *s)
{
	enum vt_import_mkind k;
	bool out = !s->drop;

	if (a->kind == AK_UNKNOWN || a->kind == AK_VBLOCK)
		return;
	if (a->nested) {
		/* decided before us (a smaller number), kept for us (kids) */
		const struct area *o = vt_im_area_at(im, a->outer);

		k = VT_IMK_NESTED;
		out = o && o->dec_kind == AK_VMALLOC && !o->dec_drop;
	} else if (a->kind == AK_VMALLOC) {
		k = a->other_range && a->vstart < im->vm_start ?
		    VT_IMK_MODULES : VT_IMK_VMALLOC;
	} else if (a->kind == AK_VMAP) {
		k = VT_IMK_VMAP;
	} else if (a->kind == AK_IOREMAP) {
		k = VT_IMK_IOREMAP;
	} else {
		k = VT_IMK_VM_MAP_RAM;
	}
	im->sum.mappings_recorded[k]++;
	im->sum.mappings_reproduced[k] += out;
}

static void finish_purges(struct vt_import *im)
{
	size_t i;

	for (i = 0; i < im->ntasks; i++)
		vt_im_purge_end(im, &im->tasks[i]);
}

/*
 * What the whole recording decides for every area: VA_BITS from the
 * lowest linear-map pointer (4K: 39, 48, 52) and with it the PA size, and
 * the longest page list replay reads.
 */
static void whole_facts(struct vt_import *im)
{
	unsigned int pa_bits;
	int lead;

	im->sum.va_bits = 0;
	if (im->min_linear != UINT64_MAX) {
		lead = __builtin_clzll(~im->min_linear);
		if (64 - lead == 39 || 64 - lead == 48 || 64 - lead == 52)
			im->sum.va_bits = 64 - lead;
	}
	/*
	 * The geometry written (--va-bits, or the inferred VA_BITS) gives the
	 * PA size the trace reader checks ioremaps and pfns against: check
	 * against the same, so that import never writes what replay refuses
	 * nor drops what it accepts.
	 */
	im->cfg.va_bits = im->opts.va_bits ? im->opts.va_bits : im->sum.va_bits;
	pa_bits = vt_trace_pa_bits(&im->cfg);
	im->pa_end = 1ull << pa_bits;
	im->pfn_end = 1ull << (pa_bits - im->cfg.page_shift);
	/*
	 * A page run is written as at least 23 bytes
	 * ({"pfn":"0x0","order":0}): an event with more runs than
	 * --max-input / 23 is one replay refuses, whole or as one JSON Lines
	 * line, under the same limit.
	 */
	im->max_runs = im->max_input / 23;
	if (!im->next_id)
		im->next_id = 1;
}

/* Whether @a's map event @s is dropped, and from which VA range. */
static void decide_range(struct vt_import *im, const struct area *a,
			 struct slot *s)
{
	if (a->nested) {
		s->drop = true;
	} else if (a->other_range) {
		im->sum.other_range++;
		if (im->opts.drop_other_ranges) {
			im->sum.other_range_dropped++;
			s->drop = true;
		} else if (a->kind != AK_VMALLOC) {
			/*
			 * vmap(), ioremap() and vm_map_ram() take their
			 * areas between VMALLOC_START and VMALLOC_END
			 * (get_vm_area_caller(), mm/vmalloc.c): only a
			 * vmalloc has a range of its own in a trace.
			 */
			im->sum.other_range_not_vmalloc++;
			s->drop = true;
		} else if (a->vstart < im->vm_start) {
			/* execmem: module text, BPF */
			s->ev.range = VT_RANGE_MODULES;
		}
	}
	if (!s->drop && a->kind == AK_UNKNOWN) {
		im->sum.never_mapped++;
		s->drop = true;
	}
	if (!s->drop && a->state != AS_FREED)
		im->sum.still_mapped++;
}

/* The op and the fields of @a's map event @s. */
static void decide_op(struct vt_import *im, const struct area *a,
		      struct slot *s)
{
	uint64_t pa_end = im->pa_end;

	switch (a->kind) {
	case AK_VMALLOC:
		s->ev.op = VT_OP_VMALLOC;
		s->ev.size = a->map_size;
		/*
		 * The caller's size where the recording has it: the shift is
		 * chosen from it, then the area rounded up to that shift
		 * (__vmalloc_node_range_noprof(), __get_vm_area_node()'s
		 * size = ALIGN(size, 1ul << shift), mm/vmalloc.c, torvalds/linux
		 * v6.12), so alloc_vmap_area's size cannot tell
		 * vmalloc_huge(2 MiB - 4 KiB) (CONT_PTE_SHIFT) from 2 MiB
		 * (PMD_SHIFT).  Taken only when it rounds up to the mapping.
		 */
		if (a->req_size && a->page_shift < 64 &&
		    a->req_size <= a->map_size &&
		    a->map_size - a->req_size < (1ULL << a->page_shift))
			s->ev.size = a->req_size;
		if (a->page_shift > PAGE_SHIFT_4K || a->huge_caller)
			s->ev.flags |= VT_FLAG(VM_ALLOW_HUGE_VMAP);
		if (a->align > PAGE_SIZE_4K && a->page_shift < 64 &&
		    a->align > (1ULL << a->page_shift))
			s->ev.align = a->align;
		break;
	case AK_VMAP:
		s->ev.op = VT_OP_VMAP;
		break;
	case AK_IOREMAP:
		s->ev.op = VT_OP_IOREMAP;
		s->ev.phys = a->phys;
		s->ev.size = a->map_size;
		s->ev.prot = VT_PROT_DEVICE;
		/* import never writes what replay refuses */
		if (a->phys > pa_end || a->map_size > pa_end - a->phys) {
			im->sum.ioremap_beyond_pa++;
			s->drop = true;
		}
		break;
	case AK_VM_MAP_RAM:
		s->ev.op = VT_OP_VM_MAP_RAM;
		break;
	case AK_UNKNOWN:
	case AK_VBLOCK:
		break;
	}
}

/*
 * The page runs of @a's map event @s: the recorded pages, or for a vmap
 * or vm_map_ram whose pages the recording lacks, synthesised ones; or the
 * event is dropped.  0 or -ENOMEM.
 */
static int decide_pages(struct vt_import *im, struct area *a,
			struct slot *s)
{
	uint64_t pfn_end = im->pfn_end, max_runs = im->max_runs;
	size_t first = 0;
	uint64_t nr = 0;
	int r;

	r = im->opts.no_pages ? 0 : area_pages(im, a, &first, &nr);
	if (r > 0 && !runs_below(im, first, pfn_end)) {
		/* recorded pfns the trace reader would refuse */
		im->nruns = first;
		im->sum.pages_beyond_pa++;
		r = 0;
	}
	if (r > 0 && im->nruns - first > max_runs) {
		/* a page list replay would refuse as too long */
		im->nruns = first;
		im->sum.pages_beyond_limit++;
		r = 0;
	}
	if (r == 0 && (a->kind == AK_VMAP ||
		       a->kind == AK_VM_MAP_RAM)) {
		/* the caller's pfns are not in the recording */
		nr = a->map_size >> PAGE_SHIFT_4K;
		if (nr > max_runs) {
			/*
			 * one run a page: longer than --max-input
			 * lets replay read; checked before the
			 * runs are allocated
			 */
			im->sum.synth_beyond_limit++;
			s->drop = true;
		} else if (synth_fits(im, nr, pfn_end)) {
			r = synth_pages(im, nr, &first) ? 1 : -ENOMEM;
			im->sum.pages_synthesised++;
		} else {
			/* more pages than fit below the PA size */
			im->sum.synth_beyond_pa++;
			s->drop = true;
		}
	}
	if (r < 0)
		return -ENOMEM;
	if (r > 0) {
		size_t n = im->nruns - first;

		/* the event owns its runs until it is written */
		s->ev.runs = malloc((n ? n : 1) * sizeof(*s->ev.runs));
		if (!s->ev.runs)
			return -ENOMEM;
		memcpy(s->ev.runs, im->runs + first,
		       n * sizeof(*s->ev.runs));
		s->ev.has_pages = true;
		s->ev.nr_pages = nr;
		s->ev.nr_runs = (uint32_t)n;
	} else if (!s->drop) {
		im->sum.vmalloc_no_pages++;
	}
	return 0;
}

/*
 * Decide area @live's events (in area order: ids and synthesised pages
 * are numbered in it) from its final state: @live itself once it is
 * final, or what pass 1 saw of it at the end (live->snap) when it never
 * is.
 */
static int decide(struct vt_import *im, struct area *live)
{
	struct area *a = live->snap ? live->snap : live;
	struct slot *s = vt_im_slot_at(im, (long)live->map_slot);

	im->nruns = 0;
	live->decided = true;
	a->other_range = im->vm_end && a->vend &&
		(a->vstart != im->vm_start || a->vend != im->vm_end);
	s->ready = true;
	s->ev.has_va = true;
	s->ev.va = a->va;
	s->ev.caller = a->caller;
	s->ev.cpu = a->cpu;
	if (a->kind == AK_VBLOCK) {
		im->sum.vblocks++;
		s->drop = true;
		goto out;
	}
	decide_range(im, a, s);
	decide_op(im, a, s);
	if (!s->drop && a->kind != AK_IOREMAP && decide_pages(im, a, s))
		return -ENOMEM;
	count_mapping(im, a, s);
	if (!s->drop) {
		s->ev.id.present = true;
		s->ev.id.num = im->next_id++;
	}
out:
	im->nruns = 0;
	live->dec_kind = a->kind;
	live->dec_drop = s->drop;
	live->dec_id = s->ev.id;
	live->dec_uop = a->kind == AK_VMAP ? VT_OP_VUNMAP :
			a->kind == AK_IOREMAP ? VT_OP_IOUNMAP :
			a->kind == AK_VM_MAP_RAM ? VT_OP_VM_UNMAP_RAM :
			VT_OP_VFREE;
	if (a->kind != AK_VBLOCK)
		vt_im_fill_unmap(im, live);
	return 0;
}

/* An area decided and final, with no nested array waiting for it. */
static void release(struct vt_import *im, struct area *a)
{
	vt_im_amap_del(im, a->idx);
	vt_im_area_free(a);
}

static bool releasable(const struct area *a)
{
	return a->decided && !a->kids && !a->snap && vt_im_area_final(a);
}

/* The nested array @a is decided: its vmalloc may go. */
static void kid_done(struct vt_import *im, struct area *a)
{
	struct area *o;

	if (!a->nested || !(o = vt_im_area_at(im, a->outer)) || !o->kids)
		return;
	o->kids--;
	if (im->pass == 2 && releasable(o))
		release(im, o);
}

/* Write an event: to the spool file, or kept in memory. */
static int emit(struct vt_import *im, struct slot *s)
{
	if (s->drop) {
		free(s->ev.runs);
		s->ev.runs = NULL;
		return 0;
	}
	im->sum.out_events++;
	im->sum.out_by_op[s->ev.op]++;
	if (im->ev_spool) {
		/* the caller pointer stays valid: strings live until close */
		bool ok = fwrite(&s->ev, sizeof(s->ev), 1, im->ev_spool) == 1 &&
			  (!s->ev.nr_runs ||
			   fwrite(s->ev.runs, sizeof(*s->ev.runs), s->ev.nr_runs,
				  im->ev_spool) == s->ev.nr_runs);

		free(s->ev.runs);
		s->ev.runs = NULL;
		return ok ? 0 : -EIO;
	}
	if (VT_ALLOC_GROW(im->out, im->sum.out_events, im->out_cap)) {
		free(s->ev.runs);
		s->ev.runs = NULL;
		return -ENOMEM;
	}
	im->out[im->sum.out_events - 1] = s->ev;
	s->ev.runs = NULL;
	return 0;
}

/* Write the events at the head of the window that are final. */
static int emit_ready(struct vt_import *im)
{
	struct slot *w;
	size_t i = 0;
	int rc = 0;

	if (!im->nslots)	/* no window yet: im->slots may be NULL */
		return 0;
	w = im->slots + im->slot_head;
	while (i < im->nslots && w[i].ready) {
		if (im->pass != 1 && !rc)
			rc = emit(im, &w[i]);
		i++;
	}
	/* the head moves; vt_im_slot_new() compacts */
	im->slot_head += i;
	im->nslots -= i;
	im->slot_base += (long)i;
	return rc;
}

/*
 * Deciding areas as they end (docs/vmaptool-import.md, "Memory"): after
 * each record.  Pass 1 frees an area as soon as nothing can change it;
 * pass 2 decides areas in their order as they become final (or at once,
 * from pass 1's copy, when they never do), writes every event whose
 * predecessors are all written, and frees what is written.
 */
int vt_im_advance(struct vt_import *im)
{
	size_t i;
	int rc;

	if (!im->pass)
		return 0;
	for (i = 0; i < im->unpinned.n; i++) {
		struct area *a = vt_im_area_at(im, (long)im->unpinned.v[i]);

		if (!a)
			continue;
		if (im->pass == 1 ? vt_im_area_final(a) : releasable(a))
			release(im, a);
	}
	im->unpinned.n = 0;
	while (im->pass == 2 && im->next_decide < im->nareas) {
		struct area *a = vt_im_area_at(im, im->next_decide);

		if (!a)
			return -ENOMEM;
		if (!a->snap && !vt_im_area_final(a))
			break;
		rc = decide(im, a);
		if (rc)
			return rc;
		im->next_decide++;
		kid_done(im, a);
		if (releasable(a))
			release(im, a);
	}
	return emit_ready(im);
}

static int cmp_idx(const void *x, const void *y)
{
	const struct area *a = *(struct area *const *)x;
	const struct area *b = *(struct area *const *)y;

	return (a->idx > b->idx) - (a->idx < b->idx);
}

static void reset_tasks(struct vt_import *im)
{
	for (size_t i = 0; i < im->ntasks; i++)
		free(im->tasks[i].loose.v);
	im->ntasks = 0;
	im->last_task = 0;
	if (im->task_at)
		memset(im->task_at, 0, im->task_at_cap * sizeof(*im->task_at));
}

/*
 * Between the passes: keep what pass 1 found (the lowest linear-map
 * pointer, the vmalloc range, the areas that never became final, in
 * their order) and start the reconstruction again.
 */
void vt_im_pass2(struct vt_import *im)
{
	enum vt_import_format fmt = im->sum.format;
	size_t i;

	im->nsnaps = 0;
	if (im->amap_n && !VT_ALLOC_GROW(im->snaps, im->amap_n, im->snaps_cap)) {
		for (i = 0; i < im->amap_cap; i++)
			if (im->amap[i] && im->amap[i] != AMAP_TOMB)
				im->snaps[im->nsnaps++] = im->amap[i];
		qsort(im->snaps, im->nsnaps, sizeof(*im->snaps), cmp_idx);
	} else if (im->amap_n) {
		im->oom = true;
	}
	free(im->amap);
	im->amap = NULL;
	im->amap_cap = im->amap_used = im->amap_n = 0;
	im->snap_pos = 0;
	vt_im_vatab_free(&im->live);
	reset_tasks(im);
	vt_im_vatab_free(&im->vmr_live);
	vt_im_vatab_free(&im->blocks);
	im->unpinned.n = 0;
	im->slot_head = 0;
	im->nslots = 0;
	im->slot_base = 0;
	im->nareas = 0;
	im->next_decide = 0;
	im->synth_pfn = 0;
	im->next_id = 0;
	memset(&im->sum, 0, sizeof(im->sum));
	im->sum.format = fmt;
	memset(im->unknown_names, 0, sizeof(im->unknown_names));
	memset(im->unknown_counts, 0, sizeof(im->unknown_counts));
	whole_facts(im);
	im->pass = 2;
}

void vt_im_free_state(struct vt_import *im)
{
	size_t i;

	for (i = 0; i < im->amap_cap; i++)
		if (im->amap[i] && im->amap[i] != AMAP_TOMB)
			vt_im_area_free(im->amap[i]);
	free(im->amap);
	/* the ones pass 2 had not reached */
	for (i = im->snap_pos; i < im->nsnaps; i++)
		vt_im_area_free(im->snaps[i]);
	free(im->snaps);
	for (i = 0; i < im->nslots; i++)
		free(im->slots[im->slot_head + i].ev.runs);
	free(im->slots);
	for (i = 0; i < im->sum.out_events && im->out; i++)
		free(im->out[i].runs);
	free(im->out);
	reset_tasks(im);
	free(im->tasks);
	free(im->task_at);
	free(im->unpinned.v);
	if (im->ev_spool)
		fclose(im->ev_spool);
	for (i = 0; i < im->strs.n; i++)
		free(im->strs.s[i]);
	free(im->strs.s);
	vt_im_vatab_free(&im->vmr_live);
	vt_im_vatab_free(&im->blocks);
	vt_im_vatab_free(&im->live);
	free(im->runs);
}

static int finish(struct vt_import *im, struct vt_error *err)
{
	int rc;

	finish_purges(im);
	whole_facts(im);
	/* every area left is final now (or known from pass 1) */
	for (; im->next_decide < im->nareas; im->next_decide++) {
		struct area *a = vt_im_area_at(im, im->next_decide);

		if (!a)
			return vt_err_oom(err);
		if (decide(im, a))
			return vt_err_oom(err);
		kid_done(im, a);
	}
	im->sum.mappings_recorded[VT_IMK_OTHER] = im->sum.unmatched_maps;
	for (size_t i = 0; i < im->nslots; i++)
		im->slots[im->slot_head + i].ready = true;
	rc = emit_ready(im);
	if (rc == -EIO || (!rc && im->ev_spool && fflush(im->ev_spool)))
		return vt_error_set(err, -EIO, "cannot write the temporary file of the events: %s",
				    strerror(errno));
	if (rc)
		return vt_error_set(err, rc, "out of memory");
	return 0;
}

static void build_warnings(struct vt_import *im)
{
	const struct vt_import_summary *s = &im->sum;
	int i;

	if (s->bad_lines)
		vt_im_warnf(im, "%" PRIu64 " line(s) are not trace events (first: line %lu)",
			    s->bad_lines, s->first_bad_line);
	if (s->lost_events)
		vt_im_warnf(im, "the recording lost %" PRIu64 " event(s) to ring-buffer overruns; areas may be incomplete",
			    s->lost_events);
	if (s->ioremap_beyond_pa)
		vt_im_warnf(im, "%" PRIu64 " ioremap(s) of physical ranges beyond the %u-bit physical address size dropped",
			    s->ioremap_beyond_pa, vt_trace_pa_bits(&im->cfg));
	if (s->pages_beyond_limit)
		vt_im_warnf(im, "%" PRIu64 " recorded page list(s) longer than the --max-input limit lets replay read not used (vmalloc: the engine allocates; vmap, vm_map_ram: pages synthesised)",
			    s->pages_beyond_limit);
	if (s->synth_beyond_limit)
		vt_im_warnf(im, "%" PRIu64 " vmap/vm_map_ram area(s) dropped: their synthesised page lists (one run a page) would be longer than the --max-input limit lets replay read",
			    s->synth_beyond_limit);
	if (s->synth_beyond_pa)
		vt_im_warnf(im, "%" PRIu64 " vmap/vm_map_ram area(s) dropped: their synthesised pages would pass the %u-bit physical address size",
			    s->synth_beyond_pa, vt_trace_pa_bits(&im->cfg));
	if (s->pages_beyond_pa)
		vt_im_warnf(im, "%" PRIu64 " recorded page list(s) with pfns beyond the %u-bit physical address size not used (vmalloc: the engine allocates; vmap, vm_map_ram: pages synthesised)",
			    s->pages_beyond_pa, vt_trace_pa_bits(&im->cfg));
	if (s->maps_beyond_area)
		vt_im_warnf(im, "%" PRIu64 " mapping record(s) larger than their area ignored (damaged records)",
			    s->maps_beyond_area);
	if (s->bad_fields)
		vt_im_warnf(im, "%" PRIu64 " known event(s) lack required fields and were ignored",
			    s->bad_fields);
	if (s->nested_dropped)
		vt_im_warnf(im, "%" PRIu64 " nested page-array vmalloc(s) of large vmallocs dropped (%" PRIu64 " of their vfrees); the engine makes them itself",
			    s->nested_dropped, s->nested_frees_dropped);
	if (s->other_range_not_vmalloc)
		vt_im_warnf(im, "%" PRIu64 " vmap/ioremap/vm_map_ram area(s) outside the vmalloc range dropped (the kernel takes them between VMALLOC_START and VMALLOC_END)",
			    s->other_range_not_vmalloc);
	if (s->other_range_dropped)
		vt_im_warnf(im, "%" PRIu64 " area(s) outside the vmalloc range (modules/execmem) left out (--drop-other-ranges)",
			    s->other_range_dropped);
	if (s->alloc_failed)
		vt_im_warnf(im, "%" PRIu64 " failed alloc_vmap_area ignored",
			    s->alloc_failed);
	if (s->alloc_va_unpaired)
		vt_im_warnf(im, "%" PRIu64 " kp/alloc_va entry or return without the other ignored (a kretprobe misses returns when more calls run at once than its maxactive)",
			    s->alloc_va_unpaired);
	if (s->never_mapped)
		vt_im_warnf(im, "%" PRIu64 " area(s) whose mapping was not recorded (no __vmap_pages_range_noflush / vmap_range_noflush kprobe, or get_vm_area users) dropped",
			    s->never_mapped);
	if (s->unmatched_maps)
		vt_im_warnf(im, "%" PRIu64 " mapping(s) of no recorded area (vmap_page_range users, areas allocated before the recording) not imported",
			    s->unmatched_maps);
	if (s->unmatched_frees)
		vt_im_warnf(im, "%" PRIu64 " free(s) of area(s) allocated before the recording started ignored",
			    s->unmatched_frees);
	if (s->still_mapped)
		vt_im_warnf(im, "%" PRIu64 " area(s) still mapped when the recording ended (no matching free)",
			    s->still_mapped);
	if (s->vmalloc_no_pages)
		vt_im_warnf(im, "%" PRIu64 " vmalloc(s) emitted without pages (%s); the engine allocates them",
			    s->vmalloc_no_pages, im->opts.no_pages ? "--no-pages" :
			    "bulk allocation records no pfn and no vfree was recorded");
	if (s->pages_synthesised)
		vt_im_warnf(im, "%" PRIu64 " vmap/vm_map_ram page list(s) synthesised: the caller's pfns are not in the recording (order-0 pages, never adjacent)",
			    s->pages_synthesised);
	if (s->purges_lazy)
		vt_im_warnf(im, "%" PRIu64 " %s not emitted (%sthe engine purges at lazy_max_pages)",
			    s->purges_lazy, im->opts.explicit_purges ?
			    "lazy purge(s) by the drain worker" : "purge(s)",
			    im->opts.explicit_purges ? "" : "--no-purges: ");
	for (i = 0; i < MAX_UNKNOWN_NAMES && im->unknown_names[i][0]; i++)
		vt_im_warnf(im, "%" PRIu64 " record(s) of unused event '%s' ignored",
			    im->unknown_counts[i], im->unknown_names[i]);
	if (s->va_bits == 0)
		vt_im_warnf(im, "VA_BITS could not be inferred (no linear-map pointer recorded); pass --va-bits");
}

static void json_str(char *dst, size_t len, const char *s)
{
	size_t o = 0;

	for (; *s && o + 7 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			dst[o++] = '\\';
			dst[o++] = c;
		} else if (c < 0x20) {
			o += snprintf(dst + o, len - o, "\\u%04x", c);
		} else {
			dst[o++] = c;
		}
	}
	dst[o] = '\0';
}

static int build_meta(struct vt_import *im)
{
	static const char *const fmts[] = {
		[VT_IMPORT_FMT_DAT] = "trace-cmd trace.dat",
		[VT_IMPORT_FMT_TEXT] = "ftrace text",
		[VT_IMPORT_FMT_TEXT_XZ] = "ftrace text (xz)",
	};
	const char *base = strrchr(im->name, '/');
	char esc[600];
	int n;

	json_str(esc, sizeof(esc), base ? base + 1 : im->name);
	n = asprintf(&im->meta,
		     "{\"source\":\"vmaptool import of %s (%s)\","
		     "\"recording\":\"%s\",\"importer\":\"vmaptool import\","
		     "\"page_size\":4096%s%s%s}",
		     esc, fmts[im->sum.format], esc,
		     im->sum.va_bits ? ",\"va_bits\":" : "",
		     im->sum.va_bits == 52 ? "52" : im->sum.va_bits == 48 ?
		     "48" : im->sum.va_bits == 39 ? "39" : "",
		     "");
	if (n < 0) {
		im->meta = NULL;
		return -ENOMEM;
	}
	return 0;
}

/*
 * After a reader (text.c, dat.c, or records fed by dat.c) has handed every
 * event to vt_im_handle(): the events of the areas in trace order, the
 * warnings and the meta object.  Returns the events written (clamped to
 * INT32_MAX) or a negative error.
 */
int vt_im_finish(struct vt_import *im, struct vt_error *err)
{
	int rc;

	if (!im->sum.records && !im->sum.functions)
		return vt_error_set(err, VT_ERR_IMPORT,
				    "the recording holds no trace events%s",
				    im->sum.bad_lines ?
				    " (not an ftrace or trace-cmd recording)" : "");
	/* an empty trace would replay to nothing with exit 0: a CI job
	 * importing a recording made without the events would pass */
	if (!im->sum.alloc_vmap_area && !im->sum.free_vmap_area)
		return vt_error_set(err, VT_ERR_IMPORT,
				    "the recording holds no vmalloc:alloc_vmap_area or free_vmap_area_noflush events (nor, before 6.2, the kp/alloc_va and kp/free_va kprobes): nothing to reconstruct (see docs/recording.md)");
	rc = finish(im, err);
	if (rc < 0)
		return rc;
	build_warnings(im);
	if (build_meta(im) || im->oom)
		return vt_err_oom(err);
	return (int)(im->sum.out_events > INT32_MAX ? INT32_MAX :
		     im->sum.out_events);
}

size_t vt_import_nr_events(const struct vt_import *im)
{
	return (size_t)im->sum.out_events;
}

/* One event of the spool file (its runs in @runs, grown as needed). */
static int spool_read(FILE *f, struct vt_event *ev, struct vt_page_run **runs,
		      size_t *cap)
{
	if (fread(ev, sizeof(*ev), 1, f) != 1)
		return -EIO;
	ev->runs = NULL;
	if (!ev->nr_runs)
		return 0;
	if (VT_ALLOC_GROW(*runs, ev->nr_runs, *cap))
		return -ENOMEM;
	if (fread(*runs, sizeof(**runs), ev->nr_runs, f) != ev->nr_runs)
		return -EIO;
	ev->runs = *runs;
	return 0;
}

/*
 * Events a text import wrote to its spool file, read back into memory for
 * vt_import_event() (tests and the library's users; the command line
 * writes them from the file with vt_import_write()).
 */
static bool load_spool(struct vt_import *im)
{
	size_t n = (size_t)im->sum.out_events, i;

	if (im->spooled_loaded)
		return im->out != NULL || !n;
	im->spooled_loaded = true;
	if (!n || fseek(im->ev_spool, 0, SEEK_SET))
		return !n;
	im->out = calloc(n, sizeof(*im->out));
	if (!im->out)
		return false;
	im->out_cap = n;
	for (i = 0; i < n; i++) {
		struct vt_page_run *runs = NULL;
		size_t cap = 0;

		if (spool_read(im->ev_spool, &im->out[i], &runs, &cap)) {
			free(runs);
			for (size_t j = 0; j < i; j++)
				free(im->out[j].runs);
			free(im->out);
			im->out = NULL;
			return false;
		}
	}
	return true;
}

const struct vt_event *vt_import_event(const struct vt_import *im, size_t i)
{
	if (i >= im->sum.out_events)
		return NULL;
	/* a cache filled on first use: the events stay those written */
	if (im->ev_spool && !load_spool((struct vt_import *)im))
		return NULL;
	return im->out ? &im->out[i] : NULL;
}

int vt_import_write(const struct vt_import *im, struct vt_trace_writer *w,
		    struct vt_error *err)
{
	struct vt_page_run *runs = NULL;
	size_t cap = 0;
	uint64_t j;
	int rc = 0;

	if (!im->ev_spool || im->spooled_loaded) {
		for (j = 0; j < im->sum.out_events && im->out; j++) {
			rc = vt_trace_writer_event(w, &im->out[j], err);
			if (rc < 0)
				return rc;
		}
		return 0;
	}
	/* the events pass 2 wrote, in order, one at a time */
	if (fseek(im->ev_spool, 0, SEEK_SET))
		return vt_error_set(err, -EIO, "cannot read the temporary file of the events: %s",
				    strerror(errno));
	for (j = 0; j < im->sum.out_events; j++) {
		struct vt_event ev;

		rc = spool_read(im->ev_spool, &ev, &runs, &cap);
		if (rc) {
			rc = vt_error_set(err, rc, "cannot read the temporary file of the events: %s",
					  strerror(-rc));
			break;
		}
		rc = vt_trace_writer_event(w, &ev, err);
		if (rc < 0)
			break;
	}
	free(runs);
	return rc < 0 ? rc : 0;
}

const struct vt_import_summary *vt_import_summary(const struct vt_import *im)
{
	return &im->sum;
}

const struct vt_trace_config *vt_import_config(const struct vt_import *im)
{
	return &im->cfg;
}

const char *vt_import_meta_json(const struct vt_import *im)
{
	return im->meta ? im->meta : "{}";
}

const char *vt_import_warnings(const struct vt_import *im)
{
	return im->warnings ? im->warnings : "";
}
