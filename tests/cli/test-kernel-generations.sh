#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The --kernel generations of issue 25 and what they set (docs/model.md,
# "Kernel generations"):
#  - the vfree axis follows the generation: v7.2 and mainline free a
#    vmalloc's pages with free_pages_bulk(), v6.16 and older per page;
#    +vfree-perpage / +vfree-bulk override; batched-v2 follows it too;
#  - vfree() of a VM_MAP_PUT_PAGES vmap frees its pages (vunmap() does not);
#  - --modules-region=128m (v6.1) moves VMALLOC_START to MODULES_VADDR +
#    128 MiB;
#  - --vb-dirty=keep (v6.1): _vm_unmap_aliases() flushes a vmap block's
#    dirty range again on every call;
#  - --vmalloc-end=256m (v6.1): VMALLOC_END = VMEMMAP_START - SZ_256M with
#    6.1's VMEMMAP_START, 0xfffffbfff0000000 at 4K/48 (the 6.1.0-57
#    harness boot's vend), and the fixmap's tables over the top of the area;
#  - map_mem() over a live CONT-PMD block BUG()s under the linear-map
#    versions whose pgattr_change_is_safe() still forbids touching a live
#    CONT entry, and is declined without a store under linear-new.
set -u
. "$(dirname "$0")/lib.sh"
test_require python3
python3 - <<'PY'
import json, os, subprocess

SRC, BIN = os.environ["VT_SRC"], os.environ["VT_BIN"]
DATA = os.path.join(SRC, "tests", "data", "generations")
fails = passes = 0

def check(what, got, want):
    global fails, passes
    if got != want:
        print("FAIL %s: %r, want %r" % (what, got, want))
        fails += 1
    else:
        passes += 1

def replay(trace, strategies, *opts):
    out = subprocess.run([BIN, "replay", "-j", "--per-op",
                          "--strategy=" + ",".join(strategies)] + list(opts) +
                         [trace], stdout=subprocess.PIPE, check=True,
                         universal_newlines=True).stdout
    return [s["metrics"] for s in json.loads(out)["traces"][0]["strategies"]]

def per_event(trace, *opts):
    out = subprocess.run([BIN, "replay", "--per-event", "--strategy=zigzag"] +
                         list(opts) + [trace], stdout=subprocess.PIPE,
                         check=True, universal_newlines=True).stdout
    return [json.loads(l) for l in out.splitlines() if l.strip()]

VF = ("free_calls", "free_pcp", "free_buddy", "contig_range_calls",
      "cond_resched", "pages_freed", "buddy_blocks")
def vfree_counts(m):
    return {k: m[k] for k in VF}

# 1. the vfree axis follows the generation
trace = os.path.join(SRC, "traces", "default.json")
for gen, bulk in (("v6.1", False), ("v6.12", False), ("v6.16", False),
                  ("v7.2", True), ("mainline", True)):
    for strat in ("zigzag", "pagewise", "batched-v2"):
        plain, per, blk = replay(trace, [strat, strat + "+vfree-perpage",
                                         strat + "+vfree-bulk"],
                                 "--kernel=" + gen)
        check("%s under %s frees %s" % (strat, gen, "in bulk" if bulk else "per page"),
              vfree_counts(plain), vfree_counts(blk if bulk else per))
        check("%s under %s: the axes differ" % (strat, gen),
              vfree_counts(per) != vfree_counts(blk), True)
default = replay(trace, ["zigzag"])[0]
v72 = replay(trace, ["zigzag"], "--kernel=v7.2")[0]
check("mainline is bulk by default", vfree_counts(default), vfree_counts(v72))

# 2. vfree of a VM_MAP_PUT_PAGES vmap frees its 16 pages; vunmap does not
trace = os.path.join(DATA, "vmap-put-pages.json")
for m in replay(trace, ["zigzag+vfree-perpage", "zigzag+vfree-bulk"]):
    check("VM_MAP_PUT_PAGES pages_freed", m["pages_freed"], 16)
per, blk = replay(trace, ["zigzag+vfree-perpage", "zigzag+vfree-bulk"])
check("per page: 16 __free_page()", per["free_calls"], 16)
check("bulk: one __free_contig_range()", blk["contig_range_calls"], 1)

