#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The human forms of the report (docs/report-format.md): the table fits 72
# columns (strategies become blocks when their columns would not fit,
# --wide keeps the columns), --format=mail is plain 72-column ASCII with
# its header, changes are said in words and coloured by the metric
# table's direction (--color, NO_COLOR), the totals always show tlbi with
# the lazily pending pages and the hint, and --svg writes an SVG that
# parses and that rsvg-convert renders to a non-trivial PNG.
set -u
. "$(dirname "$0")/lib.sh"
test_fixed_src
cd "$TMP" || exit 2
cp "$VT_SRC/traces/default.json" t.json
vt() { NO_COLOR= LC_ALL=C "$VT_BIN" "$@"; }

# check_width FILE: no line wider than 72 columns (characters, not bytes)
check_width() {
	python3 - "$1" <<'EOF' || fail "$1 has lines wider than 72 columns"
import sys
bad = [l for l in open(sys.argv[1], encoding="utf-8").read().split("\n") if len(l) > 72]
for l in bad[:3]:
    print("  %d: %s" % (len(l), l))
sys.exit(1 if bad else 0)
EOF
}

# ---- 72 columns, blocks, --wide ---------------------------------------
n=0
for args in "replay" "compare" "compare --ablation" "compare --per-op" \
	    "replay -v --per-op" "compare --strategy=zigzag,batched" \
	    "compare --strategy=zigzag,batched --ablation --per-op -v"; do
	for t in t.json "$VT_SRC/traces/systemheap-frag.jsonl" "$VT_SRC/traces/ioremap-1m.json"; do
		n=$((n + 1))
		vt $args "$t" >"w$n.txt" 2>/dev/null || fail "$args $t: exit $?"
		check_width "w$n.txt"
	done
done
# a bundled trace given by name: the human headers show the name typed
# (a session 10 trial finding: the install path, which wraps), the JSON and
# CSV the path read, from which gate makes its keys (docs/report-format.md)
vt replay default >b.txt && grep -q '^trace: default (24 events)$' b.txt ||
	{ fail "replay default: the header does not name 'default'"; head -4 b.txt; }
vt compare --format=mail --strategy=zigzag,batched default vmap-order8 >b.txt &&
	grep -q '^Traces: default (24 events), vmap-order8 (2 events)$' b.txt ||
	{ fail "compare --format=mail default: the header"; head -5 b.txt; }
vt compare --summary --strategy=zigzag,batched default >b.txt && grep -q '^default: 24 events, ' b.txt ||
	{ fail "compare --summary default: the header"; head -2 b.txt; }
vt replay -j default t.json >b.json && python3 - b.json <<'EOF' || fail "replay -j default: the trace's path"
import json, sys
t = [x["trace"] for x in json.load(open(sys.argv[1]))["traces"]]
assert t[0].startswith("/") and t[0].endswith("/traces/default.json") and t[1] == "t.json", t
EOF
vt replay --format=csv default | sed -n 2p | grep -q '^/.*/traces/default\.json,pagewise,' ||
	fail "replay --format=csv default: the trace's path"
vt compare t.json >cmp.txt
grep -q '^pagewise \[count\]$' cmp.txt || fail "compare of 4 strategies: no block of the first strategy"
# the title heads the name column however short the names: a trace of no
# events shows tlbi alone, and each header ends where its column's values
# do (a session 10 trial finding: the header 8 columns to the right)
echo '{"format":"vmaptool-trace","version":1,"events":[]}' >noevents.json
for args in "replay" "compare --strategy=zigzag,batched" "replay --wide" "compare --wide"; do
	vt $args noevents.json >ne.txt 2>&1 || fail "$args noevents.json: exit $?"
	head_len=$(awk '/^metric \[count\]/ { print length($0) }' ne.txt)
	row_len=$(awk '/^tlbi / { print length($0) }' ne.txt)
	[ -n "$head_len" ] && [ "$head_len" = "$row_len" ] ||
		{ fail "$args noevents.json: header of $head_len columns over a row of $row_len"; cat ne.txt; }
