#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Ground truth (tools/realkernel/README.md): the bundled validation trace on one of Debian's
# arm64 kernels (argument 1: a series of tools/realkernel/series.sh, default 6.12) under QEMU
# against `vmaptool replay` with that series' generation.  Fails on any unexplained
# difference; exit 77 (skip) only when the Debian archive is unreachable or no longer has the
# series, and nothing is cached.  Label `realkernel`: not part of `ctest --preset ci`; run by
# `ctest --preset realkernel` (the last line of .ci/run), one test per series.
set -u
VT_SRC=${VT_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
VT_BIN=${VT_BIN:-$VT_SRC/build/ci/vmaptool}
series=${1:-6.12}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$VT_SRC/tools/realkernel/run.sh" --series="$series" --vmaptool="$VT_BIN" --out="$out" --doc="$out/validation.md"
rc=$?
[ $rc = 77 ] && echo "SKIP: no $series kernel: the Debian package archive is unreachable or no longer has it (see the message above)"
exit $rc
