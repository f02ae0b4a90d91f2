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
# trace.dat) is skipped by name.  Then the CI jobs of docs/ci-gate.md as
# written: vmaptool's own in a copy of the tree against the bundled
# baseline, and a repository of traces alone's in a scratch git repository
# cloning a scratch vmaptool at the pinned tag (tests/cli/ci_jobs.py).
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
# ---- the CI jobs of docs/ci-gate.md, as written (tests/cli/ci_jobs.py) ----
bin_abs=$(cd "$(dirname "$VT_BIN")" && pwd)/$(basename "$VT_BIN")
ci_job() {	# REPO FILE: run the job of docs/ci-gate.md whose yaml block is "# FILE"
	rm -rf "$TMP/ci/elsewhere" "$TMP/ci/summary.md"
	mkdir -p "$TMP/ci"
	python3 "$VT_SRC/tests/cli/ci_jobs.py" "$VT_SRC/docs/ci-gate.md" "$2" "$1" "$TMP/ci" \
		>"$TMP/ci/out" 2>"$TMP/ci/err"
}
ci_passed() {	# JOB DIR: the job passed, gating every trace; its files are in DIR
	if ! grep -q '^gate: ok: 0 regressions' "$TMP/ci/out" ||
	   grep -q 'missing\|not in the baseline\|error' "$TMP/ci/out" "$TMP/ci/err"; then
		fail "ci-gate.md: $1 fails as written: $(tail -3 "$TMP/ci/out") $(head -3 "$TMP/ci/err")"
	elif ! [ -s "$2/gate.md" ] || ! [ -s "$2/gate-junit.xml" ]; then
		fail "ci-gate.md: $1 left no gate.md and gate-junit.xml in $2"
	else
		echo "ok   ci-gate.md: $1"
	fi
}
if ! python3 -c 'import yaml' 2>/dev/null; then
	fail "python3-yaml missing (scripts/setup.sh installs it): the CI jobs of docs/ci-gate.md did not run"
else
	# vmaptool's tree: a copy (without builds or .git) whose build/ci/vmaptool
	# is the vmaptool under test, gated against the bundled baseline unchanged
	R=$TMP/tree
	mkdir -p "$R"
	(cd "$VT_SRC" && tar --exclude='./build*' --exclude=./.git -cf - .) | (cd "$R" && tar -xf -)
	mkdir -p "$R/build/ci"
	ln -s "$bin_abs" "$R/build/ci/vmaptool"
	ci_job "$R" .github/workflows/vmaptool-gate.yml
	ci_passed "the GitHub Actions job on vmaptool's tree" "$TMP/ci/elsewhere"
	grep -q '| trace |\|gate' "$TMP/ci/summary.md" 2>/dev/null || fail "ci-gate.md: no job summary"
	ci_job "$R" .gitlab-ci.yml
	ci_passed "the GitLab CI job on vmaptool's tree" "$R"
	cmp -s "$VT_SRC/traces/baseline.json" "$R/traces/baseline.json" ||
		fail "ci-gate.md: a job changed the baseline"

	# a repository of traces alone, whose job clones vmaptool at its pinned tag:
	# the tag is this version's, the clone a scratch repository holding the
	# vmaptool under test where the build puts it
	tag=$(sed -n 's/^ *VMAPTOOL_TAG: *//p' "$VT_SRC/docs/ci-gate.md" | sort -u)
	version=$(sed -n 's/^project(vmaptool VERSION \([0-9.]*\).*/\1/p' "$VT_SRC/CMakeLists.txt")
	[ "$tag" = "v$version" ] || fail "ci-gate.md pins '$tag', this is vmaptool $version"
	g() { git -c user.name=t -c user.email=t@example.org -c init.defaultBranch=main "$@"; }
	if ! command -v git >/dev/null; then
		fail "git missing: the traces repository's jobs of docs/ci-gate.md did not run"
	else
		U=$TMP/vmaptool-upstream T=$TMP/traces-repo
		mkdir -p "$U/build/ci" "$T/traces/test_vmalloc"
		ln -s "$bin_abs" "$U/build/ci/vmaptool"
		g -C "$U" init -q && g -C "$U" add -f build && g -C "$U" commit -qm vmaptool &&
			g -C "$U" tag "$tag" || fail "a scratch vmaptool repository"
		cp "$VT_SRC"/traces/default.json "$VT_SRC"/traces/vmap-order8.json \
		   "$VT_SRC"/traces/systemheap-frag.jsonl "$T/traces/"
		cp "$VT_SRC"/traces/test_vmalloc/vm_map_ram_test-p1-h0.json "$T/traces/test_vmalloc/"
		# the baseline, made by the page's command
		mk=$(sed -n 's/^    \(bash -O globstar .*--update-baseline.*\)$/\1/p' "$VT_SRC/docs/ci-gate.md")
		[ -n "$mk" ] || fail "ci-gate.md: no bash -O globstar ... --update-baseline command"
		(cd "$T" && eval "$mk") 2>/dev/null || fail "ci-gate.md: '$mk' fails"
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["traces"]) == 4, [t["trace"] for t in d["traces"]]' \
			"$T/traces/baseline.json" || fail "ci-gate.md: the baseline does not hold the 4 traces"
		g -C "$T" init -q && g -C "$T" add . && g -C "$T" commit -qm traces || fail "a scratch traces repository"
		# a kernel developer's first look: the baseline beside the traces is skipped
		(cd "$T" && vmaptool replay traces/*.json) >/dev/null 2>"$TMP/ci/err" &&
			grep -q "skipping 'traces/baseline.json'" "$TMP/ci/err" ||
			fail "replay traces/*.json beside the baseline: $(cat "$TMP/ci/err")"
		export VMAPTOOL_GIT=file://$U
		ci_job "$T" "traces repository: .github/workflows/vmaptool-gate.yml"
		ci_passed "the GitHub Actions job of a repository of traces" "$T"
		[ -L "$TMP/ci/elsewhere/vmaptool/build/ci/vmaptool" ] || fail "the GitHub job did not clone vmaptool at $tag"
		rm -f "$T"/gate*
		ci_job "$T" "traces repository: .gitlab-ci.yml"
		ci_passed "the GitLab CI job of a repository of traces" "$T"
		[ -L "$TMP/ci/elsewhere/vmaptool/build/ci/vmaptool" ] || fail "the GitLab job did not clone vmaptool at $tag"
		# the tag is pinned: a tag the upstream does not have fails the job
		VMAPTOOL_TAG=v0.0.0-none ci_job "$T" "traces repository: .gitlab-ci.yml" &&
			fail "the GitLab job passes with a tag vmaptool does not have"
		unset VMAPTOOL_GIT
	fi
fi

echo "$ran examples ran, $(test_failures) failed, $skipped skipped"
[ "$ran" -ge 12 ] || fail "only $ran examples ran"
[ "$(cat "$VT_SRC"/profiles/*.json | sha256sum)" = "$tree_profiles" ] ||
	fail "an example rewrote the tree's profiles/"
test_done