done
grep -q '^batched against pagewise$' cmp.txt || fail "compare: no block 'batched against pagewise'"
grep -Eq '^  set_pte_at_calls +2698 -> +10  270x fewer$' cmp.txt ||
	fail "compare: set_pte_at_calls not as '2698 -> 10  270x fewer'"
grep -Eq '^  \([0-9]+ other metrics as for pagewise\)$' cmp.txt || fail "compare: no count of the equal rows"
vt compare --ablation --strategy=zigzag,batched t.json >abl.txt
[ "$(grep -c ' against zigzag$' abl.txt)" = 8 ] || fail "ablation: not 8 blocks against zigzag"
vt replay t.json >rep.txt
grep -Eq '^metric \[count\] +pagewise +zigzag +batched +segments$' rep.txt ||
	fail "replay of 4 strategies fits 72 columns: strategies should stay columns"
vt compare --wide t.json >wide.txt
grep -Eq '^metric \[count\] +pagewise +zigzag +change +batched +change +segments +change$' wide.txt ||
	fail "--wide: not one column per strategy"
[ "$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' wide.txt)" -gt 72 ] ||
	fail "--wide: the four strategies' columns should pass 72 columns"

# ---- words and JSON/CSV unchanged ---------------------------------------
vt compare --strategy=pagewise,batched t.json >two.txt
grep -Eq '^set_pte_at_calls +2698 +10 +270x fewer$' two.txt || fail "two strategies: no '270x fewer' column"
grep -Eq '^table_walks +24 +28 +17% more$' two.txt || fail "two strategies: no '17% more'"
grep -Eq '^pte_writes +2698 +2698 +same$' two.txt || fail "two strategies: no 'same'"
vt compare --strategy=zigzag,segments t.json >same.txt
grep -Eq '^metric \[count\] +zigzag +segments +change$' same.txt || fail "nothing changes: the header runs together"
vt compare -j --strategy=pagewise,batched t.json >two.json
python3 - two.json <<'EOF' || fail "JSON ratios are no longer numbers"
import json, sys
r = json.load(open(sys.argv[1]))["traces"][0]["strategies"][1]["ratios"]
assert isinstance(r["set_pte_at_calls"], float) and abs(r["set_pte_at_calls"] - 10 / 2698) < 1e-6, r
EOF

# ---- colour -------------------------------------------------------------
esc=$(printf '\033')
vt compare --color=always --strategy=pagewise,batched t.json >col.txt
grep -q "${esc}\[32m270x fewer" col.txt || fail "--color=always: fewer set_pte_at calls not green"
grep -q "${esc}\[31m17% more" col.txt || fail "--color=always: more table walks not red"
grep -Eq "^cont_ranges +0 +168 +none before$" col.txt ||
	fail "--color=always: cont_ranges (neutral in the metric table) coloured"
NO_COLOR=1 "$VT_BIN" compare --color=always --strategy=pagewise,batched t.json | grep -q "$esc" ||
	fail "--color=always must win over NO_COLOR"
vt compare --color=never --strategy=pagewise,batched t.json | grep -q "$esc" && fail "--color=never coloured"
vt compare --strategy=pagewise,batched t.json | grep -q "$esc" && fail "colour into a pipe"
if command -v script >/dev/null; then
	# auto on a terminal: colour unless NO_COLOR is set and not empty
	script -qec "NO_COLOR= TERM=xterm $VT_BIN compare --strategy=pagewise,batched t.json" /dev/null >tty.txt
	grep -q "${esc}\[32m" tty.txt || fail "--color=auto on a terminal: no colour"
	script -qec "NO_COLOR=1 TERM=xterm $VT_BIN compare --strategy=pagewise,batched t.json" /dev/null >tty.txt
	grep -q "$esc" tty.txt && fail "--color=auto with NO_COLOR=1: coloured"
	script -qec "NO_COLOR= TERM=dumb $VT_BIN compare --strategy=pagewise,batched t.json" /dev/null >tty.txt
	grep -q "$esc" tty.txt && fail "--color=auto with TERM=dumb: coloured"
