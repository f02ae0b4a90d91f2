// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptool import on the real recordings of tests/data/recordings (Debian
 * arm64 6.12, lib/test_vmalloc), on a trimmed real recording of Debian's
 * 6.1 (tests/data/import/v6.1-kprobes.txt) and on small hand-written
 * recordings in ftrace's text format (tests/data/import/).  The expected counts were
 * read off the "trace-cmd report" text and the ftrace text by hand.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>
#include <unistd.h>

#include "core/import/dat-check.h"
#include "core/import/import.h"
#include "test.h"

/* libtraceevent keeps a few format strings for the process lifetime */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\nleak:libtracecmd.so\n";
}

static const char *src;

static struct vt_import *import(const char *dir, const char *file,
				const struct vt_import_opts *o, int *rc)
{
	struct vt_import *im = NULL;
	struct vt_error err;
	char path[1024];

	vt_error_init(&err);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	*rc = vt_import_open(path, o, &im, &err);
	if (*rc) {
		fprintf(stderr, "%s: %s\n", path, err.msg);
		return NULL;
	}
	*rc = vt_import_run(im, &err);
	if (*rc < 0) {
		fprintf(stderr, "%s: %s\n", path, err.msg);
		vt_import_close(im);
		return NULL;
	}
	return im;
}

static uint64_t run_pages(const struct vt_event *ev)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < ev->nr_runs; i++)
		n += ev->runs[i].count << ev->runs[i].order;
	return n;
}

/*
 * fix_size_alloc_test nr_pages=256 x10, module load and unload around it:
 * 17 alloc_vmap_area (kernel_read_file's 90-page buffer, 5 execmem areas
 * in the module range, 1 fork stack, 10 x 1 MiB), 17 frees, 13 purges
 * from _vm_unmap_aliases (set_memory_* at load, vm_reset_perms at unload:
 * each after the free_vmap_area_noflush() of the execmem area its vfree
 * removes).  The execmem areas are kept, in the module area.
 */
