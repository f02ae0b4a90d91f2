#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Reproducers of issue 12 (docs/reliability.md): hostile sizes, special
# files, pipes, output files and signals.  Each case says what it expects;
# no case may end by a signal or with exit 5.
#
# Environment (set by ctest): VT_BIN, VT_SRC.

set -u
: "${VT_SRC:?}" "${VT_BIN:?}"
if [ ! -x "$VT_BIN" ]; then
	echo "skip: $VT_BIN not built"
	exit 77
fi

TMP=$(mktemp -d /tmp/vt-reliability.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail=0
# Under ASan the address-space limit cannot hold (its shadow alone is
# larger); a failed malloc must still return NULL there.
if ldd "$VT_BIN" 2>/dev/null | grep -q libasan; then
	ASAN=1
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1
else
	ASAN=0
fi
H='{"format":"vmaptool-trace","version":1,"config":{"granule":"4k","va_bits":48}}'

# run NAME WANT_RC REGEX CMD...: exit WANT_RC and REGEX on stderr, within
# 4 GB of address space and 60 s
run()
{
	local name=$1 want=$2 re=$3 rc
	shift 3
	(if [ $ASAN = 0 ]; then ulimit -v 4000000; fi
	 timeout 60 "$@") >"$TMP/stdout" 2>"$TMP/stderr"
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL $name: exit $rc, want $want"
		sed 's/^/  stderr: /' "$TMP/stderr" | head -5
		fail=1
	elif [ -n "$re" ] && ! grep -Eq -- "$re" "$TMP/stderr"; then
		echo "FAIL $name: stderr does not match /$re/"
		sed 's/^/  stderr: /' "$TMP/stderr" | head -5
		fail=1
	fi
}

# trace FILE EVENT...: a JSON Lines trace
trace()
{
	local f=$1
	shift
	{ echo "$H"; printf '%s\n' "$@"; } >"$f"
}

## Sizes from input: checked against the vmalloc area before any allocation
trace "$TMP/vm64.jsonl" '{"op":"vmalloc","id":1,"size":"0xffffffffffffffff"}'
run vmalloc-2^64-1 3 'vm64.jsonl:2:1: error: vmalloc of 18446744073709551615 bytes is larger than the [0-9]+-byte vmalloc area' \
	"$VT_BIN" replay "$TMP/vm64.jsonl"
trace "$TMP/vm64b.jsonl" '{"op":"vmalloc","id":1,"size":"0xfffffffffffff000"}'
run vmalloc-2^64-4096 3 'larger than the [0-9]+-byte vmalloc area' "$VT_BIN" replay "$TMP/vm64b.jsonl"
# a vmap larger than the area: exit 3, not ENOMEM from a 300 GB page array
trace "$TMP/vmap-big.jsonl" '{"op":"vmap","id":1,"pages":[{"pfn":"0x0","order":0,"count":"0x800000000"}]}'
run vmap-larger-than-area 3 'vmap of 34359738368 pages is larger than' "$VT_BIN" replay "$TMP/vmap-big.jsonl"
trace "$TMP/vmr-big.jsonl" '{"op":"vm_map_ram","id":1,"pages":[{"pfn":"0x0","order":0,"count":"0x800000000"}]}'
run vm_map_ram-larger-than-area 3 'vm_map_ram of 34359738368 pages is larger than' "$VT_BIN" replay "$TMP/vmr-big.jsonl"
# page totals that overflow count * sizeof and pass 2^63
trace "$TMP/ovf.jsonl" '{"op":"vmap","id":1,"pages":[{"pfn":"0x0","order":0,"count":"0x2000000000000001"}]}'
run vmap-count-overflow 3 'error: ' "$VT_BIN" replay "$TMP/ovf.jsonl"
trace "$TMP/big63.jsonl" '{"op":"vmap","id":1,"pages":[{"pfn":"0x0","order":0,"count":"0x8000000000000001"}]}'
run vmap-count-2^63 3 'error: ' "$VT_BIN" replay "$TMP/big63.jsonl"
trace "$TMP/io.jsonl" '{"op":"ioremap","id":1,"phys":"0x1000","size":"0xfffffffffffff000"}'
run ioremap-larger-than-area 3 'error: ' "$VT_BIN" replay "$TMP/io.jsonl"
trace "$TMP/al.jsonl" '{"op":"vmalloc","id":1,"size":"0x1000","align":"0x8000000000000000"}'
run vmalloc-align-2^63 3 'vmalloc area exhausted' "$VT_BIN" replay "$TMP/al.jsonl"
# a mapping that fits the area but not this machine's memory is exit 4
# with a message naming what could not be allocated
trace "$TMP/vmap-mem.jsonl" '{"op":"vmap","id":1,"pages":[{"pfn":"0x0","order":0,"count":"0x100000000"}]}'
run vmap-page-array-enomem 4 'cannot allocate the page array of 4294967296 pages' "$VT_BIN" replay "$TMP/vmap-mem.jsonl"

# a recorded VA at the top of the address space (--use-trace-va) wrapped
# va + size and broke an invariant (exit 5); found by tests/unit/test-extreme.c
{ echo '{"format":"vmaptool-trace","version":1,"config":{"granule":"16k","va_bits":52}}'
  echo '{"op":"vmap","id":1,"pages":[{"pfn":"0x3ffffffffe","order":0,"count":2}],"va":"0xffffffffffffc000"}'
} >"$TMP/va-wrap.jsonl"
run trace-va-wraps 3 'trace va 0xffffffffffffc000 \+ 49152 bytes overlaps a live area or lies outside the vmalloc area' \
	"$VT_BIN" replay --use-trace-va --verify "$TMP/va-wrap.jsonl"

## Output files (cli/output.c): temporary beside the target, renamed on
## success, removed on failure and on SIGINT/SIGTERM/SIGHUP
REC=$VT_SRC/tests/data/import/vmap.txt
mkdir -p "$TMP/o"
run import-o-dash 0 '' "$VT_BIN" import "$REC" -o -
if [ -e ./- ] || ! grep -q '"format":"vmaptool-trace"' "$TMP/stdout"; then
	echo "FAIL import -o -: not written to stdout"; fail=1
fi
mkfifo "$TMP/o/fifo"
cat "$TMP/o/fifo" >"$TMP/o/fifo.out" &
catpid=$!
run import-o-fifo 0 '' "$VT_BIN" import "$REC" -o "$TMP/o/fifo"
wait $catpid
if [ ! -p "$TMP/o/fifo" ] || ! grep -q '"op":"vfree"' "$TMP/o/fifo.out"; then
	echo "FAIL import -o FIFO: the FIFO was replaced or not written"; fail=1
fi
run import-o-devnull 0 '' "$VT_BIN" import "$REC" -o /dev/null
[ -c /dev/null ] || { echo "FAIL import -o /dev/null replaced it"; fail=1; }
run import-o-file 0 '' "$VT_BIN" import "$REC" -o "$TMP/o/t.json"
if [ "$(ls -A "$TMP/o")" != "$(printf 'fifo\nfifo.out\nt.json')" ]; then
	echo "FAIL import -o FILE: $(ls -A "$TMP/o" | tr '\n' ' ')"; fail=1
fi
# a failing import leaves neither the target nor a temporary
run import-fails-no-output 3 'error' "$VT_BIN" import "$VT_SRC/tests/data/import/garbage.txt" -o "$TMP/o/bad.json"
if ls -A "$TMP/o" | grep -q bad; then
	echo "FAIL failed import left $(ls -A "$TMP/o" | grep bad)"; fail=1
fi
# a signal while the output is open: the temporary is removed and the
# process dies by that signal (a FIFO held open keeps replay waiting)
for sig in INT TERM HUP; do
	mkdir -p "$TMP/s$sig"
	mkfifo "$TMP/s$sig/in"
	( exec 3<>"$TMP/s$sig/in"; sleep 5 ) &
	holder=$!
	# (a shell without job control starts background jobs with SIGINT
	# ignored, and an ignored signal stays ignored: restore the default)
	env --default-signal=INT "$VT_BIN" replay --per-event="$TMP/s$sig/pe.jsonl" \
		"$TMP/s$sig/in" 2>/dev/null &
	pid=$!
	for _ in $(seq 50); do
		ls -A "$TMP/s$sig" | grep -q '^\.pe' && break
		sleep 0.1
	done
	kill -$sig $pid
	wait $pid
	rc=$?
	kill $holder 2>/dev/null; wait $holder 2>/dev/null
	left=$(ls -A "$TMP/s$sig" | grep -v '^in$')
	if [ -n "$left" ] || [ $rc -ne $((128 + $(kill -l $sig))) ]; then
		echo "FAIL SIG$sig during output: exit $rc, left: $left"; fail=1
	fi
done

## Input: "-", pipes, FIFOs, devices; bounded by --max-input
SH=$VT_SRC/tests/fuzz/corpus/trace-json/systemheap.jsonl
SE=$VT_SRC/tests/fuzz/corpus/trace-json/granule-16k.json
# same_report A B: the reports are equal but for the trace's name
same_report()
{
	cmp -s <(grep -v '"trace":' "$1") <(grep -v '"trace":' "$2")
}
"$VT_BIN" replay -j "$SH" >"$TMP/want.json" 2>/dev/null
run replay-stdin-jsonl 0 '' sh -c '"$0" replay -j - <"$1"' "$VT_BIN" "$SH"
same_report "$TMP/stdout" "$TMP/want.json" || { echo "FAIL replay - (JSON Lines): report differs"; fail=1; }
run replay-pipe-jsonl 0 '' sh -c 'cat "$1" | "$0" replay -j -' "$VT_BIN" "$SH"
same_report "$TMP/stdout" "$TMP/want.json" || { echo "FAIL replay from a pipe: report differs"; fail=1; }
"$VT_BIN" replay -j "$SE" >"$TMP/want2.json" 2>/dev/null
run replay-pipe-document 0 '' sh -c 'cat "$1" | "$0" replay -j -' "$VT_BIN" "$SE"
same_report "$TMP/stdout" "$TMP/want2.json" || { echo "FAIL replay of a JSON document from a pipe: report differs"; fail=1; }
mkfifo "$TMP/in.fifo"
cat "$SH" >"$TMP/in.fifo" &
run replay-fifo 0 '' "$VT_BIN" replay -j "$TMP/in.fifo"
wait
same_report "$TMP/stdout" "$TMP/want.json" || { echo "FAIL replay FIFO: report differs"; fail=1; }
# /dev/zero: no "empty file", no endless read; the limit is named
run replay-dev-zero 3 '/dev/zero: error: input is larger than the --max-input limit of 1 MiB' \
	"$VT_BIN" replay --max-input=1M /dev/zero
{ echo "$H"; head -c 2000000 /dev/zero | tr '\0' x; } >"$TMP/longline.jsonl"
run replay-long-line 3 'longline.jsonl:2: error: a line of the input is longer than the --max-input limit of 1 MiB' \
	"$VT_BIN" replay --max-input=1M "$TMP/longline.jsonl"
run replay-long-line-pipe 3 '^-:2: error: a line of the input is longer than the --max-input limit' \
	sh -c '"$0" replay --max-input=1M - <"$1"' "$VT_BIN" "$TMP/longline.jsonl"
# a huge sparse file: read up to the limit, never whole
truncate -s 2G "$TMP/sparse.json"
run replay-sparse-2G 3 'sparse.json: error: input is larger than the --max-input limit of 64 MiB' \
	"$VT_BIN" replay --max-input=64M "$TMP/sparse.json"
# a JSON document (a regular file) larger than the limit is refused
# before the rest is read
{ echo '{"format":"vmaptool-trace","version":1,'; head -c 2000000 /dev/zero | tr '\0' ' '; echo '"events":[]}'; } >"$TMP/bigdoc.json"
run replay-big-document 3 'input of 2000053 bytes is larger than the --max-input limit of 1 MiB' \
	"$VT_BIN" replay --max-input=1M "$TMP/bigdoc.json"
run replay-directory 3 'is a directory' "$VT_BIN" replay "$TMP"
run max-input-bad 2 "invalid value '0' for --max-input" "$VT_BIN" replay --max-input=0 "$SH"

## No quadratic path: 100,000 distinct unknown flags (27 s before)
{ echo "$H"; awk 'BEGIN { for (i = 0; i < 100000; i++) printf "{\"op\":\"purge\",\"flags\":[\"VM_X%d\"]}\n", i }'; } >"$TMP/flags.jsonl"
start=$(date +%s)
run unknown-flags-100k 0 'more than 1000 distinct unknown names' "$VT_BIN" replay "$TMP/flags.jsonl"
[ $(( $(date +%s) - start )) -le 15 ] || { echo "FAIL unknown-flags-100k: slower than 15 s"; fail=1; }

#@@MORE@@

exit $fail
