/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the importer share (core/import/): the normalised
 * kernel record (struct kev) both front ends produce, and the importer
 * (struct vt_import): its settings, its summary and the reconstruction's
 * state.  The input (xz, libtracecmd, the line buffer) is struct
 * vt_im_source of core/import/source.h, which only the front ends and
 * open.c include; the back end sees records, never the input.
 *
 * text.c is the ftrace text front end, dat.c the trace.dat one (dat-check.c
 * checks a trace.dat before libtracecmd reads it), open.c opens a
 * recording and sniffs its format.  The back end groups the records into
 * API events (vmalloc-paths.md 2-9): reconstruct.c the rules (records ->
 * areas), decide.c the deciding and writing of areas, both over areas.c
 * (areas, tasks and the event window, areas.h).
 */
#ifndef VT_IMPORT_INTERNAL_H
#define VT_IMPORT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/import/import.h"
#include "core/input.h"
#include "core/siphash.h"

#define PAGE_SHIFT_4K 12
#define PAGE_SIZE_4K 4096ULL
#define MAX_TASK_STACK 8
#define MAX_KV 24
#define MAX_UNKNOWN_NAMES 8


/* ---- normalised kernel records ----------------------------------- */

enum kev_kind {
	KEV_ALLOC_VA,		/* vmalloc:alloc_vmap_area */
	KEV_FREE_VA,		/* vmalloc:free_vmap_area_noflush */
	KEV_PURGE_TP,		/* vmalloc:purge_vmap_area_lazy */
	KEV_PAGE_ALLOC,		/* kmem:mm_page_alloc */
	KEV_PAGE_FREE,		/* kmem:mm_page_free */
	KP_VMAP_PAGES,		/* __vmap_pages_range_noflush */
	KP_VMAP_SMALL,		/* vmap_small_pages_range_noflush */
	KP_VMAP_RANGE,		/* vmap_range_noflush */
	KP_PMD_SET_HUGE,
	KP_PUD_SET_HUGE,
	KP_PMD_FREE_PTE,
	KP_PTE_ALLOC,		/* __pte_alloc_kernel */
	KP_PMD_ALLOC,		/* __pmd_alloc */
	KP_VUNMAP,		/* __vunmap_range_noflush */
	KP_PURGE,		/* __purge_vmap_area_lazy */
	KP_BULK,		/* alloc_pages_bulk_noprof */
	KP_FREE_PAGES,		/* __free_pages */
	KP_VMALLOC_NODE,	/* __vmalloc_node_range(_noprof): the caller's size */
	/*
	 * Before 6.2 (no vmalloc:* tracepoints): kprobes in their place,
	 * used only while no vmalloc:* tracepoint has been seen
	 */
	KP_ALLOC_VA,		/* alloc_vmap_area() entry: its arguments */
	KP_ALLOC_VA_RET,	/* its return: the area */
	KP_FREE_VA,		/* free_vmap_area_noflush() entry: va->va_start */
	KP_PURGE_RET,		/* __purge_vmap_area_lazy() return */
	KEV_FUNCTION,		/* ftrace:function */
	KEV__NR
};

#define KEV_MAX_FIELDS 6

/*
 * One row per kind: the names the event may have (tracepoint name, the
 * kprobe names of docs/recording.md, the probed symbol), its fields as
 * printed in text, and (where it differs) the field name in the format
 * file of a .dat.
 */
struct kev_desc {
	const char *names[3];
	const char *sym;	/* probed kernel function (kprobes) */
	bool kprobe;
	const char *fields[KEV_MAX_FIELDS];
	const char *dat_fields[KEV_MAX_FIELDS];
	unsigned int required;	/* bit mask over fields */
	bool ret;		/* a kretprobe: the return of sym */
};

extern const struct kev_desc vt_im_kev_descs[KEV__NR];

struct kev {
	enum kev_kind kind;
	int pid;
	int cpu;
	uint64_t t;
	const char *comm;
	uint64_t f[KEV_MAX_FIELDS];
	unsigned int have;		/* bit mask of fields read */
	bool irq;			/* in hardirq or softirq context */
	/* KEV_FUNCTION: the function and its caller; a kretprobe: parent
	 * is the function it returned to (the call site's symbol) */
	const char *func, *parent;
	unsigned long line;
};