static void check_fix256(struct vt_import *im, bool dat)
{
	const struct vt_import_summary *s = vt_import_summary(im);
	const struct vt_event *ev;
	size_t i;
	int loops = 0;

	TEST_ASSERT_EQ("records", s->records, 5568);
	TEST_ASSERT_EQ("alloc_vmap_area", s->alloc_vmap_area, 17);
	TEST_ASSERT_EQ("free_vmap_area", s->free_vmap_area, 17);
	TEST_ASSERT_EQ("page frees", s->page_free, 2711);
	TEST_ASSERT_EQ("page allocs", s->page_alloc, 36);
	TEST_ASSERT_EQ("module-range areas", s->other_range, 5);
	TEST_ASSERT_EQ("module-range areas kept", s->other_range_dropped, 0);
	TEST_ASSERT_EQ("nested", s->nested_dropped, 0);
	TEST_ASSERT_EQ("events", vt_import_nr_events(im), 47);
	TEST_ASSERT_EQ("vmalloc", s->out_by_op[VT_OP_VMALLOC], 17);
	TEST_ASSERT_EQ("vfree", s->out_by_op[VT_OP_VFREE], 17);
	TEST_ASSERT_EQ("vmallocs recorded", s->mappings_recorded[VT_IMK_VMALLOC], 12);
	TEST_ASSERT_EQ("vmallocs reproduced", s->mappings_reproduced[VT_IMK_VMALLOC], 12);
	TEST_ASSERT_EQ("module vmallocs recorded", s->mappings_recorded[VT_IMK_MODULES], 5);
	TEST_ASSERT_EQ("module vmallocs reproduced", s->mappings_reproduced[VT_IMK_MODULES], 5);
	/* 90 + 5 module areas (2+1+1+1+2) + 4 + 10 x 256 pages */
	TEST_ASSERT_EQ("walker pages", s->walker_pages, 90 + 7 + 4 + 2560);
	TEST_ASSERT_EQ("walker PMD blocks", s->walker_pmd_blocks, 0);
	TEST_ASSERT_EQ("purge", s->out_by_op[VT_OP_PURGE], 13);
	TEST_ASSERT_EQ("explicit purges", s->purges_explicit, 13);
	TEST_ASSERT_EQ("pages from vfree", s->pages_from_free, 17);
	TEST_ASSERT_EQ("no-page vmallocs", s->vmalloc_no_pages, 0);
	TEST_ASSERT_EQ("still mapped", s->still_mapped, 0);
	TEST_ASSERT_EQ("va_bits", vt_import_config(im)->va_bits, 52);
	TEST_ASSERT_EQ("bad lines", s->bad_lines, 0);

	/* kernel_read_file's buffer of the module: 90 pages */
	ev = vt_import_event(im, 0);
	TEST_ASSERT_VAL("first is vmalloc", ev && ev->op == VT_OP_VMALLOC);
	if (ev) {
		TEST_ASSERT_EQ("first size", ev->size, 90 * 4096);
		TEST_ASSERT_EQ("first pages", run_pages(ev), 90);
		TEST_ASSERT_EQ("first va", ev->va, 0xffff800083286000ULL);
		TEST_ASSERT_EQ("first pfn", ev->runs[0].pfn, 0x49402);
	}
	/* execmem_alloc() of the module's sections, in the module area */
	for (i = 1; i <= 5; i++) {
		ev = vt_import_event(im, i);
		TEST_ASSERT_VAL("module vmalloc", ev && ev->op == VT_OP_VMALLOC &&
				ev->range == VT_RANGE_MODULES &&
				ev->va >= 0xffff80007ab30000ULL &&
				ev->va < 0xffff800080000000ULL);
	}
	for (i = 6; i <= 13; i++) {
		ev = vt_import_event(im, i);
		TEST_ASSERT_VAL("load purges", ev && ev->op == VT_OP_PURGE);
	}
	ev = vt_import_event(im, 14);
	TEST_ASSERT_VAL("vfree of the module file",
			ev && ev->op == VT_OP_VFREE && ev->id.num == 1);
	ev = vt_import_event(im, 15);
	TEST_ASSERT_VAL("fork stack", ev && ev->op == VT_OP_VMALLOC &&
			ev->size == 16384 && ev->align == 32768);
	if (dat && ev)
		TEST_ASSERT_VAL("fork caller", ev->caller &&
				!strcmp(ev->caller, "copy_process"));
	/* the test: 10 x (vmalloc 1 MiB, vfree), in order */
	for (i = 16; i + 1 < 36; i += 2) {
		const struct vt_event *a = vt_import_event(im, i);
		const struct vt_event *f = vt_import_event(im, i + 1);

		if (!a || !f)
			break;
		TEST_ASSERT_VAL("test vmalloc", a->op == VT_OP_VMALLOC);
		TEST_ASSERT_EQ("test size", a->size, 1 << 20);
		TEST_ASSERT_EQ("test pages", a->nr_pages, 256);
		TEST_ASSERT_EQ("test run pages", run_pages(a), 256);
		TEST_ASSERT_EQ("no huge flag", a->flags, 0);
		TEST_ASSERT_VAL("test vfree", f->op == VT_OP_VFREE &&
				f->id.num == a->id.num && f->va == a->va);
		TEST_ASSERT_VAL("vfree after vmalloc", f->t > a->t);
		loops++;
	}
	TEST_ASSERT_EQ("loops", loops, 10);
	ev = vt_import_event(im, 36);
	TEST_ASSERT_VAL("fork stack freed by a kworker",
			ev && ev->op == VT_OP_VFREE && ev->id.num == 7);
	/* unload: vfree of an execmem area, then its vm_reset_perms() purge */
	for (i = 37; i < 47; i += 2) {
		ev = vt_import_event(im, i);
		TEST_ASSERT_VAL("unload vfree", ev && ev->op == VT_OP_VFREE &&
				ev->id.num >= 2 && ev->id.num <= 6);
		ev = vt_import_event(im, i + 1);
		TEST_ASSERT_VAL("unload purges", ev && ev->op == VT_OP_PURGE);
	}
}

