#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Command-line behaviour of vmaptool: help, version, usage errors (exit 2),
# JSON output linted, per-event lines summing to the totals, -o written
# whole or not at all, write errors (exit 4), gate, ptdump.
# Needs VT_BIN (the vmaptool binary) and VT_SRC (the source tree).
set -u
. "$(dirname "$0")/lib.sh"

test_require python3

LINT="python3 $VT_SRC/tests/cli/lint-report.py --src $VT_SRC"
TRACE=$VT_SRC/tests/cli/data/small.trace.json
BAD=$VT_SRC/tests/cli/data/bad-order.trace.json
ANY=$VT_SRC/tests/cli/data/vmap-only.trace.json


# expect RC CMD...: run vmaptool, stdout to $TMP/out, stderr to $TMP/err
expect() {
	local want=$1 rc
	shift
	"$VT_BIN" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		fail "vmaptool $* exited $rc, expected $want"
		sed 's/^/    /' "$TMP/err" | head -5
		return 1
	fi
	return 0
}

# err_has TEXT: the last run's stderr contains TEXT
err_has() {
	grep -qF -- "$1" "$TMP/err" || fail "stderr lacks '$1': $(head -c 300 "$TMP/err")"
}

# --- help, usage, version ---------------------------------------------
expect 0 --help
for c in replay compare gate gen import ptdump inspect strategies profiles; do
	grep -qE "^  $c " "$TMP/out" || fail "--help does not list '$c'"
done
expect 0 --usage
expect 0 --version
grep -qE '^vmaptool [0-9]+\.[0-9]+\.[0-9]+$' "$TMP/out" || fail "--version: $(cat "$TMP/out")"
expect 0 replay --help
grep -qF -- "--barriers" "$TMP/out" || fail "replay --help lacks the common options"

# --- usage errors: exit 2, with a message naming the problem -----------
expect 2
expect 2 frobnicate && err_has "'frobnicate' is not a vmaptool command"
expect 2 --no-such-option replay "$TRACE"
expect 2 replay --no-such-option "$TRACE"
# one strategy under two spellings is a name given twice
for l in batched@12,batched@21 zigzag,mainline batched,batched@12345678 batched@87654321,batched \
	zigzag+vfree-bulk,vfree-bulk; do
	expect 2 compare --strategy=$l "$TRACE" && err_has "are the same strategy, given twice"
done
expect 0 compare --strategy=batched@12,batched@123,batched@87654321 "$TRACE"
# --per-event without FILE is JSON Lines in place of the report: no CSV or mail
for f in csv mail; do
	expect 2 replay --per-event --format=$f "$TRACE" && err_has "so --format=$f does not apply"
	[ -s "$TMP/out" ] && fail "--per-event --format=$f wrote to stdout"
done
expect 0 replay --per-event="$TMP/pe.jsonl" --format=csv "$TRACE" && head -1 "$TMP/out" >"$TMP/csvhead"
grep -q '^trace,strategy,metric,value$' "$TMP/csvhead" || fail "--per-event=FILE --format=csv: no CSV report"
expect 2 replay "$TRACE" --barriers=x && err_has "invalid value 'x' for --barriers (expected lazy|eager|per-entry)"
expect 2 replay "$TRACE" --vmap-cont=maybe && err_has "--vmap-cont"
expect 2 replay "$TRACE" --granule=8k && err_has "--granule"
expect 2 replay "$TRACE" --granule=64k --va-bits=39 && err_has "64k with --va-bits=39"
expect 2 --va-bits=36 replay "$TRACE" && err_has "--va-bits=36"
expect 2 replay "$TRACE" --va-bits=abc
expect 2 replay "$TRACE" --cpus=0
expect 2 replay "$TRACE" --cpus=4097
expect 2 replay "$TRACE" --jobs=0
expect 2 replay "$TRACE" --format=xml
expect 2 replay "$TRACE" --kernel=v5.10 && err_has "--kernel"
expect 2 replay "$TRACE" --profile=cortex-a76 && err_has "no such cost profile"
expect 2 replay
for s in foo batched@2 segments@1 zigzag:force batched@9 pagewise+nosuchaxis "" "zigzag,,pagewise" "zigzag,zigzag"; do
	expect 2 replay "$TRACE" "--strategy=$s" && err_has "strateg"
	[ -s "$TMP/out" ] && fail "--strategy='$s' wrote to stdout"
