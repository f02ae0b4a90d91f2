#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Out of memory is exit 4 wherever it happens (issue 22, item 7), by fault
# injection: tests/cli/failalloc.c, preloaded, fails the Nth allocation
# (malloc, calloc, realloc, aligned allocations, pthread_create) of the
# process and every one after it.  For N over the allocations a run makes
# (counted by a first run), each command must exit 4, or 0 with exactly
# the output of the run without failures (a failure it recovers from: a
# stdio buffer, the thread pool falling back to one thread); never a
# signal, never exit 3 (out of memory read as bad input) nor a cut report
# with exit 0.  test-oom.sh does the same through ulimit -v.  ONCE=1 fails
# one allocation only (VT_FAIL_ONCE).
#
# What it found: the argument parser's ENOMEM ignored (argv[-1], SIGSEGV),
# a profile's out of memory turned into a syntax error (exit 3), the
# report renderer returning a cut table as success and then dereferencing
# the NULL of a failed open_memstream() (SIGSEGV), import's trace meta
# "is not a JSON object" (exit 3), libtracecmd's NULL read as a corrupt
# recording.  The SIGSEGV of a 13 MB document under ulimit -v was the
# stack: replay_parallel() kept 1.3 MB of batches in its frame, and the
# stack could not grow once the heap had taken the address space.
#
# Environment (set by ctest): VT_BIN, VT_SRC, VT_FAILALLOC (the library).

set -u
. "$(dirname "$0")/lib.sh"
test_require_unsanitized "replaces malloc itself"
LIB=${VT_FAILALLOC:-$(dirname "$VT_BIN")/libvt-failalloc.so}
[ -f "$LIB" ] || test_skip "the fault-injection library $LIB is not built"

printf '%s\n' '{"format":"vmaptool-trace","version":1,"events":[{"op":"vmap","id":1,"pages":[{"pfn":4096,"order":0}]},{"op":"vunmap","id":1}]}' >"$TMP/doc.json"
printf '%s\n' '{"format":"vmaptool-trace","version":1}' \
	'{"op":"vmalloc","id":1,"size":16384}' '{"op":"vfree","id":1}' >"$TMP/lines.jsonl"
"$VT_BIN" replay --format=json "$TMP/doc.json" >"$TMP/report.json" ||
	die "cannot make the baseline"
xz -c "$VT_DATA/import/vmap.txt" >"$TMP/vmap.txt.xz" || die "xz"

# inject STRIDE NAME CMD...: N = 1, 1 + STRIDE, ... and the last 40
# (ONCE=1 inject ...: only the Nth allocation fails; PIPE=FILE: FILE
# through a pipe on its stdin)
inject() {
	local stride=$1 name=$2 k n rc bad=0
	shift 2
	cat "${PIPE:-/dev/null}" | VT_FAIL_COUNT="$TMP/count" LD_PRELOAD="$LIB" "$@" >"$TMP/want" 2>/dev/null ||
		{ fail "$name: the run without failures"; return; }
	k=$(cat "$TMP/count")
	for n in $( (seq 1 "$stride" "$k"; seq $((k > 40 ? k - 40 : 1)) "$k") | sort -nu); do
		cat "${PIPE:-/dev/null}" |
			VT_FAIL_AT=$n VT_FAIL_ONCE=${ONCE:-0} LD_PRELOAD="$LIB" "$@" >"$TMP/got" 2>"$TMP/err"
		rc=$?
		if [ "$rc" = 0 ] && cmp -s "$TMP/want" "$TMP/got"; then
			continue
		fi
		if [ "$rc" != 4 ]; then
			fail "$name: allocation $n of $k failing: exit $rc: $(head -c 300 "$TMP/err")"
			bad=$((bad + 1))
		elif ! grep -qi 'out of memory\|cannot allocate' "$TMP/err"; then
			fail "$name: allocation $n of $k failing: exit 4 without saying out of memory: $(head -c 300 "$TMP/err")"
			bad=$((bad + 1))
		fi
		[ "$bad" -lt 3 ] || return
	done
}

inject 13 "replay a document" "$VT_BIN" replay "$TMP/doc.json"
inject 13 "replay JSON Lines, --format=json" "$VT_BIN" replay --format=json "$TMP/lines.jsonl"
inject 19 "replay --format=mail" "$VT_BIN" replay --format=mail "$TMP/doc.json"
inject 41 "gate" "$VT_BIN" gate --baseline="$TMP/report.json" "$TMP/doc.json"
inject 1 "import of xz text" "$VT_BIN" import "$TMP/vmap.txt.xz" -o -
inject 3 "import of text" "$VT_BIN" import "$VT_DATA/import/vm-map-ram.txt" -o -
# One allocation that fails while the later ones succeed, as under
# ulimit -v beside a thread that frees memory: jansson's lexer then reports
# "invalid token" after an out of memory it counted, which the trace
# reader once read as an error of code 0, i.e. success: a replay of 0
# events with exit 0 (cli/test-oom's flake).  A document through a pipe
# takes the whole-document path; from a file, the streamed one.
ONCE=1 PIPE="$TMP/doc.json" inject 1 "replay a piped document, one failure" "$VT_BIN" replay -
ONCE=1 inject 1 "replay a document, one failure" "$VT_BIN" replay "$TMP/doc.json"
ONCE=1 inject 3 "replay JSON Lines, one failure" "$VT_BIN" replay "$TMP/lines.jsonl"
test_done