static void test_fix256(void)
{
	struct vt_import *dat, *txt;
	size_t i;
	int rc;

	dat = import(src, "tests/data/recordings/fix256_x10.trace.dat", NULL, &rc);
	TEST_ASSERT_VAL("import trace.dat", dat);
	if (dat) {
		TEST_ASSERT_EQ("dat format", vt_import_summary(dat)->format,
			       VT_IMPORT_FMT_DAT);
		check_fix256(dat, true);
	}
	txt = import(src, "tests/data/recordings/fix256_x10.trace-cmd-report.txt.xz",
		     NULL, &rc);
	TEST_ASSERT_VAL("import report text", txt);
	if (txt) {
		TEST_ASSERT_EQ("xz format", vt_import_summary(txt)->format,
			       VT_IMPORT_FMT_TEXT_XZ);
		check_fix256(txt, false);
	}
	/*
	 * The binary and its report text give the same events.  Except
	 * one page: during the module-file vfree (event 0) a free_pages()
	 * call from another path frees pfn 0x49409 inside vfree's loop;
	 * twelve softirq frees interleave too.  The .dat's irq flags and
	 * the function tracer's parent_ip tell them apart; the report text
	 * (no parents, no irq flags) cannot, so its page lists differ;
	 * ops, addresses, sizes and page counts must agree.
	 */
	if (dat && txt) {
		const struct vt_event *a = vt_import_event(dat, 0);
		const struct vt_event *b = vt_import_event(txt, 0);

		TEST_ASSERT_VAL("dat skips the foreign free",
				a->runs[0].pfn == 0x49402 &&
				a->runs[a->nr_runs - 1].pfn != 0x49409);
		TEST_ASSERT_EQ("text has the same count", b->nr_pages, 90);
	}
	for (i = 0; dat && txt && i < vt_import_nr_events(dat); i++) {
		const struct vt_event *x = vt_import_event(dat, i);
		const struct vt_event *y = vt_import_event(txt, i);

		if (!y)
			break;
		TEST_ASSERT_VAL("same op", x->op == y->op && x->va == y->va &&
				x->size == y->size &&
				x->nr_pages == y->nr_pages);
		/* the report rounds to microseconds */
		TEST_ASSERT_EQ("same us", (x->t + 500) / 1000, y->t / 1000);
	}
	vt_import_close(dat);
	vt_import_close(txt);
}

/*
 * fix_size_alloc_test nr_pages=1 x1000 (ftrace text with the function
 * tracer): 1000 vmalloc(4 KiB)+vfree, the module's file buffer, two fork
 * stacks (never freed in the recording), 13 explicit purges.
 */
static void test_fix1(void)
{
	const struct vt_import_summary *s;
	struct vt_import *im;
	size_t i;
	int rc, pairs = 0;

	im = import(src, "tests/data/recordings/fix1.trace.txt.xz", NULL, &rc);
	TEST_ASSERT_VAL("import fix1", im);
	if (!im)
		return;
	s = vt_import_summary(im);
	TEST_ASSERT_EQ("lines", s->lines, 28848);
	TEST_ASSERT_EQ("alloc_vmap_area", s->alloc_vmap_area, 1008);
	TEST_ASSERT_EQ("free_vmap_area", s->free_vmap_area, 1006);
	TEST_ASSERT_EQ("other range", s->other_range, 5);
	TEST_ASSERT_EQ("other range kept", s->other_range_dropped, 0);
	TEST_ASSERT_EQ("vmalloc", s->out_by_op[VT_OP_VMALLOC], 1008);
	TEST_ASSERT_EQ("vfree", s->out_by_op[VT_OP_VFREE], 1006);
	TEST_ASSERT_EQ("module vmallocs reproduced",
		       s->mappings_reproduced[VT_IMK_MODULES], 5);
	TEST_ASSERT_EQ("purge", s->out_by_op[VT_OP_PURGE], 13);
	TEST_ASSERT_EQ("still mapped", s->still_mapped, 2);
	TEST_ASSERT_EQ("no pages (2 stacks, 1 execmem area)", s->vmalloc_no_pages, 3);
	TEST_ASSERT_EQ("va_bits", s->va_bits, 52);
	TEST_ASSERT_EQ("unknown (markers)", s->unknown_events, 2);
	TEST_ASSERT_VAL("warned", strstr(vt_import_warnings(im),
					 "3 vmalloc(s) emitted without pages"));
	for (i = 0; i + 1 < vt_import_nr_events(im); i++) {
		const struct vt_event *a = vt_import_event(im, i);
		const struct vt_event *f = vt_import_event(im, i + 1);

		if (a->op != VT_OP_VMALLOC || !a->caller ||
		    strcmp(a->caller, "vmalloc_noprof") || a->size != 4096)
			continue;
		TEST_ASSERT_VAL("followed by its vfree",
				f->op == VT_OP_VFREE && f->id.num == a->id.num);
		TEST_ASSERT_EQ("one page", run_pages(a), 1);
		pairs++;
	}
	TEST_ASSERT_EQ("test pairs", pairs, 1000);
	vt_import_close(im);
}

