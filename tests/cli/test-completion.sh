#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The bash completion (scripts/completion/vmaptool.bash), called as bash
# calls it (COMP_WORDS, COMP_CWORD, _vmaptool): every option's values come
# from the binary's tables (vmaptool __complete KIND) or its --help, so
# formats (mail too), profiles, kernels, gen patterns, gen --test cases and
# the axes after '+', compare's --metrics and the bundled trace names
# complete, and every WORD|WORD option of every command.
. "$(dirname "$0")/lib.sh"
test_require bash

comp=$VT_SRC/scripts/completion/vmaptool.bash
mkdir "$TMP/empty" && cd "$TMP/empty" || die "no scratch folder"	# no file names offered
# t WORD...: what the completion offers for the last word, space-separated
t() {
	bash -c '
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_vmaptool; echo "${COMPREPLY[*]}"' _ "$comp" "$VT_BIN" "$@"
}
expect() {	# expect "WANT" WORD...
	local want=$1 got
	shift
	got=$(t "$@")
	[ "$got" = "$want" ] || fail "completing '$*': got '$got', want '$want'"
}

expect "--format=mail" replay --format=m
expect "--format=table" --format=t
expect "json" compare --format = j	# bash split the word at '='
expect "--kernel=v6.1 --kernel=v6.12 --kernel=v6.16" replay --kernel=v6
expect "--profile=rk3588-a55 --profile=rk3588-a76" compare --profile=rk3588
expect "systemheap" gen sys
expect "map_mem" gen --seed=2 -o x.json map
expect "" gen systemheap sys	# one pattern
expect "--test=fix_size_alloc_test,long_busy_list_alloc_test" gen test_vmalloc --test=fix_size_alloc_test,long
expect "--test=all" gen test_vmalloc --test=al
expect "--strategy=zigzag+vfree-bulk --strategy=zigzag+vfree-perpage" replay --strategy=zigzag+vfree-
expect "--strategy=pagewise,batched@12+linear-p1 --strategy=pagewise,batched@12+linear-p1p2" \
	compare --strategy=pagewise,batched@12+linear-p1
expect "--strategy=zigzag+vfree-bulk+linear-new" replay --strategy=zigzag+vfree-bulk+linear-n
expect "--color=always" replay --color=al
touch notes.txt p.json && mkdir dir.d
expect "--profile=p.json" replay --profile=p	# a JSON file, not any file
expect "--profile=dir.d" replay --profile=di	# a folder on the way
rm -r notes.txt p.json dir.d
expect "--metrics=pte_writes,tlbi,tlbi_by_kind.vaale1is --metrics=pte_writes,tlbi,tlbi_by_kind.vaae1is --metrics=pte_writes,tlbi,tlbi_by_kind.vale1is" \
	compare --metrics=pte_writes,tlbi,tlbi_by_kind.va
expect "systemheap-128m systemheap-frag" compare --strategy=zigzag,batched systemheap
expect "default" replay def
expect "" gate def	# gate takes files only
expect "--granule=16k" gen --granule=1

# each table's every word, from the binary itself
for kind in formats profiles kernels patterns tests axes strategies metrics traces; do
	n=$("$VT_BIN" __complete "$kind" | wc -l)
	[ "$n" -ge 2 ] || fail "__complete $kind lists $n words"
done
want=$("$VT_BIN" __complete profiles | sed 's/^/--profile=/' | tr '\n' ' ' | sed 's/ $//')
got=$(t replay --profile= | tr ' ' '\n' | grep -v '/' | grep -- '^--profile=[a-z]' | tr '\n' ' ' | sed 's/ $//')
[ "$got" = "$want" ] || fail "--profile=: got '$got', want '$want'"
for a in $("$VT_BIN" __complete axes); do
	t replay --strategy=batched+ | tr ' ' '\n' | grep -qx -- "--strategy=batched+$a" ||
		fail "--strategy=batched+ does not offer $a"
done
for s in $("$VT_BIN" strategies | awk '/^[a-z]/ {print $1}'); do
	t compare --strategy=a,"${s:0:3}" | tr ' ' '\n' | grep -qx -- "--strategy=a,$s" ||
		fail "--strategy=a,${s:0:3} does not offer $s"
done
# every --opt=A|B of every command completes to each of its words
cmds=$("$VT_BIN" help | awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1} on && !/^  / {on=0}')
for c in $cmds; do
	[ "$c" = help ] && continue
	"$VT_BIN" "$c" --help | grep -oE -- '--[a-z0-9-]+\[?=[a-z0-9.]+(\|[a-z0-9.-]+)+' | sed 's/\[//' |
	while IFS== read -r o ws; do
		for w in ${ws//|/ }; do
			t "$c" "$o=${w:0:1}" | tr ' ' '\n' | grep -qx -- "$o=$w" ||
				fail "$c $o=${w:0:1} does not offer $o=$w"
		done
	done
done
"$VT_BIN" __complete nosuch >/dev/null 2>&1
[ $? = 2 ] || fail "__complete nosuch: not a usage error"
"$VT_BIN" help | grep -q __complete && fail "vmaptool help lists __complete"
test_done
