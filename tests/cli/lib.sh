# SPDX-License-Identifier: GPL-2.0
# The CLI tests' library, in the manner of git's t/test-lib.sh.  A test
# script starts with
#
#	. "$(dirname "$0")/lib.sh"
#
# and ends with test_done.  ctest runs it with VT_SRC (the tree), VT_BIN
# (the vmaptool binary) and VT_TOY_BIN set; run by hand, the defaults are
# the tree the script is in and its build/ci binary.
#
# The prologue sets and exports
#   VT_SRC, VT_BIN, VT_TOY_BIN, VT_DATA (= $VT_SRC/tests/data: the
#   recordings, scenario traces and fixtures the tests read)
#   TMP       a scratch directory, removed when the script exits
# and exits 77 (ctest's SKIP_RETURN_CODE) when VT_BIN is not built; set
# TEST_NO_BIN=1 before sourcing for a test that does not run it.
#
# Checks (each failure is printed as "FAIL ..." and counted, also from a
# subshell or a pipeline: the count is kept in a file; test_done fails the
# script when it is not 0):
#   fail MSG...                   record a failure and go on
#   die MSG...                    record a failure and stop now
#   test_expect_success DESC CMDS eval CMDS; fail DESC when they fail
#   run NAME WANT RE CMD...       CMD must exit WANT and, when RE is not
#                                 empty, its stderr must match the extended
#                                 regex RE; stdout and stderr land in
#                                 $TMP/stdout and $TMP/stderr.  RUN_TIMEOUT
#                                 (s, default 60) bounds it; RUN_VMEM_KB,
#                                 when set, limits its address space
#   test_expect_message RE FILE   FILE (default $TMP/stderr) matches RE
#   test_cmp WANT GOT             the files are equal (a diff when not)
# Skips, for what a fresh machine may lack (and only that), naming it:
#   test_skip WHY                 exit 77 saying why
#   test_require CMD [PACKAGE]    skip unless CMD is on the PATH
# Paths:
#   test_fixed_src                VT_SRC through a link of fixed length

VT_SRC=${VT_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
VT_BIN=${VT_BIN:-$VT_SRC/build/ci/vmaptool}
VT_TOY_BIN=${VT_TOY_BIN:-$(dirname "$VT_BIN")/vmaptool-toy}
VT_DATA=$VT_SRC/tests/data
export VT_SRC VT_BIN VT_TOY_BIN VT_DATA
TEST_NAME=$(basename "$0" .sh)

test_skip()
{
	echo "SKIP: $*"
	exit 77
}

test_require()
{
	command -v "$1" >/dev/null ||
		test_skip "no $1${2:+ (package $2)}"
}

# test_require_unsanitized WHY: skip under an ASan build of VT_BIN (it
# replaces malloc and reserves terabytes of shadow address space)
test_require_unsanitized()
{
	if nm "$VT_BIN" 2>/dev/null | grep -q __asan_init ||
	   ldd "$VT_BIN" 2>/dev/null | grep -q libasan; then
		test_skip "a sanitizer build $1"
	fi
}

if [ "${TEST_NO_BIN:-0}" != 1 ] && [ ! -x "$VT_BIN" ]; then
	test_skip "no vmaptool binary at $VT_BIN"
fi

# the failure count lives beside TMP, so that TMP holds only what the test
# puts there
TEST_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/vt-$TEST_NAME.XXXXXX") || exit 1
trap 'rm -rf "$TEST_ROOT" ${VT_SRC_LINK_DIR:+"$VT_SRC_LINK_DIR"}' EXIT
TMP=$TEST_ROOT/tmp
mkdir "$TMP" || exit 1
: >"$TEST_ROOT/failures"

# test_fixed_src: reach the tree through a link of one fixed length, so
# that a report wrapping a line around a path (a word longer than a line is
# kept whole, docs/report-format.md) wraps the same wherever the tree is
# cloned; VT_SRC_REAL keeps the tree's own path
test_fixed_src()
{
	VT_SRC_REAL=$VT_SRC
	VT_SRC_LINK_DIR=$(mktemp -d /tmp/vt-src.XXXXXX) || exit 1
	ln -s "$VT_SRC_REAL" "$VT_SRC_LINK_DIR/src" || exit 1
	VT_SRC=$VT_SRC_LINK_DIR/src
	VT_DATA=$VT_SRC/tests/data
}

fail()
{
	echo "FAIL: $*"
	echo "$*" >>"$TEST_ROOT/failures"
}

die()
{
	fail "$@"
	exit 1
}

test_failures()
{
	wc -l <"$TEST_ROOT/failures"
}

test_expect_success()
{
	local desc=$1
	shift
	if ! eval "$*"; then
		fail "$desc"
	fi
}

run()
{
	local name=$1 want=$2 re=$3 rc
	shift 3
	(if [ -n "${RUN_VMEM_KB:-}" ]; then ulimit -v "$RUN_VMEM_KB"; fi
	 timeout "${RUN_TIMEOUT:-60}" "$@") >"$TMP/stdout" 2>"$TMP/stderr"
	rc=$?
	if [ "$rc" != "$want" ]; then
		fail "$name: exit $rc, want $want"
		sed 's/^/  stderr: /' "$TMP/stderr" | head -5
		return 1
	elif [ -n "$re" ] && ! grep -Eq -- "$re" "$TMP/stderr"; then
		fail "$name: stderr does not match /$re/"
		sed 's/^/  stderr: /' "$TMP/stderr" | head -5
		return 1
	fi
	return 0
}

test_expect_message()
{
	local re=$1 file=${2:-$TMP/stderr}
	grep -Eq -- "$re" "$file" && return 0
	fail "$(basename "$file") does not match /$re/"
	sed 's/^/  | /' "$file" | head -5
	return 1
}

test_cmp()
{
	cmp -s -- "$1" "$2" && return 0
	fail "$2 differs from $1"
	diff -u -- "$1" "$2" | head -n "${TEST_DIFF_LINES:-60}"
	return 1
}

# test_done [STATUS]: the end of the script.  STATUS, when given and not 0,
# is one more failure (the exit status of a check written in python, say).
test_done()
{
	local n
	[ "${1:-0}" = 0 ] || echo "exit status $1" >>"$TEST_ROOT/failures"
	n=$(test_failures)
	if [ "$n" != 0 ]; then
		echo "$TEST_NAME: $n failed"
		exit 1
	fi
	echo "$TEST_NAME: all passed"
	exit 0
}
