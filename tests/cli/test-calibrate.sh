#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The cost model's calibration holds its bounds (docs/cost-model.md): over
# every expressed ratio figure the median |error| is <= 10 % and the worst
# <= 25 %, in sample and leave-one-out (the leave-one-out exceptions are
# listed below with their reason); the time figures likewise.  The shipped
# profiles are the fit's output ('calibrate --check' with them predicts
# what the fit predicts), calibration/figures.json carries every published
# figure unchanged, and 'profiles' lists what 'calibrate' fitted.
# An engine change that moves a count enough to break the fit fails here.
set -u
. "$(dirname "$0")/lib.sh"

test_require python3

# one fit gives the report and the written profiles (checked below)
mkdir "$TMP/prof"
"$VT_BIN" calibrate -j --write="$TMP/prof" >"$TMP/fit.json" 2>"$TMP/err" ||
	fail "calibrate --write: $(head -3 "$TMP/err")"
"$VT_BIN" calibrate -j --check="$VT_SRC/calibration/figures.json" >"$TMP/check.json" \
	2>"$TMP/err" || fail "calibrate --check: $(head -3 "$TMP/err")"
"$VT_BIN" calibrate >"$TMP/fit.txt" 2>&1 || fail "calibrate (table)"
grep -q "^ratios (" "$TMP/fit.txt" || fail "the table has no ratio summary"

# Leave-one-out exceptions, each with the reason it cannot hold:
#  barry-vmap-rfc-128M(-speedup): the only measurement on generic-a76 (one
#  measurement published twice); without it the profile has no data and the
#  prediction is the hardware prior's.
#  seed002-fix_size_alloc_test-p4-h0: fix_align_alloc_test p:1 has the same
#  counts in what the strategies change (an order-2 block per loop from refills
#  of 15 under one zone->lock hold, three frees fewer) and a published saving
#  twice this row's; no price of a counted event fits both, and left out this
#  row follows fix_align (docs/cost-model.md, "Where the bounds are not met").
python3 - "$TMP/fit.json" "$TMP/check.json" "$VT_SRC/calibration/figures.json" \
	"$VT_SRC/tests/data/calibration/published.sha256" <<'PY' || fail "the python checks above"
import json, sys
fit = json.load(open(sys.argv[1]))
check = json.load(open(sys.argv[2]))
figs = json.load(open(sys.argv[3]))
LOO_EXCEPT = {"barry-vmap-rfc-128M", "barry-vmap-rfc-128M-speedup",
              "seed002-fix_size_alloc_test-p4-h0"}
bad = []
s = fit["summary"]
if s["expressed"] < 143 or s["pending"]:
    bad.append("only %d figures expressed" % s["expressed"])
for k in ("ratio", "time"):
    if s[k + "_median_abs_error"] > 0.10: bad.append(k + " median %.3f > 10 %%" % s[k + "_median_abs_error"])
    if s[k + "_worst_abs_error"] > 0.25: bad.append(k + " worst %.3f > 25 %%" % s[k + "_worst_abs_error"])
    if s[k + "_median_abs_error_loo"] > 0.10: bad.append(k + " leave-one-out median > 10 %")
byid = {}
for f in fit["figures"]:
    byid[f["id"]] = f
    if f["state"] != "expressed":
        if not f.get("why"): bad.append(f["id"] + ": not expressed, no reason")
        continue
    if abs(f["error"]) > 0.25: bad.append("%s: error %+.3f" % (f["id"], f["error"]))
    if f["id"] not in LOO_EXCEPT and abs(f["loo_error"]) > 0.25:
        bad.append("%s: leave-one-out error %+.3f" % (f["id"], f["loo_error"]))
for f in check["figures"]:
    if f["state"] != "expressed": continue
    p, q = byid[f["id"]]["predicted"], f["predicted"]
    if abs(p / q - 1) > 1e-3:
        bad.append("%s: shipped profiles predict %g, the fit %g: run 'vmaptool calibrate --write'" % (f["id"], q, p))
# the seed figures the issue names are among the expressed ones
for need in ("seed000-vmap-order8", "seed000-vmalloc-1M-huge", "seed000-ioremap-1M"):
    if byid.get(need, {}).get("state") != "expressed": bad.append(need + " not expressed")
