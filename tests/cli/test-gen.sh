#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vmaptool gen (docs/vmaptool-gen.md) from the command line: every pattern
# writes a trace that 'replay --verify' accepts; a seed reproduces its bytes
# and another seed changes them; -o NAME.jsonl and --jsonl write JSON Lines
# with the same events; bad option values exit 2, an unreadable --buddyinfo
# 4, a malformed one (or exhausted model memory) 3, and a failed run leaves
# no output file and nothing on stdout; and every bundled trace is regenerated with the command
# traces/README.md gives for it and compared byte for byte.
#
# Environment (set by ctest): VT_BIN, VT_SRC.

set -u
. "$(dirname "$0")/lib.sh"

passed=0

ok() { passed=$((passed + 1)); }

# gen_ok NAME OUT ARGS...: gen exits 0, OUT exists and replay --verify accepts it
gen_ok()
{
	local name=$1 out=$2 rc
	shift 2
	rm -f "$out"
	"$VT_BIN" gen "$@" -o "$out" >"$TMP/stdout" 2>"$TMP/stderr"
	rc=$?
	if [ "$rc" != 0 ] || [ ! -s "$out" ]; then
		fail "$name: gen $* exited $rc"
		sed 's/^/  stderr: /' "$TMP/stderr" | head -3
		return 1
	fi
	"$VT_BIN" replay --verify "$out" >"$TMP/stdout" 2>"$TMP/stderr"
	rc=$?
	if [ "$rc" != 0 ]; then
		fail "$name: replay --verify exited $rc"
		sed 's/^/  stderr: /' "$TMP/stderr" | head -3
		return 1
	fi
	ok
}

# gen_fails NAME RC ARGS...: gen exits RC with a message and leaves no
# output file (nor a temporary one) behind, and an existing file untouched
gen_fails()
{
	local name=$1 want=$2 rc d=$TMP/fail
	shift 2
	rm -rf "$d"
	mkdir -p "$d"
	"$VT_BIN" gen "$@" -o "$d/out.json" >"$TMP/stdout" 2>"$TMP/stderr"
	rc=$?
	if [ "$rc" != "$want" ]; then
		fail "$name: gen $* exited $rc, want $want"
		sed 's/^/  stderr: /' "$TMP/stderr" | head -3
		return 1
	fi
	if [ ! -s "$TMP/stderr" ]; then
		fail "$name: no message on stderr"
		return 1
	fi
	if [ -n "$(ls -A "$d")" ]; then
		fail "$name: failed run left $(ls -A "$d" | tr '\n' ' ')"
		return 1
	fi
	echo previous >"$d/out.json"
	"$VT_BIN" gen "$@" -o "$d/out.json" >/dev/null 2>&1
	if [ "$(cat "$d/out.json")" != previous ] ||
	   [ "$(ls -A "$d")" != out.json ]; then
		fail "$name: failed run changed an existing output file"
		return 1
	fi
	ok
}

# ---- every pattern writes a trace that replays and verifies ----------

gen_ok "systemheap default" "$TMP/sh.json" systemheap
gen_ok "systemheap sizes" "$TMP/sh2.json" systemheap --size=1M+68K,4M,192K \
	--buffers=6 --live=2 --seed=3
gen_ok "systemheap frag" "$TMP/sh3.json" systemheap --size=8M --buffers=4 \
	--frag=0.5
gen_ok "systemheap no page array" "$TMP/sh4.json" systemheap --size=2M \
	--buffers=2 --no-page-array
gen_ok "systemheap 16k/47" "$TMP/sh5.json" systemheap --granule=16k \
	--va-bits=47 --size=4M --buffers=2
gen_ok "systemheap 64k/52" "$TMP/sh6.json" systemheap --granule=64k \
	--va-bits=52 --size=4M --buffers=2
gen_ok "systemheap mem" "$TMP/sh7.json" systemheap --mem=256M --size=16M \
	--buffers=4 --live=2