done
expect 2 replay "$TRACE" --strategy=foo && err_has "'foo'"
expect 2 compare "$TRACE" --strategy=zigzag && err_has "at least two strategies"
expect 2 compare "$TRACE" --strategy=zigzag,pagewise --ablation && err_has "batched"
expect 0 profiles && grep -q "^generic-a76 .*(default)" "$TMP/out" || fail "profiles does not list the default"
expect 2 inspect && err_has "no kernel image given"
expect 3 inspect --vmlinux="$TRACE" && err_has "not an arm64 kernel image"
# the fuzz corpus's ELF vmlinux (after the harness's selector byte), under a
# long name with spaces: every line within 79 columns but the path's own
# (longer than a line, kept whole, spaces included)
img="$TMP/an arm64 vmlinux whose name is long enough to wrap the image line.elf"
tail -c +2 "$VT_SRC/tests/fuzz/corpus/inspect/elf-vmlinux" >"$img"
expect 0 inspect --vmlinux="$img" &&
	grep -qx "image         $img" "$TMP/out" && grep -q "^kernel        v6.16: " "$TMP/out" &&
	awk '!/^image / && length($0) > 79 { bad = 1 } END { exit bad }' "$TMP/out" ||
	fail "inspect's text: $(cat "$TMP/out")"
expect 2 ptdump "$TRACE" --at=-1
expect 2 ptdump "$TRACE" --strategy=zigzag,pagewise
expect 2 gate "$TRACE" && err_has "--baseline"

# --- geometry on either side of the command word ----------------------
expect 0 --granule=16k replay "$ANY" --va-bits=36 -j --strategy=zigzag &&
	$LINT "$TMP/out" || fail "16k/36 report"
grep -q '"va_bits": 36' "$TMP/out" || fail "--va-bits=36 not in the report"
expect 0 --va-bits=47 replay "$ANY" --granule=16k --strategy=zigzag

# --- JSON report: one document, linted ---------------------------------
expect 0 -j replay "$TRACE" && $LINT "$TMP/out" || fail "replay -j lint"
python3 -m json.tool "$TMP/out" >/dev/null || fail "replay -j is not one JSON document"
cp "$TMP/out" "$TMP/report.json"
expect 0 replay "$TRACE" --format=json --per-op --verify &&
	$LINT "$TMP/out" || fail "--per-op --verify lint"
grep -q '"mismapped_pages"' "$TMP/out" || fail "--verify without mismapped_pages"
grep -q '"mismapped_pages"' "$TMP/report.json" && fail "mismapped_pages without --verify"
grep -q '"per_op"' "$TMP/out" || fail "--per-op without per_op"
expect 0 compare "$TRACE" -j && $LINT "$TMP/out" || fail "compare -j lint"
python3 - "$TMP/out" <<'EOF' || fail "compare ratios"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["traces"][0]["strategies"]
assert "ratios" not in s[0], "ratios on the baseline strategy"
for x in s[1:]:
    for k, r in x["ratios"].items():
        b, v = s[0]["metrics"][k], x["metrics"][k]
        if b == 0:
            assert r is None, (k, r)
        else:
            assert abs(r - v / b) <= 1e-5 * max(1, v / b), (k, r, v, b)
EOF
expect 0 compare "$TRACE" --strategy=zigzag,batched --ablation -j &&
	python3 -c 'import json,sys; n=[s["name"] for s in json.load(open(sys.argv[1]))["traces"][0]["strategies"]]; assert n==["zigzag","batched@1","batched@12","batched@123","batched@1234","batched@12345","batched@123456","batched@1234567","batched@12345678"], n' "$TMP/out" ||
	fail "--ablation expansion"

