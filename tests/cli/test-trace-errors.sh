#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every malformed-input case of the trace reader and of the engine's
# replay-time checks: 'vmaptool replay BAD -o OUT.json' must exit 3, name
# the file (and line:column where the reader knows it) on stderr, and
# leave no output file.  Fixtures are in tests/data/bad/; the very large
# ones (deep nesting, a 50 MB string) are generated here.
#
# Environment (set by ctest): VT_BIN, VT_SRC.

set -u
. "$(dirname "$0")/lib.sh"

BAD=$VT_SRC/tests/data/bad

# expect_error FIXTURE REGEX [OPTION...]: exit 3, REGEX on stderr, no output.
expect_error()
{
	local file=$1 re=$2 out=$TMP/out.json rc
	shift 2
	rm -f "$out"
	"$VT_BIN" replay "$@" "$file" -o "$out" >"$TMP/stdout" 2>"$TMP/stderr"
	rc=$?
	if [ "$rc" != 3 ]; then
		fail "$(basename "$file"): exit $rc, want 3"
		sed 's/^/  stderr: /' "$TMP/stderr" | head -5
	elif ! grep -Eq -- "$re" "$TMP/stderr"; then
		fail "$(basename "$file"): stderr does not match /$re/"
		sed 's/^/  stderr: /' "$TMP/stderr" | head -5
	elif [ -e "$out" ] || ls -A "$TMP" | grep -q '^\.out\.json\.'; then
		fail "$(basename "$file"): an output file was left behind"
	else
		echo "ok   $(basename "$file")"
	fi
}

# Reader errors: the message names file:line:column and the field.
expect_error "$BAD/empty.json" 'empty\.json:1:1: error: empty file'
expect_error "$BAD/truncated.json" 'truncated\.json:2:[0-9]+: error: invalid JSON'
expect_error "$BAD/truncated.jsonl" 'truncated\.jsonl:3:[0-9]+: error: invalid JSON'
expect_error "$BAD/garbage-line.jsonl" 'garbage-line\.jsonl:3:[0-9]+: error: invalid JSON'
expect_error "$BAD/wrong-format.json" 'wrong-format\.json:1:1: error: format: expected "vmaptool-trace"'
expect_error "$BAD/future-version.json" 'future-version\.json:1:1: error: version: trace format version 2 is newer'
expect_error "$BAD/top-not-object.json" 'top-not-object\.json:1:1: error: top level: expected an object'
expect_error "$BAD/events-not-array.json" 'events-not-array\.json:1:1: error: events: expected an array'
expect_error "$BAD/pfn-float.json" 'pfn-float\.json:2:37: error: events\[0\]\.pages\[0\]\.pfn: expected an integer or "0x\.\.\." string, got a float'
expect_error "$BAD/pfn-negative.json" 'pfn-negative\.json:2:37: error: events\[0\]\.pages\[0\]\.pfn: must not be negative'
expect_error "$BAD/pfn-decimal-string.json" 'pfn-decimal-string\.json:2:37: error: events\[0\]\.pages\[0\]\.pfn: expected an integer'
expect_error "$BAD/pfn-2pow64-hex.json" 'pfn-2pow64-hex\.json:2:37: error: events\[0\]\.pages\[0\]\.pfn: .* is 2\^64 or more'
expect_error "$BAD/pfn-2pow64-int.json" 'pfn-2pow64-int\.json:2:[0-9]+: error: integer out of range'
expect_error "$BAD/pfn-beyond-pa.json" 'pfn-beyond-pa\.json:2:37: error: events\[0\]\.pages\[0\]\.pfn: .*beyond the 48-bit physical address size'
expect_error "$BAD/order-too-big.json" 'order-too-big\.json:2:55: error: events\[0\]\.pages\[0\]\.order: order 11 out of range \(max 10'
expect_error "$BAD/order-negative.json" 'order-negative\.json:2:55: error: events\[0\]\.pages\[0\]\.order: must not be negative'
expect_error "$BAD/count-overflow.json" 'count-overflow\.json:2:65: error: events\[0\]\.pages\[0\]\.count: .*overflow'
expect_error "$BAD/vmap-no-pages.json" 'vmap-no-pages\.json:2:1: error: events\[0\]\.pages: missing'
expect_error "$BAD/vmap-empty-pages.json" 'vmap-empty-pages\.json:2:29: error: events\[0\]\.pages: empty page list'
expect_error "$BAD/unknown-op.json" 'unknown-op\.json:3:7: error: events\[1\]\.op: unknown op "vmap_huge_pfn"'
expect_error "$BAD/granule-unknown.json" 'granule-unknown\.json:1:1: error: config\.granule: unknown granule "8k"'
expect_error "$BAD/va-bits-unknown.json" 'va-bits-unknown\.json:1:1: error: config\.va_bits: unknown VA size 40'

