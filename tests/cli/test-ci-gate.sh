#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# docs/ci-gate.md as written: its GitHub Actions and GitLab CI jobs (every
# step but scripts/setup.sh and the build, which the vmaptool under test
# replaces) run in a copy of the traces, from another working directory,
# with the variables the CI systems set.  They pass against a fresh
# baseline; then a strategy issues one more TLBI per vmap (vmaptool-toy
# with VT_TOY_EXTRA_TLBI=1, tests/strategy/toy.c) and they must die (exit
# 1) naming the trace, the strategy and the metric in words in the text,
# JUnit and Markdown outputs.  Also: options that differ from the
# baseline's, missing traces, --threshold, --update-baseline (and the
# warning when it drops traces of the old baseline).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
VT_TOY_BIN=${VT_TOY_BIN:-$(dirname "$VT_BIN")/vmaptool-toy}
[ -x "$VT_TOY_BIN" ] || { echo "FAIL: no vmaptool-toy at $VT_TOY_BIN" >&2; exit 1; }
command -v python3 >/dev/null || { echo "FAIL: python3 missing" >&2; exit 1; }
python3 -c 'import yaml' || { echo "FAIL: python3-yaml missing (scripts/setup.sh)" >&2; exit 1; }

repo=$TMP/repo
mkdir -p "$repo/traces/test_vmalloc" "$repo/build/ci" "$TMP/elsewhere"
cp "$VT_SRC"/traces/default.json "$VT_SRC"/traces/vmap-order8.json \
   "$VT_SRC"/traces/ioremap-1m.json "$repo/traces/"
cp "$VT_SRC"/traces/test_vmalloc/vm_map_ram_test-p1-h0.json "$repo/traces/test_vmalloc/"
# the checkout's build: the toy build, so that a strategy can regress
ln -s "$VT_TOY_BIN" "$repo/build/ci/vmaptool"
V=$repo/build/ci/vmaptool

# ---- 1. the baseline, made from the repository root with the jobs' globs ----
(cd "$repo" && shopt -s globstar nullglob && "$V" gate --update-baseline \
	--baseline=traces/baseline.json --strategy=zigzag,toy traces/**/*.json traces/**/*.jsonl) \
	2>"$TMP/err" || die "--update-baseline: $(cat "$TMP/err")"
python3 - "$repo/traces/baseline.json" <<'EOF' || die "baseline content"
import json, sys
d = json.load(open(sys.argv[1]))
keys = sorted(t["trace"] for t in d["traces"])
assert keys == ["default.json", "ioremap-1m.json", "test_vmalloc/vm_map_ram_test-p1-h0.json",
                "vmap-order8.json"], keys
assert [s["name"] for s in d["traces"][0]["strategies"]] == ["zigzag", "toy"]
c = d["config"]
assert c["granule"] == "4k" and c["va_bits"] == 48 and c["kernel_model"] == "mainline", c
assert "purge_at_end" in c["options"] and "vmap_cont" in c["options"], c
EOF
# no temporary file left beside it
[ "$(ls -A "$repo/traces" | grep -c '^\.')" = 0 ] || die "a temporary file is left in traces/"

# ---- the CI jobs of docs/ci-gate.md -------------------------------------
run_job() {	# github|gitlab: exit status of the job's gate step
	local file=.github/workflows/vmaptool-gate.yml
	[ "$1" = github ] || file=.gitlab-ci.yml
	python3 "$VT_SRC/tests/cli/ci_jobs.py" "$VT_SRC/docs/ci-gate.md" "$file" "$repo" "$TMP" \
		>"$TMP/out.$1" 2>"$TMP/err.$1"
}
outputs() {	# the folder where the job left gate.md and gate-junit.xml
	[ "$1" = github ] && echo "$TMP/elsewhere" || echo "$repo"
}

