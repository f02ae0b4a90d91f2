#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Golden counts of batched-v2 (linux-mm @ e7e1a07bffed mm/vmalloc.c) next to
batched (the RFC), on the worked-example traces and on the hand-written
traces of tests/data/batched-v2/.  Every expected value is argued from the
code in the comment above its case; the runner is worked_examples.py's
(same options: --initial=booted --purge=immediate, lazy barriers, 4K/48).

Then every trace (scenarios and ours) is replayed under batched-v2 with
--verify: mismapped_pages must be what the OVERRUN table says.

Environment and options as worked_examples.py (VT_BIN, VT_SRC;
-v, -k SUBSTR).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import worked_examples as we  # noqa: E402  (registers the WE cases on import)

we.CASES.clear()
we.SKIPS.clear()
case, row, M = we.case, we.row, we.M
SZ_4K, SZ_64K = we.SZ_4K, we.SZ_64K
DATA = os.path.join(we.SRC, "tests", "data", "batched-v2")
VERIFY = ["--verify"]
V2 = "batched-v2"


def T(name):
    return name + ".trace.json"


def D(name):
    return os.path.join(DATA, name + ".trace.json")


# ======================================================================
# 1. Compound, naturally aligned, descending inputs (worked examples
#    S1-S3): the same counts as batched.
#
# get_vmap_batch_order() limits a chunk to the first PFN's natural
# alignment and takes the longest contiguous run in it.  In these traces
# every compound page is naturally aligned (its head PFN is aligned to its
# size) and no two chunks are physically adjacent, so the run it finds is
# exactly the compound page: order 8 -> shift 20, order 4 -> shift 16, as
# compound_order() gives the RFC.  An order-0 page has no contiguous
# neighbour (S1's PFNs step by 2): nr_contig 1 -> 0, the RFC's
# compound_nr 1 -> 0 as well.  vmap_get_aligned_vm_area() tries the same
# alignments as RFC 6/8 (PMD_SIZE for >= 2 MiB, then 64 KiB for >= 64 KiB,
# then PAGE_SIZE), and the walk per run of equal shift and the exit at the
# first non-batchable chunk are patches 7-8.  So every row of batched is
# batched-v2's.
# ======================================================================

# S1: 256 discontiguous order-0 pages; the first is not batchable -> one
# PAGE_SHIFT walk of the whole array (1 walk, 3 steps, 256 set_pte_at, one
# PTE table: 1 pmd write with its pair, 1 lazy pair).
case("S1 mapping = batched", T("S1-at-R"), ["batched", V2],
     dict(we.S1, va_off=0))
# S2a: one o8 at a 2 MiB-aligned VA: 0x80000 is aligned to 2^19 > 256, the
# run is 256 pages (order 8), shift 20; arch_vmap_pte_range_map_size() =
# min3(1M, 1M, 1M) -> one set_huge_pte_at of 256 PTEs (16 CONT blocks).
case("S2a mapping = batched", T("S2a-at-R"), ["batched", V2],
     dict(we.S2_B, va_off=0))
# S2a-64K: a 1 MiB vmap is aligned to 64 KiB only (pte-supported shift);
# the batch at R+64K is still min3(1M, 1M, PMD_SIZE/2) = 1M (no VA
# alignment check beyond CONT_PTE_SIZE): the same counts.
case("S2a-64K mapping = batched", T("S2a-at-R64K"), ["batched", V2],
     dict(we.S2_B, va_off=SZ_64K))
# S3: 64 discontiguous o8 (64 MiB): PMD-aligned area, one run of shift 20,
# one walk over 32 PMD entries: 2 x 256-PTE batches per entry = 64
# set_huge_pte_at, 1024 CONT blocks, 32 tables.
case("S3 mapping = batched", T("S3-at-R"), ["batched", V2],
     dict(we.S3_B, va_off=0))
