#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Golden counts of batched-v2 next to batched (tests/cli/batched_v2.py holds
# the cases and the argument for every expected value).  Needs VT_BIN,
# VT_SRC; ctest sets both.
set -u
. "$(dirname "$0")/lib.sh"

test_require python3
python3 "$VT_SRC/tests/cli/batched_v2.py" "$@"
test_done $?