# 3. the 128 MiB modules region moves VMALLOC_START
trace = os.path.join(DATA, "vb-dirty.json")
for opts, va in ((["--modules-region=2g"], "0xffff800080000000"),
                 (["--modules-region=128m"], "0xffff800008000000"),
                 (["--kernel=v6.1"], "0xffff800008000000"),
                 (["--kernel=v6.12"], "0xffff800080000000"),
                 (["--kernel=v6.1", "--modules-region=2g"], "0xffff800080000000")):
    check("first block's va with %s" % " ".join(opts), per_event(trace, *opts)[0]["va"], va)

# 4. 6.1's _vm_unmap_aliases() flushes the same dirty range again
for opts, second in ((["--vb-dirty=reset"], 0), (["--vb-dirty=keep"], 1),
                     (["--kernel=v6.1"], 1), (["--kernel=v6.12"], 0)):
    ev = per_event(trace, *opts)
    purges = [e for e in ev if e["op"] == "purge"]
    check("first purge flushes with %s" % " ".join(opts), purges[0]["metrics"]["tlbi"], 1)
    check("second purge with %s" % " ".join(opts), purges[1]["metrics"]["tlbi"], second)

# 5. map_mem() over one 2 MiB PMD of a live 32 MiB CONT-PMD range.  Until
# the CONT rule left pgattr_change_is_safe() ("live contiguous mappings
# may not be manipulated at all": v6.9 through v6.12 trees, before
# linux-mm @ 0118174d4e1c) pmd_set_huge() declines and stores nothing, and
# init_pmd()'s BUG_ON(!pgattr_change_is_safe(old_pmd, *pmdp)) then fires on
# the unchanged CONT entry: exit 3 under linear-old, -p1, -p1p2.  The
# newest mmu.c has no CONT rule: nothing is stored and nothing fires.
trace = os.path.join(DATA, "linear-cont-remap.json")
for v, rc in (("linear-old", 3), ("linear-p1", 3), ("linear-p1p2", 3),
              ("linear-new", 0)):
    p = subprocess.run([BIN, "replay", "-j", "--strategy=" + v, trace],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    check("re-mapping a live CONT-PMD block under " + v, p.returncode, rc)
    if rc == 3:
        check(v + " names the BUG()", "the kernel would BUG()" in p.stderr, True)
    else:
        m = json.loads(p.stdout)["traces"][0]["strategies"][0]["metrics"]
        check("linear-new stores nothing for the declined block",
              m["pmd_writes"], 16)

# 6. 6.1's VMALLOC_END: a vmalloc of the area's last page (and its guard
# page) at the trace's va.  Under 6.1's layout the fixmap's PUD and PMD
# tables are there (early_fixmap_init()), so it takes a PTE table only; the
# 6.12 layout has nothing there (3 tables); a page above 6.1's VMALLOC_END
# is outside the area under v6.1 (exit 3), inside under v6.12.
trace = os.path.join(DATA, "vmalloc-end.json")
for opts, tables in ((["--kernel=v6.1"], 1), (["--vmalloc-end=256m"], 1),
                     (["--kernel=v6.12"], 3), (["--modules-region=128m"], 3),
                     (["--kernel=v6.1", "--vmalloc-end=8m"], 3), ([], 3)):
    ev = per_event(trace, "--use-trace-va", *opts)
    check("tables for the top page with %s" % " ".join(opts),
          ev[0]["metrics"]["tables_allocated"], tables)
with open(trace) as f:
    above = f.read().replace("0xfffffbffefffe000", "0xfffffbfffffff000")
above_path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "vt-vmalloc-end-%d.json" % os.getpid())
with open(above_path, "w") as f:
    f.write(above)
for opts, rc in ((["--kernel=v6.1"], 3), (["--kernel=v6.12"], 0)):
    p = subprocess.run([BIN, "replay", "--use-trace-va", "-o", "/dev/null",
                        "--strategy=zigzag"] + opts + [above_path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check("a page above 6.1's VMALLOC_END with %s" % " ".join(opts), p.returncode, rc)
os.unlink(above_path)

print("%d checks passed, %d failed" % (passes, fails))
raise SystemExit(1 if fails else 0)
PY
test_done $?
