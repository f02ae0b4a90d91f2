#!/usr/bin/env bash
# The divergences from mm/vmalloc.c of issue 15, one minimal trace each
# (tests/data/fidelity/), with the kernel's counts argued from the source.
#
# Sources: mm/vmalloc.c of linux-mm/linux-mm @ 00cc00cd1fb6 (the baseline
# of vmalloc-paths.md; __vmalloc_node_range_noprof(), __vmalloc_area_node(),
# vm_area_alloc_pages(), new_vmap_block(), vb_alloc(), vb_free(),
# _vm_unmap_aliases(), vfree() read there and unchanged in the newer
# e7e1a07bffed but for Barry Song's vm_shift()), and
# arch/arm64/include/asm/vmalloc.h @ 47729a9d66f7
# (arch_vmap_pte_supported_shift()).  Geometry 4K/48, --initial=booted,
# mainline defaults, 8 CPUs; R = VMALLOC_START = 0xffff800080000000, which
# is 4 MiB aligned; "region k" is the 2 MiB at R + k * 2 MiB.
set -u
. "$(dirname "$0")/lib.sh"
test_require python3
pass=0
D=$VT_SRC/tests/data/fidelity
check() {	# name, condition-exit-status
	if [ "$2" -eq 0 ]; then echo "ok   $1"; pass=$((pass + 1));
	else fail "$1"; fi
}
# per_event TRACE STRATEGY PYTHON: the per-event lines as ev[index] = [lines]
per_event() {
	"$VT_BIN" replay --per-event --verify --strategy="$2" "$D/$1" |
	python3 -c '
import json, sys
ev = {}
for line in sys.stdin:
    r = json.loads(line)
    ev.setdefault(r["index"], []).append(r)
def one(i, op=None):
    l = [r for r in ev[i] if op is None or r["op"] == op]
    assert len(l) == 1, ev[i]
    return l[0]
def m(i, op=None):
    return one(i, op)["metrics"]
def va(i):
    return int(one(i)["va"], 16)
R = 0xffff800080000000
K = 4096
'"$3"
}

# ---- case 1: a huge vmalloc whose pages cannot be of its order ----------
#
# vmalloc_huge(2 MiB) given 256 pages at pfn 0x80000 and 256 at 0x90000.
# __vmalloc_node_range_noprof(): size >= PMD_SIZE -> shift = PMD_SHIFT,
# align = 2 MiB; __get_vm_area_node() -> [R, R + 2M + 4K).
# __vmalloc_area_node(): array 512 * 8 = 4096 bytes: kmalloc.
# vm_area_alloc_pages(order 9) hands out only naturally aligned
# 2^9-page blocks (alloc_pages(order 9), or split higher blocks): the
# given array is two runs, so the kernel could not have got it at order 9
# -> nr_pages short -> "goto fail" -> defer_vm_area_cleanup(area), and
# "fail:" retries with shift = PAGE_SHIFT, align = original_align (1).
# The failed area is still busy (the cleanup is a work item), so the
# retry's __get_vm_area_node(2M, 1, PAGE_SHIFT) takes [R+2M+4K, R+4M+8K);
# __vmap_pages_range() at PAGE_SHIFT = one page-array walk over regions 1
# (511 pages) and 2 (1 page): walk_steps 1 + 1 + 2, 2 PTE tables (cold),
# 512 set_pte_at, lazy pairs 2 + install pairs 2 = dsb/isb 4; dmb 2
# (tables) + 1 (clear_vm_uninitialized_flag()).  Then
# cleanup_vm_area_work() -> vfree(failed): remove_vm_area() ->
# free_unmap_vmap_area() -> one vunmap walk over [R, R+2M+4K): region 0's
# PMD entry is none, region 1's holds the retry's table: 1 pte_clear
# (ptep_get_and_clear() of the never-mapped slot R+2M); walk_steps 4.
# Totals: walks 2, steps 8, pte 512, clears 1, tables 2, dmb 3, dsb 4.
per_event huge-fallback-pmd.json zigzag '
e = one(0)
assert e.get("huge_fallback") is True, e
assert va(0) == R + 2 * 2**20 + K, hex(va(0))
want = dict(table_walks=2, walk_steps=8, pte_writes=512, set_pte_at_calls=512,
            set_huge_pte_at_calls=0, block_maps=0, pte_clears=1,
            tables_allocated=2, pmd_writes=2, dmb=3, dsb=4, isb=4, tlbi=0,
            mismapped_pages=0)
