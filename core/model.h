/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The modelled kernel: what-if options (spec/interfaces.md 1.3), strategy
 * names (1.2) and the replay driver.  core computes; cli prints.
 */
#ifndef VT_MODEL_H
#define VT_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "core/stats.h"
#include "core/trace/trace.h"

/* The --kernel generations and what-if options: one table, options.def. */
#define VT_KERNEL(id, name, summary, vfree_bulk, linear_old) VT_KERNEL_##id,
enum vt_kernel_gen {
#include "options.def"
	VT_KERNEL__NR
};
#define VT_KERNEL_DEFAULT VT_KERNEL_MAINLINE

struct vt_kernel_info {
	const char *name;	/* as --kernel spells it */
	const char *summary;	/* what it sets, for 'strategies -v' */
	bool vfree_bulk;	/* vfree() frees with free_pages_bulk() */
	bool linear_old;	/* map_mem() before 5c63db59c5f8 (v6.10) */
};
extern const struct vt_kernel_info vt_kernels[VT_KERNEL__NR];

struct vt_model_opts {
	unsigned int page_shift;	/* 12, 14, 16 */
	unsigned int va_bits;
	enum vt_kernel_gen kernel;
	uint64_t max_input;		/* --max-input bytes (core/input.h), 0: default */
#define VT_OPTION(field, type, ...) type field;
#include "options.def"
};

#define VT_OPTION(field, type, ...) VT_OPT_##field,
enum vt_option_id {
#include "options.def"
	VT_OPT__NR
};

enum vt_option_kind {
	VT_OK_WORD,	/* --name=WORD */
	VT_OK_FLAG,	/* --name: 1 */
	VT_OK_NUMBER,	/* --name=N */
};

/* One what-if option: see options.def for every field. */
struct vt_option {
	const char *name, *json;
	enum vt_option_kind kind;
	const char *words;
	unsigned char values[4];
	bool arg_optional;
	unsigned int def, min, max;
	unsigned int kernel[VT_KERNEL__NR];	/* value + 1; 0: not set */
	bool common;
	const char *help, *label, *models;
	size_t off;		/* of the field in struct vt_model_opts */
	bool is_bool;		/* the field is a bool, else unsigned int */
};
#define VT_SETS(gen, v) [VT_KERNEL_##gen] = (v) + 1
extern const struct vt_option vt_options[VT_OPT__NR];

/* Defaults: newest mainline, 4K/48, 8 CPUs, booted tables, lazy purge. */
void vt_model_opts_init(struct vt_model_opts *o);
/* Set the knobs a kernel generation implies (not the geometry). */
void vt_model_opts_kernel(struct vt_model_opts *o, enum vt_kernel_gen gen);
/* The value of option @id in @o, and setting it. */
unsigned int vt_option_get(const struct vt_model_opts *o, enum vt_option_id id);
void vt_option_set(struct vt_model_opts *o, enum vt_option_id id,
		   unsigned int v);
/* Word @i of @opt's words (at most @len - 1 bytes in @buf), or NULL if it
 * has fewer; a flag's words are "off" and "on". */
const char *vt_option_word(const struct vt_option *opt, unsigned int i,
			   char *buf, size_t len);
/* Index of the word @word (exactly) in @opt's words, or -1. */
int vt_option_word_index(const struct vt_option *opt, const char *word);
/* The word a report writes for value @v (the first word that sets it). */
const char *vt_option_value_word(const struct vt_option *opt, unsigned int v,
				 char *buf, size_t len);
/* True if an option differs from what @o's --kernel generation sets. */
bool vt_model_kernel_overridden(const struct vt_model_opts *o);
/* Whether arm64 has a Kconfig-valid (granule, VA_BITS) pair. */
bool vt_geometry_valid(unsigned int page_shift, unsigned int va_bits);

/* ---- strategies ---------------------------------------------------- */

struct vt_strategy;

#define VT_AXIS_VFREE_BULK	(1u << 0)
#define VT_AXIS_VFREE_PERPAGE	(1u << 1)
#define VT_AXIS_LINEAR_OLD	(1u << 2)
#define VT_AXIS_LINEAR_P1	(1u << 3)
#define VT_AXIS_LINEAR_P1P2	(1u << 4)
#define VT_AXIS_LINEAR_NEW	(1u << 5)
#define VT_AXES_VFREE (VT_AXIS_VFREE_BULK | VT_AXIS_VFREE_PERPAGE)
#define VT_AXES_LINEAR (VT_AXIS_LINEAR_OLD | VT_AXIS_LINEAR_P1 | \
			VT_AXIS_LINEAR_P1P2 | VT_AXIS_LINEAR_NEW)

/*
 * The axes a strategy whose name gives @axes replays with under @gen: one
 * of each group.  A group its name leaves empty takes the generation's:
 * vfree-bulk where its vfree() calls free_pages_bulk()
 * (vt_kernels[].vfree_bulk), else vfree-perpage; linear-old where the
 * generation predates Ryan Roberts' map_mem() series (vt_kernels[].linear_old:
 * 6.1), else linear-new (map_mem() as mainline has it since 0e9df1c905d8,
 * v6.10).
 */
uint32_t vt_axes_resolve(uint32_t axes, enum vt_kernel_gen gen);
/* The name of axis @bit ("vfree-bulk"), or NULL. */
const char *vt_axis_name(uint32_t bit);

