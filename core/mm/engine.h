/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interface between the generic engine (core/mm/, models
 * mm/vmalloc.c) and the strategies (core/strategy/, one per file).
 */
#ifndef VT_ENGINE_H
#define VT_ENGINE_H

#include "arch/arch.h"
#include "core/mm/page_alloc.h"
#include "core/mm/va_free.h"
#include "core/mm/walk.h"
#include "core/model.h"
#include "core/siphash.h"

struct vt_area {
	struct vt_id id;		/* str owned by the area */
	enum vt_op op;
	uint64_t va_start, va_end;	/* the vmap_area, guard included */
	uint64_t size;			/* get_vm_area_size(): mapped bytes */
	uint64_t nr_pages;
	unsigned int page_shift;	/* vm->page_order + PAGE_SHIFT */
	bool huge_fallback;		/* vmalloc: the huge shift failed, "fail:" retried at PAGE_SHIFT */
	bool modules;			/* VA from MODULES_VADDR..MODULES_END */
	uint32_t flags;
	uint32_t prot;
	uint64_t phys;			/* ioremap */
	struct vt_page_run *runs;	/* the pages asked for (verify, vfree) */
	uint32_t nr_runs;
	uint64_t runs_cap;		/* runs' room: a vmalloc's, kept in the pool */
	struct vt_area *nested;		/* vmalloc'd page-pointer array */
	struct vt_vmap_block *vb;	/* vm_map_ram from a vmap block */
	uint64_t bad;			/* --verify: pages found wrong */
	struct vt_area *hnext;		/* id hash chain; the pool's list */
};

struct vt_vrange {
	uint64_t start, end;
};

/*
 * --verify: the live areas by VA (core/mm/verify.c), a treap over one
 * array of nodes keyed by (va_start, area) whose nodes carry the largest
 * va_start + size below them, so the areas a written range overlaps are
 * found in O(log n + found) rather than by a scan of every live area.
 */
struct vt_vbusy_node {
	struct vt_area *a;
	uint64_t start, end, max;	/* [va_start, va_start + size); max end below */
	uint32_t l, r, prio;		/* children (0: none); heap priority */
};

struct vt_vbusy {
	struct vt_vbusy_node *n;	/* n[0] unused: index 0 is "none" */
	uint32_t root, spare, used, cap;	/* spare: freed nodes, through .l */
	uint32_t seed;
	uint64_t steps;		/* nodes visited: the complexity tests count them */
};

/* A per-CPU vmap block of vm_map_ram (mm/vmalloc.c struct vmap_block). */
struct vt_vmap_block {
	uint64_t va_start;
	uint64_t free, dirty, dirty_min, dirty_max;
	bool on_free_list;
	struct vt_vmap_block *next;
};

/*
 * One linear_map event as the leader of a shared linear map built it
 * (core/mm/linear.c): what its followers take instead of building their own.
 */
struct vt_linear_rec {
	long index;			/* the event's; -1: none recorded */
	int ret;			/* arm64___create_pgd_mapping()'s */
	struct arm64_counters c;	/* what it counted */
	int64_t units, units_peak;	/* mm.lin_tlb_units and its peak after it */
	uint64_t bad, first;		/* --verify: pages found wrong, the first */
};

struct vt_engine {
	struct vt_strategy_spec spec;
	struct vt_model_opts o;
	struct arm64_mm mm;
	uint64_t prot_kernel, prot_device;
	/* counters of the current event, and of an automatic purge in it:
	 * the arch model counts into aev/apg (mm.st), the generic code into
	 * ev/pg (w.st); vt_engine_apply() folds the first into the second */
	struct vt_stats ev, pg;
	struct arm64_counters aev, apg;
	/* the page-table walkers' context: &mm, &pages, w.st, err */
	struct vt_walk w;
	/* VA space: the free ranges (core/mm/va_free.h) of the vmalloc area
	 * and, in a tree of their own, of the module area below it
	 * (vmap_area.c va_tree()); lazily freed areas */
	struct vt_va_free free, free_modules;
	struct vt_vrange *lazy;
	uint64_t nr_lazy, cap_lazy;
	uint64_t vmap_lazy_nr, lazy_max_pages;
	bool purged_in_event;
	/* live areas by id: a chained table keyed per engine (id_hash()) */
	struct vt_area **hash;
	uint64_t hash_size, nr_areas;
	struct vt_siphash_key hash_key;
	uint64_t hash_probes;		/* chain steps: the complexity tests count them */
	/* freed areas for the next ones (area_new()): no allocation per
	 * event once the live set has peaked */
	struct vt_area *area_pool;
	/* an automatic purge counted into apg this event (fold_arch_counters()) */
	bool apg_used;
	/* --verify: the written areas of an event, sorted by VA; the live
	 * areas by VA */
	struct vt_area **vsort;
	uint64_t vsort_cap;
	struct vt_vbusy vbusy;
	/* vm_map_ram's vmap blocks (one CPU modelled) */
	struct vt_vmap_block *blocks;	/* oldest first, as vbq->free */
	struct vt_vmap_block **blocks_tail;
	uint64_t vmap_bbmap_bits;
	/* the page array of the current map */
	struct vt_pages pages;
	/* the page allocator behind vmalloc and vfree (core/mm/page_alloc.c);
	 * whether vfree() releases with free_pages_bulk() (vt_vfree_pages()) */
	struct vt_page_alloc pa;
	bool vfree_bulk;
	/* linear_map: memstart_addr, set by the first event (map_mem() maps
	 * memblock in ascending order) */
	uint64_t memstart;
	uint64_t lin_peak_seen;	/* linear_tlb_entries accounted so far */
	int64_t lin_units_seen;	/* the mm.lin_tlb_units_peak they are of */
	bool memstart_set;
	/* a linear map shared with other strategies (core/replay.c sets these,
	 * core/mm/linear.c uses them): the leader records each linear_map
	 * event in *lin_rec; a follower (lin_leader set) builds no linear-map
	 * tables and takes the event's counts from *lin_rec */
	struct vt_engine *lin_leader;
	struct vt_linear_rec *lin_rec;
	/* --verify */
	struct vt_written written;	/* by the walks of the current event */
	uint64_t mismapped;
	const struct vt_replay_cb *cb;
	long cur_index;
	/* --use-trace-va: the event whose area __get_vm_area_node() places next
	 * (consumed by it; NULL for areas the kernel makes itself) */
	const struct vt_event *place_ev;
	unsigned int strat_idx;
	struct vt_error *err;
};