for k, v in want.items():
    assert m(0)[k] == v, (k, m(0)[k], v)
assert e["shape"] == dict(pte=512, pte_cont=0, pmd_block=0, pud_block=0), e["shape"]
# vfree: one walk over [R+2M+4K, R+4M+8K): 511 + 1 pages + the guard
assert m(1)["pte_clears"] == 513 and m(1)["walk_steps"] == 4, m(1)
'
check "case 1: vmalloc_huge(2M) of two 1 MiB runs falls back to PAGE_SHIFT" $?

# The same under every strategy with the huge path: no mis-mapped page.
"$VT_BIN" replay -j --verify --strategy=zigzag,batched,batched@123456,segments,segments:force \
	"$D/huge-fallback-pmd.json" | python3 -c '
import json, sys
for s in json.load(sys.stdin)["traces"][0]["strategies"]:
    assert s["metrics"]["mismapped_pages"] == 0, s["name"]
    assert s["metrics"]["block_maps"] == 0, s["name"]
'
check "case 1: no strategy maps a PMD block over the two runs" $?

# A recorded fallback: vmalloc_huge(3 MiB) with its 768 small pages.
# shift = PMD_SHIFT, align 2M; __get_vm_area_node() rounds the size to
# 4 MiB: [R, R+4M+4K); its array 1024 * 8 = 8 KiB > PAGE_SIZE is a nested
# __vmalloc_node(8192, 1): [R+4M+4K, R+4M+16K), 2 PTEs in region 2 (one
# table, one install pair, one lazy pair, one dmb of its own
# clear_vm_uninitialized_flag()).  768 pages cannot be 1024 -> fail ->
# retry at PAGE_SHIFT: [R+4M+16K, R+7M+20K); its array 768 * 8 = 6 KiB:
# nested [R+7M+20K, R+7M+32K) in region 3 (table, pairs, dmb); then the
# 768 pages: regions 2 (508) and 3 (260), tables present: steps 4, two
# lazy pairs; dmb 1.  Cleanup: vfree(failed): vunmap walk over
# [R, R+4M+4K) (steps 5, 1 clear of slot R+4M under region 2's table),
# kvfree(array) -> vfree(nested): 3 clears, steps 3.
# Totals: walks 1+1+1+2 = 5; steps 3+3+4+5+3 = 18; pte 2+2+768 = 772;
# clears 4; tables 2; dmb 2+3 = 5; dsb = isb = 2 installs + 4 lazy = 6.
per_event huge-fallback-3m.json zigzag '
e = one(0)
assert e.get("huge_fallback") is True, e
assert va(0) == R + 4 * 2**20 + 16 * 1024, hex(va(0))
want = dict(table_walks=5, walk_steps=18, pte_writes=772, pte_clears=4,
            tables_allocated=2, pmd_writes=2, dmb=5, dsb=6, isb=6,
            block_maps=0, mismapped_pages=0)
for k, v in want.items():
    assert m(0)[k] == v, (k, m(0)[k], v)
assert e["shape"]["pte"] == 768, e["shape"]
'
check "case 1: a recorded 3 MiB fallback with 768 pages replays" $?

# A page count that neither the huge nor the small size can have is bad
# input; so is a huge count of pages that are not order-9 blocks when the
# fallback would need fewer pages.
python3 - "$D/huge-fallback-3m.json" > "${TMPDIR:-/tmp}/vt-fid-bad.$$.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["events"][0]["pages"] = [{"pfn": "0x80000", "count": 1000}]
json.dump(d, sys.stdout)
PY
err=$("$VT_BIN" replay --strategy=zigzag "${TMPDIR:-/tmp}/vt-fid-bad.$$.json" 2>&1 >/dev/null)
rc=$?
rm -f "${TMPDIR:-/tmp}/vt-fid-bad.$$.json"
[ $rc -eq 3 ] && printf '%s' "$err" | grep -q '768 pages (1024 at its huge order) given 1000'
check "case 1: 1000 pages for a 3 MiB vmalloc_huge is exit 3" $?