static void test_huge_nested(void)
{
	const struct vt_import_summary *s;
	const struct vt_event *ev;
	struct vt_import *im;
	int rc;

	im = import(src, "tests/data/import/vmalloc-huge-nested.txt", NULL,
		    &rc);
	TEST_ASSERT_VAL("import huge", im);
	if (!im)
		return;
	s = vt_import_summary(im);
	TEST_ASSERT_EQ("nested dropped", s->nested_dropped, 1);
	TEST_ASSERT_EQ("nested free dropped", s->nested_frees_dropped, 1);
	TEST_ASSERT_EQ("events", vt_import_nr_events(im), 2);
	TEST_ASSERT_EQ("huge areas", s->huge_areas, 1);
	ev = vt_import_event(im, 0);
	TEST_ASSERT_VAL("vmalloc", ev && ev->op == VT_OP_VMALLOC);
	if (ev) {
		TEST_ASSERT_EQ("size", ev->size, 4 << 20);
		TEST_ASSERT_VAL("VM_ALLOW_HUGE_VMAP",
				ev->flags & VT_FLAG(VM_ALLOW_HUGE_VMAP));
		TEST_ASSERT_EQ("runs", ev->nr_runs, 2);
		TEST_ASSERT_EQ("chunk 0", ev->runs[0].pfn, 0x60000);
		TEST_ASSERT_EQ("chunk 0 pages", ev->runs[0].count, 512);
		TEST_ASSERT_EQ("chunk 1", ev->runs[1].pfn, 0x60400);
		TEST_ASSERT_VAL("caller", ev->caller &&
				!strcmp(ev->caller, "vmalloc_huge_noprof"));
		TEST_ASSERT_EQ("va", ev->va, 0xffff800084000000ULL);
	}
	ev = vt_import_event(im, 1);
	TEST_ASSERT_VAL("vfree", ev && ev->op == VT_OP_VFREE &&
			ev->id.num == 1);
	TEST_ASSERT_VAL("warned", strstr(vt_import_warnings(im), "nested"));
	TEST_ASSERT_EQ("nested recorded", s->mappings_recorded[VT_IMK_NESTED], 1);
	TEST_ASSERT_EQ("nested reproduced by the engine",
		       s->mappings_reproduced[VT_IMK_NESTED], 1);
	vt_import_close(im);
}

/*
 * vmalloc_huge(2 MiB - 4 KiB): alloc_vmap_area records the area rounded
 * to the CONT shift the kernel chose from the caller's size (2 MiB plus
 * the guard page); the kp/vmalloc_node kprobe's size is the caller's, and
 * the import keeps it, so the replay chooses CONT_PTE_SHIFT as well.
 */
static void test_huge_caller_size(void)
{
	const struct vt_event *ev;
	struct vt_import *im;
	int rc;

	im = import(src, "tests/data/import/vmalloc-huge-cont-size.txt", NULL,
		    &rc);
	TEST_ASSERT_VAL("import huge cont", im);
	if (!im)
		return;
	TEST_ASSERT_EQ("events", vt_import_nr_events(im), 2);
	ev = vt_import_event(im, 0);
	TEST_ASSERT_VAL("vmalloc", ev && ev->op == VT_OP_VMALLOC);
	if (ev) {
		TEST_ASSERT_EQ("the caller's size", ev->size, (2 << 20) - 4096);
		TEST_ASSERT_VAL("VM_ALLOW_HUGE_VMAP",
				ev->flags & VT_FLAG(VM_ALLOW_HUGE_VMAP));
		TEST_ASSERT_EQ("pages", run_pages(ev), 512);
	}
	vt_import_close(im);
}

/*
 * Debian 12's 6.1.0-57 (6.1.192) under tools/realkernel, trimmed to 16 of
 * the validation trace's operations: no vmalloc:* tracepoints (6.2), the
 * kprobes kp/alloc_va, kp/alloc_va_ret, kp/free_va and kp/purge_ret in
 * their place.  The vfree's pages come from 6.1's loop in __vunmap();
 * the purges' callers from the kretprobe (the function tracer's parent is
 * "[unknown/kretprobe'd]"): 2 explicit ones from _vm_unmap_aliases.part.0,
 * the drain worker's after the 1 GiB iounmap not emitted.
 */
