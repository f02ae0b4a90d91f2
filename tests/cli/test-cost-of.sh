#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# --cost-of=map|alloc|free|all (docs/cost-model.md, "Parts of the work"):
# `all` is the default, byte for byte in every format; the three parts'
# cycles add up to the whole per strategy, per op and per kernel function,
# each function in one part only; the counts do not move; the speed-up
# is the part's; gate refuses a report or a baseline made with a part.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || test_skip "no python3"
T=$VT_SRC/traces/vmalloc-huge-1m.json
S=--strategy=pagewise,batched
cd "$TMP" || die "no $TMP"
for fmt in table json csv mail; do
	"$VT_BIN" compare $S --per-op --format=$fmt "$T" >def.$fmt 2>/dev/null || fail "compare --format=$fmt"
	"$VT_BIN" compare $S --per-op --cost-of=all --format=$fmt "$T" >all.$fmt 2>/dev/null ||
		fail "compare --cost-of=all --format=$fmt"
	cmp -s def.$fmt all.$fmt || fail "--cost-of=all changes the $fmt output"
done
for part in map alloc free; do
	"$VT_BIN" compare $S --per-op --cost-of=$part -j "$T" >$part.json 2>/dev/null ||
		fail "compare --cost-of=$part"
done
python3 - all.json map.json alloc.json free.json <<'PY' || fail "the parts do not add up to the whole"
import json, sys
docs = [json.load(open(p)) for p in sys.argv[1:]]
whole, parts = docs[0], docs[1:]
assert "cost_of" not in whole["config"]
assert [p["config"]["cost_of"] for p in parts] == ["map", "alloc", "free"]
def strategies(d):
    return d["traces"][0]["strategies"]
for i, s in enumerate(strategies(whole)):
    ps = [strategies(p)[i] for p in parts]
    m = s["metrics"]
    # the counts do not move
    for k, v in m.items():
        if k not in ("cycles", "ns", "cycles_by_function"):
            assert all(p["metrics"][k] == v for p in ps), (s["name"], k)
    assert sum(p["metrics"]["cycles"] for p in ps) == m["cycles"], s["name"]
    assert abs(sum(p["metrics"]["ns"] for p in ps) - m["ns"]) <= 3, s["name"]
    assert all(p["metrics"]["cycles"] > 0 for p in ps), [p["metrics"]["cycles"] for p in ps]
    # each kernel function in one part, with the whole's cycles
    fw = m["cycles_by_function"]
    seen = {}
    for name, p in zip(("map", "alloc", "free"), ps):
        for fn, c in p["metrics"]["cycles_by_function"].items():
            if c:
                assert fn not in seen, (fn, seen.get(fn), name)
                seen[fn] = name
                assert c == fw[fn], (fn, c, fw[fn])
    assert set(seen) == {f for f, c in fw.items() if c}, (seen, fw)
    for fn in ("alloc_vmap_area", "vm_area_alloc_pages"):
        assert seen.get(fn) == "alloc", (fn, seen)
    for fn in ("free_vmap_area_noflush", "vfree"):
        assert seen.get(fn) in ("free", None), (fn, seen)
    for fn in ("set_pte_at", "__set_pte", "emit_pte_barriers"):
        assert seen.get(fn) in ("map", None), (fn, seen)
    # per op: the same sums
    for op, om in s.get("per_op", {}).items():
        assert sum(p["per_op"][op]["cycles"] for p in ps) == om["cycles"], op
# compare's speed-up is the part's: batched's map work is a fraction of pagewise's
sp = strategies(parts[0])[1]["estimate"]["speedup"]
c = [x["metrics"]["cycles"] for x in strategies(parts[0])]
assert abs(sp - c[0] / c[1]) < 1e-3 * sp, (sp, c)
PY
"$VT_BIN" compare $S --cost-of=map "$T" >map.txt 2>/dev/null
tr '\n' ' ' <map.txt | grep -q '(estimate, profile generic-a76, cost *of *map)' ||
	fail "the estimate line does not name the part: $(grep -A1 estimate map.txt)"
# gate: whole estimates only
"$VT_BIN" replay -j "$T" >whole.json 2>/dev/null
"$VT_BIN" replay -j --cost-of=map "$T" >part.json 2>/dev/null
"$VT_BIN" gate --baseline=whole.json part.json >/dev/null 2>err; rc=$?
[ $rc = 2 ] && grep -q -- '--cost-of=map (baseline all)' err || fail "gate of a part against the whole: exit $rc $(cat err)"
"$VT_BIN" gate --baseline=part.json "$T" >/dev/null 2>err; rc=$?
[ $rc = 2 ] && grep -q "estimates a part of the work only (made with --cost-of=map)" err ||
	fail "gate against a baseline of a part: exit $rc $(cat err)"
"$VT_BIN" gate --update-baseline --baseline=part.json "$T" 2>err &&
	"$VT_BIN" gate --baseline=part.json "$T" >/dev/null 2>&1 || fail "re-blessing a baseline of a part: $(cat err)"
"$VT_BIN" gate --cost-of=map --baseline=whole.json "$T" >/dev/null 2>&1; [ $? = 2 ] ||
	fail "gate --cost-of is not a usage error"
test_done