# Replay-state errors, found by the engine: the file and the event.
expect_error "$BAD/double-unmap.json" 'double-unmap\.json.*error'
expect_error "$BAD/unmap-unknown-id.json" 'unmap-unknown-id\.json.*error'
expect_error "$BAD/map-live-id.json" 'map-live-id\.json.*error'
expect_error "$BAD/vmalloc-exhausted.json" 'vmalloc-exhausted\.json.*error'

# 100,000-deep nesting, in both forms.
H='"format":"vmaptool-trace","version":1'
deep=$(head -c 100000 /dev/zero | tr '\0' '[')$(head -c 100000 /dev/zero | tr '\0' ']')
printf '{%s,"events":[{"op":"purge","x":%s}]}\n' "$H" "$deep" >"$TMP/deep-nesting.json"
printf '{%s}\n{"op":"purge","x":%s}\n' "$H" "$deep" >"$TMP/deep-nesting.jsonl"
expect_error "$TMP/deep-nesting.json" 'deep-nesting\.json:1:[0-9]+: error: nesting deeper than'
expect_error "$TMP/deep-nesting.jsonl" 'deep-nesting\.jsonl:2:[0-9]+: error: nesting deeper than'

# A UTF-8 byte-order mark before the text, a NUL byte in a line: said in
# words, not as jansson's "'[' or '{' expected near '<BOM>'" and "end of
# file expected near end of file"; a baseline and a profile alike.
{ printf '\357\273\277'; cat "$VT_SRC/traces/default.json"; } >"$TMP/bom.json"
{ printf '\357\273\277{%s}\n' "$H"; } >"$TMP/bom.jsonl"
printf '{%s}\n{"op":"purge"}\000\n' "$H" >"$TMP/nul.jsonl"
expect_error "$TMP/bom.json" 'bom\.json:1:1: error: invalid JSON: a UTF-8 byte-order mark \(EF BB BF\) before the JSON text'
expect_error "$TMP/bom.jsonl" 'bom\.jsonl:1:1: error: invalid JSON: a UTF-8 byte-order mark'
expect_error "$TMP/nul.jsonl" 'nul\.jsonl:2:15: error: invalid JSON: a NUL byte in the JSON text'
"$VT_BIN" replay --profile="$TMP/bom.json" "$VT_SRC/traces/default.json" >/dev/null 2>"$TMP/stderr"
grep -q 'bom\.json:1:1: error: a UTF-8 byte-order mark' "$TMP/stderr" || fail "--profile with a BOM: $(cat "$TMP/stderr")"

# The column is the value's the message names, in every reading: a JSON
# Lines line, a file's document (streamed), a pipe's (read whole); a
# missing key names its object; a UTF-8 character is one column.
printf '{%s}\n{"op":"vmap","id":2, "pages":[{"pfn":"0x1000","order":0},{"pfn":"0x2000","order":"é4"}]}\n' "$H" >"$TMP/col.jsonl"
expect_error "$TMP/col.jsonl" 'col\.jsonl:2:82: error: events\[0\]\.pages\[1\]\.order: expected an integer'
printf '{%s}\n{"op":"vmap","id":2,"pages":[{"order":0}]}\n' "$H" >"$TMP/miss.jsonl"
expect_error "$TMP/miss.jsonl" 'miss\.jsonl:2:30: error: events\[0\]\.pages\[0\]\.pfn: missing'
printf '{%s,"events":[\n {"op":"vmalloc","id":1,"size":4096},\n {"op":"vmap","id":2,\n   "pages":[{"pfn":"0x1000","order":"é4"}]}]}\n' "$H" >"$TMP/col.json"
expect_error "$TMP/col.json" 'col\.json:4:37: error: events\[1\]\.pages\[0\]\.order: expected an integer'
cat "$TMP/col.json" | "$VT_BIN" replay - >/dev/null 2>"$TMP/stderr"
grep -q '^-:4:37: error: events\[1\]\.pages\[0\]\.order' "$TMP/stderr" || fail "a pipe's document: $(cat "$TMP/stderr")"

# A 50 MB string where the reader keeps strings.
{
	printf '{%s,"events":[\n{"op":"purge","caller":"' "$H"
	head -c $((50 << 20)) /dev/zero | tr '\0' 'a'
	printf '"}]}\n'
} >"$TMP/big-string.json"
expect_error "$TMP/big-string.json" 'big-string\.json:2:24: error: events\[0\]\.caller: string of 52428800 bytes is too long'
rm -f "$TMP/big-string.json"

