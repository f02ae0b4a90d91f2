#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# JSON inputs are typed (issue 22, item 5): a cost profile or a figures
# file whose field has the wrong type is refused with exit 3 naming the
# field, never read as the field's default ("true" for a boolean was read
# as false, "300" or 300.0 for an integer as 0, "covers": "pte_store"
# covered nothing).  Every shipped profile (profiles/) and figures file
# (calibration/) validates against its published schema
# (docs/profile.schema.json, docs/figures.schema.json), and the schema
# refuses each mistyped case too.
#
# Environment (set by ctest): VT_BIN, VT_SRC (tests/cli/lib.sh).

set -u
. "$(dirname "$0")/lib.sh"
python3 -c 'import jsonschema' 2>/dev/null || {
	echo "FAIL: python3-jsonschema missing (scripts/setup.sh)"
	exit 1
}

# the mutants: NAME KIND PYTHON-EXPRESSION-ON-d REGEX
python3 - "$VT_SRC" "$TMP" <<'PY' || fail "the typed-field mutants (above)"
import json, sys, glob, os
import jsonschema
src, tmp = sys.argv[1], sys.argv[2]
ps = json.load(open(src + "/docs/profile.schema.json"))
fs = json.load(open(src + "/docs/figures.schema.json"))
bad = 0
for f in sorted(glob.glob(src + "/profiles/*.json")):
    try:
        jsonschema.validate(json.load(open(f)), ps)
    except jsonschema.ValidationError as e:
        print("FAIL %s: %s" % (f, e.message)); bad = 1
for f in sorted(glob.glob(src + "/calibration/*.json")):
    try:
        jsonschema.validate(json.load(open(f)), fs)
    except jsonschema.ValidationError as e:
        print("FAIL %s: %s" % (f, e.message)); bad = 1
prof = json.load(open(src + "/profiles/generic-a76.json"))
figs = json.load(open(src + "/calibration/figures.json"))
exp = next(i for i, x in enumerate(figs) if "experiment" in x)
def pmut(name, fn):
    d = json.loads(json.dumps(prof)); fn(d)
    json.dump(d, open("%s/p-%s.json" % (tmp, name), "w"))
    try:
        jsonschema.validate(d, ps); print("FAIL schema accepts profile mutant " + name); return 1
    except jsonschema.ValidationError:
        return 0
def fmut(name, fn, schema=True):
    d = json.loads(json.dumps(figs[exp])); fn(d["experiment"])
    json.dump([d], open("%s/f-%s.json" % (tmp, name), "w"))
    if not schema:
        return 0
    try:
        jsonschema.validate([d], fs); print("FAIL schema accepts figures mutant " + name); return 1
    except jsonschema.ValidationError:
        return 0
bad |= pmut("erratum", lambda d: d.setdefault("errata", {}).update(ARM64_ERRATUM_4118414="true"))
bad |= pmut("tlbi", lambda d: d.setdefault("features", {}).update(tlbi_range="yes"))
bad |= pmut("cycles", lambda d: d["costs"]["pte_store"].update(cycles="10"))
bad |= pmut("fit", lambda d: d["costs"]["pte_store"].update(fit=1))
bad |= pmut("name", lambda d: d.update(name=7))
bad |= pmut("features", lambda d: d.update(features=[]))
bad |= fmut("from-string", lambda e: e.update(from_event="300"))
# JSON Schema counts 300.0 as an integer (2020-12, "integer"): vmaptool
# does not, as jansson keeps it a real; only the reader is checked
bad |= fmut("from-real", lambda e: e.update(from_event=300.0), schema=False)
bad |= fmut("covers", lambda e: e.update(covers="pte_store"))
bad |= fmut("timed-ops", lambda e: e.update(timed_ops="ioremap"))
bad |= fmut("timed-ops-int", lambda e: e.update(timed_ops=[3]))
bad |= fmut("fit-times", lambda e: e.update(fit_times="true"))
bad |= fmut("scale", lambda e: e.update(scale="2"))
sys.exit(bad)
PY

P=$TMP/p-
run "erratum \"true\"" 3 '"ARM64_ERRATUM_4118414" must be true or false, not a string' \
	"$VT_BIN" replay --profile="${P}erratum.json" "$VT_SRC/traces/default.json"
run "tlbi_range \"yes\"" 3 '"tlbi_range" must be true or false, not a string' \
	"$VT_BIN" replay --profile="${P}tlbi.json" "$VT_SRC/traces/default.json"
run "cycles \"10\"" 3 "cost 'pte_store': \"cycles\" must be a number" \
	"$VT_BIN" replay --profile="${P}cycles.json" "$VT_SRC/traces/default.json"
