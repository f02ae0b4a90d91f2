#!/usr/bin/env bash
# Every bundled trace replays under pagewise and zigzag with --verify
# (every live mapping translated page by page after every event): exit 0
# and no mismapped page.  The batched, batched-v2 and segments strategies
# run too; their findings (if any) must be reported, never an error.  The map_mem traces
# (linear maps of 16-512 GiB) run once, under linear-new.
set -u
. "$(dirname "$0")/lib.sh"
test_require python3
pass=0
for t in "$VT_SRC"/traces/*.json "$VT_SRC"/traces/*.jsonl "$VT_SRC"/traces/*/*.json "$VT_SRC"/traces/*/*.jsonl; do
	[ -f "$t" ] || continue
	[ "$(basename "$t")" = baseline.json ] && continue	# the gate's report
	strats="pagewise,zigzag batched,batched-v2,segments:force"
	# map_mem traces hold only linear_map events, which every mapping
	# strategy builds alike (linear-new); the four linear-map versions are
	# verified by test-linear-map.sh
	case $(basename "$t") in map_mem-*) strats=linear-new ;; esac
	for strat in $strats; do
		out=$("$VT_BIN" replay -j --verify --strategy=$strat "$t" 2>/dev/null)
		rc=$?
		if [ $rc -ne 0 ]; then
			fail "$t ($strat): exit $rc"; continue
		fi
		if [ "$strat" = pagewise,zigzag ] || [ "$strat" = linear-new ]; then
			bad=$(printf '%s' "$out" | python3 -c '
import json, sys
r = json.load(sys.stdin)
print(sum(s["metrics"]["mismapped_pages"] for t in r["traces"] for s in t["strategies"]))')
			if [ "$bad" != 0 ]; then
				fail "$t ($strat): $bad mismapped pages"; continue
			fi
		fi
		echo "ok   $(basename "$t") ($strat)"; pass=$((pass + 1))
	done
done
echo "$pass passed, $(test_failures) failed"
[ $pass -gt 0 ] || fail "no trace verified"
test_done
