#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The help says -v is "more detail; repeat for debug output" (issue 23,
# item 7): one -v prints no "debug:" line, -v -v does (cli/diag.c vt_dbg()).
#
# Environment (set by ctest): VT_BIN, VT_SRC (tests/cli/lib.sh).

set -u
. "$(dirname "$0")/lib.sh"

trace=$VT_SRC/traces/ioremap-1m.json

run "no -v" 0 "" "$VT_BIN" replay --strategy=zigzag "$trace"
grep -q "debug:" "$TMP/stderr" && fail "replay without -v printed a debug line"

run "one -v" 0 "" "$VT_BIN" replay -v --strategy=zigzag "$trace"
grep -q "debug:" "$TMP/stderr" && fail "one -v printed a debug line:" && head -3 "$TMP/stderr"

run "-v -v" 0 "debug: replaying '.*' under 1 strategy" \
	"$VT_BIN" replay -v -v --strategy=zigzag "$trace"

test_done