fi
vt compare --color=sometimes t.json >/dev/null 2>&1
[ $? = 2 ] || fail "--color=sometimes is not a usage error"

# ---- TLBIs and the lazily pending pages ---------------------------------
grep -Eq '^tlbi +0 +0 +0 +0$' rep.txt || fail "replay: tlbi 0 not shown"
grep -A1 -E '^tlbi ' rep.txt | grep -Eq '^lazy_pages_pending +2710 ' ||
	fail "replay: lazy_pages_pending not beside tlbi"
grep -q '^note: the trace ended before any purge: 2710 pages still lazily pending;$' rep.txt ||
	fail "replay: no hint about the pending pages"
grep -q -- '--purge-at-end counts their TLBIs' rep.txt || fail "replay: the hint does not name --purge-at-end"
vt replay --purge-at-end t.json >pae.txt
grep -q 'lazily pending' pae.txt && fail "--purge-at-end: the hint is still shown"
grep -Eq '^tlbi +[1-9]' pae.txt || fail "--purge-at-end: no TLBI counted"
grep -Eq '^  tlbi +0 -> +0  same$' cmp.txt || fail "compare blocks: tlbi not shown when equal"

# ---- mail ---------------------------------------------------------------
vt compare --format=mail --per-op t.json "$VT_SRC/traces/ioremap-1m.json" >mail.txt || fail "--format=mail: exit $?"
vt compare --format=mail --color=always --ablation --strategy=zigzag,batched t.json >mail2.txt
for m in mail.txt mail2.txt; do
	check_width "$m"
	LC_ALL=C grep -q '[^ -~]' "$m" && fail "$m: a byte that is not printable ASCII"
done
tr '\n' ' ' <mail.txt | tr -s ' ' | grep -q '^[^T]*Traces: t.json (24 events), [^ ]*ioremap-1m.json (2 events) Kernel:' ||
	fail "mail: no Traces line"
grep -q '^Kernel: mainline model, 4k granule, 48-bit VA, 4 levels$' mail.txt || fail "mail: no Kernel line"
grep -q '^Strategies: pagewise (changes are against it), zigzag, batched,' mail.txt ||
	fail "mail: no Strategies line"
grep -q '270x fewer' mail.txt || fail "mail: no ratio in words"
grep -q 'x faster than pagewise' mail.txt || fail "mail: no speed-up line"
# a long path with spaces and a UTF-8 name: ASCII in mail (each byte of
# the sequence a '?'), and one line, its spaces kept, in mail and table
long=$(printf 'a%.0s' $(seq 50))/$(printf 'b%.0s' $(seq 62))
mkdir -p "$long" && cp t.json "$long/tr  ace-é.json"
vt compare --format=mail --strategy=zigzag,batched "$long/tr  ace-é.json" >mail3.txt || fail "mail of a UTF-8 path: exit $?"
LC_ALL=C grep -q '[^ -~]' mail3.txt && fail "mail3.txt: a byte that is not printable ASCII"
grep -qx "       $long/tr  ace-??.json" mail3.txt || { fail "mail: the path not whole on its line"; head -6 mail3.txt; }
vt compare --strategy=zigzag,batched "$long/tr  ace-é.json" "$long/tr  ace-é.json" >tbl3.txt
[ "$(grep -cx "       $long/tr  ace-é.json" tbl3.txt)" = 2 ] || { fail "table: the path not whole on its line"; head -6 tbl3.txt; }
vt strategies --format=mail >/dev/null 2>&1
[ $? = 2 ] || fail "--format=mail for strategies is not a usage error"
for o in --wide --svg=x.svg --color; do
	vt gate "$o" --baseline=t.json t.json >/dev/null 2>&1
	[ $? = 2 ] || fail "gate $o is not a usage error"
