#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `cmake --install` into a temporary prefix, then use vmaptool as a user
# would: every example of README.md's "Examples" block runs with the
# installed binary (on the installed traces), `man -l` renders every page
# and `man vmaptool` finds it, each page lists every option its command's
# --help lists, and the bash completion completes subcommands, options,
# strategy names and batched@ digits.  Two examples name files of the
# source tree's tests/data (a scenario trace, a recording).
set -euo pipefail
: "${VT_SRC:?}" "${VT_BUILD:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
P=$TMP/prefix
cmake --install "$VT_BUILD" --prefix "$P" >"$TMP/install.log" 2>&1 ||
	fail "cmake --install: $(cat "$TMP/install.log")"
export PATH=$P/bin:$PATH ASAN_OPTIONS=detect_leaks=0
[ "$(command -v vmaptool)" = "$P/bin/vmaptool" ] || fail "vmaptool not installed in bin/"
S=$P/share
[ -f "$S/vmaptool/traces/default.json" ] && [ -f "$S/vmaptool/traces/baseline.json" ] ||
	fail "traces not installed under share/vmaptool/traces"
if [ -d "$VT_SRC/profiles" ]; then
	[ -d "$S/vmaptool/profiles" ] || fail "profiles/ not installed"
fi

# ---- the installed binary reads its own share/, wherever the prefix is -------
# A copy of the prefix moved elsewhere, run with a clean environment: a
# profile that exists only in the copy's share/ is listed and used, and the
# copy without its profile folder is a system error (4), not a usage error.
R=$TMP/moved/usr
mkdir -p "$TMP/moved"
cp -a "$P" "$R"
sed 's/"name": *"generic-a76"/"name": "install-only"/' "$R/share/vmaptool/profiles/generic-a76.json" \
	>"$R/share/vmaptool/profiles/install-only.json"
[ ! -e "$VT_SRC/profiles/install-only.json" ] || fail "the source tree has install-only.json"
rc=0; out=$(cd / && env -i "$R/bin/vmaptool" profiles 2>&1) || rc=$?
[ "$rc" = 0 ] && grep -q '^install-only ' <<<"$out" || fail "moved prefix: profiles exited $rc: $out"
rc=0; out=$(cd / && env -i "$R/bin/vmaptool" replay -j --profile=install-only \
	"$R/share/vmaptool/traces/default.json" 2>&1) || rc=$?
[ "$rc" = 0 ] && grep -q '"profile": "install-only"' <<<"$out" ||
	fail "moved prefix: replay --profile=install-only exited $rc: $(head -3 <<<"$out")"
[ -f "$R/share/vmaptool/calibration/figures.json" ] || fail "calibration/figures.json not installed"
# a bundled trace by name: NAME, NAME.json, NAME.jsonl in share/vmaptool/traces
# (the table names it as typed, the JSON report by the path read)
rc=0; out=$(cd / && env -i "$R/bin/vmaptool" replay default 2>&1) || rc=$?
[ "$rc" = 0 ] && grep -q "^trace: default (24 events)$" <<<"$out" ||
	fail "moved prefix: replay default exited $rc: $(head -3 <<<"$out")"
rc=0; out=$(cd / && env -i "$R/bin/vmaptool" replay -j default 2>&1) || rc=$?
[ "$rc" = 0 ] && grep -q "\"trace\": \"$R/share/vmaptool/traces/default.json\"" <<<"$out" ||
	fail "moved prefix: replay -j default exited $rc: $(grep '"trace"' <<<"$out")"
rc=0; out=$(cd / && env -i "$R/bin/vmaptool" compare -j --strategy=zigzag,batched \
	systemheap-128m.json 2>&1) || rc=$?
[ "$rc" = 0 ] && grep -q "\"trace\": \"$R/share/vmaptool/traces/systemheap-128m.json\"" <<<"$out" ||
	fail "moved prefix: compare systemheap-128m.json exited $rc: $(head -3 <<<"$out")"
rc=0; out=$(cd / && env -i "$R/bin/vmaptool" ptdump --at=0 default 2>&1) || rc=$?
[ "$rc" = 0 ] || fail "moved prefix: ptdump default exited $rc: $(head -3 <<<"$out")"
# a file of that name in the current directory wins; a name with '/' is a path
mkdir -p "$TMP/cwd" && cp "$VT_SRC/tests/data/import/vmap.txt" "$TMP/cwd/default"
rc=0; out=$(cd "$TMP/cwd" && env -i "$R/bin/vmaptool" replay default 2>&1) || rc=$?
[ "$rc" = 3 ] || fail "a file 'default' in the current directory was not read: exit $rc: $out"
rc=0; out=$(cd / && env -i "$R/bin/vmaptool" replay ./default 2>&1) || rc=$?
[ "$rc" = 4 ] || fail "'./default' was resolved against the bundled traces: exit $rc"
rc=0; out=$(cd / && env -i "$R/bin/vmaptool" replay no-such-trace 2>&1) || rc=$?
[ "$rc" = 4 ] || fail "replay no-such-trace: exit $rc (expected 4)"
mv "$R/share/vmaptool/profiles" "$TMP/moved/profiles"
rc=0; out=$(cd / && env -i "$R/bin/vmaptool" replay "$R/share/vmaptool/traces/default.json" 2>&1) || rc=$?
[ "$rc" = 4 ] && grep -q "$R/share/vmaptool/profiles" <<<"$out" ||
	fail "moved prefix without profiles: replay exited $rc (expected 4): $out"
