#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# calibrate shows which figure it runs on a terminal (isatty(stderr)) and
# nothing of it when stderr is a file (issue 23, item 6).  Two figures of
# calibration/figures.json keep it short; script(1) gives the terminal.
#
# Environment (set by ctest): VT_BIN, VT_SRC (tests/cli/lib.sh).

set -u
. "$(dirname "$0")/lib.sh"
test_require script bsdutils
test_require python3

python3 - "$VT_SRC/calibration/figures.json" "$TMP/two.json" <<'PY' || die "cannot cut figures.json"
import json, sys
d = json.load(open(sys.argv[1]))
json.dump(d[:2], open(sys.argv[2], "w"))
PY

run "calibrate --check to a file" 0 "" "$VT_BIN" calibrate --check="$TMP/two.json"
grep -q "calibrate: figure" "$TMP/stderr" && fail "progress written to a file"

script -qec "\"$VT_BIN\" calibrate --check=\"$TMP/two.json\" >/dev/null" "$TMP/tty" \
	>/dev/null 2>&1 || fail "calibrate under script(1) failed"
tr '\r' '\n' <"$TMP/tty" | grep -q "vmaptool: calibrate: figure 1/2 (" ||
	fail "no progress on a terminal: $(tr '\r' '\n' <"$TMP/tty" | head -3)"

test_done