done

# ---- the direction table is documented ----------------------------------
python3 - "$VT_SRC" <<'EOF' || fail "docs/report-format.md and core/stats.h disagree on the neutral metrics"
import re, sys
src = sys.argv[1]
stats = open(src + "/core/stats.h").read()
neutral = set(re.findall(r"X\((\w+),\s*VT_MK_\w+,\s*VT_MB_NEUTRAL\)", stats))
doc = open(src + "/docs/report-format.md").read()
m = re.search(r"<!-- neutral -->(.*?)<!-- /neutral -->", doc, re.S)
assert m, "no neutral list in docs/report-format.md"
listed = set(re.findall(r"`(\w+)`", m.group(1)))
assert listed == neutral, (sorted(listed - neutral), sorted(neutral - listed))
EOF

# ---- SVG ----------------------------------------------------------------
vt compare --svg=r.svg --purge-at-end t.json "$VT_SRC/traces/ioremap-1m.json" >/dev/null || fail "--svg: exit $?"
vt compare --svg=abl.svg --ablation --strategy=zigzag,batched t.json >/dev/null || fail "--svg --ablation: exit $?"
vt replay --svg=pe.svg --per-event t.json >pe.jsonl || fail "--svg with --per-event lines: exit $?"
[ -s pe.svg ] && [ "$(head -c1 pe.jsonl)" = "{" ] || fail "--svg with --per-event: no SVG or no lines"
for s in r.svg:none abl.svg:pending pe.svg:pending; do
	python3 - "${s%:*}" "${s#*:}" <<'EOF' || fail "$s does not parse as the expected SVG"
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == ns + "svg", root.tag
texts = [t.text or "" for t in root.iter(ns + "text")]
titles = [t.text or "" for t in root.iter(ns + "title")]
assert any(t.startswith("trace ") for t in texts), "no trace title"
assert "tlbi" in texts, "no tlbi bars"
pending = any(t.endswith(" pages pending)") for t in texts)
assert pending == (sys.argv[2] == "pending"), "pending pages beside tlbi: %s" % pending
assert any("Estimated cycles by kernel function" in t for t in texts)
assert any(t.endswith(" cycles") and ": set_pte_at " in t for t in titles), "no set_pte_at segment"
# nothing outside the file: no href, no script, no style sheet
for e in root.iter():
    assert not any(k.endswith("href") for k in e.attrib), e.tag
    assert e.tag not in (ns + "script", ns + "image", ns + "style", ns + "foreignObject"), e.tag
EOF
done
if command -v rsvg-convert >/dev/null; then
	for s in r.svg abl.svg; do
		rsvg-convert -o "${s%.svg}.png" "$s" || { fail "rsvg-convert $s failed"; continue; }
		python3 - "${s%.svg}.png" "$s" <<'EOF' || fail "$s: the PNG is trivial or the wrong size"
import struct, sys, zlib, xml.etree.ElementTree as ET
png = open(sys.argv[1], "rb").read()
assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", png[16:24])
root = ET.parse(sys.argv[2]).getroot()
assert (w, h) == (int(root.get("width")), int(root.get("height"))), (w, h)
data, p = b"", 8
while p < len(png):
    n, kind = struct.unpack(">I4s", png[p:p + 8])
    if kind == b"IDAT":
        data += png[p + 8:p + 8 + n]
    p += 12 + n
pixels = zlib.decompress(data)
assert len(set(pixels)) > 20, "hardly any colours: %d" % len(set(pixels))
assert w >= 600 and h >= 400, (w, h)
EOF
	done
elif [ "${CI:-}" = true ]; then
	fail "no rsvg-convert (scripts/setup.sh installs librsvg2-bin)"