/* ---- reconstruction state ----------------------------------------- */

enum area_kind {
	AK_UNKNOWN, AK_VMALLOC, AK_VMAP, AK_IOREMAP,
	AK_VM_MAP_RAM,		/* vm_map_ram(): from a vmap block, or its own area */
	AK_VBLOCK,		/* new_vmap_block()'s area: the engine makes its own */
};
enum area_state { AS_OPEN, AS_MAPPED, AS_FREED };

/*
 * Areas by start address, open addressing over a keyed hash of the whole
 * va (SipHash-1-3, core/siphash.c): a hash of the low bits sent areas
 * 1 GiB apart to one chain (60,000 areas: 25 s).
 */
struct vt_im_vatab {
	struct area **v;
	size_t cap, used;
};

struct u64vec {
	uint64_t *v;
	size_t n, cap;
};

struct area {
	uint64_t va, vsize, align, vstart, vend;
	uint64_t t;
	int cpu, pid;
	enum area_kind kind;
	enum area_state state;
	bool nested, other_range, huge_caller, saw_alloc;
	bool vmr_small;		/* a vm_map_ram mapping inside a vmap block */
	bool vmr_large;		/* alloc_vmap_area() of a vm_map_ram > 64 pages */
	long outer;		/* nested: the vmalloc whose page array it is */
	unsigned int page_shift;
	uint64_t phys, map_size;
	uint64_t req_size;	/* the vmalloc caller's size (kp/vmalloc_node), 0: none */
	struct u64vec alloc;	/* pairs: pfn, order */
	struct u64vec chunks;	/* first pfn of each huge chunk */
	struct u64vec freed;	/* order-0 pfns freed by vfree, in order */
	const char *caller;
	size_t map_slot, unmap_slot;
	bool has_unmap;

	/* streaming (reconstruct.c "Deciding areas as they end") */
	long idx;		/* allocation order: areas are numbered by it */
	bool in_live, in_vmr, in_block;	/* held by im->live, vmr_live, blocks */
	unsigned int nstack;	/* entries on task stacks */
	unsigned int nrefs;	/* tasks' mapping and collect */
	unsigned int kids;	/* nested page arrays not yet decided */
	bool decided, dec_drop;
	enum area_kind dec_kind;
	struct vt_id dec_id;
	enum vt_op dec_uop;	/* the op of its unmap event */
	struct area *snap;	/* its state at the end of pass 1 (if never final) */
};

struct slot {
	struct vt_event ev;
	long area;		/* -1 for purge */
	bool drop;
	bool ready;		/* final: may be written once all before it are */
};

struct task {
	int pid;
	int open[MAX_TASK_STACK];
	int nopen;
	int mapping;		/* area whose huge chunks are being mapped */
	int collect;		/* area whose vfree pages are being freed */
	uint64_t collect_left;
	bool collect_paused;
	bool skip_next_free;
	const char *pend_caller;	/* parent of __vmalloc_node_range */
	bool pend_huge;
	uint64_t pend_size;	/* its size argument (kp/vmalloc_node), 0: none */
	/* kp/alloc_va's size, align, vstart, vend, for kp/alloc_va_ret */
	uint64_t pend_va[4];
	bool pend_va_set;
	long purge_slot;	/* purge in progress */
	bool purge_from_func;
	bool in_vmr;		/* inside vm_map_ram() (function tracer) */
	uint64_t pages_addr, pages_end;	/* the last __vmap_pages_range_noflush */
	struct u64vec loose;	/* pfn, order pairs allocated outside any area */
};

struct vt_im_source;

struct strtab {
	char **s;
	size_t n, cap;
};

struct vt_import {
	char *name;
	struct vt_import_opts opts;
	struct vt_import_summary sum;
	struct vt_trace_config cfg;

	/* the input: text.c, dat.c, open.c (source.h) */
	struct vt_im_source *src;
	uint64_t max_input;