# --skip-unknown accepts the unknown op, with one warning.
rm -f "$TMP/skip.json"
if "$VT_BIN" replay --skip-unknown "$BAD/unknown-op.json" -o "$TMP/skip.json" \
	>/dev/null 2>"$TMP/stderr" && [ -s "$TMP/skip.json" ]; then
	echo "ok   unknown-op.json --skip-unknown"
else
	fail "unknown-op.json --skip-unknown: not accepted"
	sed 's/^/  stderr: /' "$TMP/stderr" | head -5
fi

# The reader's warnings: each its own "vmaptool: warning: FILE:LINE: ..."
# line (docs/exit-codes.md), the file named once, no blank line; past 1000
# distinct names one line says the rest are not listed (session 10 trial
# finding: the file was named twice, later lines had no prefix and a blank
# line ended them).
(cd "$TMP" && {
	echo '{"format":"vmaptool-trace","version":1,"config":{"granule":"4k","va_bits":48}}'
	echo '{"op":"vmalloc","id":1,"size":8192,"flags":["VM_FOO"]}'
	echo '{"op":"vfree","id":1}'
	echo '{"op":"vmalloc","id":2,"size":8192,"flags":["VM_BAR"]}'
	echo '{"op":"vmap_pfn","id":3,"size":8192}'
} >warn.jsonl && "$VT_BIN" replay --skip-unknown warn.jsonl >/dev/null 2>"$TMP/stderr")
printf '%s\n' "vmaptool: warning: warn.jsonl:2: unknown flag 'VM_FOO' ignored" \
	"vmaptool: warning: warn.jsonl:4: unknown flag 'VM_BAR' ignored" \
	"vmaptool: warning: warn.jsonl:5: unknown op 'vmap_pfn' ignored" >"$TMP/want"
test_cmp "$TMP/want" "$TMP/stderr" && echo "ok   warnings one a line"
# an op or flag a letter off: the name it is likely a typo of (a flag by
# what follows VM_, so VM_BAR above gets none), in the warning and the error
(cd "$TMP" && {
	echo '{"format":"vmaptool-trace","version":1,"config":{"granule":"4k","va_bits":48}}'
	echo '{"op":"vmalloc","id":1,"size":8192,"flags":["VM_NO_GAURD"]}'
	echo '{"op":"vmaloc","id":2,"size":8192}'
} >typo.jsonl && "$VT_BIN" replay --skip-unknown typo.jsonl >/dev/null 2>"$TMP/stderr")
printf '%s\n' "vmaptool: warning: typo.jsonl:2: unknown flag 'VM_NO_GAURD' ignored; did you mean 'VM_NO_GUARD'?" \
	"vmaptool: warning: typo.jsonl:3: unknown op 'vmaloc' ignored; did you mean 'vmalloc'?" >"$TMP/want"
test_cmp "$TMP/want" "$TMP/stderr" && echo "ok   a typo's warning names the known name"
expect_error "$TMP/typo.jsonl" "typo\.jsonl:3:7: error: events\[1\]\.op: unknown op \"vmaloc\"; did you mean 'vmalloc'\?"
# unknown keys are ignored (another tool's fields), but one a letter off a
# known key is likely a typo: 'ordr' would leave the run's order 0
(cd "$TMP" && {
	echo '{"format":"vmaptool-trace","version":1,"config":{"granule":"4k","va_bits":48}}'
	echo '{"op":"vmap","id":2,"pages":[{"pfn":"0x1000","ordr":4}],"sise":8192,"ts":5,"comm":"kworker/0:1"}'
} >keys.jsonl && "$VT_BIN" replay keys.jsonl >/dev/null 2>"$TMP/stderr")
printf '%s\n' "vmaptool: warning: keys.jsonl:2: unknown key 'sise' ignored; did you mean 'size'?" \
	"vmaptool: warning: keys.jsonl:2: unknown key 'ordr' ignored; did you mean 'order'?" >"$TMP/want"
test_cmp "$TMP/want" "$TMP/stderr" && echo "ok   a key a letter off a known one is warned about"
{ echo '{"format":"vmaptool-trace","version":1}'
  awk 'BEGIN { for (i = 0; i < 1002; i++) printf "{\"op\":\"purge\",\"flags\":[\"VM_X%d\"]}\n", i }'
} >"$TMP/flags.jsonl"
"$VT_BIN" replay "$TMP/flags.jsonl" >/dev/null 2>"$TMP/stderr"
if [ "$(wc -l <"$TMP/stderr")" = 1001 ] && ! grep -qv '^vmaptool: warning: [^ ]*flags\.jsonl:[0-9]*: ' "$TMP/stderr" &&
   tail -1 "$TMP/stderr" | grep -q ':1002: more than 1000 distinct unknown names; the rest are ignored without a warning$'; then
	echo "ok   warnings capped at 1000 names and one line"
