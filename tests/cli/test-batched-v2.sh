#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Golden counts of batched-v2 next to batched (tests/cli/batched_v2.py holds
# the cases and the argument for every expected value).  Needs VT_BIN,
# VT_SRC; ctest sets both.
set -u

VT_SRC=${VT_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
VT_BIN=${VT_BIN:-$VT_SRC/build/vmaptool}
export VT_SRC VT_BIN
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
exec python3 "$VT_SRC/tests/cli/batched_v2.py" "$@"
