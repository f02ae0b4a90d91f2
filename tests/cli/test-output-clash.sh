#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# No output replaces an input or another output (issue 22 item 3,
# docs/reliability.md "Output files"): replay --profile=P.json with -o,
# --svg or --per-event naming P.json, replay -o naming the default profile
# it reads, calibrate --write=D with -o D/NAME.json, and calibrate -o naming
# a profile it reads, are each refused (exit 2) and the file is untouched.
# The files of the common options come from the option table
# (cli/common.c): every option whose argument 'vmaptool help' shows as a
# FILE is tried against -o (or --svg) naming the same file, so that an
# option added without its mark fails here.
#
# Environment (set by ctest): VT_BIN, VT_SRC.

set -u
. "$(dirname "$0")/lib.sh"

cd "$TMP" || exit 1
cp "$VT_SRC/traces/default.json" t.json
# a profile folder of our own: a regression must not replace the tree's
mkdir prof
cp "$VT_SRC"/profiles/*.json prof/
export VMAPTOOL_PROFILES=$TMP/prof
cp prof/generic-a76.json P.json
cp P.json P.orig

for out in "-o P.json" "--svg=P.json" "--per-event=P.json"; do
	# shellcheck disable=SC2086
	run "profile-$out" 2 "and --profile='P.json' name the same file: the output would replace an input" \
		"$VT_BIN" replay --profile=P.json t.json $out
	cmp -s P.json P.orig || fail "replay --profile=P.json $out replaced the profile"
done
# the default profile, read without --profile, and one given by name
run default-profile 2 "replace an input" "$VT_BIN" replay t.json -o prof/generic-a76.json
run named-profile 2 "replace an input" "$VT_BIN" replay --profile=generic-a76 t.json \
	--svg=prof/generic-a76.json
cmp -s prof/generic-a76.json P.orig || fail "replay replaced the default profile"

# calibrate: --write=D's profiles against -o, and -o against a profile read
mkdir D
run calibrate-write-o 2 "-o 'D/generic-a76.json' and --write='D/generic-a76.json' .*one output would replace the other" \
	"$VT_BIN" calibrate --write=D -o D/generic-a76.json
[ -z "$(ls -A D)" ] || fail "calibrate --write=D -o D/generic-a76.json wrote: $(ls -A D)"
run calibrate-o-profile 2 "replace an input" "$VT_BIN" calibrate -o prof/generic-a76.json
cmp -s prof/generic-a76.json P.orig || fail "calibrate -o replaced a profile it reads"

# every common option with a FILE argument, from the help
"$VT_BIN" help >help.txt || die "vmaptool help"
opts=$(grep -oE -- '--[a-z-]+(\[?=)[A-Z|.]*FILE' help.txt | sed -E 's/(\[?=).*//' | sort -u)
[ "$(echo "$opts" | wc -l)" -ge 5 ] || fail "the help shows too few FILE options: $opts"
for opt in $opts; do
	cp P.orig x.json
	other="-o x.json"
	[ "$opt" = --output ] && other="--svg=x.json"
	case $opt in
	# read while the options are parsed, before the check: x.json is
	# not an image (exit 3), --kconfig alone is a usage error (2)
	--vmlinux|--kconfig)
		# shellcheck disable=SC2086
		"$VT_BIN" replay t.json "$opt=x.json" $other >/dev/null 2>&1 &&
			fail "$opt=x.json $other: exit 0";;
	*)
		# shellcheck disable=SC2086
		run "table-$opt" 2 "name the same file" "$VT_BIN" replay t.json \
			"$opt=x.json" $other;;
	esac
	cmp -s x.json P.orig || fail "$opt=x.json $other: x.json was replaced"
done

test_done
