#!/usr/bin/env bash
# Gate the bundled traces against traces/baseline.json (docs/ci-gate.md):
# a change that moves a count fails unless the baseline is updated in the
# same commit.
#
#   scripts/gate.sh                     compare; exit 1 on a regression
#   scripts/gate.sh --update-baseline   bless the current counts (review
#                                       `git diff traces/baseline.json`)
#
# Other arguments go to `vmaptool gate` (--junit=FILE, --markdown=FILE).
# VT_BIN: the vmaptool to run (default build/ci/vmaptool).  Works from any
# working directory.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${VT_BIN:-$root/build/ci/vmaptool}
shopt -s nullglob
exec "$bin" gate --baseline="$root/traces/baseline.json" "$@" \
	"$root"/traces/*.json "$root"/traces/*.jsonl \
	"$root"/traces/test_vmalloc/*.json "$root"/traces/test_vmalloc/*.jsonl