# S3': 64 x o8 + o4 + o0: runs of shift 20 and 16, then the order-0 page
# (0x300001, odd: limit 1 -> 0) ends the scan; 3 walks.
case("S3' mapping = batched", T("S3p-at-R"), ["batched", V2],
     dict(row(3, 40, 16401, 1, 65, 1025, 33, 33, 33, 67, 67, 1026),
          va_off=0))
we.unmap_cases("S3 (batched-v2)", T("S3-at-R"), V2, 16384, 16385,
               we.tlbi_norange(16385), we.RG_16385, steps=35)
# Huge vmalloc: __vmap_pages_range_noflush() is one
# vmap_pages_range_noflush_walk() at page_shift, as RFC 4/8.
case("S4 mapping, cold = batched", T("S4-cold"), ["batched", V2],
     dict(walks=1, steps=3, pte=0, Nsp=0, Nsh=0, pmd=1, blocks=1, tbl=0,
          tlbi=0, dmb=1, dsb=1, isb=1, tlbE=1, va_off=0))
case("S5 mapping = batched", T("S5-at-R"), ["batched", V2],
     dict(row(1, 3, 256, 0, 16, 16, 1, 1, 2, 2, 2, 16), va_off=0))
# ioremap: vmap_pte_range() calls vmap_set_ptes(), the same choice as
# before; with the RFC's arch patches 1-2 a 1 MiB ioremap is one call.
case("S6 ioremap 1M = batched", T("S6"), ["batched", V2],
     row(1, 3, 256, 0, 1, 16, 1, 1, 1, 2, 2, 16))

# ======================================================================
# 2. nohugeiomap no longer turns vmap batching off.
#
# RFC 5/8's get_vmap_batch_order() returns 0 when ioremap_max_page_shift ==
# PAGE_SHIFT; the revision has no such test.  S2a under --nohugeiomap:
# batched maps the o8 page by page (S1's row), batched-v2 as without it.
# ======================================================================
case("S2a nohugeiomap: batched page by page", T("S2a-at-R"), "batched",
     dict(row(1, 3, 256, 256, 0, 0, 1, 1, 1, 2, 2, 256), va_off=0),
     opts=["--nohugeiomap"])
case("S2a nohugeiomap: batched-v2 still batches", T("S2a-at-R"), V2,
     dict(we.S2_B, va_off=0), opts=["--nohugeiomap"])

# ======================================================================
# 3. An order-2 chunk early in the array: the early exit.
#
# early-exit-o2: o8 @0x80000, o2 @0x90000, 0x90010, 0x90020, 0x90030, o8
# @0xa0000: 528 pages (2112 KiB >= PMD_SIZE -> area at R, 2 MiB aligned).
#
# batched-v2: i=0: 256 contiguous pages within 0x80000's alignment ->
# order 8, shift 20.  i=256: 0x90000..0x90003 are contiguous, 0x90010 is
# not: nr_contig 4, order 2, vm_shift(16 KiB) = PAGE_SHIFT -> 0.  The
# shift changes: walk 1 maps [R, R+1M) at shift 20 (PGD, PUD, PMD entry 0
# = 3 steps; new PTE table: 1 pmd write + its dsb/isb pair, dmb 1; one
# set_huge_pte_at of 256 = 16 CONT blocks; 1 lazy pair).  Then
# shift == PAGE_SHIFT: break; walk 2 maps the rest [R+1M, R+2112K) at
# PAGE_SHIFT: PMD entry 0 (table present) 256 set_pte_at, PMD entry 1 (new
# table: pmd write, pair, dmb) 16 set_pte_at; 4 steps, 2 lazy pairs.  So
# every page after the o2 chunk, the last o8 included, is a set_pte_at:
# walks 2, steps 7, Nsp 272, Nsh 1, cont 16, tables 2, dmb 2,
# dsb = isb = 2 + 3 = 5, tlb entries 16 + 272 = 288.
#
# batched: the o2 pages are compound heads, get_vmap_batch_order() = 2,
# shift 14: a run of their own (walk 2 at min(14, 21) = 14: below
# CONT_PTE_SHIFT, 16 set_pte_at); the last o8 (shift 20) is walk 3 over
# [R+1088K, R+2112K): in PMD entry 0 batches of 128, 64, 32, 16 pages (the
# largest power of two <= what is left of the entry), in entry 1 one of
# 16: Nsh 1 + 4 + 1 = 6, cont 16 + 15 + 1 = 32; walks 3, steps 3+3+4 = 10,
# dsb = isb = 2 + 4 = 6, tlb entries 32 + 16 = 48.
# ======================================================================
EE = D("early-exit-o2")
case("early exit at an o2 chunk", EE, V2,
     dict(walks=2, steps=7, pte=528, Nsp=272, Nsh=1, cont=16, pmd=2, tbl=2,
          dmb=2, dsb=5, isb=5, tlbE=288, overrun=0, mismapped=0, va_off=0),
     opts=VERIFY)