run "fit 1" 3 "cost 'pte_store': \"fit\" must be true or false, not an integer" \
	"$VT_BIN" replay --profile="${P}fit.json" "$VT_SRC/traces/default.json"
run "name 7" 3 '"name" must be a string, not an integer' \
	"$VT_BIN" replay --profile="${P}name.json" "$VT_SRC/traces/default.json"
run "features []" 3 '"features" must be an object, not an array' \
	"$VT_BIN" replay --profile="${P}features.json" "$VT_SRC/traces/default.json"
F=$TMP/f-
run "from_event \"300\"" 3 '"from_event" must be an integer .*, not a string' \
	"$VT_BIN" calibrate --check="${F}from-string.json"
run "from_event 300.0" 3 '"from_event" must be an integer .*, not a real number' \
	"$VT_BIN" calibrate --check="${F}from-real.json"
run "covers \"pte_store\"" 3 '"covers" must be an array, not a string' \
	"$VT_BIN" calibrate --check="${F}covers.json"
run "timed_ops \"ioremap\"" 3 '"timed_ops" must be an array, not a string' \
	"$VT_BIN" calibrate --check="${F}timed-ops.json"
run "timed_ops [3]" 3 '"timed_ops"\[0\] must be a string, not an integer' \
	"$VT_BIN" calibrate --check="${F}timed-ops-int.json"
run "fit_times \"true\"" 3 '"fit_times" must be true or false' \
	"$VT_BIN" calibrate --check="${F}fit-times.json"
run "scale \"2\"" 3 '"scale" must be a number' \
	"$VT_BIN" calibrate --check="${F}scale.json"

# Baselines and reports: the same typed reader (cli/report-read.c through
# core/json-read.c), each field named; docs/report.schema.json is the
# baseline's schema (test-report-schema validates traces/baseline.json
# against it) and refuses each mutant too.
python3 - "$VT_SRC" "$TMP" <<'PY' || fail "baseline mutants"
import copy, json, sys
import jsonschema
src, tmp = sys.argv[1], sys.argv[2]
schema = json.load(open(src + "/docs/report.schema.json"))
base = json.load(open(src + "/traces/baseline.json"))
jsonschema.validate(base, schema)
muts = {
    "traces": lambda d: d.update(traces={}),
    "trace-elem": lambda d: d["traces"].__setitem__(0, 5),
    "trace": lambda d: d["traces"][0].update(trace=5),
    "strategies": lambda d: d["traces"][0].update(strategies={}),
    "events": lambda d: d["traces"][0].update(events=-1),
    "tconfig": lambda d: d["traces"][0].update(config="x"),
    "name": lambda d: d["traces"][0]["strategies"][0].update(name=1),
    "metrics": lambda d: d["traces"][0]["strategies"][0].update(metrics=[]),
    "per_op": lambda d: d["traces"][0]["strategies"][0].update(per_op=3),
}
bad = 0
for n, fn in muts.items():
    d = copy.deepcopy(base)
    fn(d)
    json.dump(d, open("%s/b-%s.json" % (tmp, n), "w"))
    try:
        jsonschema.validate(d, schema)
        print("FAIL schema accepts baseline mutant " + n)
        bad = 1
    except jsonschema.ValidationError:
        pass
sys.exit(bad)
PY
B=$TMP/b-
T0=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["traces"][0]["trace"])' \
	"$VT_SRC/traces/baseline.json")
gate_bad() { # NAME REGEX: gate with that baseline is exit 3 naming the field
	run "baseline $1" 3 "$2" "$VT_BIN" gate --baseline="$B$1.json" "$VT_SRC/traces/default.json"
}
gate_bad traces '"traces" must be an array, not an object'
gate_bad trace-elem 'traces\[0\]: must be an object, not an integer'
gate_bad trace 'traces\[0\]: "trace" must be a string, not an integer'
gate_bad strategies "trace '$T0': \"strategies\" must be an array, not an object"
gate_bad events "trace '$T0': \"events\" must be an integer from 0 to [0-9]+, not -1"
gate_bad tconfig "trace '$T0': \"config\" must be an object, not a string"
gate_bad name "trace '$T0', strategy 1: \"name\" must be a string, not an integer"
gate_bad metrics "trace '$T0', strategy '[a-z0-9_,=+-]+': \"metrics\" must be an object, not an array"
gate_bad per_op "trace '$T0', strategy '[a-z0-9_,=+-]+': \"per_op\" must be an object, not an integer"
test_done
