#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The man pages (scripts/gen-man.py, the build's `man` target) have, beside
# the --help text, EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES, and what
# those say is true: each example is a command of the page's subcommand
# whose options that subcommand's --help lists, EXIT STATUS has every code
# of docs/exit-codes.md, ENVIRONMENT every variable the code reads with
# getenv(), FILES every folder the install puts under share/vmaptool.
. "$(dirname "$0")/lib.sh"
vt() { "$VT_BIN" "$@"; }

python3 "$VT_SRC/scripts/gen-man.py" "$VT_BIN" "$TMP/man" >"$TMP/gen.err" 2>&1 ||
	die "gen-man.py: $(cat "$TMP/gen.err")"
cmds=$(vt help | awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1} on && !/^  / {on=0}')
[ "$(echo "$cmds" | wc -w)" -ge 8 ] || die "vmaptool help lists only: $cmds"
vars=$(grep -rhoE 'getenv\("[A-Z_]+"\)' "$VT_SRC/cli" "$VT_SRC/core" "$VT_SRC/arch" |
	sed 's/getenv("\(.*\)")/\1/' | sort -u)
[ -n "$vars" ] || die "no getenv() found in the source"
dirs=$(sed -n 's|^install(DIRECTORY \([a-z]*\)/ DESTINATION ${CMAKE_INSTALL_DATADIR}/vmaptool/.*|\1|p' \
	"$VT_SRC/CMakeLists.txt")
[ -n "$dirs" ] || die "no share/vmaptool folder found in CMakeLists.txt"
codes=$(sed -n 's/^| \([0-9]\+\) | .*/\1/p' "$VT_SRC/docs/exit-codes.md")

# the lines of section $2 of page $1, unescaped (gen-man.py's esc() undone):
# ".TP"/".B X" entries become "  X", example lines "  vmaptool ..."
section() {
	awk -v s=".SH $2" '/^\.SH / {on = ($0 == s); next}
		on && /^\.(B|I) / {print "  " substr($0, 4); next}
		on && !/^\./ {print "  " $0}' "$1" |
		sed 's/\\-/-/g; s/\\&//g; s/\\e/\\/g'
}

for page in vmaptool $(for c in $cmds; do echo "vmaptool-$c"; done); do
	f=$TMP/man/$page.1
	[ -f "$f" ] || { fail "no page $page.1"; continue; }
	for s in NAME SYNOPSIS DESCRIPTION OPTIONS EXAMPLES "EXIT STATUS" ENVIRONMENT FILES "SEE ALSO"; do
		grep -qx "\.SH $s" "$f" || fail "$page(1) has no $s section"
	done
	c=${page#vmaptool}; c=${c#-}
	ex=$(section "$f" EXAMPLES | sed -n 's/^ *\(vmaptool .*\)$/\1/p')
	[ -n "$ex" ] || fail "$page(1): EXAMPLES holds no command"
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		set -- $line
		[ -z "$c" ] || [ "$2" = "$c" ] || fail "$page(1): example of another command: $line"
		if [ "$2" = help ]; then
			h=
		else
			h=$(vt "$2" --help 2>&1) || { fail "$page(1): '$2' of '$line' is no command"; continue; }
		fi
		h="$h
$(vt --help)"	# the options every command takes are listed there
		for o in $(grep -oE -- '(^| )--?[a-zA-Z0-9][a-z0-9-]*' <<<"$line" | sed 's/^ //; s/=.*//'); do
			grep -qE -- "^ +(-[a-zA-Z?], )?$o([=[ ,]|$)" <<<"$h" ||
				fail "$page(1): '$line': $2 --help lists no $o"
		done
	done <<<"$ex"
	st=$(section "$f" "EXIT STATUS")
	for k in $codes; do
		# 1 is gate's alone (a regression, a missing trace)
		if [ "$k" = 1 ] && [ -n "$c" ] && [ "$c" != gate ]; then
			grep -qE "^ +1( |$)" <<<"$st" && fail "$page(1): EXIT STATUS lists gate's 1"
			continue
		fi
		grep -qE "^ +$k( |$)" <<<"$st" || fail "$page(1): EXIT STATUS lacks $k"
	done
	env=$(section "$f" ENVIRONMENT)
	for v in $vars; do
		grep -qE "^ +$v( |$)" <<<"$env" || fail "$page(1): ENVIRONMENT lacks $v"
	done
	fi=$(section "$f" FILES)
	for d in $dirs; do
		grep -q "share/vmaptool/$d" <<<"$fi" || fail "$page(1): FILES lacks share/vmaptool/$d"
	done
done
test_done