/*
 * A strategy: one file under core/strategy/ plus one line of the registry
 * (core/strategy/registry.h).  Everything that differs between strategies
 * is a field or a hook here; no code outside a strategy's file names it.
 */
struct vt_strategy_alias {
	const char *name;
	const char *origin;	/* what the alias stands for */
};

struct vt_strategy {
	const char *name;
	const char *summary;
	const char *origin;
	bool in_default;	/* in the default --strategy list */
	bool huge_vmalloc;	/* false: as if booted with nohugevmalloc */
	/* other names of the strategy ("mainline"), NULL-terminated */
	const struct vt_strategy_alias *aliases;
	/* The modifier the name takes after '@' or ':' ("@patches",
	 * ":force"), NULL for none; modifier() parses the text after the
	 * '@' or ':' (@kind) of @text into @out, or fails with @err. */
	const char *modifier_help;
	int (*modifier)(const char *text, char kind, const char *arg,
			struct vt_strategy_spec *out, struct vt_error *err);
	/* compare --ablation: the cumulative patch sets the bare name
	 * expands to, comma-separated in dependency order; NULL: none */
	const char *ablation;
	/* the spec of the bare name (e.g. every patch of a series) */
	void (*spec_default)(struct vt_strategy_spec *out);
	/* options of the arch model the strategy changes (arch patches) */
	void (*mm_opts)(const struct vt_strategy_spec *spec,
			struct arm64_mm_opts *o);
	/* vmap(): VA placement and mapping of a page array */
	int (*vmap)(struct vt_engine *e, struct vt_area *a);
	/* __vmap_pages_range_noflush() for vmalloc's pages at page_shift */
	int (*vmap_pages_range)(struct vt_engine *e, uint64_t addr, uint64_t end,
				uint64_t idx, unsigned int page_shift);
};

/* The registry: NULL-terminated, in listing order. */
extern const struct vt_strategy *const vt_strategies[];

/* ---- mm/vmalloc.c models shared by the strategies (core/mm/) ---- */

/* mainline __vmap_pages_range_noflush(): one walk per 2^page_shift chunk */
int vt___vmap_pages_range_noflush(struct vt_engine *e, uint64_t addr, uint64_t end,
				  uint64_t idx, unsigned int page_shift);
/* get_vm_area_caller()-style VA allocation for @a (size without guard) */
int vt___get_vm_area_node(struct vt_engine *e, struct vt_area *a, uint64_t size,
		   uint64_t align, unsigned int shift);
/* mainline vmap() mapping: one page-array walk at PAGE_SHIFT */
int vt_vmap_mainline(struct vt_engine *e, struct vt_area *a);

/* ---- the linear map, shared by strategies that build the same (core/mm/linear.c) ---- */
/* The version of mmu.c the strategy's linear axis names. */
enum arm64_linear_variant vt_linear_variant(const struct vt_engine *e);
/* Whether @a and @b build the same linear map, whatever their vmalloc sides do. */
bool vt_linear_same(const struct vt_engine *a, const struct vt_engine *b);
/* The tables that hold @e's linear map: its leader's if it follows one. */
struct arm64_mm *vt_linear_mm(struct vt_engine *e);
/* A linear_map event: map_mem()'s __map_memblock() of @ev on @e's own
 * tables, or its leader's record of it (*va: the range's linear address). */
int vt_map_mem(struct vt_engine *e, const struct vt_event *ev, uint64_t *va);

/* ---- one engine per strategy (core/mm/vmalloc.c), driven by core/replay.c ---- */
int vt_engine_new(const struct vt_strategy_spec *spec,
		  const struct vt_model_opts *o, struct vt_engine **out);
void vt_engine_free(struct vt_engine *e);
int vt_engine_apply(struct vt_engine *e, long index, const struct vt_event *ev,
		    uint64_t *va, struct vt_error *err);
int vt_engine_finish(struct vt_engine *e, struct vt_error *err);
int vt_engine_shape(struct vt_engine *e, const struct vt_event *ev,
		    struct vt_shape *s);

#endif
