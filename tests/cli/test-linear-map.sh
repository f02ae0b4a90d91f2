#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# map_mem() of the bundled traces/map_mem-16g.json and -256g.json under
# each linear-map version of arch/arm64/mm/mmu.c, against a hand count,
# with --verify (every page of RAM translates to its PA with
# pgprot_tagged(PAGE_KERNEL)); and the same through gen on 16K and 64K.
#
# Hand count for G GiB from 2 GiB (memstart_addr = 2 GiB, so the range is
# [PAGE_OFFSET, +G GiB) inside one PGD entry and one PUD table), 4K/48,
# rodata=full: tables T = 1 PUD + G PMD + 512 G PTE; N = 262144 G PTEs.
#   linear-old:  fixmap pairs = T (zeroing at allocation) + 1 (PUD table)
#                + 32 G (PMD table per CONT_PMD) + 32 x 512 G (PTE table
#                per CONT_PTE); dsb ishst = 2 pairs + N + T; isb the same
#   linear-p1:   pairs = 2T; same barrier formula
#   linear-p1p2: pairs = 2T; dsb ishst = 2 pairs + T; isb the same
#   linear-new:  pairs = T; dsb ishst = 4T; isb = 3T
#   dsb ish = pairs = tlbi (vaale1is) in every version.
# 16 GiB:  T = 8209,   N = 4194304;  old pairs 270866,  2T 16418
# 256 GiB: T = 131329, N = 67108864; old pairs 4333826, 2T 262658
set -u
. "$(dirname "$0")/lib.sh"
test_require python3
python3 - <<'PY'
import json, os, subprocess, sys, tempfile

SRC, BIN = os.environ["VT_SRC"], os.environ["VT_BIN"]
fails = passes = 0

def check(what, got, want):
    global fails, passes
    if got != want:
        print("FAIL %s: got %s, want %s" % (what, got, want))
        fails += 1
    else:
        passes += 1

def replay(trace, strategies, extra=()):
    p = subprocess.run([BIN, "replay", "-j", "--verify",
                        "--strategy=" + ",".join(strategies)] + list(extra) +
                       [trace], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode:
        return None, p.stderr
    return [s["metrics"] for s in json.loads(p.stdout)["traces"][0]["strategies"]], ""

def want(v, G):
    T, N = 1 + 513 * G, 262144 * G
    pairs = {"linear-old": T + 1 + 32 * G + 32 * 512 * G, "linear-p1": 2 * T,
             "linear-p1p2": 2 * T, "linear-new": T}[v]
    if v in ("linear-old", "linear-p1"):
        ishst = isb = 2 * pairs + N + T
    elif v == "linear-p1p2":
        ishst = isb = 2 * pairs + T
    else:
        ishst, isb = 4 * T, 3 * T
    return dict(tables_allocated=T, pte_writes=N, pmd_writes=512 * G,
                pud_writes=G, pgd_writes=1, table_walks=1,
                walk_steps=1 + G + 512 * G, fixmap_maps=pairs,
                fixmap_stores=2 * pairs, tlbi=pairs, dsb=ishst + pairs,
                isb=isb, block_maps=0, cont_ranges=0, mismapped_pages=0,
                _ishst=ishst, _vaale1is=pairs)

VERS = ["linear-old", "linear-p1", "linear-p1p2", "linear-new"]
assert want("linear-old", 16)["fixmap_maps"] == 270866
assert want("linear-old", 256)["fixmap_maps"] == 4333826
for G in (16, 256):
    trace = os.path.join(SRC, "traces", "map_mem-%dg.json" % G)
    # 256 GiB of PTE tables is 512 MiB per strategy: one at a time
    groups = [VERS] if G == 16 else [[v] for v in VERS]
    for grp in groups:
        ms, err = replay(trace, grp)
        if ms is None:
            check("map_mem %d GiB %s" % (G, grp), "exit " + err.strip(), 0)
            continue
        for v, m in zip(grp, ms):
            for k, w in want(v, G).items():
                if k == "_ishst":
                    got = m["dsb_by_kind"]["ishst"]
                elif k == "_vaale1is":
                    got = m["tlbi_by_kind"]["vaale1is"]
                else:
                    got = m[k]
                check("map_mem %d GiB %s %s" % (G, v, k), got, w)

# rodata=on (or BBML2_NOABORT): 16 GiB from 2 GiB is 16 PUD blocks.
with tempfile.TemporaryDirectory() as d:
    t = os.path.join(d, "on.json")
    subprocess.run([BIN, "gen", "map_mem", "--size=16G", "--rodata=on", "-o", t],
                   check=True)
    ms, err = replay(t, VERS)
    for v, m in zip(VERS, ms or []):
        check("rodata=on %s pud blocks" % v, (m["block_maps"], m["pud_writes"],
                                                m["tables_allocated"]), (16, 16, 1))
        check("rodata=on %s verify" % v, m["mismapped_pages"], 0)
    # other granules, a range that is not block-aligned, and a hole
    for g, va in (("16k", "47"), ("64k", "42"), ("64k", "48"), ("4k", "39"), ("4k", "52")):
        for rodata in ("full", "on"):
            t = os.path.join(d, "%s-%s.json" % (g, va))
            subprocess.run([BIN, "gen", "map_mem", "--granule=" + g,
                            "--va-bits=" + va, "--size=1G+128K,3G+2M",
                            "--hole=96M", "--phys-base=0x80020000",
                            "--rodata=" + rodata, "-o", t], check=True)
            ms, err = replay(t, VERS)
            if ms is None:
                check("%s/%s %s" % (g, va, rodata), "exit " + err.strip(), 0)
                continue
            for v, m in zip(VERS, ms):
                check("%s/%s rodata=%s %s verify" % (g, va, rodata, v),
                      m["mismapped_pages"], 0)
                check("%s/%s rodata=%s %s walks" % (g, va, rodata, v),
                      m["table_walks"], 2)

print("%d passed, %d failed" % (passes, fails))
sys.exit(1 if fails or not passes else 0)
PY
test_done $?