# every published figure is in the calibration set, with the published
# numbers: the fingerprint of tests/data/calibration/README.md
import hashlib
KEYS = ("id", "before", "after", "unit", "change_percent", "metric", "platform")
rows = [{k: f.get(k) for k in KEYS} for f in figs]
got = hashlib.sha256(json.dumps(rows, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
want, count = open(sys.argv[4]).read().split()
if len(figs) != int(count): bad.append("figures.json has %d figures, published %s" % (len(figs), count))
elif got != want: bad.append("the published numbers of calibration/figures.json changed (sha256 %s, published %s)" % (got, want))
for b in bad: print("FAIL:", b)
sys.exit(1 if bad else 0)
PY

# --write: the written profiles reproduce the fit's predictions
[ "$(ls "$TMP/prof" | wc -l)" -ge 7 ] || fail "--write wrote $(ls "$TMP/prof" | wc -l) profiles"
VMAPTOOL_PROFILES=$TMP/prof "$VT_BIN" calibrate -j --check="$VT_SRC/calibration/figures.json" \
	>"$TMP/check2.json" || fail "--check with the written profiles"
cmp -s "$TMP/check.json" "$TMP/check2.json" || fail "the shipped profiles are not the fit's output"
# --write is all or nothing like every output file (cli/output.c): one
# profile that cannot be written (here a folder in its place) fails the
# run with exit 4 naming it, and no other profile is written (a fit of
# one figure: every profile is written whatever the figures)
mkdir -p "$TMP/prof-bad/m2-vm.json"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
json.dump([f for f in d if f["id"] == "seed000-ioremap-1M"], open(sys.argv[2], "w"))' \
	"$VT_SRC/calibration/figures.json" "$TMP/fig1.json"
"$VT_BIN" calibrate "$TMP/fig1.json" --write="$TMP/prof-bad" >/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 4 ] || fail "--write onto a folder: exit $rc"
grep -q "prof-bad/m2-vm.json" "$TMP/err" || fail "--write onto a folder: $(head -3 "$TMP/err")"
[ "$(ls -A "$TMP/prof-bad")" = m2-vm.json ] || fail "a failed --write left: $(ls -A "$TMP/prof-bad")"

# profiles lists every profile with its sources
"$VT_BIN" profiles -v -j >"$TMP/prof.json" || fail "profiles -v -j"
python3 - "$TMP/prof.json" <<'PY' || fail "the python checks above"
import json, sys
d = json.load(open(sys.argv[1]))
names = {p["name"] for p in d["profiles"]}
need = {"rk3588-a55", "rk3588-a76", "altra-vm", "altra-metal", "m2-vm", "kunpeng920", "generic-a76"}
bad = sorted(need - names)
if d["default"] != "generic-a76": bad.append("default is " + d["default"])
for p in d["profiles"]:
    for e, c in p["costs"].items():
        if c["source"] not in ("hardware", "measured", "fitted"): bad.append(p["name"] + "." + e)
        if not (c["anchor"] / c["range"] * 0.999 <= c["cycles"] <= c["anchor"] * c["range"] * 1.001):
            bad.append("%s.%s outside its range" % (p["name"], e))
for b in bad: print("FAIL: profiles:", b)
sys.exit(1 if bad else 0)
PY

# every cost event is documented
for e in $(python3 -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))['profiles'][0]['costs']))" "$TMP/prof.json"); do
	grep -q "\`$e\`" "$VT_SRC/docs/cost-model.md" || fail "cost event '$e' is not in docs/cost-model.md"
done

