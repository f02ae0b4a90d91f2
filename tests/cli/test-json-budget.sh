#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a JSON document may cost in memory, not only in bytes (issue 22,
# item 2): jansson's tree of a trace's "meta" takes about 20 times its
# text, so --max-input alone admitted a document whose tree needed 20
# times the limit (1 GiB: ~24 GB).  The tree of every value but the
# events (which are read one at a time), of a document read whole (a
# pipe), of each JSON Lines line and of a report is bounded by
# --max-input too (core/input.h, vt_json_budget_begin()): past it, exit 3
# naming the file, the line and column where the value starts, and the
# limit.
#
# Environment (set by ctest): VT_BIN, VT_SRC (tests/cli/lib.sh).

set -u
. "$(dirname "$0")/lib.sh"

# 2.6 MB of "meta" (100,000 small objects): a tree of about 55 MB
python3 - "$TMP" <<'PY'
import json, sys
d = sys.argv[1]
blob = [{"a": i, "b": "x" * 10} for i in range(100000)]
ev = [{"op": "vmap", "id": 1, "pages": [{"pfn": 4096, "order": 0}]}]
json.dump({"format": "vmaptool-trace", "version": 1, "meta": {"x": blob},
           "events": ev}, open(d + "/doc.json", "w"))
with open(d + "/lines.jsonl", "w") as f:
    f.write(json.dumps({"format": "vmaptool-trace", "version": 1, "meta": {"x": blob}}) + "\n")
    f.write(json.dumps(ev[0]) + "\n")
json.dump({"format": "vmaptool-trace", "version": 1,
           "events": [{"op": "vmap", "id": 1, "pages": [{"pfn": 4096, "order": 0}],
                       "caller": [{"a": i, "b": "x" * 10} for i in range(100000)]}]},
          open(d + "/event.json", "w"))
PY
size=$(stat -c %s "$TMP/doc.json")
[ "$size" -lt 4194304 ] || die "the document is $size bytes, not under 4 MiB"

LIM="needs more memory parsed than the 16 MiB \(16777216 bytes\) --max-input allows for a JSON tree"
# the document is well under the limit in bytes: refused for its tree
run "meta, one document" 3 "doc.json:1:52: error: the JSON of \"meta\" $LIM" \
	"$VT_BIN" replay --max-input=16M "$TMP/doc.json"
run "meta, JSON Lines" 3 "lines.jsonl:1:52: error: the JSON of \"meta\" $LIM" \
	"$VT_BIN" replay --max-input=16M "$TMP/lines.jsonl"
run "meta, from a pipe" 3 "-:1:52: error: the JSON of \"meta\" $LIM" \
	sh -c '"$0" replay --max-input=16M - <"$1"' "$VT_BIN" "$TMP/doc.json"
# one event with 2.6 MB of JSON the fast path declines: its tree
run "one event" 3 "event.json: error: the JSON of the document $LIM" \
	"$VT_BIN" replay --max-input=16M "$TMP/event.json"
# under a limit that allows the tree, each is read
run "meta under 256M" 0 '' "$VT_BIN" replay --max-input=256M "$TMP/doc.json"
run "JSON Lines under 256M" 0 '' "$VT_BIN" replay --max-input=256M "$TMP/lines.jsonl"
run "a pipe under 256M" 0 '' \
	sh -c '"$0" replay --max-input=256M - <"$1"' "$VT_BIN" "$TMP/doc.json"
"$VT_BIN" replay --format=json "$TMP/doc.json" >"$TMP/rep.json" || die "report"
# a report (gate's baseline) likewise
python3 - "$TMP" <<'PY'
import json, sys
d = sys.argv[1]
r = json.load(open(d + "/rep.json"))
r["x"] = [{"a": i, "b": "x" * 10} for i in range(100000)]
json.dump(r, open(d + "/big-rep.json", "w"))
PY
run "a baseline" 3 "big-rep.json: error: the JSON of the document $LIM" \
	"$VT_BIN" gate --max-input=16M --baseline="$TMP/big-rep.json" "$TMP/doc.json"
test_done
