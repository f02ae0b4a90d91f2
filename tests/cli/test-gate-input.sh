#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# gate refuses bad input (docs/vmaptool-gate.md, docs/exit-codes.md): exit 3
# with "FILE: error: ..." naming the baseline or report and the key at
# fault, never a silent skip, a pass or a "regression".  The cases are the
# reproducers of the trial5 review (defects 2, 3, 11, 13), made here from a
# fresh baseline of traces/default.json so that they follow the metrics:
#   - a count that is not a non-negative integer (string, null, real,
#     boolean, array, negative), in the baseline or in the current report;
#   - every input read, also one the baseline lacks (--allow-missing): a
#     truncated report, garbage or empty standard input;
#   - config options checked as the command line checks them (cpus, va_bits,
#     granule, kernel_model);
#   - unknown, repeated or over-long strategy names, a repeated trace, a
#     config.profile that is a path or names no profile.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "FAIL: python3 missing" >&2; exit 1; }

cd "$TMP"
cp "$VT_SRC/traces/default.json" "$VT_SRC/traces/vmap-order8.json" .
V=$VT_BIN

"$V" gate --update-baseline --baseline=b.json --strategy=pagewise,zigzag \
	default.json 2>err || die "--update-baseline: $(cat err)"
"$V" gate --baseline=b.json default.json >out 2>err || die "clean gate: $(cat err)"

# mutate FILE PYTHON: a copy of b.json with d changed by PYTHON
mutate() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open("b.json"))
m = d["traces"][0]["strategies"][0]["metrics"]
exec(sys.argv[2])
open(sys.argv[1], "w").write(json.dumps(d, indent=1) + "\n")
EOF
}

# expect RC PATTERN CMD...: exit RC, and stderr or stdout matching PATTERN
expect() {
	local want=$1 pat=$2 rc=0
	shift 2
	"$@" >out 2>err || rc=$?
	[ "$rc" = "$want" ] || die "$*: exit $rc, expected $want; stderr: $(cat err)"
	[ -z "$pat" ] || grep -Eqh -- "$pat" err out || die "$*: stderr lacks /$pat/: $(cat err)"
}

# ---- defect 3: counts -----------------------------------------------------
loc="trace 'default.json', strategy 'pagewise': metrics.pte_writes is"
mutate c-str.json 'm["pte_writes"] = "100"'
expect 3 "^c-str.json: error: $loc the string '100', not a count" \
	"$V" gate --baseline=c-str.json default.json
mutate c-null.json 'm["pte_writes"] = None'
expect 3 "^c-null.json: error: $loc null, not a count" \
	"$V" gate --baseline=c-null.json default.json
mutate c-real.json 'm["pte_writes"] = 100.0'
expect 3 "^c-real.json: error: $loc a real number \(100\), not a count" \
	"$V" gate --baseline=c-real.json default.json
mutate c-true.json 'm["pte_writes"] = True'
expect 3 "^c-true.json: error: $loc a boolean" "$V" gate --baseline=c-true.json default.json
mutate c-arr.json 'm["pte_writes"] = []'
expect 3 "^c-arr.json: error: $loc an array" "$V" gate --baseline=c-arr.json default.json
# a negative count is bad input, not a regression (exit 1)
mutate c-neg.json 'm["pte_writes"] = -1'
expect 3 "^c-neg.json: error: $loc -1, not a count" \
	"$V" gate --baseline=c-neg.json default.json
mutate c-kind.json 'm["tlbi_by_kind"]["vaale1is"] = "2"'
expect 3 "^c-kind.json: error: .*metrics.tlbi_by_kind.vaale1is is the string '2'" \
	"$V" gate --baseline=c-kind.json default.json
mutate c-ev.json 'd["traces"][0]["events"] = "24"'
expect 3 "^c-ev.json: error: trace 'default.json': \"events\" must be an integer from 0 to [0-9]+, not a string" \
	"$V" gate --baseline=c-ev.json default.json
