// SPDX-License-Identifier: GPL-2.0
/*
 * The importer on shapes chosen to make it quadratic (issue 22, item 1):
 * doubling the recording may cost at most 2.5 times the work, counted by
 * the importer itself (im->probes: entries of its va tables visited and
 * window slots moved; deterministic for the fixed key the test sets, never
 * wall time).
 *
 * - va-collide: areas 1 GiB apart, all live, then freed.  The live-area
 *   table hashed the va's low bits only (va >> 12 times a constant, the
 *   low bits of the product), so they shared one chain.
 * - fifo-free: areas freed first in, first out (test_vmalloc's long busy
 *   list).  The window of events not yet written was memmoved each time
 *   its head was written: every free moved every later event.
 * - vm-unmap-ram: one-page vm_map_ram() mappings, two per vmap block,
 *   all live, then vm_unmap_ram() in order.  Each mapping scanned every
 *   vmap block for the one holding it and each unmap every live mapping.
 *
 * The recordings are ftrace text as tests/data/import/vmap.txt and
 * vm-map-ram.txt are, written here.  A random key is tried too, to check
 * the bound with the key a run gets.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/import/internal.h"
#include "test.h"

#define BASE 0xffff800080000000ull
#define RANGE "vstart=0xffff800080000000 vend=0xffffc1ffbf800000"
#define LINE "  vmalloc_test/0-300     [001] d....   %llu.%06llu: "

enum shape { VA_COLLIDE, FIFO_FREE, VM_UNMAP_RAM, NR_SHAPES };

static unsigned long long clk;

/* one record line, its timestamp one microsecond after the last */
static void __attribute__((format(printf, 2, 3))) rec(FILE *f, const char *fmt, ...)
{
	va_list ap;

	clk++;
	fprintf(f, LINE, 100 + clk / 1000000, clk % 1000000);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

static void vmap_area(FILE *f, uint64_t va)
{
	rec(f, "alloc_vmap_area: va_start: %llu size=8192 align=1 " RANGE " failed=0",
	    (unsigned long long)va);
	rec(f, "vmap_pages: (__vmap_pages_range_noflush+0x0/0x140) addr=0x%llx "
	    "end=0x%llx page_shift=12", (unsigned long long)va,
	    (unsigned long long)va + 4096);
}

static void free_area(FILE *f, uint64_t va)
{
	rec(f, "free_vmap_area_noflush: va_start=0x%llx nr_lazy=10 nr_lazy_max=16384",
	    (unsigned long long)va);
}

/* mapping @i of vm-unmap-ram: the second half of a 4 MiB block */
static uint64_t vmr_addr(unsigned int i)
{
	return BASE + ((uint64_t)(i / 2) << 22) + (uint64_t)(i % 2) * 4096;
}

static char *recording(enum shape s, unsigned int n, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		exit(TEST_FAIL);
	clk = 0;
	fprintf(f, "# tracer: function\n#\n#           TASK-PID     CPU#  |||||  "
		"TIMESTAMP  FUNCTION\n#              | |         |   |||||     |"
		"         |\n");
	for (unsigned int i = 0; i < n; i++) {
		uint64_t a;

		switch (s) {
		case VA_COLLIDE:
			vmap_area(f, BASE + ((uint64_t)i << 30));
			break;
		case FIFO_FREE:
			vmap_area(f, BASE + (uint64_t)i * 8192);
			break;
		case VM_UNMAP_RAM:
			a = vmr_addr(i);
			rec(f, "vm_map_ram <-vm_map_ram_test");
			/* new_vmap_block(): the block's area, at its first page */
			if (!(i % 2))
				rec(f, "alloc_vmap_area: va_start: %llu size=4194304 "
				    "align=4194304 " RANGE " failed=0", (unsigned long long)a);
			rec(f, "vmap_pages: (__vmap_pages_range_noflush+0x0/0x140) addr=0x%llx "
			    "end=0x%llx page_shift=12", (unsigned long long)a,
			    (unsigned long long)a + 4096);
			break;
		case NR_SHAPES:
			break;
		}
	}
	for (unsigned int i = 0; i < n; i++) {
		switch (s) {
		case VA_COLLIDE:
			free_area(f, BASE + ((uint64_t)(n - 1 - i) << 30));
			break;
		case FIFO_FREE:
			free_area(f, BASE + (uint64_t)i * 8192);
			break;
		case VM_UNMAP_RAM:
			rec(f, "vm_unmap_ram <-vm_map_ram_test");
			rec(f, "vunmap_range: (__vunmap_range_noflush+0x0/0x448) start=0x%llx "
			    "end=0x%llx", (unsigned long long)vmr_addr(i),
			    (unsigned long long)vmr_addr(i) + 4096);
			break;
		case NR_SHAPES:
			break;
		}
	}
	if (fclose(f))
		exit(TEST_FAIL);
	return buf;
}

/* The work of importing shape @s with @n areas, and its mappings found. */
static uint64_t run(enum shape s, unsigned int n, bool random_key, uint64_t *maps)
{
	struct vt_import *im;
	struct vt_error err;
	size_t len;
	char *text = recording(s, n, &len);
	uint64_t probes;

	vt_error_init(&err);
	if (vt_import_open_mem("complexity", text, len, NULL, &im, &err)) {
		fprintf(stderr, "open: %s\n", err.msg);
		exit(TEST_FAIL);
	}
	if (!random_key)
		im->hash_key = (struct vt_siphash_key){ { 0x0123456789abcdefull,
							  0xfedcba9876543210ull } };
	if (vt_import_run(im, &err) < 0) {
		fprintf(stderr, "run: %s\n", err.msg);
		exit(TEST_FAIL);
	}
	probes = im->probes;
	*maps = s == VM_UNMAP_RAM ? im->sum.vm_map_ram : vt_import_nr_events(im);
	vt_import_close(im);
	free(text);
	return probes;
}

int main(void)
{
	static const char *const names[] = { "va-collide", "fifo-free", "vm-unmap-ram" };

	for (int s = 0; s < NR_SHAPES; s++)
		for (int rk = 0; rk < 2; rk++) {
			unsigned int n = 8192;
			uint64_t ma, mb;
			uint64_t a = run(s, n, rk, &ma), b = run(s, 2 * n, rk, &mb);
			double ratio = (double)b / (double)(a ? a : 1);

			printf("%s%s: %u areas %llu steps, %u areas %llu steps: x%.2f\n",
			       names[s], rk ? " (random key)" : "", n,
			       (unsigned long long)a, 2 * n, (unsigned long long)b, ratio);
			/* the shape is what it claims: every mapping found */
			TEST_ASSERT_EQ("mappings of n", ma, s == VM_UNMAP_RAM ? n : 2 * n);
			TEST_ASSERT_EQ("mappings of 2n", mb, s == VM_UNMAP_RAM ? 2 * n : 4 * n);
			TEST_ASSERT_VAL("doubling the recording costs more than 2.5 times the work",
					ratio <= 2.5);
		}
	return test_result("test-complexity-import");
}