# --- --kernel: options are applied left to right -----------------------
expect 0 replay "$TRACE" -j --strategy=zigzag --barriers=lazy --kernel=v6.12
grep -q '"barriers": "eager"' "$TMP/out" || fail "--kernel=v6.12 after --barriers=lazy must win"
expect 0 replay "$TRACE" -j --strategy=zigzag --kernel=v6.12 --barriers=lazy
grep -q '"barriers": "lazy"' "$TMP/out" || fail "--barriers=lazy after --kernel=v6.12 must win"
grep -q '"kernel_model": "v6.12' "$TMP/out" || fail "kernel_model is not v6.12"

# --- text and CSV -------------------------------------------------------
expect 0 replay "$TRACE" --strategy=pagewise,zigzag
grep -qE '^metric \[count\] +pagewise +zigzag$' "$TMP/out" || fail "table header"
grep -qE '^pte_writes +[0-9]+ +[0-9]+$' "$TMP/out" || fail "table pte_writes row"
expect 0 replay "$TRACE" --strategy=pagewise,zigzag --format=csv
head -1 "$TMP/out" | grep -qx 'trace,strategy,metric,value' || fail "csv header"
python3 - "$TMP/out" "$TMP/report.json" <<'EOF' || fail "csv values differ from json"
import csv, json, sys
rows = {(r["strategy"], r["metric"]): int(r["value"]) for r in csv.DictReader(open(sys.argv[1]))}
d = json.load(open(sys.argv[2]))
for s in d["traces"][0]["strategies"]:
    if s["name"] not in ("pagewise", "zigzag"):
        continue
    for k, v in s["metrics"].items():
        if isinstance(v, dict):
            for kk, vv in v.items():
                assert rows[(s["name"], k + "." + kk)] == vv, (k, kk)
        else:
            assert rows[(s["name"], k)] == v, k
EOF

# --- per-event lines ----------------------------------------------------
expect 0 replay "$TRACE" --per-event && cp "$TMP/out" "$TMP/events.jsonl" &&
	$LINT --per-event "$TMP/events.jsonl" "$TMP/report.json" || fail "per-event lint/sums"
[ "$(wc -l <"$TMP/events.jsonl")" -ge 28 ] || fail "per-event: fewer lines than events x strategies"
expect 0 replay "$TRACE" -j --per-event="$TMP/pe.jsonl" &&
	cmp -s "$TMP/pe.jsonl" "$TMP/events.jsonl" || fail "--per-event=FILE differs from stdout lines"
cmp -s "$TMP/out" "$TMP/report.json" || fail "--per-event=FILE changed the report"

# --- -o: whole or not at all --------------------------------------------
expect 0 replay "$TRACE" -j -o "$TMP/o.json" && [ ! -s "$TMP/out" ] &&
	cmp -s "$TMP/o.json" "$TMP/report.json" || fail "-o differs from stdout"
echo old >"$TMP/keep.json"
expect 3 replay "$TRACE" "$BAD" -j -o "$TMP/keep.json"
[ "$(cat "$TMP/keep.json")" = old ] || fail "a failing run replaced the -o file"
expect 3 replay "$BAD" -o "$TMP/none.json"
[ -e "$TMP/none.json" ] && fail "a failing run left an -o file"
ls -A "$TMP" | grep -q '^\.' && fail "temporary files left behind: $(ls -A "$TMP")"
expect 3 replay "$BAD" -j
grep -qE 'bad-order\.trace\.json:[0-9]+:[0-9]+: error: ' "$TMP/err" || fail "no file:line:col: $(cat "$TMP/err")"
python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["error"]; assert e["line"] and e["file"].endswith("bad-order.trace.json"), e' "$TMP/out" ||
	fail "-j error document"
