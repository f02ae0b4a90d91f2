/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace model of spec/interfaces.md section 2: API-level mapping
 * events and their page runs.  This is the only thing the engine consumes.
 *
 * Traces are read as a stream of events (struct vt_trace_reader) so that a
 * JSON Lines trace of millions of events replays in constant memory; a
 * one-document JSON trace is the same stream over an in-memory array.
 */
#ifndef VT_TRACE_H
#define VT_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"

#define VT_TRACE_FORMAT "vmaptool-trace"
#define VT_TRACE_VERSION 1

/* The ops and their rules: core/trace/ops.def. */
enum vt_op {
#define VT_OP(e, name, rules, undoes, prot) VT_OP_##e,
#include "core/trace/ops.def"
#undef VT_OP
	VT_OP__NR
};

/* The rules of an op (core/trace/ops.def). */
enum {
	VT_OPR_MAP = 1u << 0,
	VT_OPR_PAGES = 1u << 1,
	VT_OPR_SIZE = 1u << 2,
	VT_OPR_PHYS = 1u << 3,
	VT_OPR_COVER = 1u << 4,
	VT_OPR_RANGE = 1u << 5,
	VT_OPR_ID = 1u << 6,
};

struct vt_op_desc {
	const char *name;
	unsigned int rules;	/* VT_OPR_* */
	int undoes;		/* enum vt_op, or -1 */
	unsigned int prot;	/* enum vt_prot: the default protection */
};

/* Indexed by enum vt_op. */
extern const struct vt_op_desc vt_ops[VT_OP__NR];
extern const char *const vt_op_names[VT_OP__NR];
/* Returns the op for @name, or -1. */
int vt_op_find(const char *name);
/* True for ops that create a mapping named by an id. */
bool vt_op_is_map(enum vt_op op);
/* For an unmap op, the op that creates what it destroys; else -1. */
int vt_op_map_of(enum vt_op op);

/* The kernel's VM_* flags (include/linux/vmalloc.h) and linear-map flags. */
#define VT_VM_FLAGS(X)                         \
	X(VM_IOREMAP)                          \
	X(VM_ALLOC)                            \
	X(VM_MAP)                              \
	X(VM_USERMAP)                          \
	X(VM_DMA_COHERENT)                     \
	X(VM_UNINITIALIZED)                    \
	X(VM_NO_GUARD)                         \
	X(VM_KASAN)                            \
	X(VM_FLUSH_RESET_PERMS)                \
	X(VM_MAP_PUT_PAGES)                    \
	X(VM_ALLOW_HUGE_VMAP)                  \
	X(VM_DEFER_KMEMLEAK)                   \
	X(VM_SPARSE)                           \
	X(NO_BLOCK_MAPPINGS)                   \
	X(NO_CONT_MAPPINGS)                    \
	X(NO_EXEC_MAPPINGS)

#define VT_FLAG_BIT(name) VT_FB_##name,
enum { VT_VM_FLAGS(VT_FLAG_BIT) VT_FB__NR };
#undef VT_FLAG_BIT
#define VT_FLAG(name) (1u << VT_FB_##name)
extern const char *const vt_flag_names[VT_FB__NR];
/* Returns the flag bit for @name, or 0 if unknown. */
uint32_t vt_flag_find(const char *name);

/* The VA range of __vmalloc_node_range(): VMALLOC_START..VMALLOC_END, or
 * MODULES_VADDR..MODULES_END (module/execmem allocations). */
enum vt_va_range {
	VT_RANGE_VMALLOC,
	VT_RANGE_MODULES,
};

/* Protections a trace may name; PAGE_KERNEL is the default. */
enum vt_prot {
	VT_PROT_KERNEL,		/* PAGE_KERNEL */
	VT_PROT_KERNEL_RO,	/* PAGE_KERNEL_RO */
	VT_PROT_KERNEL_EXEC,	/* PAGE_KERNEL_EXEC */
	VT_PROT_KERNEL_NC,	/* pgprot_writecombine(PAGE_KERNEL) */
	VT_PROT_DEVICE,		/* PROT_DEVICE_nGnRE (ioremap) */
	VT_PROT__NR
};
extern const char *const vt_prot_names[VT_PROT__NR];
int vt_prot_find(const char *name);

/*
 * N blocks of 2^order pages; block i starts at pfn + i * 2^order, so a run
 * is physically contiguous.  order > 0: each block is a compound page.
 */
struct vt_page_run {
	uint64_t pfn;
	uint64_t count;
	uint32_t order;
};

/* An id is a JSON integer >= 0 or a string; 1 and "1" differ. */
struct vt_id {
	bool present;
	bool is_str;
	uint64_t num;
	char *str;		/* owned by the event's storage */
};

