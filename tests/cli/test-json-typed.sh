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
test_done
