#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Golden values of the worked examples (tests/data/scenarios/README.md):
# every row of S0-S7 and E1-E4 replayed from the scenario traces
# (tests/cli/worked_examples.py does the work).  Needs VT_BIN (the vmaptool
# binary) and VT_SRC (the source tree); ctest sets both.
set -u
. "$(dirname "$0")/lib.sh"

test_require python3
python3 "$VT_SRC/tests/cli/worked_examples.py" "$@"
test_done $?
