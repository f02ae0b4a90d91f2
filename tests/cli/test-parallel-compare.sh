#!/usr/bin/env bash
# The strategies of one trace replay on separate threads (--jobs > 1, one
# parse; core/replay.c): the output must be byte-identical to --jobs=1,
# stdout and stderr and exit status alike, for every bundled and scenario
# trace, with and without --verify (mismap warnings replayed in serial
# order), for replay and compare, and for a trace that fails mid-way (the
# error a serial run meets first), and for several traces at once (the
# traces and their strategies in one pool).
set -u
. "$(dirname "$0")/lib.sh"
tmp=$TMP
pass=0
strats=pagewise,zigzag,batched,batched@1,batched@12345678,segments,segments:force
# a trace that breaks in its third event: an id that is not live
cat >"$tmp/bad.jsonl" <<'T'
{"format":"vmaptool-trace","version":1}
{"op":"vmap","id":1,"pages":[{"pfn":"0x1000","order":4,"count":2}]}
{"op":"vmalloc","id":2,"size":1048576,"flags":["VM_ALLOW_HUGE_VMAP"]}
{"op":"vunmap","id":7}
{"op":"vunmap","id":1}
T
check() {	# label, args...
	local label=$1; shift
	"$VT_BIN" "$@" --jobs=1 >"$tmp/1.out" 2>"$tmp/1.err"; echo "rc=$?" >>"$tmp/1.err"
	"$VT_BIN" "$@" --jobs=4 >"$tmp/4.out" 2>"$tmp/4.err"; echo "rc=$?" >>"$tmp/4.err"
	if cmp -s "$tmp/1.out" "$tmp/4.out" && cmp -s "$tmp/1.err" "$tmp/4.err"; then
		pass=$((pass + 1))
	else
		echo "FAIL $label: --jobs=4 differs from --jobs=1"
		diff "$tmp/1.out" "$tmp/4.out" | head -5
		diff "$tmp/1.err" "$tmp/4.err" | head -5
		fail=$((fail + 1))
	fi
}
for t in "$VT_SRC"/traces/*.json* "$VT_SRC"/traces/*/*.json* "$VT_SRC"/tests/data/scenarios/*.json "$tmp/bad.jsonl"; do
	[ -f "$t" ] || continue
	verify=--verify
	[ "$(stat -c %s "$t")" -gt 200000 ] && verify=
	check "replay $t" replay -j --per-op $verify --strategy=$strats "$t"
	check "compare $t" compare $verify --strategy=$strats "$t"
done
# Several traces at once: the traces and their strategies' batches are
# items of the one --jobs pool (core/pool.c), a trace's parser running
# queued items while it waits; --jobs=2 leaves one helper thread, so the
# callers' helping is what finishes the work.
set -- "$VT_SRC"/tests/data/scenarios/*.json
check "compare, every scenario at once" compare --verify --strategy=$strats "$@"
check "replay, a failing trace among others" replay -j --per-op --strategy=$strats "$1" "$tmp/bad.jsonl" "$2"
"$VT_BIN" compare --verify --strategy=$strats --jobs=2 "$@" >"$tmp/2.out" 2>"$tmp/2.err"
"$VT_BIN" compare --verify --strategy=$strats --jobs=1 "$@" >"$tmp/1.out" 2>"$tmp/1.err"
cmp -s "$tmp/1.out" "$tmp/2.out" && cmp -s "$tmp/1.err" "$tmp/2.err" ||
	fail "compare of every scenario: --jobs=2 differs from --jobs=1"
# the failing trace really fails, so the error path was compared
"$VT_BIN" replay -q --jobs=4 --strategy=$strats "$tmp/bad.jsonl" >/dev/null 2>&1
[ $? -ne 0 ] || { fail "bad.jsonl replays without an error"; }
echo "$pass identical, $(test_failures) failed"
[ $pass -gt 10 ] || fail "only $pass comparisons"
test_done
