#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The bundled traces against traces/baseline.json (docs/ci-gate.md): a
# change that moves a count fails here unless the same commit re-blesses
# the baseline with `scripts/gate.sh --update-baseline`.  Run from another
# working directory, as CI jobs do.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$TMP"
if ! VT_BIN=$VT_BIN "$VT_SRC/scripts/gate.sh" --markdown=gate.md >out 2>err; then
	cat out err >&2
	echo "FAIL: a count of the bundled traces moved; if that is intended," \
	     "run scripts/gate.sh --update-baseline and commit traces/baseline.json" >&2
	exit 1
fi
grep -q '^gate: ok: 0 regressions, 0 improvements in [1-9][0-9]* counts compared$' out ||
	{ echo "FAIL: $(cat out)" >&2; exit 1; }
# the grep above also fails on improvements: any moved count needs a re-bless
test_done