	/* state */
	int pass;		/* 0: one pass (trace.dat); 1, 2: two passes (text) */
	struct area **amap;	/* open addressing: area index -> area */
	size_t amap_cap, amap_used, amap_n;
	long nareas;		/* areas created (the next area's index) */
	long next_decide;	/* the first area not decided */
	uint64_t pa_end, pfn_end, max_runs, next_id;	/* what decides them */
	struct u64vec unpinned;	/* areas that lost a reference this record */
	struct area **snaps;	/* pass 1's areas never final, by index */
	size_t nsnaps, snaps_cap, snap_pos;
	/*
	 * The window of events not yet written: slots[slot_head] to
	 * slots[slot_head + nslots - 1], a queue.  Writing its head moves
	 * slot_head; the array is compacted only when the free head is as
	 * large as the window (a memmove per written event made vmaps freed
	 * first in, first out quadratic).
	 */
	struct slot *slots;
	size_t slot_head, nslots, slots_cap;	/* in the window */
	long slot_base;		/* index of slots[slot_head] */
	/*
	 * Work counted for the complexity tests (unit/test-complexity-
	 * import): entries of the va tables visited, slots moved when the
	 * window is compacted.  Deterministic for a fixed hash_key.
	 */
	uint64_t probes;
	struct vt_siphash_key hash_key;	/* the va tables' (vt_im_vatab) */
	FILE *ev_spool;		/* events written (NULL: kept in out) */
	struct vt_event *out;	/* events written, when kept in memory */
	size_t out_cap;
	bool spooled_loaded;
	struct task *tasks;
	size_t ntasks, tasks_cap;
	size_t last_task;
	size_t *task_at;	/* open-addressing pid -> tasks[] index + 1 */
	size_t task_at_cap;
	struct vt_im_vatab live;	/* va -> live area */
	struct strtab strs;
	uint64_t min_linear;	/* lowest kernel pointer in the linear map */
	uint64_t vm_start, vm_end;	/* the vmalloc range */
	struct vt_im_vatab vmr_live;	/* live vm_map_ram mappings in vmap blocks, by va */
	struct vt_im_vatab blocks;	/* live vmap block areas, by va */
	uint64_t synth_pfn;	/* next page of the synthesised page lists */
	char unknown_names[MAX_UNKNOWN_NAMES][48];
	uint64_t unknown_counts[MAX_UNKNOWN_NAMES];
	bool oom;
	bool ran;
	/* a vmalloc:* tracepoint was seen (kept across the passes): the
	 * kprobes that stand in for them before 6.2 are not used */
	bool va_tracepoints;
	struct vt_page_run *runs;	/* scratch: the page runs of one event */
	size_t nruns, runs_cap;
	char *meta;
	char *warnings;
	size_t warn_len, warn_cap;
};

/* ---- shared by the files of core/import/ -------------------------- */

/* The reconstruction (reconstruct.c): one normalised record. */
void vt_im_handle(struct vt_import *im, const struct kev *k);
/* Count a record of an event the importer does not use. */
void vt_im_count_unknown(struct vt_import *im, const char *name);
/* The kind of the event @name (or of the kprobe on @sym, a kretprobe if
 * @ret), or -1. */
int vt_im_kind_of(const char *name, const char *sym, bool ret);
/* The front ends: read every record and hand it to vt_im_handle(). */
int vt_im_text_run(struct vt_import *im, struct vt_error *err);
int vt_im_dat_run(struct vt_import *im, struct vt_error *err);
/* text.c: start the xz decoder of an xz recording (open, and each pass) */
int vt_im_xz_start(struct vt_import *im, struct vt_error *err);
/* text.c: read the text again from its start (the second pass) */
int vt_im_text_rewind(struct vt_import *im, struct vt_error *err);
/* reconstruct.c: after the reader, the trace (vt_import_run() in open.c) */
int vt_im_finish(struct vt_import *im, struct vt_error *err);
/* reconstruct.c: between the two passes of a text recording */
void vt_im_pass2(struct vt_import *im);
/* reconstruct.c: after each record (decide, write and release areas) */
int vt_im_advance(struct vt_import *im);
/* reconstruct.c: frees the reconstruction state (vt_import_close()) */
void vt_im_free_state(struct vt_import *im);

#endif
