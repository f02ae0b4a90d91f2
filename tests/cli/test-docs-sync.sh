#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Docs stay in sync with the code (STYLE.md 7, like bpftool's
# test_bpftool_synctypes.py): every entry of cmds[] in cli/main.c has
# docs/vmaptool-<cmd>.md, every such page names its command, and every
# strategy that 'vmaptool strategies' lists appears in docs/strategies.md.
set -u
. "$(dirname "$0")/lib.sh"


cmds=$(sed -n '/^static const struct vt_cmd cmds\[\]/,/^};/p' "$VT_SRC/cli/main.c" |
       sed -n 's/^[[:space:]]*{ "\([a-z0-9-]*\)",.*/\1/p')
[ -n "$cmds" ] || { echo "FAIL: no cmds[] entries found in cli/main.c"; exit 1; }
for c in $cmds; do
	page=$VT_SRC/docs/vmaptool-$c.md
	if [ ! -f "$page" ]; then
		fail "cmds[] has '$c' but docs/vmaptool-$c.md is missing"
	elif ! grep -q "vmaptool $c" "$page"; then
		fail "docs/vmaptool-$c.md never says 'vmaptool $c'"
	fi
done
# ... and no page documents a command that does not exist.
for page in "$VT_SRC"/docs/vmaptool-*.md; do
	[ -e "$page" ] || continue
	c=$(basename "$page" .md)
	c=${c#vmaptool-}
	echo "$cmds" | grep -qx "$c" || fail "docs/vmaptool-$c.md documents no command in cmds[]"
done

if [ -x "$VT_BIN" ]; then
	names=$("$VT_BIN" strategies --format=csv | tail -n +2 | cut -d, -f1)
	[ -n "$names" ] || fail "'vmaptool strategies' listed nothing"
	if [ ! -f "$VT_SRC/docs/strategies.md" ]; then
		fail "docs/strategies.md is missing"
	else
		for s in $names; do
			grep -qF -- "$s" "$VT_SRC/docs/strategies.md" ||
				fail "strategy '$s' is not documented in docs/strategies.md"
		done
	fi
else
	echo "note: no vmaptool binary; strategy names not checked"
fi

test_done
