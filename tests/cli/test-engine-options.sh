#!/usr/bin/env bash
# Engine options that the worked examples do not reach: --use-trace-va.
set -u
. "$(dirname "$0")/lib.sh"
test_require python3
pass=0
D=$VT_SRC/tests/data/engine
check() {	# name, condition-exit-status
	if [ "$2" -eq 0 ]; then echo "ok   $1"; pass=$((pass + 1));
	else fail "$1"; fi
}

# every area lands at the recorded va, under every strategy
out=$("$VT_BIN" replay --use-trace-va --per-event --strategy=pagewise,zigzag,batched,segments:force "$D/trace-va.json")
rc=$?
check "use-trace-va replays" $rc
printf '%s\n' "$out" | python3 -c '
import json, sys
want = {0: 0xffff800080200000, 1: 0xffff800090000000, 2: 0xffff8000a0000000}
for line in sys.stdin:
    r = json.loads(line)
    if r["index"] in want and int(r["va"], 16) != want[r["index"]]:
        sys.exit("event %d (%s): va %s" % (r["index"], r["strategy"], r["va"]))
'
check "use-trace-va places every area at its recorded va" $?

# without the option the allocator chooses (lowest fit from VMALLOC_START)
va0=$("$VT_BIN" replay --per-event --strategy=zigzag "$D/trace-va.json" | python3 -c '
import json, sys
print(json.loads(sys.stdin.readline())["va"])')
[ "$va0" = 0xffff800080000000 ]
check "without --use-trace-va the first area is at VMALLOC_START" $?

# a recorded va over a live area is bad input: exit 3, the event named
err=$("$VT_BIN" replay --use-trace-va --strategy=zigzag "$D/trace-va-overlap.json" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 3 ] && printf '%s' "$err" | grep -q 'overlaps' && printf '%s' "$err" | grep -q 'event 1'
check "use-trace-va overlap exits 3 naming event 1" $?

# vm_map_ram: <= 64 pages come from a vmap block (vb_alloc: 2^order pages
# in sequence, no guard); vb_free only records a dirty range, flushed by
# vm_unmap_aliases(); > 64 pages get their own area, freed lazily
"$VT_BIN" replay --per-event --strategy=zigzag "$D/vm-map-ram.json" | python3 -c '
import json, sys
ev = {}
for line in sys.stdin:
    r = json.loads(line)
    ev.setdefault(r["index"], []).append(r)
def one(i):
    assert len(ev[i]) == 1, ev[i]
    return ev[i][0]
base = int(one(0)["va"], 16)
assert base == 0xffff800080000000, hex(base)
assert int(one(1)["va"], 16) == base + 4 * 4096        # order 2 after order 2
assert one(2)["metrics"]["pte_clears"] == 4
assert one(3)["metrics"]["pte_clears"] == 3           # the 3 pages, not the order-2 slot
m = one(4)["metrics"]                                  # dirty [0, 8) pages flushed
assert m["tlbi"] == 8 and m["tlbi_by_kind"]["vaale1is"] == 8, m
assert m["purges"] == 0, m                             # no lazy area: a plain flush
a = one(5)
assert int(a["va"], 16) == base + (1024 << 12), a["va"]   # after the 4 MiB block
assert one(6)["metrics"]["pte_clears"] == 65          # no guard page
m = one(7)["metrics"]
assert m["purges"] == 1 and m["purged_pages"] == 65 and m["tlbi"] == 65, m
'
check "vm_map_ram blocks, dirty-range flush, large areas" $?

# flush_tlb_kernel_range() of a 512-page span (511 pages + guard): v6.12 and
# --kernel-flush=per-page issue 512 vaale1is (full flush only above 512),
# newer kernels flush all without TLBIRANGE (>= MAX_DVM_OPS) or use one
# range op with it
purge_tlbi() {
	"$VT_BIN" replay -j --per-op --strategy=zigzag "$@" "$D/vmap-511.json" |
	python3 -c 'import json,sys; p=json.load(sys.stdin)["traces"][0]["strategies"][0]["per_op"]["purge"]; k=p["tlbi_by_kind"]; print(p["tlbi"], k["vaale1is"], k["vmalle1is"], k["rvaale1is"])'
}
[ "$(purge_tlbi --kernel=v6.12)" = "512 512 0 0" ]
check "v6.12: 512 pages are 512 vaale1is" $?
[ "$(purge_tlbi --kernel=v6.12 --tlbi-range)" = "512 512 0 0" ]
check "v6.12: no range ops for kernel ranges even with TLBIRANGE" $?
[ "$(purge_tlbi --kernel-flush=per-page)" = "512 512 0 0" ]
check "--kernel-flush=per-page alone" $?
[ "$(purge_tlbi)" = "1 0 1 0" ]
check "mainline without TLBIRANGE: 512 pages is a full flush" $?
[ "$(purge_tlbi --tlbi-range)" = "1 0 0 1" ]
check "mainline with TLBIRANGE: one range op" $?

# vmap() refuses VM_FLUSH_RESET_PERMS outright: bad input
"$VT_BIN" replay --strategy=zigzag "$D/vmap-reset-perms.json" >/dev/null 2>&1
[ $? -eq 3 ]
check "vmap with VM_FLUSH_RESET_PERMS exits 3" $?

echo "$pass passed, $(test_failures) failed"
test_done
