#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tools/realkernel without QEMU: the validation trace is reproducible, the converter's output
# and errors, the plugin builds, and compare.py judges a kept real-kernel run
# (tests/realkernel/data/small.*: tests/realkernel/data/small.json on Debian's
# 6.12.117+deb12-arm64) against the current model: it must pass as recorded and fail when a
# kernel shape, a counted instruction or a function count is changed, or a known difference
# goes stale.  Exit 77 without python3.
set -u
. "$(dirname "$0")/lib.sh"
RK=$VT_SRC/tools/realkernel
D=$VT_SRC/tests/realkernel/data
test_require python3
tmp=$TMP
ok() { echo "ok: $*"; }

# the bundled trace is what gen-validation.py writes
python3 "$RK/gen-validation.py" >"$tmp/v.json" && cmp -s "$tmp/v.json" "$RK/validation.json" &&
	ok "validation.json reproduces" || fail "gen-validation.py does not reproduce validation.json"

# the converter
python3 "$RK/trace2ops.py" "$D/small.json" >"$tmp/ops" || fail "trace2ops small.json"
cat >"$tmp/ops.want" <<'OPS'
vmalloc 0 16384 0
vmalloc 1 2097152 1
ioremap 2 0x10200000 0x200000
vm_map_ram 3 0:4:1
vmap 4 4:2:0
vfree 0
vfree 1
iounmap 2
vm_unmap_ram 3
vunmap 4
purge
OPS
cmp -s "$tmp/ops" "$tmp/ops.want" && ok "trace2ops small.json" || { fail "trace2ops output"; diff "$tmp/ops.want" "$tmp/ops"; }
n=$(python3 "$RK/trace2ops.py" "$RK/validation.json" | wc -l)
m=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["events"]))' "$RK/validation.json")
[ "$n" = "$m" ] && ok "one op per validation event ($n)" || fail "trace2ops: $n ops for $m events"
echo '{"format":"vmaptool-trace","version":1,"events":[{"op":"linear_map","phys":"0x80000000","size":"0x40000000"}]}' >"$tmp/lm.json"
python3 "$RK/trace2ops.py" "$tmp/lm.json" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 3 ] && grep -q 'linear_map has no module op' "$tmp/err" && ok "linear_map refused (3)" || fail "linear_map: exit $rc"
echo '{"format":"vmaptool-trace","version":1,"events":[{"op":"vfree","id":9}]}' >"$tmp/uf.json"
python3 "$RK/trace2ops.py" "$tmp/uf.json" >/dev/null 2>&1; rc=$?
[ $rc = 3 ] && ok "unmap of an unknown id refused (3)" || fail "unknown id: exit $rc"

# exact vmalloc sizes reach the kernel (not rounded to pages: the kernel rounds them)
echo '{"format":"vmaptool-trace","version":1,"events":[{"op":"vmalloc","id":1,"size":65535,"flags":["VM_ALLOW_HUGE_VMAP"]}]}' >"$tmp/ex.json"
[ "$(python3 "$RK/trace2ops.py" "$tmp/ex.json")" = "vmalloc 0 65535 1" ] && ok "vmalloc_huge(65535) stays 65535" ||
	fail "exact size: $(python3 "$RK/trace2ops.py" "$tmp/ex.json")"

# flush_tlb_kernel_range()'s TLBIs for a range (the "flushed range" rule): the first two are
# what 7.2.13 under -cpu max (LPA2, FEAT_TLBIRANGE) issued for the ranges it reported
python3 - "$RK" <<'PY' && ok "flush_tlbis, sections" || fail "flush_tlbis, sections"
import sys
sys.path.insert(0, sys.argv[1])
from compare import flush_tlbis, sections
def f(a, b, rng, lpa2, pp):
    return dict(flush_tlbis(a, b, rng, lpa2, pp))
