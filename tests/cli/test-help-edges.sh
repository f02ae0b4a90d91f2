#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The first contact (issue 11 items 2 and 5): -h, `vmaptool help [CMD]`,
# "did you mean" for a command, a strategy, an axis, a test_vmalloc test, a
# gen pattern, an option's word and a long option, each command's --help
# listing only the options it takes (and those working), options that do
# not apply being usage errors on either side of the command word,
# ptdump --at beyond the trace (exit 2), and a trace-cmd recording given
# or ftrace text (plain or xz) given to replay pointing at `vmaptool import`.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
V=$VT_BIN
T=$VT_SRC/traces/default.json
run() {	# EXPECTED-EXIT ARGS...
	local want=$1
	shift
	"$V" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	local rc=$?
	[ "$rc" = "$want" ] || die "vmaptool $* exited $rc, expected $want: $(head -3 "$TMP/err")"
}
run 0 -h; grep -q '^Commands:' "$TMP/out" || die "-h"
run 0 help; cmp -s "$TMP/out" <("$V" --help) || die "'help' is not --help"
run 0 help gate; grep -q -- '--update-baseline' "$TMP/out" || die "help gate"
run 0 gate -h; grep -q -- '--update-baseline' "$TMP/out" || die "gate -h"
run 2 help frobnicate
run 4 replay defualt; grep -q "did you mean the bundled trace 'default'" "$TMP/err" ||
	die "no suggestion for the bundled trace defualt: $(cat "$TMP/err")"
run 4 replay zzzzzz; grep -q "did you mean" "$TMP/err" && die "a suggestion for zzzzzz"
run 0 help --help; grep -q '^Commands:' "$TMP/out" || die "help --help"
run 0 help -h; grep -q '^Commands:' "$TMP/out" || die "help -h"
run 2 replya "$T"; grep -q "did you mean 'replay'" "$TMP/err" || die "no suggestion for replya"
run 2 help gte; grep -q "did you mean 'gate'" "$TMP/err" || die "no suggestion for help gte"
run 2 replay --strategy=zigzg "$T"; grep -q "did you mean 'zigzag'" "$TMP/err" || die "no suggestion for zigzg"
run 2 replay --strategy=batched@2 "$T"; grep -q "did you mean" "$TMP/err" && die "a suggestion for a right name"
run 2 frobnicate; grep -q "did you mean" "$TMP/err" && die "a suggestion for a word far from every command"
# an axis after a right strategy name: the whole name, corrected
run 2 replay --strategy=zigzag,batched@12+linear-p1+vfree-bulck "$T"
grep -q "did you mean 'batched@12+linear-p1+vfree-bulk'" "$TMP/err" || die "no suggestion for vfree-bulck: $(cat "$TMP/err")"
run 2 replay --strategy=pagewise+xyzzyq "$T"; grep -q "did you mean" "$TMP/err" && die "a suggestion for +xyzzyq"
# a test_vmalloc test
run 2 gen test_vmalloc --test=fix_size_alloc_test,fix_sise_alloc_test
grep -q "did you mean 'fix_size_alloc_test'" "$TMP/err" || die "no suggestion for fix_sise_alloc_test: $(cat "$TMP/err")"
run 2 gen test_vmalloc --test=qqqqqqqqqq; grep -q "did you mean" "$TMP/err" && die "a suggestion for qqqqqqqqqq"
# a gen pattern, and an option's word: the closest, '6.12' as 'v6.12', of
# two as close the one the word begins
run 2 gen systemhep; grep -q "did you mean 'systemheap'" "$TMP/err" || die "no suggestion for systemhep: $(cat "$TMP/err")"
run 2 gen qqqqqq; grep -q "did you mean" "$TMP/err" && die "a suggestion for pattern qqqqqq"
run 2 replay --kernel=6.12 "$T"
grep -q "^vmaptool replay: invalid value '6.12' for --kernel (expected .*); did you mean 'v6.12'?$" "$TMP/err" ||
	die "no suggestion for --kernel=6.12: $(cat "$TMP/err")"