static void test_v61_kprobes(void)
{
	static const enum vt_op want[] = {
		VT_OP_VMALLOC, VT_OP_VFREE, VT_OP_PURGE, VT_OP_VMALLOC, VT_OP_VFREE,
		VT_OP_VMAP, VT_OP_VUNMAP, VT_OP_VM_MAP_RAM, VT_OP_VM_UNMAP_RAM,
		VT_OP_VM_MAP_RAM, VT_OP_VM_UNMAP_RAM, VT_OP_IOREMAP, VT_OP_IOUNMAP,
		VT_OP_IOREMAP, VT_OP_IOUNMAP, VT_OP_PURGE,
	};
	const struct vt_import_summary *s;
	const struct vt_event *ev;
	struct vt_import *im;
	size_t i;
	int rc;

	im = import(src, "tests/data/import/v6.1-kprobes.txt", NULL, &rc);
	TEST_ASSERT_VAL("import 6.1", im);
	if (!im)
		return;
	s = vt_import_summary(im);
	TEST_ASSERT_EQ("alloc_vmap_area from kprobes", s->alloc_vmap_area, 6);
	TEST_ASSERT_EQ("free_vmap_area from kprobes", s->free_vmap_area, 6);
	TEST_ASSERT_EQ("explicit purges", s->purges_explicit, 2);
	TEST_ASSERT_EQ("drain purges", s->purges_lazy, 1);
	TEST_ASSERT_EQ("unmatched frees", s->unmatched_frees, 0);
	TEST_ASSERT_EQ("unpaired", s->alloc_va_unpaired, 0);
	TEST_ASSERT_EQ("va_bits", s->va_bits, 48);
	TEST_ASSERT_EQ("events", vt_import_nr_events(im), sizeof(want) / sizeof(want[0]));
	for (i = 0; i < vt_import_nr_events(im) && i < sizeof(want) / sizeof(want[0]); i++) {
		ev = vt_import_event(im, i);
		TEST_ASSERT_EQ("op", ev->op, want[i]);
	}
	ev = vt_import_event(im, 0);
	if (ev) {
		TEST_ASSERT_EQ("vmalloc va", ev->va, 0xffff80000a035000ull);
		TEST_ASSERT_EQ("vmalloc size", ev->size, 8192);
		TEST_ASSERT_EQ("pages from __vunmap()'s frees", run_pages(ev), 2);
		TEST_ASSERT_EQ("first pfn", ev->nr_runs ? ev->runs[0].pfn : 0, 0x447c4);
	}
	ev = vt_import_event(im, 3);
	if (ev) {
		TEST_ASSERT_EQ("huge va", ev->va, 0xffff80000a800000ull);
		TEST_ASSERT_VAL("VM_ALLOW_HUGE_VMAP", ev->flags & VT_FLAG(VM_ALLOW_HUGE_VMAP));
		TEST_ASSERT_EQ("huge pages", run_pages(ev), 512);
	}
	ev = vt_import_event(im, 13);
	if (ev) {
		TEST_ASSERT_EQ("1 GiB ioremap", ev->size, 1ull << 30);
		TEST_ASSERT_EQ("phys", ev->phys, 0x8000000000ull);
	}
	vt_import_close(im);
}

/* An ERR_PTR return (a failed allocation: va_start unread, garbage) and
 * a return whose entry the recording does not hold. */
static void test_v61_kprobes_failed(void)
{
	const struct vt_import_summary *s;
	struct vt_import *im;
	int rc;

	im = import(src, "tests/data/import/v6.1-kprobes-failed.txt", NULL, &rc);
	TEST_ASSERT_VAL("import 6.1 failed", im);
	if (!im)
		return;
	s = vt_import_summary(im);
	TEST_ASSERT_EQ("failed", s->alloc_failed, 1);
	TEST_ASSERT_EQ("unpaired return", s->alloc_va_unpaired, 1);
	TEST_ASSERT_EQ("areas", s->areas, 1);
	TEST_ASSERT_EQ("drain purge", s->purges_lazy, 1);
	TEST_ASSERT_EQ("events", vt_import_nr_events(im), 2);
	vt_import_close(im);
}

/* The tracepoints and the kprobes that stand in for them, both recorded
 * (the kprobe_events of docs/recording.md on a 6.2+ kernel): the
 * tracepoints say it, each area and purge is imported once. */
static void test_kprobes_and_tracepoints(void)
{
	const struct vt_import_summary *s;
	struct vt_import *im;
	int rc;

	im = import(src, "tests/data/import/kprobes-and-tracepoints.txt", NULL, &rc);
	TEST_ASSERT_VAL("import both", im);
	if (!im)
		return;
	s = vt_import_summary(im);
	TEST_ASSERT_EQ("alloc_vmap_area once", s->alloc_vmap_area, 1);
	TEST_ASSERT_EQ("free once", s->free_vmap_area, 1);
	TEST_ASSERT_EQ("unmatched frees", s->unmatched_frees, 0);
	TEST_ASSERT_EQ("explicit purge once", s->purges_explicit, 1);
	TEST_ASSERT_EQ("unpaired", s->alloc_va_unpaired, 0);
	TEST_ASSERT_EQ("events", vt_import_nr_events(im), 3);
	vt_import_close(im);
}