want = [
    ((0xffff800082f21000, 0xffff800084e01000, True, True, False), {"tlbi.rvaale1is": 3, "tlbi.vaale1is": 16}),
    ((0xffff80008339d000, 0xffff800083900000, True, True, False), {"tlbi.rvaale1is": 2, "tlbi.vaale1is": 3}),
    ((0x10000, 0x10000 + 10 * 4096, False, False, True), {"tlbi.vaale1is": 10}),
    ((0x10000, 0x10000 + 513 * 4096, False, False, True), {"tlbi.vmalle1is": 1}),
    ((0x10000, 0x10000 + 512 * 4096, False, False, False), {"tlbi.vmalle1is": 1}),
    ((0x10000, 0x10000 + 4096, True, True, False), {"tlbi.vaale1is": 1}),
]
bad = [(a, f(*a), w) for a, w in want if f(*a) != w]
if sections(0xffff8000833e7000, 0x20000) != 2 or sections(0x200000, 0x200000) != 1:
    bad.append("sections")
print(bad) if bad else None
sys.exit(1 if bad else 0)
PY

# the plugin builds warning-free and exports what QEMU looks up
if command -v gcc >/dev/null; then
	gcc -O2 -shared -fPIC -Wall -Wextra -Werror -fvisibility=hidden -o "$tmp/vtinsn.so" "$RK/plugin/vtinsn.c" &&
		nm -D "$tmp/vtinsn.so" | grep -q ' T qemu_plugin_install$' &&
		nm -D "$tmp/vtinsn.so" | grep -q ' [DB] qemu_plugin_version$' &&
		ok "plugin builds and exports qemu_plugin_install, qemu_plugin_version" || fail "plugin build"
fi

# A64 decoding of the plugin's instructions
python3 - "$RK" <<'PY' && ok "decode" || fail "decode"
import sys
sys.path.insert(0, sys.argv[1])
from compare import decode
want = {0xd5033a9f: ("dsb", "ishst"), 0xd5033b9f: ("dsb", "ish"), 0xd5033fdf: ("isb", "sy"),
        0xd5033abf: ("dmb", "ishst"), 0xd5033bbf: ("dmb", "ish"), 0xd508831f: ("tlbi", "vmalle1is"),
        0xd50883e0: ("tlbi", "vaale1is"), 0xd5088360: ("tlbi", "vaae1is"),
        0xd50882e0: ("tlbi", "rvaale1is"), 0xd503201f: ("other", "0xd503201f")}
bad = [(hex(w), decode(w), k) for w, k in want.items() if decode(w) != k]
print(bad) if bad else None
sys.exit(1 if bad else 0)
PY

# compare.py on the kept run
"$VT_BIN" replay -q --kernel=v6.12 --va-bits=52 --cpus=1 --strategy=zigzag \
	--per-event="$tmp/model.jsonl" -o /dev/null "$D/small.json" || fail "replay small.json"
run() { # PLUGIN-RUN PLUGIN FTRACE KNOWN -> exit status of compare.py
	python3 "$RK/compare.py" --trace="$D/small.json" --model="$tmp/model.jsonl" \
		--kallsyms="$D/small.kallsyms.txt" --plugin-run="$1" --plugin="$2" --ftrace="$3" \
		--known="$4" --vmaptool="$VT_BIN" --out="$tmp" --doc="$tmp/doc.md" \
		--release=6.12.117+deb12-arm64 --kernel-config=/dev/null >"$tmp/cmp.out" 2>&1
}
: >"$tmp/none"
P=$D/small.out-plugin.txt; S=$D/small.plugin.txt; F=$D/small.out-ftrace.txt
run "$P" "$S" "$F" "$tmp/none"; rc=$?
if [ $rc = 0 ] && grep -q '0 unexplained' "$tmp/cmp.out" && grep -q '^\*\*Result: ' "$tmp/doc.md"; then
	ok "the kept run agrees with the model"
else
	fail "the kept run: exit $rc"; cat "$tmp/cmp.out"
fi
grep -q 'import round trip: .* imported events' "$tmp/cmp.out" && ok "import round trip ran" || fail "no round trip"
# a kernel shape changed: the vmalloc of 4 pages had 5 PTEs
sed '0,/^VT 0 R op=vmalloc/s/ pte=4 / pte=5 /' "$P" >"$tmp/p1"
run "$tmp/p1" "$S" "$F" "$tmp/none"; rc=$?
[ $rc = 1 ] && grep -q '^DIFF   0 vmalloc      shape' "$tmp/cmp.out" && ok "a shape difference fails" ||
	{ fail "shape difference: exit $rc"; cat "$tmp/cmp.out"; }
