#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Regenerate the measured part of docs/performance.md: build BASE (a commit,
# default 9a0bf90, the main this work is merged onto) and the working tree in Release
# under $TMPDIR/vt-perf, run bench/perf-report.py on both side by side and
# replace the text between the perf-report markers of docs/performance.md.
#
#   bench/perf-report.sh [BASE] [--runs N] [--quick]
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-9a0bf90}
shift || true
work=${TMPDIR:-/tmp}/vt-perf
rm -rf "$work/base-src"
mkdir -p "$work/base-src"
git archive "$base" | tar -x -C "$work/base-src"
for t in base:"$work/base-src" new:"$PWD"; do
	name=${t%%:*} src=${t#*:}
	cmake -S "$src" -B "$work/$name" -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build "$work/$name" -j2 --target vmaptool bench-parse >/dev/null
done
out=$(python3 bench/perf-report.py --old "$work/base" --new "$work/new" \
	--old-label "$(git rev-parse --short "$base")" --new-label "$(git rev-parse --short HEAD)" "$@")
python3 - "$out" <<'PY'
import re, sys
p = "docs/performance.md"
s = open(p).read()
begin, end = "<!-- perf-report begin -->", "<!-- perf-report end -->"
i, j = s.index(begin) + len(begin), s.index(end)
open(p, "w").write(s[:i] + "\n" + sys.argv[1] + "\n" + s[j:])
PY
echo "docs/performance.md updated"