static void test_vmap(void)
{
	const struct vt_import_summary *s;
	const struct vt_event *ev;
	struct vt_import *im;
	int rc;

	im = import(src, "tests/data/import/vmap.txt", NULL, &rc);
	TEST_ASSERT_VAL("import vmap", im);
	if (!im)
		return;
	s = vt_import_summary(im);
	/* the vmap's caller pages are not recorded: synthesised, never
	 * adjacent, so the page-array walk is the recorded one */
	TEST_ASSERT_EQ("vmap pages synthesised", s->pages_synthesised, 1);
	TEST_ASSERT_EQ("events", vt_import_nr_events(im), 4);
	TEST_ASSERT_VAL("warned", strstr(vt_import_warnings(im),
					 "1 vmap/vm_map_ram page list(s) synthesised"));
	ev = vt_import_event(im, 0);
	TEST_ASSERT_VAL("vmap", ev && ev->op == VT_OP_VMAP && ev->nr_pages == 4 &&
			ev->nr_runs == 4 && ev->va == 0xffff800083100000ULL);
	if (ev && ev->nr_runs == 4)
		for (uint32_t i = 1; i < 4; i++)
			TEST_ASSERT_VAL("not adjacent",
					ev->runs[i].pfn > ev->runs[i - 1].pfn + 1);
	ev = vt_import_event(im, 1);
	TEST_ASSERT_VAL("vunmap", ev && ev->op == VT_OP_VUNMAP);
	TEST_ASSERT_EQ("vmap recorded", s->mappings_recorded[VT_IMK_VMAP], 1);
	TEST_ASSERT_EQ("vmap reproduced", s->mappings_reproduced[VT_IMK_VMAP], 1);
	ev = vt_import_event(im, 2);
	TEST_ASSERT_VAL("vmalloc", ev && ev->op == VT_OP_VMALLOC &&
			ev->size == 8192 && ev->nr_runs == 2);
	if (ev && ev->nr_runs == 2) {
		/* vm->pages[] order is the vfree order */
		TEST_ASSERT_EQ("page 0", ev->runs[0].pfn, 0x42001);
		TEST_ASSERT_EQ("page 1", ev->runs[1].pfn, 0x42000);
	}
	TEST_ASSERT_EQ("va_bits unknown", vt_import_config(im)->va_bits, 0);
	vt_import_close(im);
}

/*
 * vm_map_ram_test-like recording (6.12): three vm_map_ram(1 page) from
 * one vmap block (new_vmap_block()'s alloc_vmap_area(4 MiB, 4 MiB) in the
 * first, none after; vb_free() unmaps with __vunmap_range_noflush() and
 * no free_vmap_area_noflush()), then one of 100 pages with its own area
 * (alloc_vmap_area(size, PAGE_SIZE), no guard page).  The same without
 * the function tracer's vm_map_ram lines.
 */
static void check_vm_map_ram(struct vt_import *im, const char *what)
{
	const struct vt_import_summary *s = vt_import_summary(im);
	static const uint64_t va[4] = { 0xffff800083400000ULL, 0xffff800083401000ULL,
					0xffff800083402000ULL, 0xffff800083800000ULL };

	fprintf(stderr, "%s\n", what);
	TEST_ASSERT_EQ("events", vt_import_nr_events(im), 8);
	TEST_ASSERT_EQ("vm_map_ram", s->vm_map_ram, 4);
	TEST_ASSERT_EQ("vmap blocks", s->vblocks, 1);
	TEST_ASSERT_EQ("recorded", s->mappings_recorded[VT_IMK_VM_MAP_RAM], 4);
	TEST_ASSERT_EQ("reproduced", s->mappings_reproduced[VT_IMK_VM_MAP_RAM], 4);
	TEST_ASSERT_EQ("no vmalloc", s->mappings_recorded[VT_IMK_VMALLOC], 0);
	TEST_ASSERT_EQ("nothing unmatched", s->unmatched_maps, 0);
	TEST_ASSERT_EQ("walker pages", s->walker_pages, 103);
	TEST_ASSERT_EQ("synthesised", s->pages_synthesised, 4);
	for (size_t i = 0; i < 8; i++) {
		const struct vt_event *ev = vt_import_event(im, i);

		TEST_ASSERT_VAL("pairs", ev && ev->op == (i % 2 ? VT_OP_VM_UNMAP_RAM :
							   VT_OP_VM_MAP_RAM) &&
				ev->id.num == i / 2 + 1 && ev->va == va[i / 2]);
		if (ev && !(i % 2))
			TEST_ASSERT_EQ("pages", ev->nr_pages, i == 6 ? 100 : 1);
	}
}