expect 4 replay "$TRACE" -o /nonexistent-dir/x.json
if [ -w /dev/full ]; then
	"$VT_BIN" replay "$TRACE" >/dev/full 2>"$TMP/err"
	[ $? = 4 ] || fail "writing to /dev/full must exit 4"
	"$VT_BIN" replay "$TRACE" -j >/dev/full 2>"$TMP/err"
	[ $? = 4 ] || fail "writing JSON to /dev/full must exit 4"
	"$VT_BIN" strategies >/dev/full 2>"$TMP/err"
	[ $? = 4 ] || fail "strategies to /dev/full must exit 4"
	# the per-event lines: the errno of the write, and (under ASan) no
	# leak of the replay's result dropped with the run
	"$VT_BIN" replay "$TRACE" --per-event=/dev/full 2>"$TMP/err"
	[ $? = 4 ] || fail "--per-event=/dev/full must exit 4: $(cat "$TMP/err")"
	grep -q "cannot write --per-event lines: No space left on device" "$TMP/err" ||
		fail "--per-event=/dev/full message: $(cat "$TMP/err")"
	# the same on stdout: one message, not a second with a stale errno
	"$VT_BIN" replay "$TRACE" --per-event >/dev/full 2>"$TMP/err"
	[ $? = 4 ] || fail "--per-event >/dev/full must exit 4: $(cat "$TMP/err")"
	[ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "No space left on device" "$TMP/err" ||
		fail "--per-event >/dev/full messages: $(cat "$TMP/err")"
fi

# --- --jobs gives the same report ------------------------------------------
cp "$TRACE" "$TMP/copy.trace.json"
expect 0 replay -j "$TRACE" "$TMP/copy.trace.json" "$TRACE" --jobs=1 && cp "$TMP/out" "$TMP/j1.json"
expect 0 replay -j "$TRACE" "$TMP/copy.trace.json" "$TRACE" --jobs=3 &&
	cmp -s "$TMP/out" "$TMP/j1.json" || fail "--jobs=3 report differs from --jobs=1"

# --- gate ---------------------------------------------------------------------
expect 0 gate --baseline="$TMP/report.json" "$TMP/report.json" && grep -q '^gate: ok' "$TMP/out" ||
	fail "gate of a report against itself"
expect 0 gate --baseline="$TMP/report.json" "$TRACE" || fail "gate replaying the trace"
python3 - "$TMP/report.json" "$TMP/worse.json" "$TMP/v2.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["traces"][0]["strategies"][1]
s["metrics"]["pte_writes"] -= 1          # the current run writes one more
s["metrics"]["tlbi_by_kind"]["vaale1is"] += 1  # and one fewer of this kind
json.dump(d, open(sys.argv[2], "w"))
d["version"] = 2
json.dump(d, open(sys.argv[3], "w"))
EOF
expect 1 gate --baseline="$TMP/worse.json" "$TRACE"
grep -q ": pte_writes: .* -> .*% more (regression)$" "$TMP/out" || fail "gate did not name the regression"
grep -q ": tlbi_by_kind.vaale1is: 1 -> 0, none now (improvement)$" "$TMP/out" || fail "gate did not list the improvement"
expect 1 gate --baseline="$TMP/worse.json" "$TMP/report.json" -j &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["regressions"][0]["metric"]=="pte_writes", d' "$TMP/out" ||
	fail "gate -j"
expect 3 gate --baseline="$TMP/v2.json" "$TMP/report.json" && err_has "version"

# --- ptdump, strategies -------------------------------------------------------
expect 0 ptdump "$TRACE" --at=1
grep -q -- '---\[ vmalloc() area \]---' "$TMP/out" || fail "ptdump markers"
grep -qE '^0x[0-9a-f]{16}-0x[0-9a-f]{16} +[0-9]+[KMGTPE] (PTE|PMD|PUD)  ' "$TMP/out" || fail "ptdump lines: $(head -3 "$TMP/out")"
expect 0 ptdump "$TRACE" --at=1 -j && python3 -m json.tool "$TMP/out" >/dev/null || fail "ptdump -j"
# the markers sit where the modelled generation puts them: under v6.1 the
# area at VMALLOC_START (128 MiB above MODULES_VADDR) is after "vmalloc()
# area", not inside the modules region of the 2 GiB layout
expect 0 ptdump --kernel=v6.1 --at=0 "$VT_SRC/traces/vmalloc-huge-1m.json"
sed -n '/vmalloc() area/,/vmalloc() end/p' "$TMP/out" | grep -q '^0xffff800008000000-' ||
	fail "ptdump --kernel=v6.1: the vmalloc area outside its markers: $(cat "$TMP/out")"
expect 0 strategies
for s in pagewise zigzag batched segments; do
	grep -qE "^$s " "$TMP/out" || fail "strategies does not list $s"
done
expect 0 strategies -j && python3 -m json.tool "$TMP/out" >/dev/null || fail "strategies -j"

test_done
