/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Seeded, reproducible trace generators ('vmaptool gen'): the dma-buf
 * system heap, the test cases of lib/test_vmalloc.c, and ioremap.
 *
 * A generator calls @emit once per event, in trace order; the event (and
 * its page runs) is valid only during the call.  Nothing here prints; a
 * generator returns 0 or a negative code with @err filled, and stops at
 * the first error @emit returns.
 */
#ifndef VT_GEN_H
#define VT_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "core/trace/trace.h"

typedef int (*vt_gen_emit_fn)(void *ctx, const struct vt_event *ev,
			      struct vt_error *err);

struct vt_gen_out {
	vt_gen_emit_fn emit;
	void *ctx;
	uint64_t seed;
	unsigned int page_shift;	/* 12, 14 or 16 */
	unsigned int va_bits;		/* of the trace's config; 0: 48 */
};

/* ---- the pseudo-random generator (splitmix64) ---------------------- */

struct vt_rng {
	uint64_t s;
};

void vt_rng_init(struct vt_rng *r, uint64_t seed);
uint64_t vt_rng_next(struct vt_rng *r);
/* Uniform in [0, n); 0 when n is 0. */
uint64_t vt_rng_below(struct vt_rng *r, uint64_t n);
/* Uniform in [0, 1). */
double vt_rng_double(struct vt_rng *r);

/* ---- systemheap ----------------------------------------------------- */

struct vt_gen_systemheap {
	const uint64_t *sizes;		/* buffer sizes in bytes, used in turn */
	unsigned int nr_sizes;
	unsigned long buffers;		/* buffers to allocate and vmap */
	unsigned long live;		/* at most this many vmapped at once */
	double frag;			/* P(an order-8 or order-4 attempt fails) */
	/* A /proc/buddyinfo snapshot (text) sets the free blocks; NULL:
	 * @mem_bytes of free memory starting at @base_pfn. */
	const char *buddyinfo;
	const char *buddyinfo_name;	/* for error messages */
	uint64_t mem_bytes;
	uint64_t base_pfn;		/* 0: 2 GiB (0x80000000) */
	bool no_page_array;		/* omit system_heap_do_vmap's array vmalloc */
	/* The orders alloc_largest_available() tries, strictly descending,
	 * ending in 0; NULL: the kernel's 8, 4, 0. */
	const unsigned int *orders;
	unsigned int nr_orders;
};

#define VT_GEN_MAX_HEAP_ORDERS 8

/*
 * vt_gen_systemheap() - dma-buf system-heap buffers, each vmapped and
 * later vunmapped.
 * @o: the workload
 * @out: where the events go, the seed and the granule
 * @err: filled on failure
 *
 * Return: 0; -EINVAL (bad option or buddyinfo text), VT_ERR_BAD_REQUEST
 * (the model's physical memory is exhausted), -ENOMEM, or what @emit
 * returned.
 */
int vt_gen_systemheap(const struct vt_gen_systemheap *o,
		      const struct vt_gen_out *out, struct vt_error *err);

/* ---- test_vmalloc --------------------------------------------------- */

/* Test cases of lib/test_vmalloc.c that vmaptool can express. */
#define VT_TV_TESTS(X)                          \
	X(fix_size_alloc_test)                  \
	X(full_fit_alloc_test)                  \
	X(long_busy_list_alloc_test)            \
	X(random_size_alloc_test)               \
	X(fix_align_alloc_test)                 \
	X(random_size_align_alloc_test)         \
	X(pcpu_alloc_test)                      \
	X(kvfree_rcu_1_arg_vmalloc_test)        \
	X(kvfree_rcu_2_arg_vmalloc_test)        \
	X(vm_map_ram_test)

#define VT_TV_ENUM(name) VT_TV_##name,
enum vt_tv_test { VT_TV_TESTS(VT_TV_ENUM) VT_TV__NR };
#undef VT_TV_ENUM
extern const char *const vt_tv_test_names[VT_TV__NR];
/* Returns the test for @name, or -1. */
int vt_tv_test_find(const char *name);

struct vt_gen_test_vmalloc {
	const enum vt_tv_test *tests;	/* run in this order */
	unsigned int nr_tests;
	unsigned long loops;		/* test_loop_count */
	unsigned long nr_pages;		/* nr_pages (0 = 1) */
	bool use_huge;			/* use_huge: vmalloc_huge() */
	unsigned int cpus;		/* num_online_cpus() for full_fit */
	unsigned long junk;		/* full_fit junk_length (0 = kernel's) */
	unsigned long busy;		/* long_busy_list's 15000 (0 = 15000) */
	unsigned long pcpu_objects;	/* nr_pcpu_objects (0 = 35000) */
};

/*
 * vt_gen_test_vmalloc() - the vmalloc/vfree and vm_map_ram/vm_unmap_ram
 * sequences of lib/test_vmalloc.c's test cases.
 *
 * Return: 0, -EINVAL, -ENOMEM or what @emit returned.
 */
int vt_gen_test_vmalloc(const struct vt_gen_test_vmalloc *o,
			const struct vt_gen_out *out, struct vt_error *err);

/* ---- ioremap -------------------------------------------------------- */

struct vt_gen_ioremap {
	const uint64_t *sizes;		/* bytes, used in turn */
	unsigned int nr_sizes;
	unsigned long count;		/* ioremaps */
	unsigned long live;		/* at most this many mapped at once */
	uint64_t phys_align;		/* 0: each size's largest power of two */
	uint64_t phys_base;		/* 0: 0x10000000 */
};

/* Return: 0, -EINVAL, VT_ERR_BAD_REQUEST (beyond the PA size), -ENOMEM or
 * what @emit returned. */
int vt_gen_ioremap(const struct vt_gen_ioremap *o,
		   const struct vt_gen_out *out, struct vt_error *err);

/* ---- map_mem -------------------------------------------------------- */

struct vt_gen_map_mem {
	const uint64_t *sizes;		/* memblock ranges (bytes), in order */
	unsigned int nr_sizes;
	uint64_t phys_base;		/* start of DRAM; 0: 2 GiB (0x80000000) */
	uint64_t hole;			/* bytes between ranges */
	bool blocks;			/* false: rodata=full, PTEs only */
};

/*
 * vt_gen_map_mem() - arch/arm64/mm/mmu.c map_mem() at boot: one
 * linear_map event per memblock range, with NO_EXEC_MAPPINGS and, unless
 * @blocks, NO_BLOCK_MAPPINGS | NO_CONT_MAPPINGS (rodata=full,
 * debug_pagealloc, KFENCE or a realm; the newest kernels without
 * BBML2_NOABORT).
 *
 * Return: 0, -EINVAL or what @emit returned.
 */
int vt_gen_map_mem(const struct vt_gen_map_mem *o, const struct vt_gen_out *out,
		   struct vt_error *err);

#endif