rc=0; out=$(cd / && env -i VMAPTOOL_PROFILES="$TMP/moved/profiles" "$R/bin/vmaptool" replay -j \
	--profile=install-only "$R/share/vmaptool/traces/default.json" 2>&1) || rc=$?
[ "$rc" = 0 ] || fail "VMAPTOOL_PROFILES: replay exited $rc: $(head -3 <<<"$out")"
rm -rf "$TMP/moved"

# ---- man pages -------------------------------------------------------------
cmds=$(vmaptool help | awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1} on && !/^  / {on=0}')
[ "$(echo "$cmds" | wc -w)" -ge 8 ] || fail "vmaptool help lists only: $cmds"
pages=$S/man/man1
for page in vmaptool $(for c in $cmds; do echo "vmaptool-$c"; done); do
	f=$pages/$page.1
	[ -f "$f" ] || fail "no man page $page.1"
	MANWIDTH=80 man -l "$f" >"$TMP/man.txt" 2>"$TMP/man.err" || fail "man -l $page.1: $(cat "$TMP/man.err")"
	[ -s "$TMP/man.txt" ] && ! grep -q 'warning' "$TMP/man.err" || fail "man -l $page.1 warns: $(cat "$TMP/man.err")"
	c=${page#vmaptool}; c=${c#-}; [ "$c" = help ] && c=	# help's page is the top-level text
	# every option --help lists is in the page (they come from the same table)
	for o in $(vmaptool $c --help | grep -oE -- '^ +(-[a-zA-Z?], )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+'); do
		grep -q -- "$o" "$TMP/man.txt" || fail "$page(1) lacks $o"
	done
done
MANPATH=$S/man man -w vmaptool >/dev/null 2>&1 || fail "man vmaptool does not find the page in the prefix"
# read whole, then searched (grep -q stopping early would SIGPIPE man)
gate_man=$(MANPATH=$S/man MANWIDTH=80 man vmaptool-gate 2>/dev/null)
grep -q -- '--update-baseline' <<<"$gate_man" || fail "man vmaptool-gate"

# ---- the README's examples, with the installed binary ----------------------------
W=$TMP/w
mkdir -p "$W"
ln -s "$S/vmaptool/traces" "$W/traces"
ln -s "$VT_SRC/tests" "$W/tests"
cd "$W"
cp traces/default.json trace.json
vmaptool import "$VT_SRC/tests/data/import/vmap.txt" -o imported.json 2>/dev/null ||
	fail "import for imported.json"
n=0
while IFS= read -r ex; do
	n=$((n + 1))
	# shellcheck disable=SC2086	# the README's words, split as a shell would
	eval "$ex" >"$TMP/ex.out" 2>"$TMP/ex.err" || fail "README example '$ex' exited $?: $(head -5 "$TMP/ex.err")"
	[ -s "$TMP/ex.out" ] || [[ $ex == *" -o "* ]] || fail "README example '$ex' printed nothing"
done < <(sed -n '/^## Examples/,/^## /s/^    \(vmaptool .*\)$/\1/p' "$VT_SRC/README.md")
[ "$n" -ge 6 ] || fail "only $n README examples found"

# ---- bash completion --------------------------------------------------------------
comp=$S/bash-completion/completions/vmaptool
[ -f "$comp" ] || fail "no bash completion installed"
out=$(bash -c '
	source "$1"
	t() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _vmaptool; echo "${COMPREPLY[*]}"; }
	t vmaptool rep
	t vmaptool replay --strat
	t vmaptool replay --strategy=zig
	t vmaptool replay --strategy=pagewise,batched@12
	t vmaptool gate --update
	t vmaptool help ga
	t vmaptool replay --barriers=ea
' _ "$comp")
expect=$(printf '%s\n' "replay" "--strategy=" "--strategy=zigzag" \
	"--strategy=pagewise,batched@123 --strategy=pagewise,batched@124 --strategy=pagewise,batched@125 --strategy=pagewise,batched@126 --strategy=pagewise,batched@127 --strategy=pagewise,batched@128 --strategy=pagewise,batched@12" \
	"--update-baseline" "gate" "--barriers=eager")
[ "$out" = "$expect" ] || fail "completion:
$out
expected:
$expect"
echo ok
