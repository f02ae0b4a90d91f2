#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The command line's output, byte for byte: every bundled trace (and every
# worked-example trace of tests/data/scenarios) under the default
# strategies as table, -j --per-op, CSV, --per-event and compare, a few
# what-if options, 'strategies' (-v, -j, CSV), every --help, ptdump, gen,
# import, the gate on baselines made from these reports, and usage errors
# (stderr and exit status of each case are part of it).
#
# It was written for restructurings that must change no output byte
# (issue 8): the expected SHA-256 of every case is committed in
# tests/cli/data/cli-reference.sha256, the outputs themselves in
# tests/cli/data/cli-reference.tar.xz: a case that differs prints the
# unified diff of its reference output and its output now (DIFF_LINES
# lines at most, default 40).
#
#   test-byte-identical-cli.sh                 compare with the manifest
#   test-byte-identical-cli.sh record DIR      write every case's output to
#                                              DIR (diff -r two such DIRs)
#   VT_UPDATE_REFERENCE=1 test-byte-identical-cli.sh
#                                              rewrite the manifest and the
#                                              reference outputs after an
#                                              intended change of output
#
# Cases under the name shared-* are the scenario traces (the name is
# older than their place in the tree).  Needs VT_BIN (the vmaptool binary) and VT_SRC (the tree).
set -u
. "$(dirname "$0")/lib.sh"

MANIFEST=$VT_SRC/tests/cli/data/cli-reference.sha256
REFERENCE=$VT_SRC/tests/cli/data/cli-reference.tar.xz

mode=check
out=
if [ "${1:-}" = record ]; then
	mode=record
	out=${2:?usage: test-byte-identical-cli.sh record DIR}
	mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 2
fi

[ -n "$out" ] || out=$TMP/out
mkdir -p "$out" "$TMP/w"

# Every path the output can show is relative to one scratch directory,
# so the bytes do not depend on where the tree or /tmp is.
W=$TMP/w
ln -s "$VT_SRC/traces" "$W/traces"
ln -s "$VT_SRC/tests/data" "$W/data"
ln -s "$VT_SRC/tests/data/scenarios" "$W/scen"
cd "$W" || exit 2

# run NAME ARGS...: stdout, stderr and the exit status of one case
run() {
	local name=$1 rc
	shift
	NO_COLOR=1 LC_ALL=C COLUMNS=80 "$VT_BIN" "$@" >"$TMP/o" 2>"$TMP/e" </dev/null
	rc=$?
	{
		printf '$ vmaptool'
		printf ' %s' "$@"
		printf '\n'
		cat "$TMP/o"
		printf -- '--- stderr\n'
		# the checkout's own path (in "looked in DIR/profiles") differs
		# between clones
		sed "s|$VT_SRC|<src>|g" "$TMP/e"
		printf -- '--- exit %d\n' "$rc"
	} >"$out/$name"
}

# ---- every trace ------------------------------------------------------

traces=$(cd "$W" && find -L traces -type f \( -name '*.json' -o -name '*.jsonl' \) ! -name baseline.json | LC_ALL=C sort)
traces="$traces
$(cd "$W" && find -L scen -type f -name '*.trace.json' | LC_ALL=C sort)"