run 2 replay --kernel=6.1 "$T"; grep -q "did you mean 'v6.1'?" "$TMP/err" || die "no suggestion for --kernel=6.1: $(cat "$TMP/err")"
run 2 replay --granule=16 "$T"; grep -q "did you mean '16k'?" "$TMP/err" || die "no suggestion for --granule=16: $(cat "$TMP/err")"
run 2 replay --format=jsn "$T"; grep -q "did you mean 'json'?" "$TMP/err" || die "no suggestion for --format=jsn: $(cat "$TMP/err")"
run 2 replay --erratum-4118414=of "$T"; grep -q "did you mean 'off'?" "$TMP/err" || die "no 'off' for --erratum-4118414=of: $(cat "$TMP/err")"
run 2 replay --barriers=lazzy "$T"; grep -q "did you mean 'lazy'?" "$TMP/err" || die "no suggestion for --barriers=lazzy: $(cat "$TMP/err")"
run 2 replay --kernel=zzzz "$T"; grep -q "did you mean" "$TMP/err" && die "a suggestion for --kernel=zzzz"
# another number is another value, not a typo
run 2 replay --kernel=v7.0 "$T"; grep -q "did you mean" "$TMP/err" && die "a suggestion for --kernel=v7.0"
run 2 replay --granule=8k "$T"; grep -q "did you mean" "$TMP/err" && die "a suggestion for --granule=8k"
# a mistyped long option: the closest of the command's own, on either side
# of the command word; a prefix getopt takes, and an option's argument
# given apart, are no typos
run 2 replay --verfy "$T"; grep -q "^vmaptool replay: unrecognized option '--verfy'; did you mean '--verify'?" "$TMP/err" ||
	die "no suggestion for --verfy: $(cat "$TMP/err")"
run 2 --kernle=v6.1 replay "$T"; grep -q "^vmaptool: unrecognized option '--kernle'; did you mean '--kernel'?" "$TMP/err" ||
	die "no suggestion for --kernle: $(cat "$TMP/err")"
run 2 compare --summery "$T"; grep -q "did you mean '--summary'" "$TMP/err" || die "no suggestion for --summery"
run 2 gen systemheap --bufers=3; grep -q "did you mean '--buffers'" "$TMP/err" || die "no suggestion for --bufers"
run 2 replay --xyzzy "$T"; grep -q "unrecognized option '--xyzzy'" "$TMP/err" || die "--xyzzy: $(cat "$TMP/err")"
grep -q "did you mean" "$TMP/err" && die "a suggestion for --xyzzy"
run 0 replay --verif --strat zigzag -o /dev/null --kernel v6.12 "$T"
run 4 replay -q -- --verfy; grep -q "did you mean" "$TMP/err" && die "a suggestion for an operand after --"

# each command's help: its own options; the others are usage errors
run 0 strategies --help
grep -qE -- '--verify|--strategy|--granule|--per-op|--kernel' "$TMP/out" && die "strategies --help lists replay options"
grep -q "vmaptool help" "$TMP/out" || die "strategies --help has no pointer to the common options"
run 0 gen --help
grep -q -- '--cpus' "$TMP/out" && grep -q -- '--granule' "$TMP/out" || die "gen --help lacks --cpus/--granule"
grep -qE -- '--verify|--strategy|--barriers' "$TMP/out" && die "gen --help lists options it does not take"
# gen writes the config (its --granule overrides nothing) and releases a
# random live buffer, not the oldest (session 10 trial findings)
tr -s ' \n' ' ' <"$TMP/out" | grep -q -- "--granule=4k|16k|64k translation granule, written to the trace's config (default 4k)" ||
	die "gen --help: --granule's text"
tr -s ' \n' ' ' <"$TMP/out" | grep -q -- "--live=N at most N buffers (or ioremaps) mapped at once; a live one picked at random is released" ||
	die "gen --help: --live's text"
grep -q "oldest\|overrides" "$TMP/out" && die "gen --help: $(grep "oldest\|overrides" "$TMP/out")"
run 2 gen systemheap --verify; grep -q -- "--verify does not apply to 'gen'" "$TMP/err" || die "gen --verify"
run 2 --verify gen systemheap; grep -q -- "--verify does not apply to 'gen'" "$TMP/err" || die "--verify gen"
run 2 import --strategy=foo x.txt; grep -q -- "--strategy does not apply to 'import'" "$TMP/err" || die "import --strategy"
run 2 strategies --per-op
# gate takes --per-op and --jobs but not --per-event: not offered, refused as
# not applying (a session 10 trial finding: listed, then "not supported")
run 0 help gate; grep -q -- '--per-op' "$TMP/out" || die "help gate lacks --per-op"
grep -q -- '--per-event' "$TMP/out" && die "help gate offers --per-event"
run 2 gate --per-event --baseline="$T" "$T"
grep -q -- "--per-event does not apply to 'gate'" "$TMP/err" || die "gate --per-event: $(cat "$TMP/err")"
run 2 --per-event gate --baseline="$T" "$T"
# a format a command does not write: one usage error for every command
# (session 10 trial finding: calibrate and profiles printed their table for
# --format=csv, inspect alone refused it)
for c in "profiles" "calibrate" "inspect --vmlinux=/nonexistent" "gate --baseline=$T $T"; do
	for f in csv mail; do
		run 2 $c --format=$f
		grep -q -- "--format=$f does not apply to '${c%% *}' (table or json)" "$TMP/err" ||
			die "$c --format=$f: $(head -3 "$TMP/err")"
		run 2 --format=$f $c
	done