else
	echo "SKIP part: no rsvg-convert (apt-get install librsvg2-bin)"
fi
# whole or not at all: an SVG that cannot be written leaves nothing
vt replay --svg=nodir/x.svg t.json >/dev/null 2>err.txt
[ $? = 4 ] || fail "--svg into a missing folder: not exit 4"
[ -e nodir ] && fail "--svg into a missing folder made something"

# ---- wording (the first user's report) -------------------------------------
V=$VT_BIN
printf '%s\n' '{"format":"vmaptool-trace","version":1,"events":[{"op":"ioremap","id":1,"phys":"0x10000000","size":4096}]}' >"$TMP/one-ev.json"
out=$("$V" compare --strategy=zigzag,pagewise "$TMP/one-ev.json" 2>&1) || fail "compare one event: $out"
# (a long $TMP puts the count on a line of its own: joined back)
tr '\n' ' ' <<<"$out" | tr -s ' ' | grep -q 'trace: [^ ]*one-ev.json (1 event) ' ||
	fail "'1 event': $out"
grep -q '^pagewise: same speed as zigzag (estimate, profile generic-a76)' <<<"$out" ||
	fail "a ratio that rounds to 1.00 is not 'same speed': $out"
grep -q '1\.00. \(slower\|faster\)' <<<"$out" && fail "1.00x slower/faster: $out"
out=$("$V" compare --format=mail --kernel=v6.12 --barriers=lazy --strategy=zigzag,batched \
	"$VT_SRC/traces/default.json" 2>&1) || fail "mail: $out"
[ "$(grep -ci '^trace: ' <<<"$out")" = 1 ] || fail "mail names the one trace twice: $out"
grep -q '^Kernel: v6.12 model (with --barriers=lazy), 4k granule' <<<"$out" ||
	fail "mail does not name the overrides: $out"
out=$("$V" compare --format=mail --strategy=zigzag,batched "$VT_SRC/traces/default.json" \
	"$TMP/one-ev.json" 2>&1) || fail "mail, two traces: $out"
# (a path longer than the line stands on a line of its own: joined back)
flat=$(sed -z 's|/\n *|/|g' <<<"$out" | tr '\n' ' ' | tr -s ' ')
grep -q 'Traces: [^ ]*default.json (24 events), [^ ]*one-ev.json (1 event) Kernel:' <<<"$flat" ||
	fail "mail header of two traces: $out"
[ "$(grep -c '^trace: ' <<<"$out")" = 2 ] || fail "mail of two traces: each table names its trace: $out"
out=$("$V" replay --strategy=segments@1 "$TMP/one-ev.json" 2>&1)
[ "$(grep -o "segments@1" <<<"$out" | wc -l)" = 1 ] || fail "strategy error repeats the name: $out"
out=$("$V" replay --profile=rk3588 "$TMP/one-ev.json" 2>&1)
grep -q "did you mean 'rk3588-a55' or 'rk3588-a76'? see 'vmaptool profiles'" <<<"$out" ||
	fail "--profile=rk3588: $out"
out=$("$V" replay --profile="$TMP/none.json" "$TMP/one-ev.json" 2>&1)
grep -q "cannot open profile '$TMP/none.json': No such file or directory" <<<"$out" ||
	fail "--profile=missing file: no reason: $out"
# the profiles listing fits 79 columns at every -v (a trial finding of
# session 8: the switches and descriptions ran to 157)
for v in "" -v "-v -v"; do
	# shellcheck disable=SC2086
	out=$("$V" profiles $v 2>&1) || fail "profiles $v: $out"
	long=$(awk 'length($0) > 79' <<<"$out")
	[ -z "$long" ] || fail "profiles $v: lines over 79 columns: $long"
done
grep -q '^ *ARM64_ERRATUM_4118414$' <<<"$out" || fail "profiles: no line of switches"

test_done
