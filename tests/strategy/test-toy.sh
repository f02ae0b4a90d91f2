#!/usr/bin/env bash
# A strategy is one file plus one registry line: vmaptool-toy is vmaptool
# built with tests/strategy/toy.c and the registry compiled with one more
# entry.  `strategies` must list it, replay must accept it and count as
# pagewise (the same hooks), and the ordinary build must not know it.
set -euo pipefail
: "${VT_TOY_BIN:?}" "${VT_BIN:?}" "${VT_SRC:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
# each output is read whole before it is searched: `cmd | grep -q` under
# pipefail fails when grep stops reading early and cmd gets SIGPIPE
out=$("$VT_TOY_BIN" strategies)
grep -q '^toy ' <<<"$out" || fail "vmaptool-toy strategies does not list toy"
out=$("$VT_TOY_BIN" strategies -j)
grep -q '"toy"' <<<"$out" || fail "strategies -j does not list toy"
out=$("$VT_BIN" strategies)
if grep -q '^toy ' <<<"$out"; then fail "vmaptool lists toy"; fi
# not in_default: the default list is unchanged
out=$("$VT_TOY_BIN" replay --help)
grep -q 'pagewise,zigzag,batched,segments)' <<<"$out" || fail "default list changed"
for t in "$VT_SRC"/traces/default.json "$VT_SRC"/traces/vmap-order8.json \
	 "$VT_SRC"/traces/vmalloc-huge-1m.json; do
	a=$("$VT_TOY_BIN" replay -q --format=csv --strategy=toy "$t" | sed "s/,toy,/,S,/")
	b=$("$VT_BIN" replay -q --format=csv --strategy=pagewise "$t" | sed "s/,pagewise,/,S,/")
	[ -n "$a" ] || fail "no output for toy on $t"
	[ "$a" = "$b" ] || fail "toy and pagewise differ on $t"
done
echo ok
