#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Seed 002's test_vmalloc table (traces/README.md), one check per
# row: the bundled traces/test_vmalloc/ traces replayed under
# zigzag+vfree-perpage and zigzag+vfree-bulk.  free_calls falls from one
# per page to one per naturally aligned block of each contiguous run, as
# free_pages_bulk() groups vm->pages; the pages freed do not change.
set -u
. "$(dirname "$0")/lib.sh"
test_require python3
python3 - <<'PY'
import json, os, subprocess, sys

SRC, BIN = os.environ["VT_SRC"], os.environ["VT_BIN"]
TV = os.path.join(SRC, "traces", "test_vmalloc")
LOOPS = 100

def replay(name, extra=()):
    p = subprocess.run([BIN, "replay", "-j", "--per-op",
                        "--strategy=zigzag+vfree-perpage,zigzag+vfree-bulk"] +
                       list(extra) + [os.path.join(TV, name)], stdout=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode:
        return None
    s = json.loads(p.stdout)["traces"][0]["strategies"]
    return s[0]["metrics"], s[1]["metrics"]

# Every loop: vmalloc(p pages) in one naturally aligned block (the binary
# decomposition of a06157804399; p = 2^k), then vfree.
#   per page: p __free_page() of order 0, all to the order-0 pcp list;
#   bulk: one run -> one __free_contig_range() -> one block of order k,
#   to a pcp list if k <= 3 or k == 9 (THP), else to the buddy.
# buddy_blocks: order k on a pcp list is refilled max(63 >> k, 2) blocks
# at a time when empty; freed per page the blocks never come back to it.
ORDER = {1: 0, 4: 2, 16: 4, 64: 6, 256: 8, 512: 9}
def refills(k, loops):
    return 0 if k == 0 else -(-loops // max(63 >> k, 2)) * max(63 >> k, 2)

fails = passes = 0
def check(row, what, got, want):
    global fails, passes
    if got != want:
        print("FAIL %s: %s = %s, want %s" % (row, what, got, want))
        fails += 1
    else:
        passes += 1

for p, k in sorted(ORDER.items()):
    for h in (0, 1):
        name = "fix_size_alloc_test-p%d-h%d.json" % (p, h)
        if not os.path.exists(os.path.join(TV, name)):
            continue
        row = "fix_size_alloc_test p:%d h:%d" % (p, h)
        r = replay(name)
        if r is None:
            check(row, "exit", "error", 0); continue
        per, bulk = r
        pcp = k <= 3 or k == 9
        check(row, "perpage free_calls", per["free_calls"], LOOPS * p)
        check(row, "perpage free_pcp", per["free_pcp"], LOOPS * p)
        check(row, "perpage cond_resched", per["cond_resched"], LOOPS * p)
        check(row, "bulk free_calls", bulk["free_calls"], LOOPS)
        check(row, "bulk __free_contig_range", bulk["contig_range_calls"], LOOPS)
        check(row, "bulk cond_resched", bulk["cond_resched"], LOOPS)
        check(row, "bulk to pcp", bulk["free_pcp"], LOOPS if pcp else 0)
        check(row, "bulk to buddy", bulk["free_buddy"], 0 if pcp else LOOPS)
        for m in (per, bulk):
            check(row, "pages_freed", m["pages_freed"], LOOPS * p)
            check(row, "pages_allocated", m["pages_allocated"], LOOPS * p)
        if k == 0:
            want_pb = want_bb = 0
        elif pcp:
            want_pb, want_bb = refills(k, LOOPS), max(63 >> k, 2)
        else:
            want_pb = want_bb = LOOPS
        check(row, "perpage buddy_blocks", per["buddy_blocks"], want_pb)
        check(row, "bulk buddy_blocks", bulk["buddy_blocks"], want_bb)
        # rmqueue_locks: one zone->lock hold per rmqueue_bulk() refill (its
        # max(63 >> k, 2) blocks, or 63 order-0 pages, under the one hold),
        # one per rmqueue_buddy() block of an order with no pcp list
        if k == 0:
            want_pl = want_bl = 1
        elif pcp:
            want_pl, want_bl = refills(k, LOOPS) // max(63 >> k, 2), 1
        else:
            want_pl = want_bl = LOOPS
        check(row, "perpage rmqueue_locks", per["rmqueue_locks"], want_pl)
        check(row, "bulk rmqueue_locks", bulk["rmqueue_locks"], want_bl)

# The allocation side of a06157804399 (--vmalloc-pages): before it,
# vmalloc(4 pages) takes 4 order-0 pages from the bulk allocator (the
# order-0 per-CPU list, refilled from the buddy) and no high-order block.
r = replay("fix_size_alloc_test-p4-h0.json", ["--vmalloc-pages=order0"])
row = "fix_size_alloc_test p:4 h:0 --vmalloc-pages=order0"
check(row, "perpage buddy_blocks", r and r[0]["buddy_blocks"], 0)
check(row, "perpage pages_allocated", r and r[0]["pages_allocated"], 4 * LOOPS)
check(row, "perpage free_calls", r and r[0]["free_calls"], 4 * LOOPS)
r = replay("fix_size_alloc_test-p16-h0.json", ["--kernel=v6.12"])
row = "fix_size_alloc_test p:16 h:0 --kernel=v6.12"
check(row, "perpage buddy_blocks", r and r[0]["buddy_blocks"], 0)
check(row, "pages_allocated", r and r[0]["pages_allocated"], 16 * LOOPS)

# fix_align_alloc_test: 5 pages = an order-2 block + 1 order-0 page from
# the bulk allocator (not adjacent): 2 runs, 2 free calls per loop.
r = replay("fix_align_alloc_test-p1-h0.json")
row = "fix_align_alloc_test p:1 h:0"
check(row, "perpage free_calls", r and r[0]["free_calls"], 5 * LOOPS)
check(row, "bulk free_calls", r and r[1]["free_calls"], 2 * LOOPS)
check(row, "bulk runs", r and r[1]["contig_range_calls"], 2 * LOOPS)

# One page per vmalloc: nothing to merge.
for name in ("kvfree_rcu_1_arg_vmalloc_test-p1-h0.json",
             "kvfree_rcu_2_arg_vmalloc_test-p1-h0.json"):
    r = replay(name)
    row = name[:-len("-p1-h0.json")] + " p:1 h:0"
    check(row, "perpage free_calls", r and r[0]["free_calls"], LOOPS)
    check(row, "bulk free_calls", r and r[1]["free_calls"], LOOPS)

# pcpu_alloc_test: one vmalloc of 35000 pointers = 69 pages: order-6 block
# X, order-2 block X + 64 (the next fresh buddy memory: adjacent), one
# order-0 page from the pcp refill (X + 124): runs of 68 and 1 pages ->
# blocks of order 6, 2 and 0.
r = replay("pcpu_alloc_test-p1-h0.json")
row = "pcpu_alloc_test"
check(row, "perpage free_calls", r and r[0]["free_calls"], 69)
check(row, "bulk free_calls", r and r[1]["free_calls"], 3)
check(row, "bulk runs", r and r[1]["contig_range_calls"], 2)

# vm_map_ram_test does not go through vfree.
r = replay("vm_map_ram_test-p1-h0.json")
check("vm_map_ram_test", "free_calls", r and (r[0]["free_calls"], r[1]["free_calls"]), (0, 0))

# The random-size rows: the same pages freed, never more calls in bulk,
# at most one call per page, at least one per run.
for name in ("random_size_alloc_test-p1-h0.json",
             "random_size_align_alloc_test-p1-h0.json",
             "long_busy_list_alloc_test-p1-h0.jsonl",
             "full_fit_alloc_test-p1-h0.jsonl"):
    r = replay(name)
    row = name.split("-p1")[0]
    if r is None:
        check(row, "exit", "error", 0); continue
    per, bulk = r
    check(row, "pages_freed equal", bulk["pages_freed"], per["pages_freed"])
    check(row, "perpage one call per page", per["free_calls"], per["pages_freed"])
    check(row, "bulk <= perpage", bulk["free_calls"] <= per["free_calls"], True)
    check(row, "bulk >= runs", bulk["free_calls"] >= bulk["contig_range_calls"], True)
    check(row, "cond_resched per run", bulk["cond_resched"], bulk["contig_range_calls"])

print("%d passed, %d failed" % (passes, fails))
sys.exit(1 if fails or not passes else 0)
PY
test_done $?