struct vt_event {
	/* the 32-bit and smaller fields first, then the 64-bit ones: 128
	 * bytes without holes, which the JSON Lines fast path clears in
	 * eight stores (core/trace/trace-fast.c) */
	enum vt_op op;
	uint32_t flags;		/* VT_FLAG() bits */
	uint32_t prot;		/* enum vt_prot */
	int32_t cpu;		/* -1 if absent */
	uint32_t nr_runs;
	bool has_pages;		/* "pages" given */
	bool has_va;
	bool has_t;
	uint8_t range;		/* enum vt_va_range: where a vmalloc's VA comes from */
	struct vt_id id;
	uint64_t size;		/* vmalloc, ioremap, linear_map: bytes */
	uint64_t phys;		/* ioremap, linear_map */
	uint64_t align;		/* vmalloc: caller's align (0 = 1) */
	struct vt_page_run *runs;
	uint64_t nr_pages;	/* sum over runs of count << order */
	uint64_t va;		/* the address the recorded kernel chose (has_va) */
	uint64_t t;		/* has_t */
	const char *caller;	/* NULL if absent */
	/* where the event starts in its file (1-based; 0 unknown) */
	unsigned long line, column;
};

struct vt_trace_config {
	unsigned int page_shift;	/* 12, 14, 16; 0 = not given */
	unsigned int va_bits;		/* 0 = not given */
};

/*
 * The physical address size a trace of @c is read against unless the
 * reader is told otherwise (vt_trace_read_opts.pa_bits): 52 bits with
 * 52-bit VAs (arm64 FEAT_LPA2 / 64K LPA), else 48.  The importer checks
 * what it emits against the same size.
 */
static inline unsigned int vt_trace_pa_bits(const struct vt_trace_config *c)
{
	return c->va_bits == 52 ? 52 : 48;
}

/*
 * A stream of events.  vt_trace_next() returns 1 and fills @ev (valid until
 * the next call), 0 at the end, or a negative code with @err filled.
 */
struct vt_trace_reader;

struct vt_trace_read_opts {
	bool skip_unknown;	/* --skip-unknown: ignore unknown ops */
	unsigned int max_order;	/* orders above are bad input (default by granule) */
	unsigned int pa_bits;	/* pfns beyond are bad input (default 48/52) */
	uint64_t max_input;	/* --max-input (core/input.h); 0: the default */
	bool no_fast_path;	/* JSON Lines through jansson only (tests) */
};

int vt_trace_open(const char *path, const struct vt_trace_read_opts *opts,
		  struct vt_trace_reader **out, struct vt_error *err);
/* Read from a memory buffer (tests, fuzzers); @name is used in messages. */
int vt_trace_open_mem(const char *name, const char *buf, size_t len,
		      const struct vt_trace_read_opts *opts,
		      struct vt_trace_reader **out, struct vt_error *err);
const struct vt_trace_config *vt_trace_config(const struct vt_trace_reader *r);
/* The "meta" object as compact JSON text ("{}" if absent). */
const char *vt_trace_meta_json(const struct vt_trace_reader *r);
bool vt_trace_is_jsonl(const struct vt_trace_reader *r);
int vt_trace_next(struct vt_trace_reader *r, struct vt_event *ev,
		  struct vt_error *err);
/* Warnings gathered so far (unknown flags, ...), one per line; may be "". */
const char *vt_trace_warnings(const struct vt_trace_reader *r);
void vt_trace_close(struct vt_trace_reader *r);

/*
 * Writer: one JSON document, or JSON Lines when @jsonl.  The output file is
 * written whole or not at all (a temporary file renamed on commit).
 */
struct vt_trace_writer;

int vt_trace_writer_open(const char *path, bool jsonl,
			 const struct vt_trace_config *cfg,
			 const char *meta_json, struct vt_trace_writer **out,
			 struct vt_error *err);
/* Write to a stream the caller opened; committed by vt_trace_writer_commit(). */
int vt_trace_writer_open_file(FILE *f, bool jsonl,
			      const struct vt_trace_config *cfg,
			      const char *meta_json,
			      struct vt_trace_writer **out, struct vt_error *err);
int vt_trace_writer_event(struct vt_trace_writer *w, const struct vt_event *ev,
			  struct vt_error *err);
/* Finish and publish the file; frees @w. */
int vt_trace_writer_commit(struct vt_trace_writer *w, struct vt_error *err);
/* Discard the partial file; frees @w. */
void vt_trace_writer_abort(struct vt_trace_writer *w);

/* True if @path names a JSON Lines file by its suffix (.jsonl, .ndjson). */
bool vt_trace_path_is_jsonl(const char *path);

#endif
