/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Import of real kernel recordings (trace-cmd trace.dat through
 * libtracecmd/libtraceevent, or the text of ftrace's trace/trace_pipe and
 * of "trace-cmd report", plain or xz-compressed) into API-level events of
 * the trace format (spec/interfaces.md section 2).
 *
 * The kernel's own events (vmalloc:*, kmem:mm_page_*, kprobes on the
 * vmalloc paths, the function tracer) are grouped per task into vmap
 * areas; what the kernel does internally (the nested page-array vmalloc of
 * vmalloc-paths.md 5.2, lazy purges by the drain worker) is dropped and
 * counted.  See docs/vmaptool-import.md for the rules.
 */
#ifndef VT_IMPORT_H
#define VT_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/trace/trace.h"

struct vt_import_opts {
	/* leave out areas outside the vmalloc range (module/execmem areas,
	 * replayed in the module area by default) */
	bool drop_other_ranges;
	/* emit no page lists (let the engine allocate every vmalloc) */
	bool no_pages;
	/* emit vm_unmap_aliases-type purges (default true via init) */
	bool explicit_purges;
	/* --max-input: bytes of the recording after decompression (0: the
	 * default of core/input.h) */
	uint64_t max_input;
	/* import --vmlinux: the function containing an address, written to
	 * @buf as "name+0xoff" (or "name" when !@offset); false if none.
	 * Function-tracer ips and parent ips the recording leaves as
	 * addresses ("0xffff800080123456") go through it.  NULL: none. */
	bool (*symbolize)(void *ctx, uint64_t addr, bool offset, char *buf,
			  size_t len);
	void *symbolize_ctx;
	/* how many addresses it resolved, and how many it could not */
	uint64_t *symbolized, *unsymbolized;
	/* the geometry of the trace written (--va-bits, --granule): 0 for
	 * the VA_BITS inferred from the recording and 4K pages.  Physical
	 * ranges and pfns are checked against its PA size
	 * (vt_trace_pa_bits()), so that what is emitted reads back. */
	unsigned int va_bits;
	unsigned int page_shift;
};

void vt_import_opts_init(struct vt_import_opts *o);

enum vt_import_format {
	VT_IMPORT_FMT_DAT,		/* trace-cmd trace.dat */
	VT_IMPORT_FMT_TEXT,		/* ftrace / trace-cmd report text */
	VT_IMPORT_FMT_TEXT_XZ,		/* the same, xz-compressed */
};

/* Kinds of mappings, for what the recording shows and the trace keeps. */
enum vt_import_mkind {
	VT_IMK_VMALLOC,		/* vmalloc in the vmalloc range */
	VT_IMK_MODULES,		/* vmalloc in the module area (execmem) */
	VT_IMK_VMAP,
	VT_IMK_VM_MAP_RAM,
	VT_IMK_IOREMAP,
	VT_IMK_NESTED,		/* page arrays of large vmallocs (engine-made) */
	VT_IMK_OTHER,		/* mappings of no recorded area */
	VT_IMK__NR
};
extern const char *const vt_import_mkind_names[VT_IMK__NR];

/* Counts gathered by one import; every loss is counted somewhere here. */
struct vt_import_summary {
	enum vt_import_format format;
	uint64_t lines;			/* text lines read */
	uint64_t records;		/* event records read */
	uint64_t bad_lines;		/* text lines that are not events */
	unsigned long first_bad_line;
	uint64_t lost_events;		/* ring-buffer overruns reported */
	uint64_t bad_fields;		/* known events with unreadable fields */
	uint64_t maps_beyond_area;	/* mappings larger than their area */
	uint64_t ioremap_beyond_pa;	/* ioremaps beyond the PA size, dropped */
	uint64_t pages_beyond_pa;	/* recorded page lists beyond it, not used */
	uint64_t synth_beyond_pa;	/* vmaps too large to synthesise below it */
	uint64_t pages_beyond_limit;	/* page lists replay's --max-input refuses */
	uint64_t synth_beyond_limit;	/* vmaps whose synthesised list would be */
	uint64_t unknown_events;	/* records of events we do not use */

	/* kernel events used */
	uint64_t alloc_vmap_area, alloc_failed;
	uint64_t alloc_va_unpaired;	/* kp/alloc_va(_ret) without the other */
	uint64_t free_vmap_area;
	uint64_t purge_tp;
	uint64_t page_alloc, page_free;
	uint64_t kprobes;
	uint64_t functions;