else
	fail "the cap of the warnings: $(wc -l <"$TMP/stderr") lines, last: $(tail -1 "$TMP/stderr")"
fi

# A baseline (a vmaptool report) kept beside the traces and taken by their
# glob is skipped with a note by replay, compare and gate (docs/ci-gate.md);
# given alone it is an error that says what it is, exit 3.
R=$TMP/beside
mkdir -p "$R/traces"
cp "$VT_SRC/traces/default.json" "$VT_SRC/traces/vmap-order8.json" "$R/traces/"
"$VT_BIN" gate --update-baseline --baseline="$R/traces/baseline.json" "$R"/traces/*.json 2>/dev/null ||
	fail "beside: --update-baseline"
"$VT_BIN" replay -j "$R/traces/default.json" >"$R/alone.json" || fail "beside: replay -j default.json"
for cmd in replay compare; do
	if "$VT_BIN" $cmd "$R"/traces/*.json >/dev/null 2>"$TMP/stderr" &&
	   "$VT_BIN" $cmd -j "$R"/traces/*.json >"$R/out.json" 2>/dev/null &&
	   grep -q "^vmaptool: $cmd: skipping '$R/traces/baseline.json': a vmaptool report (a baseline?), not a trace$" "$TMP/stderr" &&
	   python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t=[x["trace"] for x in d["traces"]]; assert len(t)==2 and not any("baseline" in x for x in t), t' "$R/out.json"; then
		echo "ok   $cmd traces/*.json beside a baseline"
	else
		fail "$cmd traces/*.json beside a baseline: $(cat "$TMP/stderr")"
	fi
	"$VT_BIN" $cmd -q "$R"/traces/*.json >/dev/null 2>"$TMP/stderr" && ! [ -s "$TMP/stderr" ] ||
		fail "$cmd -q: the note is not silent: $(cat "$TMP/stderr")"
done
# gate --update-baseline of another baseline: the old one is not a trace
if "$VT_BIN" gate --update-baseline --baseline="$R/other.json" "$R"/traces/*.json 2>"$TMP/stderr" &&
   grep -q "^vmaptool: gate: skipping '$R/traces/baseline.json': a vmaptool report, not a trace (the baseline is '$R/other.json')$" "$TMP/stderr" &&
   "$VT_BIN" gate --baseline="$R/other.json" "$R"/traces/*.json >/dev/null 2>&1; then
	echo "ok   gate --update-baseline beside another baseline"
else
	fail "gate --update-baseline beside another baseline: $(cat "$TMP/stderr")"
fi
# a report alone (or only reports): exit 3, what it is and what to do
"$VT_BIN" replay "$R/traces/baseline.json" "$R/alone.json" >/dev/null 2>"$TMP/stderr"; rc=$?
[ $rc = 3 ] && grep -q "^$R/traces/baseline.json: error: this is a vmaptool report (a gate baseline or a 'replay -j' output), not a trace: replay the traces it was made from, or gate them against it with 'vmaptool gate --baseline=$R/traces/baseline.json TRACE...'$" "$TMP/stderr" ||
	fail "replay of reports only: exit $rc: $(cat "$TMP/stderr")"
# a trace whose meta holds the words is a trace: only the top-level format counts
printf '{"meta":{"x":{"format":"vmaptool-report"}},"format":"vmaptool-trace","version":1,"config":{"granule":"4k","va_bits":48},"events":[]}\n' >"$R/traces/meta.json"
"$VT_BIN" replay -j "$R/traces/meta.json" "$R/traces/default.json" >"$R/out.json" 2>"$TMP/stderr" &&
	! grep -q skipping "$TMP/stderr" || fail "a trace naming vmaptool-report in its meta is skipped: $(cat "$TMP/stderr")"
# a trace given twice, by the same name or another: a warning each time
# (gate refuses a report that lists one twice), still replayed as asked
"$VT_BIN" replay -j "$R/traces/default.json" "$R/traces/../traces/default.json" \
	"$R/traces/default.json" >"$R/out.json" 2>"$TMP/stderr" || fail "a trace twice: exit $?"
grep -q "^vmaptool: warning: replay: '$R/traces/default.json' is given twice: it is replayed and reported twice$" "$TMP/stderr" &&
	grep -q "^vmaptool: warning: replay: '$R/traces/../traces/default.json' is '$R/traces/default.json' again" "$TMP/stderr" &&
	[ "$(wc -l <"$TMP/stderr")" = 2 ] || fail "a trace twice: $(cat "$TMP/stderr")"
"$VT_BIN" replay -q "$R/traces/default.json" "$R/traces/default.json" >/dev/null 2>"$TMP/stderr" &&
	! [ -s "$TMP/stderr" ] || fail "-q with a trace twice: $(cat "$TMP/stderr")"

test_done