for t in $traces; do
	# the linear maps of 64-512 GiB take 2 MiB of tables per GiB per
	# strategy: map_mem-16g.json stands for them (test-linear-map.sh and
	# test-bundled-verify.sh replay the others)
	case $t in traces/map_mem-64g.json|traces/map_mem-256g.json|traces/map_mem-512g.json) continue ;; esac
	n=$(printf '%s' "$t" | tr '/' '_')
	case $t in scen/*) n=shared-$n ;; esac
	run "$n.table" replay "$t"
	run "$n.table-v" replay -v "$t"
	run "$n.json-per-op" replay -j --per-op "$t"
	run "$n.csv" replay --format=csv "$t"
	run "$n.per-event" replay --per-event "$t"
	run "$n.compare" compare "$t"
	run "$n.compare-csv" compare --format=csv --per-op "$t"
	run "$n.k612" replay -j --kernel=v6.12 "$t"
	run "$n.k616-lazy" replay -j --kernel=v6.16 --barriers=lazy "$t"
	run "$n.16k47" replay -j --granule=16k --va-bits=47 "$t"
	run "$n.purge-at-end" replay -j --purge-at-end "$t"
	run "$n.cpus2" replay -j --cpus=2 "$t"
	run "$n.k612-table-v" replay -v --kernel=v6.12 --tlbi-range "$t"
done

# ---- listings and help ------------------------------------------------

run strategies strategies
run strategies-v strategies -v
run strategies-j strategies -j
run strategies-vj strategies -v -j
run strategies-csv strategies --format=csv
run help --help
run usage --usage
run version --version
for c in replay compare gate gen import ptdump inspect strategies profiles; do
	run "help-$c" "$c" --help
	run "usage-$c" "$c" --usage
done

# ---- ptdump, gen, import ----------------------------------------------

run ptdump ptdump traces/default.json
run ptdump-v ptdump -v --strategy=batched traces/systemheap-128m.json
run ptdump-j ptdump -j --at=3 traces/default.json
run ptdump-csv ptdump --format=csv --strategy=pagewise traces/vmalloc-huge-1m.json
run ptdump-16k ptdump --granule=16k --va-bits=47 traces/vmap-order8.json
run gen-heap gen systemheap --size=1M+68K,4M --buffers=3 --seed=3
run gen-heap-16k gen systemheap --granule=16k --va-bits=47 --cpus=4 --buffers=2
run gen-tv gen test_vmalloc --test=fix_size_alloc_test --nr-pages=16 --use-huge --loops=2
run gen-io gen ioremap --size=2M --count=2
for f in data/import/*.txt; do
	run "import-$(basename "$f" .txt)" import "$f"
done

# ---- gate -------------------------------------------------------------

set -- traces/default.json traces/vmap-order8.json traces/systemheap-frag.jsonl \
	traces/test_vmalloc/vm_map_ram_test-p1-h0.json traces/ioremap-1m.json
"$VT_BIN" replay -j --per-op "$@" >base.json 2>/dev/null
"$VT_BIN" replay -j --kernel=v6.12 --cpus=2 --purge-at-end --tlbi-range \
	--nohugevmalloc --initial=empty --strategy=zigzag,batched@1234 "$@" \
	>base-whatif.json 2>/dev/null
"$VT_BIN" replay -j --granule=64k --va-bits=42 --vmap-cont=off \
	--vmalloc-pages=order0 --purge=immediate --kernel-flush=per-page \
	--nohugeiomap --use-trace-va --skip-unknown --verify "$@" \
	>base-geom.json 2>/dev/null
"$VT_BIN" replay -j --per-op --strategy=pagewise "$@" >cur-pagewise.json 2>/dev/null
sed 's/"pte_writes": \([0-9]\)/"pte_writes": 1\1/' base.json >base-raised.json
sed 's/"purge_at_end": "off"/"purge_at_end": "maybe"/' base.json >base-badopt.json
sed 's/"cpus": [0-9]*,/"cpus": "x",/' base.json >base-badcpus.json
sed 's/"version": 1,/"version": 2,/' base.json >base-v2.json

run gate-report gate --baseline=base.json base.json
run gate-replay gate --baseline=base.json "$@"
run gate-replay-j gate -j --baseline=base.json "$@"
run gate-whatif gate --baseline=base-whatif.json "$@"
run gate-whatif-j gate -j --baseline=base-whatif.json "$@"
run gate-geom gate --baseline=base-geom.json "$@"
run gate-vs-pagewise gate --baseline=base.json cur-pagewise.json
run gate-vs-pagewise-j gate -j --baseline=base.json cur-pagewise.json
run gate-improved gate --baseline=base-raised.json base.json
run gate-regressed gate --baseline=base.json base-raised.json
run gate-regressed-j gate -j --baseline=base.json base-raised.json
run gate-threshold gate --threshold=0 --baseline=base-raised.json "$@"
run gate-badopt gate --baseline=base-badopt.json traces/default.json
run gate-badcpus gate -j --baseline=base-badcpus.json traces/default.json
run gate-v2 gate --baseline=base-v2.json base.json
run gate-missing-trace gate --baseline=base.json traces/default.json

# ---- usage and input errors -------------------------------------------

run err-no-command
run err-bad-command frobnicate
run err-no-trace replay
run err-va-bits replay --va-bits=40 traces/default.json
run err-va-bits-range replay --va-bits=99 traces/default.json
run err-granule replay --granule=8k traces/default.json
run err-granule-pair replay --granule=64k --va-bits=39 traces/default.json
run err-granule-pair2 replay --va-bits=36 traces/default.json
run err-kernel replay --kernel=v7.0 traces/default.json
run err-barriers replay --barriers=sometimes traces/default.json
run err-vmap-cont replay --vmap-cont=maybe traces/default.json
run err-vmalloc-pages replay --vmalloc-pages=order1 traces/default.json
run err-purge replay --purge=never traces/default.json
run err-tlbi-range replay --tlbi-range=yes traces/default.json
run err-kernel-flush replay --kernel-flush=none traces/default.json
run err-initial replay --initial=cold traces/default.json
run err-cpus replay --cpus=0 traces/default.json
run err-cpus-big replay --cpus=5000 traces/default.json
run err-format replay --format=xml traces/default.json
run err-jobs replay --jobs=0 traces/default.json
run err-profile replay --profile=x traces/default.json
run err-strategy replay --strategy=bogus traces/default.json
run err-strategy-twice replay --strategy=zigzag,zigzag traces/default.json
run err-compare-one compare --strategy=zigzag traces/default.json
run err-ablation compare --ablation --strategy=zigzag,pagewise traces/default.json
run err-gate-no-baseline gate traces/default.json
run err-gate-threshold gate --threshold=abc --baseline=base.json base.json
run err-gate-per-event gate --per-event --baseline=base.json base.json
run err-ptdump-two ptdump --strategy=zigzag,batched traces/default.json
run err-ptdump-at ptdump --at=-1 traces/default.json
run err-bad-trace replay data/bad/order-too-big.json
run err-bad-trace-j replay -j data/bad/truncated.json
run err-bad-trace-pe replay --per-event data/bad/unknown-op.json
run err-missing-trace replay -j nonexistent.json
run err-strategies-arg strategies extra
run err-unknown-option replay --frobnicate traces/default.json
run ok-options-order replay --tlbi-range --kernel=v6.12 -j traces/default.json
run ok-options-order2 replay --kernel=v6.12 --tlbi-range=on --barriers=per-entry -j traces/default.json
run ok-ablation compare --ablation --strategy=pagewise,batched traces/default.json
run ok-skip-unknown replay -j --skip-unknown data/bad/unknown-op.json

# ---- compare with the manifest ----------------------------------------

[ "$mode" = record ] && { echo "recorded $(ls "$out" | wc -l) cases in $out"; exit 0; }

(cd "$out" && LC_ALL=C sha256sum -- * | LC_ALL=C sort -k2) >"$TMP/actual"
if [ "${VT_UPDATE_REFERENCE:-0}" = 1 ]; then
	cp "$TMP/actual" "$MANIFEST"
	# the outputs themselves, for the diff of a changed case (deterministic:
	# no owner, no time, sorted names)
	(cd "$out" && LC_ALL=C tar --sort=name --mtime=@0 --owner=0 --group=0 \
		--numeric-owner -cf - -- *) | xz -9e >"$REFERENCE"
	echo "rewrote $MANIFEST ($(wc -l <"$MANIFEST") cases) and $REFERENCE"
	exit 0
fi
[ -f "$MANIFEST" ] || die "no manifest $MANIFEST"
[ -f "$REFERENCE" ] || die "no reference outputs $REFERENCE"

# show_diff NAME SUM: the unified diff of the case's reference output (from
# $REFERENCE) and its output now, at most DIFF_LINES lines; the reference
# is trusted only when its own hash is the manifest's
DIFF_LINES=${DIFF_LINES:-40}
show_diff()
{
	local ref=$TMP/ref/$1
	mkdir -p "$TMP/ref"
	xz -dc "$REFERENCE" | tar -xf - -C "$TMP/ref" -- "$1" 2>/dev/null
	if [ ! -f "$ref" ]; then
		echo "    (no reference output of $1 in $REFERENCE; its output now:)"
		head -c 2000 "$out/$1" | sed 's/^/    /'
	elif [ "$(sha256sum <"$ref" | cut -d' ' -f1)" != "$2" ]; then
		echo "    ($REFERENCE is not the manifest's for $1; its output now:)"
		head -c 2000 "$out/$1" | sed 's/^/    /'
	else
		diff -u --label "$1 (reference)" --label "$1 (now)" "$ref" "$out/$1" |
			head -n "$DIFF_LINES" | cut -c1-240 | sed 's/^/    /'
		[ "$(diff "$ref" "$out/$1" | grep -c '^[<>]')" -le "$DIFF_LINES" ] ||
			echo "    (diff cut at $DIFF_LINES lines: DIFF_LINES=N for more)"
	fi
}

checked=0
while read -r sum name; do
	checked=$((checked + 1))
	if [ ! -f "$out/$name" ]; then
		fail "case $name was not run"
	elif [ "$(sha256sum <"$out/$name" | cut -d' ' -f1)" != "$sum" ]; then
		fail "case $name differs:"
		show_diff "$name" "$sum"
	fi
done <"$MANIFEST"
while read -r sum name; do
	grep -q " $name\$" "$MANIFEST" || fail "case $name is not in the manifest"
done <"$TMP/actual"
echo "$checked cases compared, $(test_failures) failed"
test_done