struct vt_strategy_spec {
	const struct vt_strategy *strat;
	uint32_t patches;	/* batched: bit n set = Barry Song's patch n */
	bool force;		/* segments:force */
	uint32_t axes;		/* VT_AXIS_* given with '+' */
	char name[96];		/* as the user spelled it, lower case */
};

/* Parse one name of the grammar of interfaces.md 1.2.  Errors are
 * VT_ERR_NO_STRATEGY or VT_ERR_BAD_STRATEGY with the reason in @err. */
int vt_strategy_parse(const char *text, struct vt_strategy_spec *out,
		      struct vt_error *err);

struct vt_strategy_info {
	const char *name;
	const char *summary;
	const char *origin;	/* the patch or kernel code it models */
};
/* NULL-terminated list of built-in strategies and axes, for listings. */
const struct vt_strategy_info *vt_strategy_infos(void);

/* ---- replay -------------------------------------------------------- */

/* The final mapping of an area after an event, for --per-event. */
struct vt_shape {
	uint64_t pte;		/* valid leaf PTEs covering the area */
	uint64_t pte_cont;	/* of which with PTE_CONT */
	uint64_t pmd_block;
	uint64_t pud_block;
	/* a huge vmalloc that fell back to PAGE_SHIFT (the kernel's "fail:"
	 * retry in __vmalloc_node_range_noprof()) */
	bool huge_fallback;
};

struct vt_replay_cb {
	void *ctx;
	/* After each event and strategy (NULL: not wanted).  @op is the op
	 * name; an automatic purge triggered by the event is reported as a
	 * separate call with op "purge" and the same @index. */
	void (*event)(void *ctx, long index, unsigned int strat,
		      const char *op, const struct vt_event *ev, uint64_t va,
		      const struct vt_stats *delta, const struct vt_shape *shape);
	/* --verify found pages mapped wrong (a finding, not an error). */
	void (*mismap)(void *ctx, long index, unsigned int strat,
		       uint64_t first_va, uint64_t expected_pa,
		       uint64_t found_pa, uint64_t pages);
	/* Warnings about the input (unknown flag, ...): vt_trace_warnings(),
	 * one "FILE:LINE: ..." line each, every line ending in a newline. */
	void (*warn)(void *ctx, const char *msg);
	/* Every VT_PROGRESS_EVENTS events, and once with @done at the end. */
	void (*progress)(void *ctx, long events, bool done);
};
#define VT_PROGRESS_EVENTS 65536

struct vt_strategy_result {
	struct vt_stats total;
	struct vt_stats per_op[VT_OP__NR];
	bool op_seen[VT_OP__NR];
	uint64_t op_events[VT_OP__NR];	/* events per op (automatic purges included) */
};

struct vt_replay_result {
	long events;
	unsigned int nr;
	struct vt_strategy_result *s;	/* nr entries, caller frees with vt_replay_result_release() */
	struct vt_trace_config config;	/* the geometry used */
	char *meta;			/* the trace's "meta" object (compact JSON) */
};

struct vt_engine;
struct vt_profile;
struct vt_pool;

struct vt_replay_req {
	const char *path;
	const struct vt_strategy_spec *specs;
	unsigned int nr_specs;
	const struct vt_model_opts *opts;	/* geometry: the default a trace's config overrides */
	bool geometry_from_cli;			/* opts geometry overrides the trace's config */
	long stop_after;			/* ptdump --at: last event index, -1 = all */
	/* --jobs: the strategies' (strategy, batch) items go to this pool
	 * (core/pool.h); NULL or a pool of one thread: serial. */
	struct vt_pool *pool;
	/* The cost profile whose estimate (cycles, ns) fills each event's
	 * cost metrics; NULL: they stay 0. */
	const struct vt_profile *profile;
	/* Called once per strategy at the end, with the engine (ptdump). */
	int (*at_end)(void *ctx, unsigned int strat, struct vt_engine *e);
	void *at_end_ctx;
};

int vt_replay_run(const struct vt_replay_req *req, const struct vt_replay_cb *cb,
		  struct vt_replay_result *res, struct vt_error *err);
void vt_replay_result_release(struct vt_replay_result *res);

/* ---- page-table dump ----------------------------------------------- */

struct vt_ptdump_range {
	uint64_t va_start, va_end;
	uint64_t pa_start;
	int level;		/* hardware level 0..3 (-1 for 5-level top) */
	const char *lvl_name;	/* "PGD", "PUD", "PMD", "PTE" */
	const char *kind;	/* "block", "cont", "page" */
	uint64_t attrs;		/* descriptor bits other than the address */
	uint64_t nr;		/* descriptors in this range */
};

/* Walk @e's tables and report maximal ranges of like descriptors. */
int vt_engine_ptdump(struct vt_engine *e,
		     int (*fn)(void *ctx, const struct vt_ptdump_range *r),
		     void *ctx);

/* The kernel VA layout @e models (asm/memory.h, asm/pgtable.h of its
 * generation): the bounds ptdump_init() marks. */
struct vt_layout {
	uint64_t page_offset;	/* PAGE_OFFSET: the linear map */
	uint64_t page_end;	/* PAGE_END = MODULES_VADDR */
	uint64_t vmalloc_start;	/* MODULES_END = VMALLOC_START */
	uint64_t vmalloc_end;	/* VMALLOC_END */
};
void vt_engine_layout(const struct vt_engine *e, struct vt_layout *l);

#endif