# ---- case 2: the huge shift comes from the caller's size ----------------
#
# __vmalloc_node_range_noprof() tests the raw size: 65535 < PMD_SIZE and
# arch_vmap_pte_supported_shift(65535) = PAGE_SHIFT (65535 < CONT_PTE_SIZE):
# shift 12, align 1; __get_vm_area_node() then rounds to 16 pages:
# one page-array walk, 16 set_pte_at, no CONT.  2 MiB - 1 < PMD_SIZE:
# arch_vmap_pte_supported_shift() = CONT_PTE_SHIFT, align 64K, size
# rounded to 2 MiB; vm_area_alloc_pages(order 4, 512) gets one order-9
# block (ilog2(512) = 9 > 4); __vmap_pages_range_noflush() maps 32 chunks
# of 64K with vmap_range_noflush() each: 32 walks of 3 steps, 32
# set_huge_pte_at of 16 PTEs; the area is at R+128K (after the first one's
# 16 pages + guard, 64K aligned): chunks 0-29 in region 0 (its table
# exists), 30-31 in region 1 (1 table, 1 install pair): dsb 32 + 1.
per_event huge-raw-size.json zigzag '
assert m(0)["pte_writes"] == 16 and m(0)["set_pte_at_calls"] == 16, m(0)
assert m(0)["cont_ranges"] == 0 and m(0)["set_huge_pte_at_calls"] == 0, m(0)
assert va(1) == R + 128 * 1024, hex(va(1))
want = dict(table_walks=32, walk_steps=96, pte_writes=512,
            set_huge_pte_at_calls=32, cont_ranges=32, block_maps=0,
            tables_allocated=1, dsb=33, isb=33, dmb=2)
for k, v in want.items():
    assert m(1)[k] == v, (k, m(1)[k], v)
assert not any("huge_fallback" in one(i) for i in (0, 1))
'
check "case 2: vmalloc_huge(65535) is 16 PTEs, (2 MiB - 1) 32 CONT chunks" $?

# ---- case 3: vm_map_ram takes the oldest vmap block with room ----------
#
# VMAP_BBMAP_BITS = 1024 (4K).  Ids 1-15 (64 pages) and 16 (32 pages)
# fill block A = [R, R+4M) up to 992 pages (vb->free 32).  Id 17 (64
# pages, order 6) does not fit A: new_vmap_block() puts B = [R+4M, R+8M)
# at the TAIL of the per-CPU free list (list_add_tail_rcu) and takes B's
# pages 0-63.  Id 18 (1 page, order 0): vb_alloc() walks the list from
# the head and takes A, the oldest block with vb->free >= 1: A + 992
# pages.  vm_unmap_ram(18) -> vb_free(): dirty [992, 993) in A;
# vm_unmap_ram(17): dirty [0, 64) in B.  purge = vm_unmap_aliases():
# neither block is purgeable (A: free 31 + dirty 1 != 1024; B: free 960
# is not < VMAP_PURGE_THRESHOLD 256); the dirty ranges merge to
# [A+992p, B+64p) = 96 pages; nothing is lazy, so
# flush_tlb_kernel_range() of 96 pages: 96 vaale1is (< MAX_DVM_OPS = 512
# without TLBIRANGE), dsb 2, isb 1.  (Newest first, id 18 would go to
# B + 64 and the flush would be [B, B+65p): 65 pages.)
per_event vmap-block-order.json zigzag '
assert va(17) == R + 992 * K, hex(va(17))
assert va(16) == R + 4 * 2**20, hex(va(16))
p = m(20, "purge")
assert p["tlbi"] == 96 and p["tlbi_by_kind"]["vaale1is"] == 96, p
assert p["purges"] == 0 and p["dsb"] == 2 and p["isb"] == 1, p
assert m(18)["pte_clears"] == 1 and m(19)["pte_clears"] == 64
'
check "case 3: vb_alloc() takes the oldest block; the purge flushes 96 pages" $?