case("o2 chunk: batched keeps batching after it", EE, "batched",
     dict(walks=3, steps=10, pte=528, Nsp=16, Nsh=6, cont=32, pmd=2, tbl=2,
          dmb=2, dsb=6, isb=6, tlbE=48, overrun=0, mismapped=0, va_off=0),
     opts=VERIFY)

# ======================================================================
# 4. Contiguous split (non-compound) pages batch.
#
# split-contig: vmap 1 = 256 order-0 pages 0x80000..0x800ff (one run of
# the trace, not compound), vmap 2 = 512 order-0 pages from 0x100000.
#
# batched: compound_nr() is 1 for every page -> order 0 at i=0 -> one
# PAGE_SHIFT walk each: vmap 1 = S1's row (256 set_pte_at); vmap 2 (1 MiB
# area + guard, so the 2 MiB area goes to R+2M): 512 set_pte_at into a new
# table.
#
# batched-v2: vmap 1: 0x80000 is aligned to 2^19, 256 contiguous -> order
# 8, shift 20, one walk: one set_huge_pte_at of 256 PTEs = S2a's row.
# vmap 2: 0x100000 aligned to 2^20, 512 contiguous -> order 9, shift 21
# (vm_shift(2 MiB) = PMD_SHIFT); area PMD-aligned at R+2M; the walk's PMD
# loop (shift >= PMD_SHIFT): whole entry covered, VA and PA 2 MiB-aligned
# -> pmd_set_huge(): 1 block, no PTE table, no PTE, 1 dsb/isb pair (the
# block store is outside lazy mode), 1 TLB entry.
# ======================================================================
SC = D("split-contig")
case("split 256: batched page by page", SC, "batched",
     dict(we.S1, va_off=0))
case("split 256: batched-v2 one CONT batch", SC, V2,
     dict(we.S2_B, va_off=0))
case("split 512: batched page by page", SC, "batched",
     dict(row(1, 3, 512, 512, 0, 0, 1, 1, 1, 2, 2, 512), va_off=0), mid=2)
case("split 512: batched-v2 one PMD block", SC, V2,
     dict(walks=1, steps=3, pte=0, Nsp=0, Nsh=0, pmd=1, blocks=1, tbl=0,
          dmb=0, dsb=1, isb=1, tlbE=1, va_off=0), mid=2)

# natural-align: 48 split pages from 0x80010 (aligned to 16 only) at R.
# batched-v2: i=0: limit 1 << __ffs(0x80010) = 16 -> order 4, shift 16;
# i=16: 0x80020, limit 32, 32 contiguous -> order 5, shift 17: a new run.
# Walk 1 [R, R+64K) shift 16: one CONT call of 16; walk 2 [R+64K, R+192K)
# shift 17: VA and PFN 64 KiB-aligned, min3(128K, 128K, 1M) = 128K: one
# call of 32 PTEs (the VA is not 128 KiB-aligned; only CONT alignment is
# checked).  walks 2, steps 6, Nsh 2, cont 3, one new table, dsb = isb =
# 1 + 2 lazy pairs = 3, tlb entries 3.  batched: one page walk of 48.
NA = D("natural-align")
case("natural alignment splits a run", NA, V2,
     dict(walks=2, steps=6, pte=48, Nsp=0, Nsh=2, cont=3, pmd=1, tbl=1,
          dmb=1, dsb=3, isb=3, tlbE=3, va_off=0))
