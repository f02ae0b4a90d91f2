#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The examples of README.md and docs/*.md run: every line of a code block
# that is a complete `vmaptool ...` command (no placeholder such as TRACE
# or FILE, no [optional] part, no pipe) runs in a scratch folder holding
# the bundled traces (traces/), the test data (tests/data/) and the stand-in
# trace.json / t.json (copies of traces/default.json) and a copy of profiles/
# (VMAPTOOL_PROFILES); it must exit 0, or
# 1 for a gate.  A command naming a bundled trace (traces/...) or test data (tests/data/...) that does
# not exist fails the test; one naming the user's own file (imported.json,
# trace.dat) is skipped by name.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
W=$TMP/w
mkdir -p "$W"
cp -r "$VT_SRC/traces" "$W/traces"
mkdir -p "$W/tests"
ln -s "$VT_SRC/tests/data" "$W/tests/data"
# the profiles too: an example such as `vmaptool calibrate --write` writes the built-in
# profiles' folder, which must be the scratch copy, never the tree's profiles/
cp -r "$VT_SRC/profiles" "$W/profiles"
export VMAPTOOL_PROFILES=$W/profiles
tree_profiles=$(cat "$VT_SRC"/profiles/*.json | sha256sum)
cp "$VT_SRC/traces/default.json" "$W/trace.json"
cp "$VT_SRC/traces/default.json" "$W/t.json"
mkdir -p "$TMP/bin"
ln -s "$VT_BIN" "$TMP/bin/vmaptool"
export PATH=$TMP/bin:$PATH
cd "$W" || exit 1
ran=0 skipped=0
while IFS=$'\t' read -r doc cmd; do
	# placeholders, optional parts, alternatives, pipes: a synopsis, not an example
	if [[ $cmd =~ [A-Z]{3,} || $cmd == *'['* || $cmd == *'|'* || $cmd == *'...'* ||
	      $cmd == *'<'* || $cmd == *'#'* || $cmd =~ ^vmaptool\ [a-z-]+: ]]; then
		continue
	fi
	missing=
	for w in $cmd; do
		w=${w#*=}
		case $w in
		*.json|*.jsonl|*.dat|*.txt|*.xz|*/*)
			[[ $w == -* ]] && continue
			# outputs are made by the command
			[[ $cmd == *"-o $w"* || $cmd == *"--output=$w"* || $cmd == *"=$w"*" --update-baseline"* ]] && continue
			[ -e "$w" ] || missing="$missing $w" ;;
		esac
	done
	if [ -n "$missing" ]; then
		if [[ " $missing" == *" traces/"* || " $missing" == *" tests/data/"* ]]; then
			fail "($doc): '$cmd' names a file of the tree that does not exist:$missing"
			continue
		fi
		echo "SKIP ($doc): '$cmd': no$missing (the user's own file)"
		skipped=$((skipped + 1))
		continue
	fi
	ran=$((ran + 1))
	eval "$cmd" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
	if [ $rc = 2 ] && grep -q 'not available in this version' "$TMP/err"; then
		echo "SKIP ($doc): '$cmd': $(head -1 "$TMP/err")"
		skipped=$((skipped + 1))
	elif [ $rc != 0 ] && ! [[ $rc == 1 && $cmd == "vmaptool gate"* ]]; then
		fail "($doc): '$cmd' exited $rc: $(head -3 "$TMP/err")"
	fi
done < <(cd "$VT_SRC" && awk '
	FNR == 1 { inblock = 0 }
	/^```/ { inblock = !inblock; next }
	(inblock && /^vmaptool /) || /^    vmaptool / {
		line = $0; sub(/^ +/, "", line); print FILENAME "\t" line
	}' README.md docs/*.md)
echo "$ran examples ran, $(test_failures) failed, $skipped skipped"
[ "$ran" -ge 12 ] || fail "only $ran examples ran"
[ "$(cat "$VT_SRC"/profiles/*.json | sha256sum)" = "$tree_profiles" ] ||
	fail "an example rewrote the tree's profiles/"
test_done
