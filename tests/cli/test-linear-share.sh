#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Strategies that build the same linear map share one (core/mm/linear.c):
# a leader builds it, its followers take what each linear_map event counted.
# Exact: every strategy's report (totals, per op) and its --per-event lines
# in a run of several strategies are those of the strategy replayed alone
# (the report with --jobs=1 and --jobs=4 and --verify), for map_mem traces
# of every granule (52-bit VA with 4K or 16K pages shares a PGD entry with
# the vmalloc area and is not shared), rodata=full and on, several memory
# ranges, a trace mixing linear_map with vmap/vmalloc events and strategies
# whose linear-map versions differ (leaders that are not the first
# strategy).  And it pays: four strategies on an 8 TiB linear map take less
# than 1.5 times one's memory.
set -u
. "$(dirname "$0")/lib.sh"
test_require jq
tmp=$TMP
pass=0
gen() {	# name, gen args...
	local n=$1; shift
	"$VT_BIN" gen map_mem "$@" -o "$tmp/$n.jsonl" || die "gen map_mem $*"
	traces+=("$tmp/$n.jsonl")
}
traces=()
gen 4k48 --size=64G
gen 4k48on --size=3G,5G,1G --hole=1G --rodata=on
gen 16k47 --granule=16k --va-bits=47 --size=96G --rodata=on
gen 16k48 --granule=16k --va-bits=48 --size=40G,24G --hole=32M
gen 64k42 --granule=64k --va-bits=42 --size=200G --rodata=on
gen 64k52 --granule=64k --va-bits=52 --size=64G
gen 4k52 --granule=4k --va-bits=52 --size=16G,16G --hole=16M --rodata=on
gen 16k52 --granule=16k --va-bits=52 --size=32G
gen 4k39 --granule=4k --va-bits=39 --size=48G
# linear_map events between vmap/vmalloc events: one file, one config
"$VT_BIN" gen systemheap --buffers=24 --size=4M,1M+68K --live=3 -o "$tmp/sh.jsonl" ||
	die "gen systemheap"
{ sed -n 1,2p "$tmp/4k48on.jsonl"; sed -n '2,14p' "$tmp/sh.jsonl"
  sed -n 3p "$tmp/4k48on.jsonl"; sed -n '15,$p' "$tmp/sh.jsonl"
  sed -n 4p "$tmp/4k48on.jsonl"; } >"$tmp/mixed.jsonl"
traces+=("$tmp/mixed.jsonl")
lists=(pagewise,zigzag,batched,segments
       "pagewise+linear-old,zigzag,batched+linear-old,segments+linear-p1,batched-v2,zigzag+linear-p1p2,segments+linear-p1p2")

# strategy @1 replayed alone on trace @2: its report in $tmp/alone.json,
# its --per-event lines in $tmp/alone.ev (kept per trace and strategy)
alone() {	# strategy, trace
	local k=$tmp/alone-${2##*/}-$1
	if [ ! -f "$k.json" ]; then
		"$VT_BIN" replay -j --per-op --verify --strategy="$1" "$2" |
			jq -c ".traces[0].strategies[0]" >"$k.json"
		"$VT_BIN" replay --per-event --strategy="$1" "$2" >"$k.ev"
	fi
	cp "$k.json" "$tmp/b"
	cp "$k.ev" "$tmp/d"
}
for t in "${traces[@]}"; do
	for l in "${lists[@]}"; do
		IFS=, read -ra s <<<"$l"
		for j in 1 4; do
			"$VT_BIN" replay -j --per-op --verify --jobs=$j --strategy="$l" "$t" \
				>"$tmp/all.json" || { fail "replay $l $t"; continue; }
			# --per-event replays serially whatever --jobs says
			[ $j = 1 ] && { "$VT_BIN" replay --per-event --strategy="$l" "$t" \
				>"$tmp/all.ev" || fail "per-event $l $t"; }
			jq -c '.traces[0].strategies[]' "$tmp/all.json" >"$tmp/all.lines"
			for i in "${!s[@]}"; do
				sed -n "$((i + 1))p" "$tmp/all.lines" >"$tmp/a"
				alone "${s[$i]}" "$t"
				grep -F "\"strategy\":\"${s[$i]}\"" "$tmp/all.ev" >"$tmp/c"
				if cmp -s "$tmp/a" "$tmp/b" && [ -s "$tmp/a" ] && cmp -s "$tmp/c" "$tmp/d"; then
					pass=$((pass + 1))
				else
					fail "${s[$i]} among $l on ${t##*/} (--jobs=$j) differs from ${s[$i]} alone"
					diff <(jq . "$tmp/a") <(jq . "$tmp/b") | head -6
				fi
			done
		done
	done
done
# rodata=full over the PUD blocks of rodata=on: BUG_ON(pud_sect()) in
# alloc_init_cont_pmd(); every strategy meets it, the first one's error is
# the run's
{ sed -n 1p "$tmp/4k48.jsonl"
  sed -n 2p "$tmp/4k48.jsonl" | sed 's/"flags":\[[^]]*\]/"flags":["NO_EXEC_MAPPINGS"]/'
  sed -n 2p "$tmp/4k48.jsonl"; } >"$tmp/bug.jsonl"
for j in 1 4; do
	"$VT_BIN" replay -q --jobs=$j --strategy="${lists[1]}" "$tmp/bug.jsonl" >/dev/null 2>"$tmp/bug$j.err"
	[ $? -eq 3 ] || fail "a linear_map over another (--jobs=$j): not exit 3"
done
"$VT_BIN" replay -q --strategy=pagewise+linear-old "$tmp/bug.jsonl" >/dev/null 2>"$tmp/bug0.err"
cmp -s "$tmp/bug1.err" "$tmp/bug0.err" && cmp -s "$tmp/bug1.err" "$tmp/bug4.err" ||
	fail "the BUG() of a shared linear map is not the first strategy's own"
grep -q "would BUG()" "$tmp/bug1.err" || fail "no BUG() message: $(cat "$tmp/bug1.err")"

# memory: one linear map for the four default strategies
if command -v python3 >/dev/null; then
	"$VT_BIN" gen map_mem --size=8T -o "$tmp/8t.jsonl" || die "gen 8T"
	rss() {	# peak RSS in KiB of vmaptool ARGS...
		python3 -c 'import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, st, ru = os.wait4(p.pid, 0)
sys.exit(1) if os.waitstatus_to_exitcode(st) else print(ru.ru_maxrss)' "$VT_BIN" "$@"
	}
	r1=$(rss replay --strategy=pagewise "$tmp/8t.jsonl") || fail "8T under pagewise"
	r4=$(rss replay "$tmp/8t.jsonl") || fail "8T under the default strategies"
	echo "8 TiB linear map: ${r1:-?} KiB under one strategy, ${r4:-?} KiB under four"
	[ -n "$r1" ] && [ -n "$r4" ] && [ "$r4" -lt $((r1 * 3 / 2)) ] ||
		fail "four strategies on 8 TiB take ${r4:-?} KiB against ${r1:-?} KiB for one"
fi
echo "$pass strategies as alone, $(test_failures) failed"
[ $pass -gt 100 ] || fail "only $pass comparisons"
test_done
