#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The gate's verdicts (docs/vmaptool-gate.md "What counts", issue 23 item
# 4, issue 22 item 6), each against the behaviour it replaced:
#   - a neutral count that moved (pages_allocated) is a "neutral change"
#     and passes; work or estimated cost that rose fails, with the
#     estimate gated from the shipped baseline (which must carry cycles);
#     an improvement passes; --strict fails on every move;
#   - a trace on one side only is "missing", not a regression, in text,
#     JSON, JUnit and Markdown;
#   - a report listing the same traces in another order (so another
#     top-level geometry) is compared trace by trace and passes;
#   - keys match exactly: a baseline entry sub/t.json is not t.json;
#   - every output is ASCII under LC_ALL=C, the changes worded as compare
#     words them ("4.7x fewer", "14% more"), and JSON "change" is those
#     words alone.
set -euo pipefail
: "${VT_SRC:?}" "${VT_BIN:?}"
command -v python3 >/dev/null || { echo "FAIL: python3 missing" >&2; exit 1; }
fail() { echo "FAIL: $*" >&2; exit 1; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
cp "$VT_SRC/traces/default.json" "$VT_SRC/traces/vmap-order8.json" .
V=$VT_BIN
export LC_ALL=C

# expect RC CMD...: exit RC; stdout in out, stderr in err
expect() {
	local want=$1 rc=0
	shift
	"$@" >out 2>err || rc=$?
	[ "$rc" = "$want" ] || fail "$*: exit $rc, expected $want: $(cat out err)"
}
has() { grep -Fqx -- "$1" "${2:-out}" || fail "no line '$1' in: $(cat "${2:-out}")"; }
# the summary line, whatever the number of counts compared (it follows
# the metrics a report has)
summary() { grep -Eqx -- "gate: $1 in [1-9][0-9]* counts compared" out || fail "no summary '$1' in: $(cat out)"; }

"$V" gate --update-baseline --baseline=b.json --strategy=pagewise,batched \
	default.json vmap-order8.json 2>err || fail "--update-baseline: $(cat err)"

# mutate FILE PYTHON: a copy of b.json, m the metrics of default.json's
# pagewise, changed by PYTHON
mutate() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open("b.json"))
m = d["traces"][0]["strategies"][0]["metrics"]
assert d["traces"][0]["trace"] == "default.json" and m["pages_allocated"] == 8
exec(sys.argv[2])
open(sys.argv[1], "w").write(json.dumps(d, indent=1) + "\n")
EOF
}

# ---- direction ---------------------------------------------------------
# the current run allocates one page more than the baseline says: neutral
mutate neutral.json 'm["pages_allocated"] = 7'
expect 0 "$V" gate --baseline=neutral.json default.json vmap-order8.json
has 'default.json: pagewise: pages_allocated: 7 -> 8, 14% more (neutral change)'
summary 'ok: 0 regressions, 0 improvements, 1 neutral change'
expect 0 "$V" gate -j --baseline=neutral.json default.json vmap-order8.json
python3 - <<'EOF' || fail "neutral change in JSON: $(cat out)"
import json
d = json.load(open("out"))
assert d["result"] == "ok" and d["regressions"] == [] and d["strict"] is False, d
c, = d["changes"]
assert (c["metric"], c["baseline"], c["current"], c["change"]) == \
    ("pages_allocated", 7, 8, "14% more"), c
EOF
expect 1 "$V" gate --strict --baseline=neutral.json default.json vmap-order8.json
has 'default.json: pagewise: pages_allocated: 7 -> 8, 14% more, a neutral count, failed by --strict (regression)'

# an improvement passes, in compare's words; under --strict it fails
mutate better.json 'm["pte_writes"] += 10000'
expect 0 "$V" gate --baseline=better.json default.json vmap-order8.json
has 'default.json: pagewise: pte_writes: 12698 -> 2698, 4.7x fewer (improvement)'
expect 1 "$V" gate --strict --baseline=better.json default.json vmap-order8.json
has 'default.json: pagewise: pte_writes: 12698 -> 2698, 4.7x fewer, an improvement, failed by --strict (regression)'
# work that rose fails with or without --strict
mutate worse.json 'm["pte_writes"] -= 1'
expect 1 "$V" gate --baseline=worse.json default.json vmap-order8.json
grep -Eq '^default.json: pagewise: pte_writes: [0-9]+ -> [0-9]+, [0-9.]+% more \(regression\)$' out ||
	fail "pte_writes regression: $(cat out)"