cp "$tmp/cmp.out" "$tmp/p1.out"
# one more tlbi vaale1is executed in the first operation's bracket
seq0=$(awk '$1 == "C" { n++ } $1 == "C" && n == 4 { print $2; exit }' "$S")
{ cat "$S"; echo "S $seq0 0xffff800080000000 0xd50883e0 1 0"; } >"$tmp/s1"
run "$P" "$tmp/s1" "$F" "$tmp/none"; rc=$?
[ $rc = 1 ] && grep -q '^DIFF   0 vmalloc      instructions.*tlbi.vaale1is 1' "$tmp/cmp.out" &&
	ok "an instruction difference fails" || { fail "instruction difference: exit $rc"; cat "$tmp/cmp.out"; }
# one more pmd_set_huge in the ftrace boot's first operation
awk '{ print } /tracing_mark_write: vtop 0 / { sub(/tracing_mark_write: vtop 0 .*/, "pmd_set_huge: (pmd_set_huge+0x0/0x118) pmdp=0x0 phys=0x0"); print }' "$F" >"$tmp/f1"
run "$P" "$S" "$tmp/f1" "$tmp/none"; rc=$?
[ $rc = 1 ] && grep -q '^DIFF   0 vmalloc      block maps' "$tmp/cmp.out" && ok "a function count difference fails" ||
	{ fail "function count difference: exit $rc"; cat "$tmp/cmp.out"; }
# a page-allocator call inside the first operation's bracket (kp/vt_open .. kp/vt_close):
# the model's vmalloc frees nothing
awk '{ print } /tracing_mark_write: vtop 0 / {
	print "            init-1       [000] d....    10.000001: vt_open: (vt_open+0x0/0x20 [vtprobe])"
	print "            init-1       [000] d....    10.000002: pa_free_frozen: (__free_frozen_pages+0x0/0x30) order=0"
	print "            init-1       [000] d....    10.000003: vt_close: (vt_close+0x0/0x18 [vtprobe])" }' "$F" >"$tmp/f2"
run "$P" "$S" "$tmp/f2" "$tmp/none"; rc=$?
[ $rc = 1 ] && grep -q '^DIFF   0 vmalloc      page allocator kernel pa_free_frozen 1, model free_calls 0' "$tmp/cmp.out" &&
	ok "a page-allocator difference fails" || { fail "page-allocator difference: exit $rc"; cat "$tmp/cmp.out"; }
# ... outside the bracket (the shell's own work) it is not counted
awk '{ print } /tracing_mark_write: vtop 0 / {
	print "            init-1       [000] d....    10.000001: pa_free_frozen: (__free_frozen_pages+0x0/0x30) order=0"
	print "            init-1       [000] d....    10.000002: vt_open: (vt_open+0x0/0x20 [vtprobe])"
	print "            init-1       [000] d....    10.000003: vt_close: (vt_close+0x0/0x18 [vtprobe])" }' "$F" >"$tmp/f3"
run "$P" "$S" "$tmp/f3" "$tmp/none"
grep -q '^DIFF   0 vmalloc      page allocator' "$tmp/cmp.out" && fail "a call outside the bracket was counted" ||
	ok "calls outside the bracket are not counted"
# a known difference that is not seen
echo '0 vmalloc shape: kernel pte 9 cont 0 pmd 0 pud 0, model pte 4 cont 0 pmd 0 pud 0 | x' >"$tmp/k1"
run "$P" "$S" "$F" "$tmp/k1"; rc=$?
[ $rc = 1 ] && grep -q 'stale' "$tmp/cmp.out" && ok "a stale known difference fails" || fail "stale known: exit $rc"
# ... and one that is seen is accepted
sed -n 's/^DIFF   0 vmalloc      shape        \(.*\)$/0 vmalloc shape: \1 | test/p' "$tmp/p1.out" >"$tmp/k2"
run "$tmp/p1" "$S" "$F" "$tmp/k2"; rc=$?
[ $rc = 0 ] && grep -q 'known 1' "$tmp/cmp.out" && ok "a listed difference is accepted" || { fail "listed known: exit $rc"; cat "$tmp/cmp.out"; }
test_done
