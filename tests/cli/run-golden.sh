#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Golden CLI test (STYLE.md 7): run-golden.sh tests/golden/<case>
#
# <case>/args           one line: vmaptool's arguments; $VT_SRC is
#                       expanded, shell quoting applies;
#                       the command runs in <case>/, so paths are relative
#                       to it (use $VT_SRC/... for files of the repository)
# <case>/expected.stdout
# <case>/expected.stderr optional; compared only if present
# <case>/expected.rc     the exit status
#
# Occurrences of $VT_SRC in the output are replaced by
# that name, so goldens do not depend on where the tree is checked out;
# the commit vmaptool was built from (compare --summary's "(commit ID)"
# and JSON "commit": "ID", cli/version.c) becomes COMMIT, so that they do
# not change with every commit.
# VT_UPDATE_GOLDEN=1 rewrites the expected files from the actual output
# (expected.stderr only when it exists or stderr is not empty); review the
# diff like code.
set -u

case_dir=${1:?usage: run-golden.sh tests/golden/<case>}
case_dir=$(cd "$case_dir" && pwd) || exit 2
. "$(dirname "$0")/lib.sh"
[ -f "$case_dir/args" ] || { echo "$case_dir: no args file"; exit 2; }
tmp=$TMP

# the tree through a link of fixed length: wrapping does not depend on
# where it is cloned
test_fixed_src

args=$(head -n 1 "$case_dir/args")
args=${args//\$\{VT_SRC\}/$VT_SRC}
args=${args//\$VT_SRC/$VT_SRC}
eval "set -- $args"

# No colour, no locale-dependent messages, a stable program name.
(cd "$case_dir" && NO_COLOR=1 LC_ALL=C "$VT_BIN" "$@") \
	>"$tmp/stdout" 2>"$tmp/stderr" </dev/null
echo $? >"$tmp/rc"

normalise() {
	sed -e "s|$VT_SRC|\$VT_SRC|g" -e "s|$VT_SRC_REAL|\$VT_SRC|g" \
	    -e 's/(commit [^)]*)/(commit COMMIT)/g' \
	    -e 's/"commit": "[^"]*"/"commit": "COMMIT"/g' "$1"
}
normalise "$tmp/stdout" >"$tmp/stdout.n"
normalise "$tmp/stderr" >"$tmp/stderr.n"

if [ "${VT_UPDATE_GOLDEN:-0}" = 1 ]; then
	cp "$tmp/stdout.n" "$case_dir/expected.stdout"
	cp "$tmp/rc" "$case_dir/expected.rc"
	if [ -f "$case_dir/expected.stderr" ] || [ -s "$tmp/stderr.n" ]; then
		cp "$tmp/stderr.n" "$case_dir/expected.stderr"
	fi
	echo "updated $case_dir"
	exit 0
fi

status=0
if ! diff -u "$case_dir/expected.stdout" "$tmp/stdout.n"; then
	echo "FAIL: stdout differs"
	status=1
fi
if [ -f "$case_dir/expected.stderr" ] &&
   ! diff -u "$case_dir/expected.stderr" "$tmp/stderr.n"; then
	echo "FAIL: stderr differs"
	status=1
fi
if ! diff -u "$case_dir/expected.rc" "$tmp/rc"; then
	echo "FAIL: exit status differs"
	[ -f "$case_dir/expected.stderr" ] || sed 's/^/stderr: /' "$tmp/stderr.n"
	status=1
fi
exit $status
