#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every row of the what-if option table (core/options.def) reaches every
# place it must: 'replay --help' lists it, docs/vmaptool-replay.md
# documents it, the report's config.options holds it with the word the
# option was given as, and 'gate' reads it back: a baseline made with a
# non-default value, replayed by gate, matches count for count (and where
# the value changes the counts of the trace, a wrong read-back could not
# pass).  Every --kernel generation of the table is accepted, listed in
# --help and in 'strategies -v'.
set -u
. "$(dirname "$0")/lib.sh"

test_require python3

cd "$TMP" || exit 2
ln -s "$VT_SRC/traces" traces
T=traces/default.json

# name|json|kind|words|values, one line per VT_OPTION() entry
python3 - "$VT_SRC/core/options.def" >rows <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
for body in re.findall(r"^VT_OPTION\((.*?)\)\s*$", text, re.S | re.M):
    get = lambda k: (re.search(r"\.%s = \"([^\"]+)\"" % k, body) or [None, ""])[1]
    kind = re.search(r"\.kind = VT_OK_(\w+)", body).group(1)
    vals = re.search(r"\.values = \{([^}]*)\}", body)
    vals = vals.group(1).replace(" ", "") if vals else ""
    print("|".join([get("name"), get("json"), kind, get("words").replace("|", ","), vals]))
EOF
[ "$(wc -l <rows)" -ge 10 ] || fail "fewer than 10 options read from core/options.def"

"$VT_BIN" replay --help >help
"$VT_BIN" replay -j "$T" >default.json || fail "replay of $T"
json_option() {	# FILE KEY
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["config"]["options"][sys.argv[2]])' "$1" "$2"
}
metrics() {	# FILE: the counts of every strategy, one line
	python3 -c 'import json,sys; print(json.dumps([s["metrics"] for t in json.load(open(sys.argv[1]))["traces"] for s in t["strategies"]], sort_keys=True))' "$1"
}

# check_value NAME JSON ARG... : one value through report and gate
check_value() {
	local name=$1 key=$2 want=$3
	shift 3
	if ! "$VT_BIN" replay -j --per-op "$@" "$T" >base.json 2>err; then
		fail "replay $* failed: $(head -c 200 err)"
		return
	fi
	got=$(json_option base.json "$key")
	[ "$got" = "$want" ] || fail "replay $*: config.options.$key is '$got', expected '$want'"
	if ! "$VT_BIN" gate -j --baseline=base.json "$T" >gate.json 2>err; then
		fail "gate on a baseline made with $*: exit $? $(head -c 300 err)"
		return
	fi
	python3 -c 'import json,sys; d=json.load(open("gate.json")); sys.exit(bool(d["regressions"] or d["improvements"] or not d["compared"]))' ||
		fail "gate on a baseline made with $* found differences"
	[ "$(metrics base.json)" != "$(metrics default.json)" ] && changed="$changed $*"
}

changed=
while IFS='|' read -r name key kind words values; do
	grep -q -- "--$name" help || fail "replay --help does not list --$name"
	grep -q -- "--$name" "$VT_SRC/docs/vmaptool-replay.md" ||
		fail "docs/vmaptool-replay.md does not document --$name"
	json_option default.json "$key" >/dev/null 2>&1 ||
		fail "config.options has no '$key' for --$name"
	case $kind in
	FLAG)	check_value "$name" "$key" on "--$name" ;;
	NUMBER)	check_value "$name" "$key" 2 "--$name=2"
		check_value "$name" "$key" 4096 "--$name=4096" ;;
	WORD)	IFS=, read -r -a w <<<"$words"
		IFS=, read -r -a v <<<"$values"
		for i in "${!w[@]}"; do
			# the report writes the first word of a value
			for j in "${!w[@]}"; do
				[ "${v[$j]}" = "${v[$i]}" ] && { first=${w[$j]}; break; }
			done
			check_value "$name" "$key" "$first" "--$name=${w[$i]}"
		done ;;
	*)	fail "unknown kind $kind of --$name" ;;
	esac
done <rows
# The read-back is only proven where a value changes the counts; there
# must be such values, or the gate checks above proved nothing.
n=$(echo "$changed" | wc -w)
[ "$n" -ge 8 ] || fail "only $n option values change the counts of $T:$changed"

# the generations
gens=$(sed -n 's/^VT_KERNEL([A-Z0-9_]*, "\([^"]*\)".*/\1/p' "$VT_SRC/core/options.def")
[ "$(echo "$gens" | wc -w)" -ge 3 ] || fail "fewer than 3 generations in core/options.def"
"$VT_BIN" strategies -v >strategies
for g in $gens; do
	grep -q -- "$g" help || fail "replay --help does not name --kernel=$g"
	grep -q -- "--kernel=$g " strategies || fail "strategies -v does not list --kernel=$g"
	"$VT_BIN" replay -j --kernel="$g" "$T" >k.json || fail "--kernel=$g rejected"
	km=$(python3 -c 'import json; print(json.load(open("k.json"))["config"]["kernel_model"])')
	[ "$km" = "$g" ] || fail "--kernel=$g: kernel_model is '$km'"
done

test_done