gen_ok "systemheap orders 8,3,0" "$TMP/sh8.json" systemheap --orders=8,3,0 \
	--size=1M+68K --buffers=1 --live=1 --no-page-array &&
	grep -q '"order":3' "$TMP/sh8.json" && ! grep -q '"order":4' "$TMP/sh8.json" ||
	fail "systemheap --orders=8,3,0: no order-3 block or an order-4 one"
gen_ok "systemheap orders 11,0 on 16k" "$TMP/sh9.json" systemheap \
	--granule=16k --orders=11,0 --size=64M --buffers=1
gen_ok "test_vmalloc default" "$TMP/tv.json" test_vmalloc
gen_ok "test_vmalloc all" "$TMP/tv2.json" test_vmalloc --test=all --loops=3 \
	--busy=50 --junk=64 --pcpu-objects=100
gen_ok "test_vmalloc huge" "$TMP/tv3.json" test_vmalloc \
	--test=fix_size_alloc_test --nr-pages=512 --use-huge --loops=2
gen_ok "test_vmalloc 64k" "$TMP/tv4.json" test_vmalloc --granule=64k \
	--test=fix_align_alloc_test,vm_map_ram_test --loops=2
gen_ok "ioremap default" "$TMP/io.json" ioremap
gen_ok "ioremap many" "$TMP/io2.json" ioremap --size=4K,1M,2M+4K --count=9 \
	--live=3 --phys-align=4K --phys-base=0x40000000

# --buddyinfo: a /proc/buddyinfo snapshot
cat >"$TMP/buddyinfo" <<'EOF'
Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3
Node 0, zone    DMA32      1      2      4      2      5      4      3      3      4      2    752
Node 0, zone   Normal   2900    648    755   3421   2113    923    344     61     24     10     28
EOF
gen_ok "systemheap buddyinfo" "$TMP/bi.json" systemheap \
	--buddyinfo="$TMP/buddyinfo" --size=8M --buffers=4

# to stdout without -o: the same bytes as with -o
"$VT_BIN" gen systemheap >"$TMP/stdout.json" 2>/dev/null
if cmp -s "$TMP/stdout.json" "$TMP/sh.json"; then ok; else
	fail "gen to stdout differs from gen -o"; fi

# ---- seeds ---------------------------------------------------------------

# seeds NAME ARGS...: --seed=7 twice gives the same bytes, --seed=8 others
seeds()
{
	local name=$1
	shift
	"$VT_BIN" gen "$@" --seed=7 -o "$TMP/s7a.json" 2>/dev/null &&
	"$VT_BIN" gen "$@" --seed=7 -o "$TMP/s7b.json" 2>/dev/null &&
	"$VT_BIN" gen "$@" --seed=8 -o "$TMP/s8.json" 2>/dev/null
	if [ $? != 0 ]; then
		fail "$name: gen failed"
	elif ! cmp -s "$TMP/s7a.json" "$TMP/s7b.json"; then
		fail "$name: the same seed gave different bytes"
	elif cmp -s "$TMP/s7a.json" "$TMP/s8.json"; then
		fail "$name: another seed gave the same bytes"
	else
		ok
	fi
}

seeds "systemheap seed" systemheap --size=8M,1M+68K --buffers=6 --live=3
seeds "systemheap frag seed" systemheap --size=8M --buffers=3 --frag=0.3
seeds "test_vmalloc seed" test_vmalloc --test=random_size_alloc_test --loops=20
seeds "ioremap seed" ioremap --size=64K --count=6 --live=2

# ---- JSON Lines ------------------------------------------------------------

