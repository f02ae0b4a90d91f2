#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Golden values of the worked examples (tests/data/scenarios/README.md):
# every row of S0-S7 and E1-E4 replayed from the scenario traces
# (tests/cli/worked_examples.py does the work).  Needs VT_BIN (the vmaptool
# binary) and VT_SRC (the source tree); ctest sets both.
set -u

VT_SRC=${VT_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
VT_BIN=${VT_BIN:-$VT_SRC/build/vmaptool}
export VT_SRC VT_BIN
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
exec python3 "$VT_SRC/tests/cli/worked_examples.py" "$@"