# the current report is read by the same reader
"$V" replay -j --strategy=pagewise,zigzag default.json >r.json
python3 - <<'EOF'
import json
d = json.load(open("r.json"))
d["traces"][0]["strategies"][1]["metrics"]["tlbi"] = "x"
open("r-bad.json", "w").write(json.dumps(d))
EOF
expect 0 "" "$V" gate --baseline=b.json r.json
expect 3 "^r-bad.json: error: trace 'default.json', strategy 'zigzag': metrics.tlbi is the string 'x'" \
	"$V" gate --baseline=b.json r-bad.json

# ---- defect 2: every input is read ----------------------------------------
head -c 3000 r.json >trunc.json
for am in "" --allow-missing; do
	expect 3 '^trunc.json:[0-9]+:[0-9]+: error: invalid JSON' \
		"$V" gate --baseline=b.json $am trunc.json
	echo garbage >g.txt
	expect 3 '^-:1:[0-9]+: error: invalid JSON' \
		"$V" gate --baseline=b.json $am - <g.txt
	expect 3 '^-:1:1: error: empty file' "$V" gate --baseline=b.json $am - </dev/null
	# beside a trace of the baseline
	expect 3 '^trunc.json:[0-9]+:[0-9]+: error: invalid JSON' \
		"$V" gate --baseline=b.json $am default.json trunc.json
done
# a readable trace the baseline lacks is still only "missing"
expect 0 'vmap-order8.json: not in the baseline \(allowed' \
	"$V" gate --baseline=b.json --allow-missing default.json vmap-order8.json
expect 1 'vmap-order8.json: not in the baseline \(missing' \
	"$V" gate --baseline=b.json default.json vmap-order8.json
# ... but a gate that compares nothing fails, --allow-missing or not: a
# report whose trace keys match none of the baseline's (its paths as typed
# in another folder: a new-user trial's "ok ... in 0 counts compared")
expect 1 'nothing compared, no trace of the command line is in the baseline' \
	"$V" gate --baseline=b.json --allow-missing vmap-order8.json

# ---- defect 11: config options as the command line checks them -----------
for v in -1 0 4294967296 99999 '"8"'; do
	mutate cpus.json "d['config']['options']['cpus'] = $v"
	expect 3 "^cpus.json: error: config.options.cpus: .* is not valid \(expected an integer 1..4096" \
		"$V" gate --baseline=cpus.json default.json
done
# nothing is written back from a bad baseline
cp cpus.json cpus-before.json
expect 3 "^cpus.json: error: config.options.cpus" \
	"$V" gate --baseline=cpus.json --update-baseline default.json
cmp -s cpus.json cpus-before.json || die "--update-baseline rewrote a bad baseline"
mutate va.json "d['config']['va_bits'] = 2**32 + 48"
expect 3 "^va.json: error: config.va_bits: 4294967344 is not a VA size" \
	"$V" gate --baseline=va.json default.json
mutate va47.json "d['config']['va_bits'] = 47"
expect 3 "^va47.json: error: config.granule 4k with va_bits 47 is not a Kconfig-valid pair" \
	"$V" gate --baseline=va47.json default.json
mutate g8k.json "d['config']['granule'] = '8k'"
expect 3 "^g8k.json: error: config.granule: '8k' is not a granule" \
	"$V" gate --baseline=g8k.json default.json
mutate tg.json "d['traces'][0]['config'] = {'granule': '64k', 'va_bits': 39}"
expect 3 "^tg.json: error: trace 'default.json': config.granule 64k with va_bits 39" \
	"$V" gate --baseline=tg.json default.json
# a trace's config is read over the top-level one
mutate tg2.json "d['config']['granule'] = '64k'; d['config']['va_bits'] = 52
d['traces'][0]['config'] = {'va_bits': 39}"
expect 3 "^tg2.json: error: trace 'default.json': config.granule 64k with va_bits 39" \
	"$V" gate --baseline=tg2.json default.json
