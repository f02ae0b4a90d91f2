#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Out of memory is exit 4 saying so (issue 22, item 7): under an
# address-space limit (ulimit -v), a JSON document jansson cannot build a
# tree for must give "out of memory reading the JSON of 'FILE'" and exit 4,
# never "FILE:18446744073709551615:1: error: invalid JSON:" and exit 3
# (jansson's out of memory read as a syntax error, its line -1 cast to
# unsigned).  Each reader of JSON documents: a one-document trace (replay),
# a baseline report (gate), a figures file (calibrate --check).
#
# Environment (set by ctest): VT_BIN, VT_SRC (tests/cli/lib.sh).

set -u
. "$(dirname "$0")/lib.sh"
test_require_unsanitized "cannot run under ulimit -v"

# 13 MB of JSON that takes about 300 MB as a jansson tree: 400,000 small
# objects, in a trace's "meta", a report and a figures file
python3 - "$TMP" <<'PY'
import json, sys
d = sys.argv[1]
blob = [{"a": i, "b": "x" * 10} for i in range(400000)]
ev = [{"op": "vmap", "id": 1, "pages": [{"pfn": 4096, "order": 0}]}]
json.dump({"format": "vmaptool-trace", "version": 1, "meta": {"x": blob},
           "events": ev}, open(d + "/trace.json", "w"))
json.dump({"format": "vmaptool-report", "version": 1, "x": blob},
          open(d + "/report.json", "w"))
json.dump([{"id": "f", "x": blob}], open(d + "/figures.json", "w"))
PY
printf '%s\n' '{"format":"vmaptool-trace","version":1,"events":[{"op":"vmap","id":1,"pages":[{"pfn":4096,"order":0}]}]}' >"$TMP/small.json"

OOM=": error: out of memory reading the JSON of '$TMP/"
for kb in 50000 80000 120000; do
	RUN_VMEM_KB=$kb
	# the limit leaves room for vmaptool itself: a small trace replays
	run "small trace under $kb KiB" 0 '' "$VT_BIN" replay "$TMP/small.json"
	# the trace's meta tree (about 100 MB as the streaming reader builds
	# it) may fit 120 MB or not with the --jobs pool's threads and their
	# malloc arenas counted in the address space: only the limits it
	# cannot fit (any exit but 4 there is the defect; exit 0 at 120 MB was
	# seen one run in three under ctest -j2)
	if [ "$kb" -lt 120000 ]; then
		run "trace under $kb KiB" 4 "$OOM"'trace.json' "$VT_BIN" replay "$TMP/trace.json"
	fi
	run "baseline under $kb KiB" 4 "$OOM"'report.json' \
		"$VT_BIN" gate --baseline="$TMP/report.json" "$TMP/small.json"
	run "figures under $kb KiB" 4 "$OOM"'figures.json' \
		"$VT_BIN" calibrate --check="$TMP/figures.json"
	if grep -q 18446744073709551615 "$TMP/stderr"; then
		fail "line -1 printed as unsigned"
	fi
done
unset RUN_VMEM_KB
# without the limit the same documents are read and refused for what they are
run "trace, no limit" 0 '' "$VT_BIN" replay "$TMP/trace.json"
run "baseline, no limit" 3 '' "$VT_BIN" gate --baseline="$TMP/report.json" "$TMP/small.json"
test_done
