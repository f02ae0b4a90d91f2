#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Input strings printed in diagnostics are escaped (issue 22, item 8): an
# op or flag name, a file name or a source line from a trace must not
# reach the terminal as an escape sequence (ESC, C1 controls such as CSI
# U+009B, a raw 0x9b byte) nor start a line of its own (a newline in a
# name).  Every message goes through vt_escape() (core/error.c) in
# cli/diag.c.
#
# Environment (set by ctest): VT_BIN, VT_SRC (tests/cli/lib.sh).

set -u
. "$(dirname "$0")/lib.sh"

# no_controls NAME: $TMP/stderr holds no control byte but newline, no C1
# control in UTF-8 (C2 80..9F), no raw 0x80..0xFF that is not UTF-8, and
# no line but those vmaptool starts
no_controls()
{
	if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$TMP/stderr" ||
	   LC_ALL=C grep -q $'\xc2[\x80-\x9f]' "$TMP/stderr" ||
	   ! iconv -f UTF-8 -t UTF-8 "$TMP/stderr" >/dev/null 2>&1; then
		fail "$1: a control sequence reached stderr:"
		cat -A "$TMP/stderr" | head -5
	fi
	if grep -q '^vmaptool: error: fake' "$TMP/stderr"; then
		fail "$1: a name started a line of its own"
	fi
}

ev2='{"op":"vmap","id":2,"flags":["VM_\u001b]0;title\u0007"],"pages":[{"pfn":8192,"order":0}]}'
printf '%s\n' '{"format":"vmaptool-trace","version":1,"events":[{"op":"vmap\u001b[31mRED\u009b2J\nvmaptool: error: fake","id":1,"pages":[{"pfn":4096,"order":0}]},'"$ev2"']}' >"$TMP/esc.json"
# a raw 0x9b (8-bit CSI) and ESC in the bytes of a JSON Lines trace
printf '{"format":"vmaptool-trace","version":1}\n{"op":"vm\xc2\x9b2Jap","id":1,"pages":[{"pfn":4096,"order":0}]}\n' >"$TMP/raw.jsonl"

run "unknown op (error)" 3 'unknown op "vmap\\x1b\[31mRED\\u009b2J\\x0avmaptool: error: fake"' \
	"$VT_BIN" replay "$TMP/esc.json"
no_controls "unknown op (error)"
run "unknown op and flag (warnings)" 0 "unknown op 'vmap\\\\x1b" \
	"$VT_BIN" replay --skip-unknown "$TMP/esc.json"
no_controls "unknown op and flag (warnings)"
grep -q "unknown flag 'VM_\\\\x1b\]0;title\\\\x07' ignored" "$TMP/stderr" ||
	{ fail "the flag name is not escaped"; cat -A "$TMP/stderr"; }
run "raw C1 in JSON Lines" 3 'unknown op' "$VT_BIN" replay "$TMP/raw.jsonl"
no_controls "raw C1 in JSON Lines"
# -v shows the source line: escaped too
run "source line with -v" 3 'unknown op' "$VT_BIN" -v replay "$TMP/esc.json"
no_controls "source line with -v"
# a file name with an escape in it
cp "$TMP/esc.json" "$TMP/$(printf 'a\033[2Jb').json"
run "file name" 3 'a\\x1b\[2Jb\.json' "$VT_BIN" replay "$TMP/$(printf 'a\033[2Jb').json"
no_controls "file name"
test_done
