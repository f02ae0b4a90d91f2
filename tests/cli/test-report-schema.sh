#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The JSON report validates against docs/report.schema.json (with
# python3-jsonschema, scripts/setup.sh) in its shapes: replay, --per-op,
# --verify, compare with ratios, several traces of different geometry,
# what-if options, the gate's --update-baseline and the shipped
# traces/baseline.json; a broken report does not.  The CSV output loads
# with Python's csv module into the same numbers as the JSON.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
python3 -c 'import jsonschema' 2>/dev/null || die "python3-jsonschema missing (scripts/setup.sh)"
cd "$VT_SRC"
T=traces/default.json
V=$VT_BIN
$V replay -j $T >"$TMP/r1.json"
$V replay -j --per-op --verify traces/default.json traces/vmap-order8.json traces/ioremap-1m.json >"$TMP/r2.json"
$V compare -j --per-op $T >"$TMP/r3.json"
$V replay -j --granule=16k --va-bits=47 --kernel=v6.12 --purge-at-end $T >"$TMP/r4.json"
$V replay -j traces/test_vmalloc/vm_map_ram_test-p1-h0.json traces/systemheap-frag.jsonl >"$TMP/r5.json"
$V gate --update-baseline --baseline="$TMP/r6.json" $T traces/vmalloc-huge-1m.json 2>/dev/null
cp traces/baseline.json "$TMP/r7.json"
$V compare -j --summary --erratum-4118414=off traces/default.json traces/vmap-order8.json >"$TMP/r8.json"
python3 - "$VT_SRC/docs/report.schema.json" "$TMP"/r[1-8].json <<'EOF' || die "schema validation"
import copy, json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
for p in sys.argv[2:]:
    errs = list(v.iter_errors(json.load(open(p))))
    assert not errs, (p, [e.message for e in errs[:3]])
# the schema can fail: each of these breaks it
d = json.load(open(sys.argv[2]))
bad = []
x = copy.deepcopy(d); x["version"] = 2; bad.append(x)
x = copy.deepcopy(d); x["traces"][0]["strategies"][0]["metrics"]["tlbi"] = -1; bad.append(x)
x = copy.deepcopy(d); del x["traces"][0]["events"]; bad.append(x)
x = copy.deepcopy(d); x["config"]["granule"] = "8k"; bad.append(x)
x = copy.deepcopy(d); x["traces"][0]["strategies"][0]["metrics"]["pte_writes"] = 1.5; bad.append(x)
# compare --summary (r8): its objects are checked too
d = json.load(open(sys.argv[-1]))
assert "summary" in d and "summary" in d["traces"][0], "no summary in r8"
x = copy.deepcopy(d); del x["summary"]["tool"]["commit"]; bad.append(x)
x = copy.deepcopy(d); x["traces"][0]["summary"]["speedups"][0]["low"] = {"profile": "p"}; bad.append(x)
x = copy.deepcopy(d); x["traces"][0]["summary"]["rows"][0]["values"][0] = -1; bad.append(x)
for i, x in enumerate(bad):
    assert list(v.iter_errors(x)), "broken report %d validates" % i
EOF
# CSV: the same numbers as the JSON, through Python's csv module
$V compare --format=csv --per-op traces/default.json traces/vmap-order8.json >"$TMP/c.csv"
$V compare -j --per-op traces/default.json traces/vmap-order8.json >"$TMP/c.json"
python3 - "$TMP/c.csv" "$TMP/c.json" <<'EOF' || die "CSV"
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head, body = rows[0], rows[1:]
assert head[:2] == ["trace", "strategy"] and head[-1] == "value", head
assert all(len(r) == len(head) for r in body), "ragged CSV"
d = json.load(open(sys.argv[2]))
def flat(prefix, obj, out):
    for k, val in obj.items():
        if isinstance(val, dict):
            flat(prefix + k + ".", val, out)
        else:
            out[prefix + k] = val
want = {}
for t in d["traces"]:
    for s in t["strategies"]:
        m = {}
        flat("", s["metrics"], m)
        flat("per_op.", s.get("per_op", {}), m)
        flat("ratios.", s.get("ratios", {}), m)
        for k, val in m.items():
            want[(t["trace"], s["name"], k)] = val
seen = 0
for r in body:
    key = (r[0], r[1], r[2])
    assert key in want, ("CSV row not in the JSON", r)
    val = want[key]
    if val is None:
        assert r[3] == "", r
    elif isinstance(val, float):
        assert abs(float(r[3]) - val) <= 1e-6 * max(1, abs(val)), (r, val)
    else:
        assert int(r[3]) == val, (r, val)
    seen += 1
assert seen >= 20, "only %d CSV values matched the JSON" % seen
EOF
test_done