# ---- case 4: vfree of a VM_MAP_PUT_PAGES vmap ---------------------------
#
# vmap(..., VM_MAP | VM_MAP_PUT_PAGES) hands the array and the page
# references to the area; vfree() -> remove_vm_area() ->
# free_unmap_vmap_area(): one vunmap walk over the 4 pages + guard (5
# clears, 3 steps), lazy VA; then, VM_MAP_PUT_PAGES, no NR_VMALLOC update,
# the pages and kvfree(vm->pages).  The second vmap has no
# VM_MAP_PUT_PAGES: its vfree stays bad input (exit 3), as vmaptool's
# ops pair vmap with vunmap.
out=$("$VT_BIN" replay --per-event --strategy=zigzag "$D/vfree-put-pages.json" 2>/dev/null)
rc=$?
[ $rc -eq 3 ] && printf '%s\n' "$out" | python3 -c '
import json, sys
ev = [json.loads(l) for l in sys.stdin]
assert [e["op"] for e in ev] == ["vmap", "vfree", "vmap"], ev
m = ev[1]["metrics"]
assert m["pte_clears"] == 5 and m["table_walks"] == 1 and m["walk_steps"] == 3, m
'
check "case 4: vfree of a VM_MAP_PUT_PAGES vmap unmaps it; of a plain vmap, exit 3" $?

# ---- case 5 (engine part): the module area ------------------------------
#
# arch/arm64/include/asm/memory.h (linux-mm @ ebd6d10c4a53): MODULES_VADDR
# = _PAGE_END(VA_BITS_MIN) = 0xffff800000000000 on 4K/48, MODULES_VSIZE =
# SZ_2G, MODULES_END = VMALLOC_START.  execmem_alloc() (module text, BPF)
# calls __vmalloc_node_range(size, align, start, end, ...) with a range
# inside it; alloc_vmap_area() takes the lowest fit at or above vstart
# (find_vmap_lowest_match()).  A vmalloc with "range": "modules" lands at
# MODULES_VADDR, one without at VMALLOC_START; under --use-trace-va the
# recorded execmem address is kept.  Under --initial=booted the module
# area's first GiB has no PMD table (no module loaded; docs/model.md,
# "Initial page tables"): the first walk there allocates it (__pmd_alloc(),
# one set_pud()) and a PTE table; VMALLOC_START, the image's GiB, has one.
per_event modules-range.json zigzag '
assert va(0) == 0xffff800000000000, hex(va(0))
assert va(1) == R, hex(va(1))
assert va(2) == 0xffff800000000000 + 3 * K, hex(va(2))
for i, tables, puds in ((0, 2, 1), (1, 1, 0)):
    assert m(i)["pte_writes"] == 2 and m(i)["tables_allocated"] == tables, m(i)
    assert m(i)["pud_writes"] == puds, m(i)
assert m(3)["pte_clears"] == 3
'
check "case 5: a module-range vmalloc takes its VA from MODULES_VADDR" $?
"$VT_BIN" replay --use-trace-va --per-event --strategy=zigzag "$D/modules-range.json" |
python3 -c '
import json, sys
ev = [json.loads(l) for l in sys.stdin]
assert int(ev[2]["va"], 16) == 0xffff80007ab3c000, ev[2]["va"]
'
check "case 5: --use-trace-va keeps a recorded execmem address" $?
sed 's/"va":"0xffff80007ab3c000"/"va":"0xffff800090000000"/' "$D/modules-range.json" |
	"$VT_BIN" replay --use-trace-va --strategy=zigzag /dev/stdin 2>&1 >/dev/null |
	grep -q 'outside the module area'
check "case 5: a module-range vmalloc recorded in the vmalloc area is exit 3" $?
printf '%s\n' '{"format":"vmaptool-trace","version":1,"events":[{"op":"vmap","id":1,"range":"modules","pages":[{"pfn":1}]}]}' |
	"$VT_BIN" replay --strategy=zigzag /dev/stdin 2>&1 >/dev/null | grep -q 'only a vmalloc'
check "case 5: a range on a vmap is a schema error" $?