case("natural alignment: batched page by page", NA, "batched",
     dict(walks=1, steps=3, pte=48, Nsp=48, Nsh=0, cont=0, pmd=1, tbl=1,
          dmb=1, dsb=2, isb=2, tlbE=48, va_off=0))

# pfn-2pow32: min_t(unsigned int, nr_pages, 1UL << __ffs(pfn)) casts the
# limit to unsigned int.  PFN 2^32 (PA 16 TiB): 1UL << 32 becomes 0,
# num_pages_contiguous(pages, 0) returns 1 -> order 0: 16 set_pte_at in one
# PAGE_SHIFT walk, although the 16 pages are contiguous and aligned.  PFN
# 2^32 + 16: limit 16 -> order 4 -> one CONT call.  (The second area is at
# R+128K, 64 KiB-aligned, in the same PMD entry: no table, 1 lazy pair.)
P32 = D("pfn-2pow32")
case("PFN 2^32: the alignment limit truncates to 0", P32, V2,
     dict(walks=1, steps=3, pte=16, Nsp=16, Nsh=0, pmd=1, tbl=1, dmb=1,
          dsb=2, isb=2, tlbE=16, va_off=0))
case("PFN 2^32 + 16: batched", P32, V2,
     dict(walks=1, steps=3, pte=16, Nsp=0, Nsh=1, cont=1, pmd=0, tbl=0,
          dmb=0, dsb=1, isb=1, tlbE=1, va_off=0x20000), mid=2)

# ======================================================================
# 5. RFC patch 2's overrun (strategies.md 4.11) is still possible.
#
# overrun-split / overrun-o5: a prefix vmalloc of 495 pages takes
# [R, R+1980K) + guard, so the 256 KiB vmap (64 KiB alignment:
# arch_vmap_pte_supported_shift(256K) = 16) lands at R+1984K, 64 KiB below
# the PMD boundary R+2M.  Pages: 32 contiguous from 0x80000, 32 from
# 0x90000 (split pages, or two compound o5).
#
# get_vmap_batch_order(): both chunks order 5 (shift 17, vm_shift(128K) =
# 16 > 12): one run, one walk [R+1984K, R+2240K) at shift 17.  PMD entry
# 0 (its table is there from the prefix): end - addr = 64K -> one call of
# 16 (0x80000..0x8000f).  PMD entry 1 starts 16 pages into chunk 1 with
# pages[16] = 0x80010, CONT-aligned: min3(192K, 1 << 17, 1M) = 128K -> 32
# PTEs 0x80010..0x8002f, but only 16 belong to chunk 1: the VAs of
# chunk 2's first 16 pages get 0x80020..0x8002f (batch_overrun 1,
# mismapped 16).  Then 0x90010: 64K left -> 16.  walks 1, steps 4, Nsh 3,
# cont 4, one new table (entry 1), dsb = isb = 1 + 2 lazy pairs = 3.
# Nothing in the revision checks that a batch stays inside its chunk:
# vmap_set_ptes() passes the walk's shift to arch_vmap_pte_range_map_size()
# exactly as RFC 3/8 did.  batched does the same with compound o5 pages; it
# does not batch the split ones (compound_nr 1) and maps them correctly.
# ======================================================================
OV = dict(walks=1, steps=4, pte=64, Nsp=0, Nsh=3, cont=4, pmd=1, tbl=1,
          dmb=1, dsb=3, isb=3, tlbE=4, overrun=1, mismapped=16,
          va_off=0x1f0000)
