#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# linear_tlb_entries: the TLB entries the linear map needs at its peak, as
# tlb_entries is for the vmalloc area (docs/report-format.md).  A leaf
# without PTE_CONT is one entry, a CONT range (CONT_PTES PTEs, CONT_PMDS
# PMD blocks) one entry, a PUD block one entry; tlb_entries stays 0 for
# linear_map events, and the per-event lines add up to the total.
set -u
. "$(dirname "$0")/lib.sh"
test_require python3
python3 - <<'PY'
import json, os, subprocess, tempfile

SRC, BIN = os.environ["VT_SRC"], os.environ["VT_BIN"]
fails = passes = 0

def check(what, got, want):
    global fails, passes
    if got != want:
        print("FAIL %s: %r, want %r" % (what, got, want))
        fails += 1
    else:
        passes += 1

def replay(trace, strategy="zigzag"):
    out = subprocess.run([BIN, "replay", "-j", "--strategy=" + strategy, trace],
                         stdout=subprocess.PIPE, check=True,
                         universal_newlines=True).stdout
    return json.loads(out)["traces"][0]["strategies"][0]["metrics"]

def per_event_sum(trace, key):
    out = subprocess.run([BIN, "replay", "--per-event", "--strategy=zigzag", trace],
                         stdout=subprocess.PIPE, check=True,
                         universal_newlines=True).stdout
    return sum(json.loads(l)["metrics"][key] for l in out.splitlines() if l.strip())

with tempfile.TemporaryDirectory() as tmp:
    # (gen arguments, linear_tlb_entries): 16 GiB of memory
    cases = [
        # rodata=full: every page a PTE without CONT: 4 Mi entries
        (["--granule=4k", "--rodata=full"], 4 << 20),
        # rodata=on, 4K: 16 PUD blocks of 1 GiB
        (["--granule=4k", "--rodata=on"], 16),
        # rodata=on, 16K: 512 PMD blocks of 32 MiB in CONT ranges of 32: 16
        (["--granule=16k", "--rodata=on"], 16),
        # rodata=full, 16K: 16 GiB / 16 KiB PTEs: 1 Mi entries
        (["--granule=16k", "--rodata=full"], 1 << 20),
    ]
    for args, want in cases:
        t = os.path.join(tmp, "mm.json")
        subprocess.run([BIN, "gen", "map_mem", "--size=16G", "--va-bits=48", "-o", t]
                       + args, check=True)
        for strat in ("linear-old", "linear-new"):
            m = replay(t, strat)
            check("%s %s linear_tlb_entries" % (" ".join(args), strat),
                  m["linear_tlb_entries"], want)
            check("%s %s tlb_entries" % (" ".join(args), strat), m["tlb_entries"], 0)
        check("%s per-event lines add up" % " ".join(args),
              per_event_sum(t, "linear_tlb_entries"), want)

# 32 MiB at a 32 MiB boundary: 16 CONT PMD blocks, one entry; mapping one of
# its PMDs again (declined under linear-new) does not add any
trace = os.path.join(SRC, "tests", "data", "generations", "linear-cont-remap.json")
check("one CONT-PMD range", replay(trace, "linear-new")["linear_tlb_entries"], 1)
# the vmalloc area's metric is untouched by the linear one
m = replay(os.path.join(SRC, "traces", "default.json"))
check("no linear map, no linear entries", m["linear_tlb_entries"], 0)
check("tlb_entries of default.json", m["tlb_entries"] > 0, True)

print("%d checks passed, %d failed" % (passes, fails))
raise SystemExit(1 if fails or not passes else 0)
PY
test_done $?