# ---- the estimated cost, from the shipped baseline ---------------------
python3 - "$VT_SRC/traces/baseline.json" <<'EOF' || fail "traces/baseline.json: $(cat err)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["config"].get("profile"), "no config.profile: the cost is not gated"
for t in d["traces"]:
    for s in t["strategies"]:
        assert isinstance(s["metrics"].get("cycles"), int), (t["trace"], s["name"])
        assert isinstance(s["metrics"].get("ns"), int), (t["trace"], s["name"])
t, = [t for t in d["traces"] if t["trace"] == "default.json"]
d["traces"] = [t]
json.dump(d, open("shipped.json", "w"))
c = t["strategies"][0]["metrics"]["cycles"]
t["strategies"][0]["metrics"]["cycles"] = int(c * 0.95)   # 5% > 2% cheaper
json.dump(d, open("cheaper.json", "w"))
t["strategies"][0]["metrics"]["cycles"] = int(c * 0.99)   # within 2%
json.dump(d, open("within.json", "w"))
EOF
expect 0 "$V" gate --baseline=shipped.json default.json
expect 1 "$V" gate --baseline=cheaper.json default.json
grep -Eq '^default.json: [a-z]+: cycles: [0-9]+ -> [0-9]+, 5.[0-9]% more \(regression\)$' out ||
	fail "cost rise: $(cat out)"
expect 0 "$V" gate --baseline=within.json default.json

# ---- missing -----------------------------------------------------------
expect 1 "$V" gate --baseline=b.json default.json --junit=j.xml --markdown=m.md
has 'vmap-order8.json: in the baseline but not in the current run (missing)'
summary 'FAIL: 0 regressions, 0 improvements, 1 trace missing'
grep -q '(regression)' out && fail "a missing trace is called a regression: $(cat out)"
has '| missing | vmap-order8.json | - | - |  |  | in the baseline but not in the current run |' m.md
python3 - <<'EOF' || fail "JUnit of a missing trace: $(cat j.xml)"
import xml.etree.ElementTree as E
r = E.parse("j.xml").getroot()
assert r.get("failures") == "1", r.attrib
c, = [c for c in r.iter("testcase") if c.get("classname") == "vmap-order8.json"]
f = c.find("failure")
assert f is not None and f.get("type") == "missing" and c.find("skipped") is None
EOF
expect 1 "$V" gate -j --baseline=b.json default.json
python3 -c 'import json; d = json.load(open("out")); assert d["result"] == "fail" and d["regressions"] == [] and [m["trace"] for m in d["missing"]] == ["vmap-order8.json"], d' ||
	fail "JSON of a missing trace: $(cat out)"
expect 0 "$V" gate --allow-missing --baseline=b.json default.json
has 'vmap-order8.json: in the baseline but not in the current run (allowed by --allow-missing)'

# ---- a report in another order: geometry per trace ---------------------
"$V" gen systemheap --granule=4k --va-bits=52 --size=1M --buffers=2 --seed=2 >t52.json 2>/dev/null
"$V" replay -j default.json t52.json >ab.json
"$V" replay -j t52.json default.json >ba.json
expect 0 "$V" gate --baseline=ab.json ba.json
summary 'ok: 0 regressions, 0 improvements'
# a real difference of geometry is still named, by trace
sed 's/"va_bits": 52/"va_bits": 48/' ba.json >ba48.json
expect 2 "$V" gate --baseline=ab.json ba48.json
grep -Fq 't52.json: geometry 4k/48 (baseline 4k/52)' err || fail "geometry: $(cat err)"

# a report made from another folder is keyed from its own
mkdir -p up/tr && cp default.json up/tr/ && (cd up && "$V" replay -j tr/default.json >cur.json)
"$V" gate --update-baseline --baseline=up/tr/base.json up/tr/default.json 2>/dev/null
expect 0 "$V" gate --baseline=up/tr/base.json up/cur.json

# ---- keys match exactly, never by suffix -------------------------------
mkdir -p sfx/sub && cp default.json sfx/sub/t.json && cp default.json sfx/t.json
(cd sfx && "$V" gate --update-baseline --baseline=b.json sub/t.json 2>/dev/null)
expect 1 "$V" gate --baseline=sfx/b.json sfx/t.json
has 'sub/t.json: in the baseline but not in the current run (missing)'
has 't.json: not in the baseline (missing)'
expect 0 "$V" gate --baseline=sfx/b.json sfx/sub/t.json

# ---- ASCII in the C locale, every format -------------------------------
for f in "" -j; do
	expect 1 "$V" gate $f --baseline=worse.json default.json --junit=a.xml --markdown=a.md
	for o in out err a.xml a.md; do
		! LC_ALL=C grep -q '[^ -~	]' "$o" || fail "non-ASCII in $o of gate $f: $(grep -n '[^ -~	]' "$o")"
	done
done
echo "ok"