case("overrun, split pages", D("overrun-split"), V2, OV, opts=VERIFY)
case("overrun, split pages: batched maps page by page", D("overrun-split"),
     "batched", dict(OV, Nsp=64, Nsh=0, cont=0, tlbE=64, overrun=0,
                     mismapped=0), opts=VERIFY)
case("overrun, compound o5", D("overrun-o5"), ["batched", V2], OV,
     opts=VERIFY)
# E3 of strategies.md 4.11 (o4, o8, o8, o8 ascending): the same 240 pages.
case("E3 overrun", T("E3"), V2,
     dict(walks=2, steps=7, pte=784, Nsp=0, Nsh=8, tbl=2, pmd=2, dmb=2,
          dsb=5, isb=5, overrun=1, mismapped=240, cont=49, tlbE=49,
          va_off=0), opts=VERIFY)

# ======================================================================
# 6. vfree: vm_area_free_pages() -> free_pages_bulk() (vfree-bulk axis).
#
# S4-cold: vmalloc_huge(2 MiB) gets one order-9 block (one PMD block), then
# vfree.  free_pages_bulk(): one contiguous run of 512 pages ->
# __free_contig_range() once, the run is one naturally aligned order-9
# block -> one __free_frozen_pages(order 9), to the per-CPU list
# (pcp_allowed_order(): HPAGE_PMD_ORDER with THP), one cond_resched() per
# run: free_calls 1, contig_range_calls 1, free_pcp 1, cond_resched 1.
# Under the default generation (mainline frees in bulk) batched and
# batched-v2 alike; +vfree-perpage: 512 __free_page() of order 0, each to
# the per-CPU list, 512 cond_resched().
# ======================================================================
BULK = dict(free_calls=1, pages_freed=512, contig_range_calls=1, free_pcp=1,
            free_buddy=0, cond_resched=1)
PERPAGE = dict(free_calls=512, pages_freed=512, contig_range_calls=0,
               free_pcp=512, free_buddy=0, cond_resched=512)
case("S4 vfree: mainline releases with free_pages_bulk()", T("S4-cold"),
     [V2, "batched", "batched+vfree-bulk"], BULK, sel="unmap")
case("S4 vfree: per page", T("S4-cold"),
     ["batched+vfree-perpage", V2 + "+vfree-perpage"], PERPAGE, sel="unmap")

# ======================================================================
# verify sweep: every scenario trace and every trace of ours
# ======================================================================
OVERRUN = {"E3.trace.json": 240, "overrun-split.trace.json": 16,
           "overrun-o5.trace.json": 16}
SWEEP_SKIP = {}


def sweep():
    out = []
    traces = [os.path.join(we.SCN, t) for t in sorted(os.listdir(we.SCN))] + \
             [os.path.join(DATA, t) for t in sorted(os.listdir(DATA))]
    for path in traces:
        t = os.path.basename(path)
        if not t.endswith(".trace.json"):
            continue
        name = "verify %s [%s]" % (t, V2)
        if we.FILTER and we.FILTER not in name:
            continue
        if t in SWEEP_SKIP:
            out.append(("skip", name, SWEEP_SKIP[t]))
            continue
        rc, lines, err = we.run_group(path, tuple(we.BASE_OPTS) +
                                      ("--verify",), [V2])
        if rc != 0:
            out.append(("FAIL", name, "exit %d: %s" %
                        (rc, err.strip().splitlines()[-1:])))
            continue
        mis = sum(d["metrics"].get("mismapped_pages", 0) for d in lines)
        want = OVERRUN.get(t, 0)
        out.append(("ok" if mis == want else "FAIL", name,
                    "mismapped_pages expected %d got %d" % (want, mis)))
    return out


if __name__ == "__main__":
    we.sweep = sweep
    sys.exit(we.main())
