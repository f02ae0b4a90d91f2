#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Replay fidelity of imported real recordings (docs/vmaptool-import.md,
# "Fidelity"): each recording of tests/data/recordings is imported and
# replayed with --kernel=v6.12 --va-bits=52 --strategy=zigzag --per-event
# (own VA placement and --use-trace-va), and compared event by event with
# what the recording itself shows (tests/cli/import_replay.py).
# Exit 77 when python3 is absent; the recordings are part of the tree.
set -u
. "$(dirname "$0")/lib.sh"
rec=$VT_DATA/recordings
test_require python3

check() {	# RECORDING TEXT-OF-THE-SAME-RUN
	echo "== $(basename "$1")"
	python3 "$VT_SRC/tests/cli/import_replay.py" "$VT_BIN" "$1" "$2" || fail "$(basename "$1") against $(basename "$2")"
}
# the trace.dat against the trace-cmd report of the same run
check "$rec/fix256_x10.trace.dat" "$rec/fix256_x10.trace-cmd-report.txt.xz"
check "$rec/fix256_x10.trace-cmd-report.txt.xz" "$rec/fix256_x10.trace-cmd-report.txt.xz"
check "$rec/fix1.trace.txt.xz" "$rec/fix1.trace.txt.xz"
test_done