/* vm-map-ram.txt without the lines holding @drop, imported */
static void vm_map_ram_without(const char *drop, const char *what)
{
	struct vt_import *im = NULL;
	struct vt_error err;
	char path[1024], *buf, *o;
	size_t n = 0;
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/tests/data/import/vm-map-ram.txt", src);
	f = fopen(path, "r");
	buf = calloc(1, 1 << 16);
	TEST_ASSERT_VAL("read", f && buf);
	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return;
	}
	o = buf;
	while (fgets(o, (int)((1 << 16) - n), f))
		if (!strstr(o, drop)) {
			n += strlen(o);
			o = buf + n;
		}
	fclose(f);
	vt_error_init(&err);
	rc = vt_import_open_mem(what, buf, n, NULL, &im, &err);
	if (!rc)
		rc = vt_import_run(im, &err);
	TEST_ASSERT_VAL("import", rc >= 0 && im);
	if (rc >= 0 && im)
		check_vm_map_ram(im, what);
	vt_import_close(im);
	free(buf);
}

static void test_vm_map_ram(void)
{
	struct vt_import *im;
	int rc;

	im = import(src, "tests/data/import/vm-map-ram.txt", NULL, &rc);
	TEST_ASSERT_VAL("import vm_map_ram", im);
	if (im)
		check_vm_map_ram(im, "vm_map_ram with the function tracer");
	vt_import_close(im);
	/* the function tracer's lines gone: vmap blocks by their shape */
	vm_map_ram_without(" <-", "vm_map_ram without the function tracer");
	/* no __vmap_pages_range_noflush hit (6.12 inlines it on this path):
	 * the vmap_small_pages_range_noflush kprobe maps */
	vm_map_ram_without("vmap_pages:", "vm_map_ram with only the vmap_small kprobe");
}

static void test_ioremap(void)
{
	const struct vt_event *ev;
	struct vt_import *im;
	int rc;

	im = import(src, "tests/data/import/ioremap.txt", NULL, &rc);
	TEST_ASSERT_VAL("import ioremap", im);
	if (!im)
		return;
	TEST_ASSERT_EQ("events", vt_import_nr_events(im), 3);
	ev = vt_import_event(im, 0);
	TEST_ASSERT_VAL("ioremap", ev && ev->op == VT_OP_IOREMAP &&
			ev->phys == 0x10000000 && ev->size == 2 << 20 &&
			!ev->has_pages);
	ev = vt_import_event(im, 1);
	TEST_ASSERT_VAL("iounmap", ev && ev->op == VT_OP_IOUNMAP &&
			ev->id.num == 1);
	ev = vt_import_event(im, 2);
	TEST_ASSERT_VAL("explicit purge only", ev && ev->op == VT_OP_PURGE &&
			ev->cpu == 0);
	TEST_ASSERT_EQ("lazy purge dropped",
		       vt_import_summary(im)->purges_lazy, 1);
	TEST_ASSERT_EQ("va_bits from pmdp", vt_import_config(im)->va_bits, 52);
	vt_import_close(im);
}