	/* reconstruction */
	uint64_t areas;			/* alloc_vmap_area that succeeded */
	uint64_t nested_dropped;	/* nested page arrays (5.2) */
	uint64_t nested_frees_dropped;
	uint64_t other_range;		/* areas outside the vmalloc range */
	uint64_t other_range_dropped;
	uint64_t other_range_not_vmalloc; /* vmap etc. there: dropped */
	uint64_t never_mapped;		/* areas whose mapping was not seen */
	uint64_t unmatched_frees;	/* frees of areas not seen allocated */
	uint64_t unmatched_maps;	/* mappings of no open area */
	uint64_t still_mapped;		/* areas live when the recording ends */
	uint64_t vmalloc_no_pages;	/* vmalloc emitted without pages */
	uint64_t pages_synthesised;	/* vmap/vm_map_ram without recorded pfns */
	uint64_t vm_map_ram;		/* vm_map_ram mappings reconstructed */
	uint64_t vblocks;		/* vmap block areas (the engine makes its own) */
	uint64_t pages_from_free;	/* areas whose pages came from ... */
	uint64_t pages_from_chunks;
	uint64_t pages_from_alloc;
	uint64_t bulk_pages;		/* pages asked of alloc_pages_bulk */
	uint64_t purges_explicit;
	uint64_t purges_lazy;		/* drain-worker purges (not emitted) */
	uint64_t huge_areas;		/* page_shift > PAGE_SHIFT */

	/* what the walker kprobes add up to: pages of vmap_small and
	 * vmap_range calls, PMD and PUD blocks (pmd/pud_set_huge) */
	uint64_t walker_pages, walker_pmd_blocks, walker_pud_blocks;
	/* mappings the recording shows, and those the trace reproduces
	 * (emitted, or made by the engine: nested page arrays) */
	uint64_t mappings_recorded[VT_IMK__NR];
	uint64_t mappings_reproduced[VT_IMK__NR];

	uint64_t out_events;
	uint64_t out_by_op[VT_OP__NR];
	unsigned int va_bits;		/* inferred, 0 if not */
};

struct vt_import;

/**
 * vt_import_open() - open a recording and detect its format
 * @path: trace.dat, ftrace text, or either text form xz-compressed
 * @opts: options (NULL for defaults)
 * @out: the import handle
 * @err: filled on failure
 *
 * Return: 0, VT_ERR_IMPORT for an unreadable recording, -errno for I/O.
 */
int vt_import_open(const char *path, const struct vt_import_opts *opts,
		   struct vt_import **out, struct vt_error *err);
/* The same over a memory buffer (tests, fuzzers); @name names it. */
int vt_import_open_mem(const char *name, const void *buf, size_t len,
		       const struct vt_import_opts *opts,
		       struct vt_import **out, struct vt_error *err);

/**
 * vt_import_run() - read the whole recording and reconstruct its events
 * @im: the handle
 * @err: filled on failure
 *
 * Return: the number of reconstructed events, VT_ERR_IMPORT if the input
 * is not a recording, -ENOMEM or -EIO.
 */
int vt_import_run(struct vt_import *im, struct vt_error *err);

/* Reconstructed events, in recorded order (valid until vt_import_close). */
size_t vt_import_nr_events(const struct vt_import *im);
const struct vt_event *vt_import_event(const struct vt_import *im, size_t i);

const struct vt_import_summary *vt_import_summary(const struct vt_import *im);
/* Trace config: granule 4k, va_bits inferred (0 if not). */
const struct vt_trace_config *vt_import_config(const struct vt_import *im);
/* The "meta" object as JSON text. */
const char *vt_import_meta_json(const struct vt_import *im);
/* What could not be reconstructed, one warning per line; may be "". */
const char *vt_import_warnings(const struct vt_import *im);

/* Write every event to @w (which the caller commits or aborts). */
int vt_import_write(const struct vt_import *im, struct vt_trace_writer *w,
		    struct vt_error *err);

void vt_import_close(struct vt_import *im);

/*
 * Below libtracecmd (the fast trace.dat fuzz harness, tests): an import
 * whose trace.dat records are handed in one at a time, read with @tep,
 * the recording's event formats and symbols, parsed once by the caller
 * (who keeps it; vt_import_close() does not free it).  Feed the records
 * as libtracecmd's iterator would (cpu, ts, data, size, missed_events),
 * then vt_import_run() reconstructs as for a trace.dat.
 */
struct tep_handle;
struct tep_record;
int vt_import_open_records(const char *name, struct tep_handle *tep,
			   const struct vt_import_opts *opts,
			   struct vt_import **out, struct vt_error *err);
/* Return: 0, or -ENOMEM (then vt_import_run() fails too). */
int vt_import_feed_record(struct vt_import *im, struct tep_record *r,
			  int cpu);

#endif
