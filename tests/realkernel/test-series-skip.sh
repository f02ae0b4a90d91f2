#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unstable moves on: a series whose packages have left the archive, with nothing cached, is
# a skip (exit 77 and a message naming the series), never a failure.  tools/realkernel's
# fetch.sh runs here with a 7.2 entry that asks for 7.99.y, which no archive has, into an
# empty cache.  Needs the Debian archive (label realkernel); exit 77 when it is unreachable.
set -u
VT_SRC=${VT_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$VT_SRC/tools/realkernel/fetch.sh" "$VT_SRC/tools/realkernel/series.sh" "$tmp/"
sed -i 's/linux-binary-unsigned-7\\\.2\\\./linux-binary-unsigned-7\\.99\\./' "$tmp/series.sh"
grep -q '7\\\.99' "$tmp/series.sh" || { echo "FAIL: could not rewrite the 7.2 entry"; exit 1; }
"$tmp/fetch.sh" 7.2 "$tmp/cache" 2>"$tmp/err"
rc=$?
cat "$tmp/err"
if grep -q 'unreachable' "$tmp/err"; then
	echo "SKIP: the Debian archive is unreachable"
	exit 77
fi
[ $rc = 77 ] && grep -q 'SKIP: the unstable archive no longer has a 7.2 kernel and nothing is cached' "$tmp/err" ||
	{ echo "FAIL: fetch.sh exited $rc"; exit 1; }
[ ! -e "$tmp/cache/release" ] || { echo "FAIL: a release was recorded"; exit 1; }
echo "ok: a series gone from the archive is skipped"