for job in github gitlab; do
	rm -f "$TMP/elsewhere"/gate* "$repo"/gate* "$TMP/summary.md"
	run_job $job || die "$job job fails on an unchanged tree: $(cat "$TMP/err.$job" "$TMP/out.$job")"
	grep -q '^gate: ok: 0 regressions' "$TMP/out.$job" || die "$job: no ok line"
	d=$(outputs $job)
	[ -s "$d/gate.md" ] && [ -s "$d/gate-junit.xml" ] || die "$job: no gate.md or gate-junit.xml"
	python3 -c 'import sys, xml.etree.ElementTree as E; r=E.parse(sys.argv[1]).getroot(); assert r.get("failures") == "0" and int(r.get("tests")) == 8, r.attrib' \
		"$d/gate-junit.xml" || die "$job: JUnit of a passing gate"

	# the deliberate regression
	VT_TOY_EXTRA_TLBI=1 run_job $job && die "$job job passes with one more TLBI per vmap"
	grep -q '^default.json: toy: tlbi: 0 -> 6, none before (regression)$' "$TMP/out.$job" ||
		die "$job: text does not name trace, strategy, metric: $(cat "$TMP/out.$job")"
	grep -q '^vmap-order8.json: toy: tlbi: 0 -> 1' "$TMP/out.$job" || die "$job: vmap-order8 tlbi"
	grep -q '^gate: FAIL: ' "$TMP/out.$job" || die "$job: no FAIL line"
	grep -q ': zigzag: ' "$TMP/out.$job" && die "$job: zigzag did not change but is listed"
	grep -q '^| regression | default.json | toy | tlbi | 0 | 6 | none before |$' "$d/gate.md" ||
		die "$job: Markdown: $(cat "$d/gate.md")"
	python3 - "$d/gate-junit.xml" <<'EOF' || die "$job: JUnit of the regression"
import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
cases = {(c.get("classname"), c.get("name")): c for c in r.iter("testcase")}
bad = cases[("default.json", "toy")].find("failure")
assert bad is not None and "tlbi: 0 -> 6, none before (regression)" in bad.get("message"), bad
assert cases[("default.json", "zigzag")].find("failure") is None
assert int(r.get("failures")) == 2, r.attrib   # toy on the two traces with a vmap
EOF
	[ $job = gitlab ] || grep -q 'tlbi' "$TMP/summary.md" || die "github: job summary"
done