# The writer puts one event per line in both forms, so the JSON Lines file
# is the JSON document's lines without the "events" wrapper and commas.
jsonl_same()
{
	local name=$1 json=$2 jsonl=$3
	local hdr

	hdr=$(head -n 1 "$jsonl")
	case "$hdr" in
	*'"events"'*)
		fail "$name: JSON Lines header has \"events\""
		return 1 ;;
	'{"format":"vmaptool-trace","version":1,'*'}') ;;
	*)
		fail "$name: JSON Lines header is '$hdr'"
		return 1 ;;
	esac
	# the JSON document: drop its first and last line, trailing commas
	sed -e '1d' -e '$d' -e 's/,$//' "$json" >"$TMP/ev-json"
	tail -n +2 "$jsonl" >"$TMP/ev-jsonl"
	if ! cmp -s "$TMP/ev-json" "$TMP/ev-jsonl"; then
		fail "$name: JSON Lines events differ from the JSON document's"
		diff "$TMP/ev-json" "$TMP/ev-jsonl" | head -4
		return 1
	fi
	ok
}

gen_ok "systemheap -o x.jsonl" "$TMP/sh.jsonl" systemheap &&
	jsonl_same "systemheap -o x.jsonl" "$TMP/sh.json" "$TMP/sh.jsonl"
gen_ok "test_vmalloc -o x.ndjson" "$TMP/tv.ndjson" test_vmalloc &&
	jsonl_same "test_vmalloc -o x.ndjson" "$TMP/tv.json" "$TMP/tv.ndjson"
# --jsonl to stdout: JSON Lines whose command line says --jsonl
"$VT_BIN" gen ioremap --jsonl >"$TMP/io-stdout.jsonl" 2>/dev/null
if head -n 1 "$TMP/io-stdout.jsonl" | grep -q -- '--jsonl' &&
   ! head -n 1 "$TMP/io-stdout.jsonl" | grep -q '"events"' &&
   [ "$(wc -l <"$TMP/io-stdout.jsonl")" = "$(($(wc -l <"$TMP/io.json") - 1))" ]; then
	ok
else
	fail "ioremap --jsonl to stdout is not JSON Lines"
fi

# ---- errors: exit codes, no output file -------------------------------------

gen_fails "no pattern" 2
gen_fails "unknown pattern" 2 nosuch
gen_fails "unknown test" 2 test_vmalloc --test=nosuch
gen_fails "unknown option" 2 systemheap --nosuch
gen_fails "buffers 0" 2 systemheap --buffers=0
gen_fails "buffers not a number" 2 systemheap --buffers=abc
gen_fails "live 0" 2 systemheap --live=0
gen_fails "frag above 1" 2 systemheap --frag=2
gen_fails "frag negative" 2 systemheap --frag=-0.1
gen_fails "size 0" 2 systemheap --size=0
gen_fails "orders not ending in 0" 2 systemheap --orders=8,4
gen_fails "orders not descending" 2 systemheap --orders=4,8,0
gen_fails "orders above MAX_PAGE_ORDER" 2 systemheap --orders=11,0
gen_fails "orders on test_vmalloc" 2 test_vmalloc --orders=8,0
gen_fails "size garbage" 2 systemheap --size=1Q
# a size past 2^64 says so; one past gen's range says it in units
gen_fails "size 2^64" 2 systemheap --size=99999999999T
grep -q "^vmaptool gen: --size '99999999999T': 2^64 bytes or more$" "$TMP/stderr" || fail "size 2^64: $(cat "$TMP/stderr")"
gen_fails "size sum 2^64" 2 systemheap --size=16777215T+1T
grep -q "2^64 bytes or more" "$TMP/stderr" || fail "size sum 2^64: $(cat "$TMP/stderr")"
gen_fails "ioremap 2T" 2 ioremap --size=2T
grep -q "ioremap size 2 TiB (2199023255552 bytes) is not within 1..1T" "$TMP/stderr" || fail "ioremap 2T: $(cat "$TMP/stderr")"
gen_fails "seed not a number" 2 systemheap --seed=x
gen_fails "loops 0" 2 test_vmalloc --loops=0
gen_fails "count negative" 2 ioremap --count=-1
gen_fails "granule" 2 systemheap --granule=8k
gen_fails "option of another pattern" 2 systemheap --use-huge
gen_fails "option of another pattern 2" 2 ioremap --buffers=3
# applicability is checked before the value, whatever the order
for args in "ioremap --test=x" "--test=x ioremap" "ioremap --test=fix_size_alloc_test" "systemheap --count=-1"; do
	# shellcheck disable=SC2086
	gen_fails "$args" 2 $args
	grep -q "does not apply to pattern" "$TMP/stderr" || fail "$args: $(cat "$TMP/stderr")"