mutate km.json "d['config']['kernel_model'] = 'v9.99'"
expect 3 "^km.json: error: config.kernel_model: 'v9.99' is not a kernel generation" \
	"$V" gate --baseline=km.json default.json
mutate km2.json "d['config']['kernel_model'] = 'mainlinex'"
expect 3 "^km2.json: error: config.kernel_model: 'mainlinex'" \
	"$V" gate --baseline=km2.json default.json
mutate opt.json "d['config']['options']['purge'] = 'sometimes'"
expect 3 "^opt.json: error: config.options.purge: 'sometimes' is not valid" \
	"$V" gate --baseline=opt.json default.json

# ---- defect 13: strategies, traces, profile -------------------------------
mutate s-unk.json "d['traces'][0]['strategies'][0]['name'] = 'nosuch'"
expect 3 "^s-unk.json: error: trace 'default.json': strategy 'nosuch': unknown strategy" \
	"$V" gate --baseline=s-unk.json default.json
mutate s-dup.json "d['traces'][0]['strategies'][1]['name'] = 'pagewise'"
expect 3 "^s-dup.json: error: trace 'default.json': strategy 'pagewise' is listed twice" \
	"$V" gate --baseline=s-dup.json default.json
mutate s-long.json "d['traces'][0]['strategies'][0]['name'] = 'x' * 300"
expect 3 "^s-long.json: error: trace 'default.json': strategy name 'x{32}\.\.\.' is too long" \
	"$V" gate --baseline=s-long.json default.json
mutate t-dup.json "d['traces'].append(d['traces'][0])"
expect 3 "^t-dup.json: error: trace 'default.json' is listed twice" \
	"$V" gate --baseline=t-dup.json default.json
# the same strategy or trace under another spelling is the same one
mutate s-alias.json "d['traces'][0]['strategies'][0]['name'] = 'batched'
d['traces'][0]['strategies'][1]['name'] = 'batched@12345678'"
expect 3 "^s-alias.json: error: trace 'default.json': strategy 'batched@12345678' is listed twice \(as 'batched'\)" \
	"$V" gate --baseline=s-alias.json default.json
mutate t-dot.json "d['traces'].append(dict(d['traces'][0], trace='./default.json'))"
expect 3 "^t-dot.json: error: trace './default.json' is listed twice \(entries 1 and 2 of \"traces\", as 'default.json'\)" \
	"$V" gate --baseline=t-dot.json default.json
for p in /etc/passwd ../b x.json ''; do
	mutate prof.json "d['config']['profile'] = '$p'"
	expect 3 "^prof.json: error: config.profile: '.*' is not a cost profile name" \
		"$V" gate --baseline=prof.json default.json
done
mutate prof2.json "d['config']['profile'] = 'nosuch-profile'"
expect 3 "^prof2.json: error: config.profile: no cost profile 'nosuch-profile'" \
	"$V" gate --baseline=prof2.json default.json

# a malformed trace the baseline does not hold is an error wherever it
# falls among the inputs, not "missing" (the reordering once swapped the
# keys alone, so a bad trace before a good one was never read)
printf 'garbage\n' > a-bad.json
expect 3 "^a-bad.json:1:[0-9]+: error: invalid JSON" \
	"$V" gate --allow-missing --baseline=b.json a-bad.json default.json
expect 3 "^a-bad.json:1:[0-9]+: error: invalid JSON" \
	"$V" gate --baseline=b.json a-bad.json default.json

# no baseline yet (a new gate's first run): exit 4 as a missing file is,
# with how to make one
expect 4 "^none\.json: error: cannot open report 'none\.json': No such file or directory \(a first baseline is made by 'vmaptool gate --update-baseline --baseline=none\.json TRACE\.\.\.'\)$" \
	"$V" gate --baseline=none.json default.json

echo "gate refuses bad baselines, reports and inputs with exit 3"
test_done