# usage and input errors
"$VT_BIN" calibrate a.json --check=b.json >/dev/null 2>&1; [ $? = 2 ] || fail "file + --check is not a usage error"
# the table: an id longer than the usual column keeps the columns aligned;
# no time figure is "none", not a median of nothing; "1 figure"
python3 - "$VT_SRC/calibration/figures.json" "$TMP/one.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
f = dict(next(x for x in d if x["id"] == "seed000-ioremap-1M"))
f["id"] = "seed000-ioremap-1M-with-an-identifier-longer-than-48-characters"
json.dump([f], open(sys.argv[2], "w"))
EOF
"$VT_BIN" calibrate --check="$TMP/one.json" >"$TMP/one.txt" 2>"$TMP/err" || fail "--check one.json: $(cat "$TMP/err")"
python3 - "$TMP/one.txt" <<'EOF' || fail "calibrate table: $(cat "$TMP/one.txt")"
import sys
lines = open(sys.argv[1]).read().split("\n")
head, row = lines[0], lines[1]
assert row.index("rk3588-a55") == head.index("profile"), (head, row)
assert row.index(" speedup") + 1 == head.index("quantity"), (head, row)
assert "times  (0): none" in lines, lines
# --check: the predicted absolute times beside the ratio, as in the JSON
assert head.endswith("  pred.before  pred.after"), head
assert row.split()[-4:-2] != ["-", "-"] and row.split()[-1] in ("ns", "us", "ms"), row
assert "1 figure: 1 expressed, 0 pending (counts this build lacks), 0 inexpressible" in lines, lines
EOF
# a figure whose strategy this build lacks is pending; one a letter off a
# known strategy is a typo, and says so (it was pending in silence)
python3 - "$TMP/one.json" "$TMP/typo.json" <<'EOF'
import json, sys
f = json.load(open(sys.argv[1]))
a, b = dict(f[0]), dict(f[0])
a["id"], b["id"] = "typo", "later"
a["experiment"] = dict(a["experiment"], before=dict(a["experiment"]["before"], strategy="batchd"))
b["experiment"] = dict(b["experiment"], after=dict(b["experiment"]["after"], strategy="a-strategy-of-2027"))
json.dump([a, b], open(sys.argv[2], "w"))
EOF
"$VT_BIN" calibrate --check="$TMP/typo.json" >"$TMP/typo.txt" 2>"$TMP/err" || fail "--check typo.json: $(cat "$TMP/err")"
[ "$(cat "$TMP/err")" = "vmaptool: warning: figure 'typo': unknown strategy 'batchd'; did you mean 'batched'? (left pending)" ] &&
	grep -q "2 figures: 0 expressed, 2 pending" "$TMP/typo.txt" || fail "a strategy typo in --check: $(cat "$TMP/err" "$TMP/typo.txt")"
# a number with no range says so without one ("from -inf to inf")
python3 - "$TMP/one.json" "$TMP/scale.json" <<'EOF'
import json, sys
f = json.load(open(sys.argv[1]))
f[0]["experiment"] = dict(f[0]["experiment"], scale="x")
json.dump(f, open(sys.argv[2], "w"))
EOF
"$VT_BIN" calibrate --check="$TMP/scale.json" >/dev/null 2>"$TMP/err"
[ $? = 3 ] && grep -q '"scale" must be a number, not a string' "$TMP/err" && ! grep -q inf "$TMP/err" ||
	fail "scale of a string: $(cat "$TMP/err")"
# the times in the table are the JSON's predicted_before_ns/_after_ns
"$VT_BIN" calibrate -j --check="$TMP/one.json" >"$TMP/one.json.out" || fail "-j --check one.json"
python3 - "$TMP/one.txt" "$TMP/one.json.out" <<'EOF' || fail "calibrate --check times: $(cat "$TMP/one.txt")"
import json, sys
row = open(sys.argv[1]).read().split("\n")[1].split()
f = json.load(open(sys.argv[2]))["figures"][0]
def ns(v, u):
    return float(v) * {"ns": 1, "us": 1e3, "ms": 1e6}[u]
for (v, u), key in ((row[-4:-2], "predicted_before_ns"), (row[-2:], "predicted_after_ns")):
    assert f[key] > 0 and abs(ns(v, u) / f[key] - 1) < 1e-3, (row, f)
EOF
echo '[{"id": "x", "unit": "x", "after": 2}]' >"$TMP/bad.json"
"$VT_BIN" calibrate "$TMP/bad.json" >/dev/null 2>"$TMP/err"; [ $? = 3 ] || fail "a figure without experiment: not exit 3"
grep -q "neither" "$TMP/err" || fail "no reason for the bad figure: $(cat "$TMP/err")"

test_done
