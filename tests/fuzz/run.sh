#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the libFuzzer harnesses of tests/fuzz/ (built by the 'fuzz' preset)
# one at a time, each over a scratch copy of its corpus so that new inputs
# do not land in the repository (docs/reliability.md).
#
#   tests/fuzz/run.sh smoke [TARGET...]   a few seconds each (CI, .ci/run)
#   tests/fuzz/run.sh full  [TARGET...]   -runs=1000000 each, one after the
#                                         other; the figures go to
#                                         build/fuzz/figures.txt
#
# tests/fuzz/TARGET.dict and TARGET.options (libFuzzer flags, one a line)
# are passed when they exist.
# VT_FUZZ_BUILD (default build/fuzz) is the build folder; VT_FUZZ_SECONDS (smoke: 8), VT_FUZZ_RUNS (full: 1000000) and
# VT_FUZZ_INPUT_TIMEOUT (10 s of wall time per input) change the bounds; smoke runs from VT_FUZZ_SEED (default 1), full runs from a random
# seed (exploration is their job); VT_FUZZ_TIMEOUT (full: 7200 s) stops a harness that is too slow.
# A crash, sanitizer report, leak or timeout fails the script and leaves
# the reproducer (crash-*, leak-*, timeout-*) in build/fuzz/artifacts/.
set -u
cd "$(dirname "$0")/../.."
mode=${1:-smoke}
shift || true
B=${VT_FUZZ_BUILD:-build/fuzz}
targets=("$@")
if [ ${#targets[@]} = 0 ]; then
	for f in tests/fuzz/fuzz-*.c; do
		t=$(basename "$f" .c)
		targets+=("${t#fuzz-}")
	done
fi
mkdir -p "$B/artifacts"
rc=0
for t in "${targets[@]}"; do
	bin=$B/fuzz-$t
	if [ ! -x "$bin" ]; then
		echo "missing $bin: cmake --preset fuzz && cmake --build --preset fuzz" >&2
		exit 2
	fi
	scratch=$(mktemp -d /tmp/vt-fuzz-$t.XXXXXX)
	cp -r tests/fuzz/corpus/"$t"/. "$scratch"/ 2>/dev/null
	# -rss_limit_mb: the harnesses bound their own memory; -timeout: one
	# input may take at most 10 s of wall time (VT_FUZZ_INPUT_TIMEOUT: a
	# full run at nice 19 beside a build gets a few percent of a core, so
	# an input of one CPU second can take more than 10 s there)
	opts=(-rss_limit_mb=2048 -timeout="${VT_FUZZ_INPUT_TIMEOUT:-10}" -print_final_stats=1
	      -artifact_prefix="$B/artifacts/$t-")
	if [ -f tests/fuzz/$t.dict ]; then
		opts+=(-dict=tests/fuzz/$t.dict)
	fi
	# per-target libFuzzer flags, one a line (e.g. -max_len=N)
	if [ -f tests/fuzz/$t.options ]; then
		while read -r o; do
			case $o in -*) opts+=("$o") ;; esac
		done <tests/fuzz/$t.options
	fi
	log=$B/fuzz-$t.log
	if [ "$mode" = full ]; then
		timeout "${VT_FUZZ_TIMEOUT:-7200}" "$bin" "${opts[@]}" \
			-runs="${VT_FUZZ_RUNS:-1000000}" "$scratch" >"$log" 2>&1
	else
		# a fixed seed: a machine slower than the one that last ran
		# it explores a prefix of the same inputs, so the CI smoke run
		# fails on what the change did, not on what chance found
		"$bin" "${opts[@]}" -seed="${VT_FUZZ_SEED:-1}" \
			-max_total_time="${VT_FUZZ_SECONDS:-8}" \
			"$scratch" >"$log" 2>&1
	fi
	r=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	line="$t: exit $r, ${runs:-?} runs, ${speed:-?} exec/s, ${cov:-cov: ?}"
	echo "$line"
	[ "$mode" = full ] && echo "$(date -u +%FT%TZ) $line" >>"$B/figures.txt"
	if [ $r != 0 ]; then
		grep -E 'ERROR|SUMMARY|fuzz check failed|==[0-9]+==' "$log" | head -5
		rc=1
	fi
	rm -rf "$scratch"
done
exit $rc