done
gen_fails "buddyinfo unreadable" 4 systemheap --buddyinfo="$TMP/nonexistent"
gen_fails "buddyinfo a directory" 4 systemheap --buddyinfo="$TMP"
printf 'Node 0, zone   Normal  1 2 x\n' >"$TMP/bad-buddyinfo"
gen_fails "buddyinfo malformed" 3 systemheap --buddyinfo="$TMP/bad-buddyinfo"
printf 'hello\n' >"$TMP/bad-buddyinfo2"
gen_fails "buddyinfo not buddyinfo" 3 systemheap --buddyinfo="$TMP/bad-buddyinfo2"
gen_fails "memory exhausted" 3 systemheap --mem=16M --size=64M --live=1
gen_fails "mem below one MAX_PAGE_ORDER block" 2 systemheap --mem=1M --size=8M
grep -q -- "--mem=1M is too small: .* (4M with 4K pages), at least one and at most 16T" "$TMP/stderr" ||
	fail "--mem=1M message: $(cat "$TMP/stderr")"
gen_fails "mem beyond 2^32 pages" 2 systemheap --mem=32T
# a failure found while generating leaves nothing on stdout either
"$VT_BIN" gen systemheap --mem=8M --size=8M,8M --live=2 >"$TMP/stdout" 2>"$TMP/stderr"
rc=$?
if [ "$rc" != 3 ] || [ -s "$TMP/stdout" ]; then
	fail "exhausted to stdout: exit $rc, $(wc -c <"$TMP/stdout") bytes on stdout"
else ok; fi
"$VT_BIN" gen systemheap --mem=64M >"$TMP/stdout" 2>"$TMP/stderr" &&
	"$VT_BIN" gen systemheap --mem=64M -o "$TMP/o.json" && cmp -s "$TMP/stdout" "$TMP/o.json" &&
	ok || fail "gen to stdout differs from -o"
"$VT_BIN" gen systemheap >/dev/full 2>"$TMP/stderr"
rc=$?
[ "$rc" = 4 ] && ok || fail "gen >/dev/full: exit $rc"

# ---- the bundled traces are what traces/README.md says ---------------------

# Each table row of traces/README.md ends with the command, run from traces/.
n=0
mkdir -p "$TMP/traces/test_vmalloc"
while IFS= read -r cmd; do
	out=${cmd##* -o }
	n=$((n + 1))
	# shellcheck disable=SC2086	# the README's words, split as a shell would
	(cd "$TMP/traces" && eval "\"\$VT_BIN\" ${cmd#vmaptool }") \
		>"$TMP/stdout" 2>"$TMP/stderr"
	rc=$?
	if [ "$rc" != 0 ]; then
		fail "traces/$out: '$cmd' exited $rc"
		sed 's/^/  stderr: /' "$TMP/stderr" | head -3
	elif ! cmp -s "$TMP/traces/$out" "$VT_SRC/traces/$out"; then
		fail "traces/$out: '$cmd' does not reproduce the committed file"
	else
		ok
	fi
done < <(sed -n 's/^|.*| `\(vmaptool gen [^`]*\)` |$/\1/p' "$VT_SRC/traces/README.md")
if [ "$n" -lt 6 ]; then
	fail "found only $n commands in traces/README.md"
fi
# and every bundled trace has its command
for f in $(cd "$VT_SRC/traces" && find . \( -name '*.json' -o -name '*.jsonl' \) ! -name baseline.json | sed 's|^\./||' | sort); do
	if grep -q -- "-o $f\`" "$VT_SRC/traces/README.md"; then ok; else
		fail "traces/$f: no command in traces/README.md"; fi
done

echo "$passed passed, $(test_failures) failed"
test_done
