#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# compare --summary (docs/vmaptool-compare.md, "Summary"): every line of
# at most 72 columns and plain ASCII in the C locale, whatever the input
# (a long path, a path and meta that are not ASCII, a long strategy list,
# many metrics); --metrics and its usage errors; the speed-up's range is
# over the profiles that apply (FEAT_TLBIRANGE as the run's) and names
# its ends; the footer names where the trace came from (gen's command,
# import's recording).  The goldens compare-summary-{text,mail,json} hold
# whole outputs.
set -u
. "$(dirname "$0")/lib.sh"
V=$VT_BIN
T=$VT_SRC/traces

# check_block FILE: <= 72 columns, bytes 0x09-0x7e and newlines only
check_block() {
	awk -v f="$1" 'length($0) > 72 { printf "FAIL %s:%d: %d columns: %s\n", f, NR, length($0), $0; bad = 1 }
		END { exit bad }' "$1" || fail "$1: a line over 72 columns"
	if LC_ALL=C grep -q -P '[^\x0a\x20-\x7e]' "$1"; then
		fail "$1: not printable ASCII"
		LC_ALL=C grep -n -P '[^\x0a\x20-\x7e]' "$1" | head -3
	fi
}

# a long directory and one that is not ASCII, a meta command longer than a line
long=$TMP/a-directory-whose-name-is-long-enough-to-need-more-than-one-line-of-mail
mkdir -p "$long" "$TMP/caf$(printf '\303\251')"
cp "$T/systemheap-128m.json" "$long/trace.json"
python3 - "$T/vmap-order8.json" "$TMP/caf$(printf '\303\251')/t.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["meta"] = {"source": "vmaptool gen", "command": "vmaptool gen " + "--x=\u00e9\u2192 " * 30 + "--" + "y" * 100}
json.dump(d, open(sys.argv[2], "w"))
PY
for fmt in table mail; do
	run sum-$fmt 0 '' env LC_ALL=C "$V" compare --summary --format=$fmt "$long/trace.json" \
		"$TMP/caf$(printf '\303\251')/t.json"
	cp "$TMP/stdout" "$TMP/$fmt.out"
	check_block "$TMP/$fmt.out"
	grep -q '^from: vmaptool gen systemheap --granule=4k' "$TMP/$fmt.out" ||
		fail "$fmt: the footer does not give gen's command"
	grep -q '^made with vmaptool [0-9.]* (commit [0-9a-z-]*)$' "$TMP/$fmt.out" ||
		fail "$fmt: no version and commit line"
done
cmp -s "$TMP/table.out" "$TMP/mail.out" || fail "--summary: table and mail differ"
# the ablation's eight strategies and every metric the default list has and more
run sum-many 0 '' "$V" compare --summary --ablation --strategy=pagewise,batched \
	--metrics=pte_writes,pte_clears,pmd_writes,set_pte_at_calls,set_huge_pte_at_calls,cont_ranges,tlbi,tlbi_by_kind.vmalle1is,dsb,dsb_by_kind.ishst,isb,dmb,tables_allocated,tlb_entries,cycles,ns \
	"$long/trace.json"
check_block "$TMP/stdout"
grep -q 'x (altra-metal) \.\. ' "$TMP/stdout" || fail "--ablation: no speed-up range"

# a strategy name longer than a line (the strategy grammar's axes)
run sum-long-name 0 '' "$V" compare --summary \
	--strategy=pagewise,batched@12345678+vfree-bulk,zigzag+vfree-bulk,mainline+vfree-perpage \
	"$T/vmap-order8.json"
check_block "$TMP/stdout"

# the table is unchanged without --summary
# --cost-of: the block says which part its speed-up prices
"$V" compare --summary --cost-of=map "$T/vmap-order8.json" >"$TMP/part" 2>&1 ||
	fail "--summary --cost-of=map: $(cat "$TMP/part")"
tr '\n' ' ' <"$TMP/part" | grep -q 'generic-a76, cost of map, and its range' ||
	fail "--summary --cost-of=map does not name the part: $(cat "$TMP/part")"
"$V" compare "$T/vmap-order8.json" >"$TMP/plain" 2>&1
grep -q '^config: 4k granule' "$TMP/plain" || fail "compare without --summary: not the table"

# --metrics: the report's keys; a mistyped one is a usage error that suggests
run metrics-typo 2 "unknown metric 'tlb_entires'; did you mean 'tlb_entries'" \
	"$V" compare --metrics=pte_writes,tlb_entires "$T/vmap-order8.json"
run metrics-kind 2 "did you mean 'tlbi_by_kind.vmalle1is'" \
	"$V" compare --metrics=tlbi_by_kind.vmalle1i "$T/vmap-order8.json"
run metrics-twice 2 "'tlbi' given twice" "$V" compare --metrics=tlbi,tlbi "$T/vmap-order8.json"
run metrics-empty 2 "empty metric name" "$V" compare --metrics=tlbi, "$T/vmap-order8.json"
run summary-csv 2 "not CSV" "$V" compare --summary --format=csv "$T/vmap-order8.json"
run metrics-only 0 '' "$V" compare --metrics=isb "$T/vmap-order8.json"
grep -q '^  isb ' "$TMP/stdout" || fail "--metrics=isb: no isb row (implies --summary)"
! grep -q '^  pte_writes' "$TMP/stdout" || fail "--metrics=isb: rows not asked for"

# the range: only the profiles of the run's FEAT_TLBIRANGE apply, its ends named
P=$TMP/profiles
mkdir -p "$P"
for n in generic-a76 altra-metal rk3588-a55; do cp "$VT_SRC/profiles/$n.json" "$P/"; done
python3 - "$P" <<'PY'
import json, sys
p = json.load(open(sys.argv[1] + "/rk3588-a55.json"))
p["name"] = "ranged"; p["features"]["tlbi_range"] = True
json.dump(p, open(sys.argv[1] + "/ranged.json", "w"))
PY
run range 0 '' env VMAPTOOL_PROFILES="$P" "$V" compare -j --summary \
	--strategy=pagewise,batched "$T/systemheap-128m.json"
python3 - "$TMP/stdout" <<'PY' || fail "range without FEAT_TLBIRANGE"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["summary"]["profiles"] == ["altra-metal", "generic-a76", "rk3588-a55"], d["summary"]
s = d["traces"][0]["summary"]["speedups"][0]
assert s["low"]["profile"] == "altra-metal" and s["high"]["profile"] == "generic-a76", s
assert s["speedup"] == s["high"]["speedup"], s
assert s["low"]["speedup"] < s["speedup"], s
PY
run range-tlbi 0 '' env VMAPTOOL_PROFILES="$P" "$V" compare -j --summary --profile=ranged \
	--strategy=pagewise,batched "$T/systemheap-128m.json"
python3 - "$TMP/stdout" <<'PY' || fail "range with FEAT_TLBIRANGE"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["summary"]["profiles"] == ["ranged"], d["summary"]
s = d["traces"][0]["summary"]["speedups"][0]
assert s["low"]["profile"] == s["high"]["profile"] == "ranged", s
PY

# an imported trace names its recording
"$V" import -q "$VT_DATA/import/vmap.txt" -o "$TMP/imp.json" || fail "import"
run imported 0 '' "$V" compare --summary "$TMP/imp.json"
grep -q '^from: vmaptool import of vmap.txt (ftrace text)$' "$TMP/stdout" ||
	fail "imported trace: the footer does not name the recording"

test_done
