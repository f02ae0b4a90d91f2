#!/usr/bin/env bash
# Byte-identity check for restructurings (issue 8): replay every bundled
# trace (traces/**) and every tests/data/scenarios trace under every
# strategy (batched@digits sets, segments:force, batched-v2, the vfree and
# linear-map axes included) and a few
# what-if options, with -j --per-op, --per-event and --verify, and save the
# outputs (stdout, stderr, exit status) in OUTDIR.  Record once from the
# reference build, then compare a later build:
#   scripts/refcheck.sh build/ci/vmaptool /tmp/ref     # before
#   scripts/refcheck.sh build/ci/vmaptool /tmp/new     # after
#   diff -r /tmp/ref /tmp/new && echo identical
# Traces over 100 kB replay without --verify (it walks every live area
# after every event: quadratic), so that a check takes about a minute.
set -uo pipefail
bin=$(realpath "${1:?usage: refcheck.sh VMAPTOOL OUTDIR}")
out=${2:?usage: refcheck.sh VMAPTOOL OUTDIR}
src=$(cd "$(dirname "$0")/.." && pwd)
export bin out src
mkdir -p "$out"
one() {
	t=$1
	strats=pagewise,zigzag,batched,batched@1,batched@12,batched@1234,batched@135,batched@1357,batched@12345678,segments,segments:force,mainline,batched-v2,batched-v2+vfree-perpage,zigzag+vfree-bulk,linear-old,linear-p1,linear-p1p2
	base=$(echo "${t#"$src"/}" | sed 's|^\.\./||; s|/|_|g')
	verify=--verify
	[ "$(stat -c %s "$t")" -gt 100000 ] && verify=
	for o in "" --kernel=v6.12 --granule=16k --granule=64k --barriers=eager; do
		tag=${o:-default}; tag=${tag//[=-]/}
		f="$out/$base.$tag"
		"$bin" replay -q -j --per-op $verify --strategy=$strats $o "$t" \
			>"$f.json" 2>"$f.err"; echo "rc=$?" >>"$f.err"
		"$bin" replay -q --per-event $verify --strategy=$strats $o "$t" \
			>"$f.events" 2>>"$f.err"; echo "rc=$?" >>"$f.err"
	done
}
export -f one
{ find "$src/traces" -type f \( -name '*.json' -o -name '*.jsonl' \) ! -name baseline.json
  find "$src/tests/data/scenarios" -type f -name '*.json'; } | sort |
	xargs -P2 -I{} bash -c 'one "$@"' _ {}
