#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# docs/architecture.md is the map of the tree (issue 21 item 6): every source file of
# arch/, core/ and cli/ is named in it, by its path or, inside its folder's row of the
# folder table, by its name (`name.c`, `name.*`, `name.c` + `name.h`, `render*.c`); a file
# renamed or added without a line of the map fails here, naming the file.
set -u
TEST_NO_BIN=1
. "$(dirname "$0")/lib.sh"
MAP=$VT_SRC/docs/architecture.md
[ -f "$MAP" ] || die "no $MAP"

# the row of the folder table whose first cell is `DIR/`
row() { grep -F "| \`$1/\` |" "$MAP"; }

cd "$VT_SRC" || die "no $VT_SRC"
n=0
while IFS= read -r f; do
	n=$((n + 1))
	dir=${f%/*} base=${f##*/} stem=${base%.*}
	grep -qF "$f" "$MAP" && continue
	r=$(row "$dir")
	# one file per strategy / per subcommand is said once for the folder
	case $f in
	core/strategy/*.c) [[ $r == *"one file per strategy"* ]] && continue ;;
	cli/cmd-*.c) [[ $r == *'cmd-<name>.c'* ]] && continue ;;
	esac
	for w in "\`$base\`" "\`$stem.*\`" "\`$stem.c\` + \`$stem.h\`" "\`$stem.h\` +" "+ \`$stem.h\`"; do
		[[ $r == *"$w"* ]] && continue 2
	done
	# a family named with a wildcard: `render*.c`
	for pat in $(grep -oE '`[a-z_-]+\*\.[ch]`' <<<"$r" | tr -d '`'); do
		# shellcheck disable=SC2053
		[[ $base == $pat ]] && continue 2
	done
	fail "$f is not on the map (docs/architecture.md)"
done < <(git ls-files 'arch/*.[ch]' 'arch/*.def' 'core/*.[ch]' 'core/*.def' 'cli/*.[ch]' 'cli/*.def' 2>/dev/null ||
	find arch core cli -name '*.[ch]' -o -name '*.def')
[ "$n" -gt 50 ] || fail "only $n source files found"
echo "$n source files checked against the map"
test_done