# ---- the project's own gate command, from another folder ------------------
# (a baseline of traces/*.json: test_vmalloc/ is the trace it does not have)
(cd "$repo" && "$V" gate --update-baseline --baseline=traces/baseline.json \
	--strategy=zigzag,toy traces/*.json) 2>/dev/null || die "a baseline of traces/*.json"
cd "$TMP/elsewhere"
G=("$V" gate --baseline="$repo/traces/baseline.json")
"${G[@]}" "$repo"/traces/*.json "$repo"/traces/../traces/vmap-order8.json >/dev/null 2>&1 &&
	die "a trace given twice is accepted"
"${G[@]}" "$repo/traces/default.json" >out 2>err && die "missing traces pass"
grep -q '^vmap-order8.json: in the baseline but not in the current run (missing)$' out ||
	die "missing trace not named: $(cat out)"
"${G[@]}" --allow-missing "$repo/traces/default.json" "$repo/traces/test_vmalloc/vm_map_ram_test-p1-h0.json" >out 2>err ||
	die "--allow-missing: $(cat out err)"
grep -q '^test_vmalloc/vm_map_ram_test-p1-h0.json: not in the baseline (allowed by --allow-missing)$' out ||
	die "extra trace not named: $(cat out)"
set +e
"${G[@]}" --kernel=v6.12 --purge-at-end "$repo"/traces/*.json >out 2>err; rc=$?
set -e
[ $rc = 2 ] || die "other options: exit $rc, expected 2"
grep -q -- '--kernel=v6.12 (baseline mainline)' err && grep -q -- '--purge-at-end=on (baseline off)' err ||
	die "the differences are not named: $(cat err)"
# an option --kernel set says so (the command line did not type it)
grep -q -- '--barriers=eager (baseline lazy; by --kernel=v6.12)' err ||
	die "an option --kernel set is not said to be its: $(cat err)"
"${G[@]}" --rebaseline-options --purge-at-end "$repo"/traces/*.json >out 2>err ||
	die "--rebaseline-options: $(cat err)"
grep -q "replaying with the baseline's options" err || die "--rebaseline-options does not say so"
# the cost profile is one of the options: its cycles and ns are not regressions
set +e
"${G[@]}" --profile=rk3588-a55 "$repo"/traces/*.json >out 2>err; rc=$?
set -e
[ $rc = 2 ] && grep -q -- '--profile=rk3588-a55 (baseline generic-a76)' err ||
	die "gate --profile=rk3588-a55: exit $rc, expected 2 naming it: $(cat out err)"
"${G[@]}" --rebaseline-options --profile=rk3588-a55 "$repo"/traces/*.json >out 2>err ||
	die "--rebaseline-options --profile: $(cat out err)"
"${G[@]}" --profile="$VT_SRC/profiles/generic-a76.json" "$repo"/traces/*.json >out 2>err ||
	die "--profile=FILE naming the baseline's profile: $(cat out err)"
"$V" replay -j --strategy=zigzag,toy --profile=rk3588-a55 "$repo"/traces/default.json -o cur.json
set +e
"${G[@]}" cur.json >out 2>err; rc=$?
set -e
[ $rc = 2 ] && grep -q -- '--profile=rk3588-a55 (baseline generic-a76)' err ||
	die "gate on a report made with another profile: exit $rc, expected 2: $(cat out err)"
VT_TOY_EXTRA_TLBI=1 "${G[@]}" --threshold=tlbi:6,tlbi_by_kind.vaale1is:6,dsb:100%,dsb_by_kind.ish:6,dsb_by_kind.ishst:50%,isb:50%,cycles:5%,ns:5% \
	"$repo"/traces/*.json >out 2>err || die "thresholds: $(cat out err)"
VT_TOY_EXTRA_TLBI=1 "${G[@]}" --threshold=tlbi:5 "$repo"/traces/*.json >out 2>err && die "tlbi:5 allows 6"
grep -q '^default.json: toy: tlbi: ' out && ! grep -q '^vmap-order8.json: toy: tlbi: ' out ||
	die "tlbi:5: $(cat out)"
set +e
"${G[@]}" --threshold=tlbix:1 "$repo"/traces/*.json 2>err; rc=$?
set -e
[ $rc = 2 ] && grep -q "unknown metric 'tlbix'" err || die "--threshold=tlbix: exit $rc $(cat err)"
grep -q "did you mean 'tlbi'?" err || die "--threshold=tlbix: no suggestion: $(cat err)"
set +e
"${G[@]}" --threshold=tlbi_by_kind.vale1s:1 "$repo"/traces/*.json 2>err; rc=$?
set -e
[ $rc = 2 ] && grep -q "did you mean 'tlbi_by_kind.vale1is'?" err ||
	die "--threshold=tlbi_by_kind.vale1s: exit $rc $(cat err)"
"${G[@]}" --threshold=5 "$repo"/traces/*.json >/dev/null || die "the old --threshold=PCT form"
"${G[@]}" -j "$repo"/traces/*.json >g.json || die "gate -j"
python3 -c 'import json,sys; d=json.load(open("g.json")); assert d["format"]=="vmaptool-gate" and d["result"]=="ok" and d["thresholds"]["cycles"]=="2%", d' ||
	die "gate -j document"

# --update-baseline keeps the strategies and options of the old baseline
cp "$repo/traces/baseline.json" before.json
"$V" gate --update-baseline --baseline="$repo/traces/baseline.json" "$repo"/traces/*.json 2>err ||
	die "re-bless: $(cat err)"
cmp -s before.json "$repo/traces/baseline.json" || die "re-blessing an unchanged tree changed the baseline"
grep -q "drops" err && die "re-blessing every trace warned of a dropped one: $(cat err)"
# a re-bless with fewer traces says which ones the baseline loses
"$V" gate --update-baseline --baseline="$TMP/fewer.json" "$repo/traces/default.json" \
	"$repo/traces/ioremap-1m.json" "$repo/traces/vmap-order8.json" 2>/dev/null
"$V" gate --update-baseline --baseline="$TMP/fewer.json" "$repo/traces/default.json" 2>err ||
	die "re-bless with one trace: $(cat err)"
grep -q "warning: gate: the new baseline drops 2 traces of the old one, not given this time: .*ioremap-1m.json, .*vmap-order8.json" err ||
	die "no warning for the traces dropped: $(cat err)"
# a failed update leaves the old baseline as it was
set +e
"$V" gate --update-baseline --baseline="$repo/traces/baseline.json" "$repo/traces/default.json" \
	"$VT_SRC/tests/data/bad/truncated.json" >/dev/null 2>&1; rc=$?
set -e
[ $rc = 3 ] || die "update with a bad trace: exit $rc"
cmp -s before.json "$repo/traces/baseline.json" || die "a failed update changed the baseline"
test_done
