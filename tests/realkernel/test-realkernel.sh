#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Ground truth (tools/realkernel/README.md): the bundled validation trace on Debian's arm64
# 6.12 kernel under QEMU against `vmaptool replay --kernel=v6.12`.  Fails on any unexplained
# difference; exit 77 (skip) only when the Debian archive is unreachable and nothing is
# cached.  Label `realkernel`: not part of `ctest --preset ci`; run by `ctest --preset
# realkernel` (the last line of .ci/run).
set -u
VT_SRC=${VT_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
VT_BIN=${VT_BIN:-$VT_SRC/build/ci/vmaptool}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$VT_SRC/tools/realkernel/run.sh" --vmaptool="$VT_BIN" --out="$out" --doc="$out/validation.md"
rc=$?
[ $rc = 77 ] && echo "SKIP: the Debian package archive is unreachable (see the message above)"
exit $rc