done
run 2 strategies --format=mail; grep -q -- "(table, json or csv)" "$TMP/err" || die "strategies --format=mail: $(cat "$TMP/err")"
run 0 strategies --format=csv
run 0 ptdump --format=csv --strategy=zigzag "$T"
run 0 profiles -j
# map_mem's limits are the geometry's: the linear map of a 48-bit VA kernel
# holds 128 TiB, a 52-bit one more; the PA size is 48 or 52 bits
run 2 gen map_mem --size=200T
grep -q "ends beyond the linear map: .* 48-bit VA kernel holds 128T" "$TMP/err" || die "map_mem 200T: $(cat "$TMP/err")"
run 0 gen map_mem --size=127T -o "$TMP/mm127.json"
run 0 gen map_mem --va-bits=52 --size=200T -o "$TMP/mm200.json"
run 2 gen map_mem --va-bits=52 --size=5000T
grep -q "beyond the 52-bit physical address size" "$TMP/err" || die "map_mem 5000T: $(cat "$TMP/err")"
run 0 gen systemheap --cpus=2 --buffers=1 --size=64K
run 0 replay --verify --per-op "$T"
# every option --help lists is accepted by its command (nothing listed that does not work)
for c in replay compare gate gen import ptdump strategies; do
	for o in $("$V" $c --help | grep -oE -- '^ +(-[a-zA-Z], )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+'); do
		case $o in --help|--usage|--version) continue ;; esac
		"$V" $c $o --help >/dev/null 2>"$TMP/err"
		grep -q "does not apply\|unrecognized option" "$TMP/err" && die "$c lists $o but refuses it"
	done
done

# ptdump --at
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["events"]))' "$T")
run 0 ptdump --at=$((n - 1)) "$T"
run 2 ptdump --at=$n "$T"; grep -q "beyond the trace: .* has $n events (0..$((n - 1)))" "$TMP/err" || die "ptdump --at=$n message"
run 2 ptdump --at=999 "$T"

# a trace-cmd recording given to replay
printf '\027\010\104tracing6\0\0\0\0' >"$TMP/x.trace.dat"
run 3 replay "$TMP/x.trace.dat"
grep -q "this is a trace-cmd recording, not a trace: run 'vmaptool import" "$TMP/err" || die "trace.dat to replay: $(cat "$TMP/err")"
run 3 ptdump "$TMP/x.trace.dat"
grep -q "run 'vmaptool import" "$TMP/err" || die "trace.dat to ptdump"
# ftrace text, plain and xz, by its "# tracer:" header or by its event lines alone
cat >"$TMP/t.txt" <<'TXT'
# tracer: function
#
            init-1       [000] .....    51.109047: __vmalloc_node_range_noprof <-copy_process
TXT
sed 1,2d "$TMP/t.txt" >"$TMP/events.txt"
xz -k "$TMP/t.txt"
for f in t.txt events.txt t.txt.xz; do
	run 3 replay "$TMP/$f"
	grep -q "this is an ftrace text recording.*, not a trace: run 'vmaptool import $TMP/$f -o trace.json'" "$TMP/err" ||
		die "ftrace text $f to replay: $(cat "$TMP/err")"
done
grep -q "(xz-compressed)" "$TMP/err" || die "xz not named: $(cat "$TMP/err")"
run 3 ptdump "$TMP/t.txt.xz"
grep -q "run 'vmaptool import" "$TMP/err" || die "ftrace xz to ptdump"
# a malformed JSON trace keeps its JSON message
printf '{"format": 1\n' >"$TMP/bad.json"
run 3 replay "$TMP/bad.json"
grep -q "invalid JSON" "$TMP/err" || die "bad JSON: $(cat "$TMP/err")"
test_done