static void test_garbage(void)
{
	const struct vt_import_summary *s;
	struct vt_import *im;
	struct vt_error err;
	int rc;

	im = import(src, "tests/data/import/garbage-line.txt", NULL, &rc);
	TEST_ASSERT_VAL("one bad line is a warning", im);
	if (im) {
		s = vt_import_summary(im);
		TEST_ASSERT_EQ("bad lines", s->bad_lines, 1);
		TEST_ASSERT_EQ("first bad line", s->first_bad_line, 9);
		TEST_ASSERT_EQ("bad fields", s->bad_fields, 1);
		TEST_ASSERT_VAL("warned", strstr(vt_import_warnings(im),
						 "(first: line 9)"));
		TEST_ASSERT_EQ("events", vt_import_nr_events(im), 1);
		TEST_ASSERT_EQ("pages from mm_page_alloc",
			       vt_import_summary(im)->pages_from_alloc, 1);
		vt_import_close(im);
	}
	im = import(src, "tests/data/import/garbage.txt", NULL, &rc);
	TEST_ASSERT_VAL("garbage is an error", !im && rc == VT_ERR_IMPORT);

	/*
	 * A version 6 header has the saved cmdlines (a 64-bit size, then
	 * the text) between the printk formats and the CPU count
	 * (trace-cmd.dat.v6.5.txt): trace-cmd convert --file-version 6
	 * writes it, and dat-check must read past it.
	 */
	{
		static const unsigned char v6[] =
			"\x17\x08\x44tracing6\0\0\x08\0\x10\0\0"
			"header_page\0\0\0\0\0\0\0\0\0"
			"header_event\0\0\0\0\0\0\0\0\0"
			"\0\0\0\0" "\0\0\0\0"		/* ftrace, systems */
			"\0\0\0\0" "\0\0\0\0"		/* kallsyms, printk */
			"\x07\0\0\0\0\0\0\0" "1 init\n"	/* cmdlines */
			"\x01\0\0\0" "flyrecord\0"
			"\0\0\0\0\0\0\0\0" "\0\0\0\0\0\0\0\0";
		int fd = memfd_create("v6", MFD_CLOEXEC);

		TEST_ASSERT_VAL("memfd", fd >= 0);
		if (fd >= 0) {
			TEST_ASSERT_VAL("write v6",
					write(fd, v6, sizeof(v6) - 1) == (ssize_t)(sizeof(v6) - 1));
			vt_error_init(&err);
			TEST_ASSERT_EQ("v6 header with cmdlines",
				       vt_dat_check(fd, sizeof(v6) - 1, 0, "v6.dat", &err), 0);
			close(fd);
		}
	}

	/* a truncated trace.dat header and truncated xz are errors too */
	vt_error_init(&err);
	rc = vt_import_open_mem("short.dat", "\x17\x08\x44tracing6\0\0", 12,
				NULL, &im, &err);
	TEST_ASSERT_VAL("short dat", rc == VT_ERR_IMPORT && !im);
	rc = vt_import_open_mem("short.xz", "\xfd" "7zXZ\0\0\0\0", 9, NULL,
				&im, &err);
	if (!rc) {
		rc = vt_import_run(im, &err);
		vt_import_close(im);
	}
	TEST_ASSERT_VAL("short xz", rc == VT_ERR_IMPORT);
	TEST_ASSERT_VAL("message", strstr(err.msg, "xz"));

	rc = vt_import_open("/nonexistent/rec.dat", NULL, &im, &err);
	TEST_ASSERT_VAL("missing file", rc == -ENOENT);
}

/* Mutated text must never crash the importer. */
static void test_mutations(void)
{
	static const char base[] =
		"  a-1 [000] ..... 1.000001: alloc_vmap_area: va_start: 4096 size=8192 align=1 vstart=0x1000 vend=0x100000 failed=0\n"
		"  a-1 [000] ..... 1.000002: vmap_pages: (x+0/1) addr=0x1000 end=0x2000 page_shift=21\n"
		"  a-1 [000] ..... 1.000003: vmap_range: (vmap_range_noflush+0/1) addr=0x1000 end=0x2000 phys=0x5000 max_page_shift=21\n"
		"  a-1 [000] ..... 1.000004: free_vmap_area_noflush: va_start=0x1000 nr_lazy=1 nr_lazy_max=2\n"
		"  a-1 [000] ..... 1.000005: mm_page_free: page=0 pfn=0x5 order=0\n";
	char buf[sizeof(base)];
	unsigned int seed = 1;
	size_t i, j;

	for (i = 0; i < 3000; i++) {
		struct vt_import *im;
		struct vt_error err;

		memcpy(buf, base, sizeof(base));
		for (j = 0; j < 1 + i % 8; j++) {
			seed = seed * 1103515245 + 12345;
			buf[(seed >> 8) % (sizeof(base) - 1)] =
				(char)(seed >> 20);
		}
		vt_error_init(&err);
		if (vt_import_open_mem("mut", buf, (seed >> 4) % sizeof(base),
				       NULL, &im, &err))
			continue;
		vt_import_run(im, &err);
		vt_import_close(im);
	}
}

int main(void)
{
	src = getenv("VT_SRC");
	if (!src)
		src = ".";
	test_huge_nested();
	test_huge_caller_size();
	test_v61_kprobes();
	test_v61_kprobes_failed();
	test_kprobes_and_tracepoints();
	test_vmap();
	test_vm_map_ram();
	test_ioremap();
	test_garbage();
	test_mutations();
	test_fix256();
	test_fix1();
	return test_result("test-import");
}
