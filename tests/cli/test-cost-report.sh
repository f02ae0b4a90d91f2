#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The estimate in reports (docs/cost-model.md): cycles and ns everywhere,
# cycles = the sum of cycles_by_function, per-event lines adding up,
# deterministic, the profile named in the report, --profile changing the
# numbers, the erratum doubling the TLBI cost, a profile's FEAT_TLBIRANGE
# as the --tlbi-range default (an explicit option wins), compare's
# "N x faster" line, and gate's threshold on the estimates.
set -u
. "$(dirname "$0")/lib.sh"

test_require python3
LINT="python3 $VT_SRC/tests/cli/lint-report.py --src $VT_SRC"
TRACE=$VT_SRC/tests/cli/data/small.trace.json
V() { "$VT_BIN" "$@"; }
get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

V replay -j --per-op --per-event="$TMP/ev.jsonl" "$TRACE" >"$TMP/a.json" || fail "replay"
$LINT --per-event "$TMP/ev.jsonl" "$TMP/a.json" || fail "lint (per-event sums include cycles)"
[ "$(get "$TMP/a.json" "d['config']['profile']")" = generic-a76 ] || fail "default profile not named"
[ "$(get "$TMP/a.json" "min(s['metrics']['cycles'] for s in d['traces'][0]['strategies'])")" -gt 0 ] ||
	fail "no cycles"
[ "$(get "$TMP/a.json" "min(s['metrics']['ns'] for s in d['traces'][0]['strategies'])")" -gt 0 ] ||
	fail "no ns"
V replay -j --per-op "$TRACE" >"$TMP/b.json"
V replay -j --per-op "$TRACE" >"$TMP/b2.json"
cmp -s "$TMP/b.json" "$TMP/b2.json" || fail "not deterministic"

V replay -j --profile=rk3588-a55 "$TRACE" >"$TMP/c.json" || fail "--profile=rk3588-a55"
[ "$(get "$TMP/c.json" "d['config']['profile']")" = rk3588-a55 ] || fail "profile not named"
[ "$(get "$TMP/a.json" "d['traces'][0]['strategies'][0]['metrics']['cycles']")" != \
  "$(get "$TMP/c.json" "d['traces'][0]['strategies'][0]['metrics']['cycles']")" ] ||
	fail "--profile does not change the estimate"

# a user profile file: the erratum doubles the TLBI cost, FEAT_TLBIRANGE sets the default
python3 - "$VT_SRC/profiles/kunpeng920.json" "$TMP" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["name"] = "test-errata"; p["errata"]["ARM64_ERRATUM_4118414"] = True
json.dump(p, open(sys.argv[2] + "/errata.json", "w"))
p["name"] = "test-range"; p["errata"]["ARM64_ERRATUM_4118414"] = False
p["features"]["tlbi_range"] = True
json.dump(p, open(sys.argv[2] + "/range.json", "w"))
# the baseline's profile recalibrated: the same name, dearer stores
p["features"]["tlbi_range"] = False; p["name"] = "kunpeng920"
p["costs"]["pte_store"]["cycles"] *= 3
json.dump(p, open(sys.argv[2] + "/dear.json", "w"))
PY
V replay -j --strategy=zigzag --profile=kunpeng920 "$TRACE" >"$TMP/k.json" || fail "kunpeng920"
V replay -j --strategy=zigzag --profile="$TMP/errata.json" "$TRACE" >"$TMP/e.json" || fail "profile file"
k=$(get "$TMP/k.json" "d['traces'][0]['strategies'][0]['metrics']['cycles_by_function']['flush_tlb_kernel_range']")
e=$(get "$TMP/e.json" "d['traces'][0]['strategies'][0]['metrics']['cycles_by_function']['flush_tlb_kernel_range']")
[ "$k" -gt 0 ] && [ "$e" = $((2 * k)) ] || fail "erratum: TLBI cycles $k -> $e, expected x2"
V replay -j --strategy=zigzag --profile="$TMP/range.json" "$TRACE" >"$TMP/r.json" || fail "range profile"
[ "$(get "$TMP/r.json" "d['config']['options']['tlbi_range']")" = on ] || fail "profile's FEAT_TLBIRANGE not applied"
V replay -j --strategy=zigzag --profile="$TMP/range.json" --tlbi-range=off "$TRACE" >"$TMP/r2.json"
[ "$(get "$TMP/r2.json" "d['config']['options']['tlbi_range']")" = off ] || fail "explicit --tlbi-range=off lost"
echo '{"format": "vmaptool-profile", "version": 1}' >"$TMP/bad.json"
V replay --profile="$TMP/bad.json" "$TRACE" >/dev/null 2>&1; [ $? = 3 ] || fail "malformed profile: not exit 3"

# compare: the speed-up line with the counts that explain it
# --wide: the line unwrapped (by default it is wrapped at 72 columns)
V compare --wide --strategy=pagewise,batched "$TRACE" >"$TMP/cmp.txt" || fail "compare"
grep -qE '^batched: [0-9.]+x (faster|slower) than pagewise \(estimate, profile generic-a76\): set_pte_at [0-9]+ -> [0-9]+' "$TMP/cmp.txt" ||
	fail "compare has no speed-up line: $(tail -2 "$TMP/cmp.txt")"
V compare -j --strategy=pagewise,batched "$TRACE" >"$TMP/cmp.json" && $LINT "$TMP/cmp.json" || fail "compare -j lint"
[ "$(get "$TMP/cmp.json" "d['traces'][0]['strategies'][1]['estimate']['explained_by'][0]['event']")" = set_pte_at ] ||
	fail "the per-page call does not explain the speed-up first"

# gate: estimates within the threshold pass, beyond it regress
V replay -j --strategy=zigzag --profile=kunpeng920 "$TRACE" >"$TMP/base.json"
V gate --baseline="$TMP/base.json" "$TRACE" >/dev/null 2>&1 || fail "gate against itself"
V gate --baseline="$TMP/base.json" --threshold=cycles:0.1% --profile="$TMP/dear.json" "$TRACE" >"$TMP/g.txt" 2>&1
[ $? = 1 ] || fail "a 3x dearer store is not a regression"
grep -q "cycles" "$TMP/g.txt" || fail "the gate does not name the cycles: $(head -3 "$TMP/g.txt")"
V gate --baseline="$TMP/base.json" --threshold=1000 --profile="$TMP/dear.json" "$TRACE" >/dev/null 2>&1 ||
	fail "a threshold of 1000 % still fails"
# another profile is another option, not a regression (docs/vmaptool-gate.md)
V gate --baseline="$TMP/base.json" --profile="$TMP/errata.json" "$TRACE" >"$TMP/g.txt" 2>&1
[ $? = 2 ] && grep -q -- "--profile=test-errata (baseline kunpeng920)" "$TMP/g.txt" ||
	fail "gate with another profile: $(head -3 "$TMP/g.txt")"

test_done