# ---- case 5 (import part): vm_map_ram from a recording ------------------
#
# tests/data/import/vm-map-ram.txt is what 6.12 records for
# lib/test_vmalloc.c's vm_map_ram_test (3 x vm_map_ram(1 page), then one
# of 100 pages): vm_map_ram() -> vb_alloc() -> new_vmap_block() (one
# alloc_vmap_area(4 MiB, 4 MiB) for the first) -> vmap_pages_range() (the
# vmap_pages/vmap_small kprobes, addr/end); vm_unmap_ram() -> vb_free() ->
# vunmap_range_noflush() (the vunmap_range kprobe, no
# free_vmap_area_noflush()); > VMAP_MAX_ALLOC pages: alloc_vmap_area(size,
# PAGE_SIZE) without a guard, freed with free_unmap_vmap_area().  The
# walker kprobes add up to 1 + 1 + 1 + 100 = 103 PTEs; the replay of the
# import writes as many, and clears as many (vb_free() clears the mapped
# pages only; the large area has no guard page).
imp=$("$VT_BIN" import "$VT_SRC/tests/data/import/vm-map-ram.txt" -o "${TMPDIR:-/tmp}/vt-fid-vmr.$$.json" 2>&1)
rc=$?
[ $rc -eq 0 ] && printf '%s\n' "$imp" | grep -q 'vm_map_ram 4/4' &&
"$VT_BIN" replay -j --kernel=v6.12 --va-bits=52 --strategy=zigzag \
	"${TMPDIR:-/tmp}/vt-fid-vmr.$$.json" | python3 -c '
import json, sys
m = json.load(sys.stdin)["traces"][0]["strategies"][0]["metrics"]
assert m["pte_writes"] == 103 and m["pte_clears"] == 103, m
' && "$VT_BIN" replay --use-trace-va --per-event --kernel=v6.12 --va-bits=52 \
	--strategy=zigzag "${TMPDIR:-/tmp}/vt-fid-vmr.$$.json" | python3 -c '
import json, sys
va = [int(json.loads(l)["va"], 16) for l in sys.stdin]
want = [0xffff800083400000, 0xffff800083401000, 0xffff800083402000, 0xffff800083800000]
assert va[0::2] == want, [hex(v) for v in va]
'
rc=$?
rm -f "${TMPDIR:-/tmp}/vt-fid-vmr.$$.json"
check "case 5: vm_map_ram/vm_unmap_ram are imported and replay the recorded 103 PTEs" $rc

# ---- the booted page tables (--initial=booted) ----------------------------
#
# docs/model.md, "Initial page tables": a booted kernel has a PMD table
# under the kernel image's PUD entry (R's GiB, map_kernel() in
# arch/arm64/kernel/pi/map_kernel.c) and none under the next one.
# vmap_try_huge_pud() (mm/vmalloc.c, linux-mm @ e7e1a07bffed) frees a PMD
# table only "if (pud_present(*pud) && !pud_free_pmd_page(pud, addr))".
# A 4 KiB ioremap at R takes a PTE table only (1 table, 1 set_pmd()); the
# 1 GiB ioremap (alignment 2^IOREMAP_MAX_ORDER = 1 GiB) lands at R + 1 GiB:
# pud_set_huge() alone, no table freed, no TLBI, one dsb ishst + isb of
# set_pud() (Debian 6.12 does exactly this: docs/validation.md, event
# 105).  Placed at R itself, the same ioremap finds the image's PMD table
# (empty in the model, which does not reserve the image's VA) and frees it:
# pud_free_pmd_page() -> pud_clear() + __flush_tlb_kernel_pgtable().
per_event booted-pud-ioremap.json zigzag '
assert va(0) == R and va(1) == R + (1 << 30), (hex(va(0)), hex(va(1)))
a = m(0)
assert a["tables_allocated"] == 1 and a["pmd_writes"] == 1 and a["pud_writes"] == 0, a
b = m(1)
assert b["block_maps"] == 1 and b["pud_writes"] == 1 and b["tables_freed"] == 0, b
assert b["tables_allocated"] == 0 and b["tlbi"] == 0 and b["pud_clears"] == 0, b
assert b["dsb_by_kind"] == {"ish": 0, "ishst": 1} and b["isb"] == 1, b
' && per_event booted-pud-image.json zigzag '
assert va(0) == R, hex(va(0))
a = m(0)
assert a["block_maps"] == 1 and a["tables_freed"] == 1 and a["pud_clears"] == 1, a
assert a["tlbi_by_kind"]["vaae1is"] == 1 and a["dsb_by_kind"]["ish"] == 1, a
'
check "booted: a 1 GiB ioremap on a PUD entry left none at boot is pud_set_huge() alone" $?

echo "$pass passed, $(test_failures) failed"
test_done
