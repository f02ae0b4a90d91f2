#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A vmalloc of more than 2^31 pages (8 TiB + 2 MiB on 4K, VM_ALLOW_HUGE_VMAP)
# and its vfree replay with exact counts: the page runs, their counts and
# the page array's lookups are 64-bit or checked (core/mm/vmalloc.c
# runs_append(), area_keep_runs_prefix(); core/mm/walk.h VT_RUNS_MAX), so
# nothing wraps at 2^31 or 2^32 pages.  Huge mappings keep the page
# tables small (one PMD block per 512 pages; the page-pointer arrays are
# mapped with PTEs).
set -u
. "$(dirname "$0")/lib.sh"
test_require python3
python3 - <<'PY'
import json, os, subprocess, sys, tempfile

BIN = os.environ["VT_BIN"]
N = (1 << 31) + 512          # pages of the vmalloc: 2^31 + one PMD block
fails = 0

with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    f.write('{"format":"vmaptool-trace","version":1,'
            '"config":{"granule":"4k","va_bits":48},"events":[\n'
            '{"op":"vmalloc","id":1,"size":%d,"flags":["VM_ALLOW_HUGE_VMAP"]},\n'
            '{"op":"vfree","id":1}\n]}\n' % (N * 4096))
    path = f.name
try:
    p = subprocess.run([BIN, "replay", "-j", "--verify",
                        "--strategy=zigzag+vfree-bulk,batched-v2",
                        path], stdout=subprocess.PIPE, universal_newlines=True)
finally:
    os.unlink(path)
if p.returncode:
    print("FAIL: exit %d" % p.returncode)
    sys.exit(1)


def pages(nbytes):
    return -(-nbytes // 4096)


# __vmalloc_area_node(): the page-pointer array (8 bytes a page) is itself
# vmalloc'd (not huge) when over a page, down to one that fits a page.
areas = [N]
while areas[-1] * 8 > 4096:
    areas.append(pages(areas[-1] * 8))
allocated = sum(areas)       # 2^31+512, 2^22+1, 8193, 17


def bulk_free_calls(n):
    # one stretch per area (fresh buddy memory, aligned to MAX_PAGE_ORDER):
    # free_prepared_contig_range() frees 2^10-page blocks, then the rest
    # by its binary decomposition
    return (n >> 10) + bin(n & 1023).count("1")


# Each array is one stretch of contiguous pages except where its last page
# comes from the order-0 pcp list: the 17-page array (allocated first,
# innermost first) takes 16 pages from the buddy and its 17th from a fresh
# refill of that list; the 8193- and 2^22+1-page arrays take their last
# page from what is left on it, away from their blocks: two stretches each.
# (vfree-perpage, 2^31 __free_page() calls, would take minutes under ASan.)
want = {
    "zigzag+vfree-bulk": {"pages_allocated": allocated, "pages_freed": allocated,
                          "free_calls": sum(bulk_free_calls(a) for a in areas),
                          "contig_range_calls": len(areas) + 2,
                          "block_maps": N // 512, "pte_writes": sum(areas[1:]),
                          "mismapped_pages": 0},
}
want["batched-v2"] = dict(want["zigzag+vfree-bulk"])

for s in json.loads(p.stdout)["traces"][0]["strategies"]:
    name = s.get("name", s.get("strategy"))
    m = s["metrics"]
    for k, v in want.get(name, {}).items():
        if k not in m:
            continue
        if m[k] != v:
            print("FAIL %s: %s = %s, want %s" % (name, k, m[k], v))
            fails += 1
        else:
            print("ok %s: %s = %s" % (name, k, v))
print("%d failures" % fails)
sys.exit(1 if fails else 0)
PY
test_done $?
