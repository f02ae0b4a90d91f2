#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Output files (cli/output.c, docs/reliability.md "Output files"): the
# defects 1, 5, 6, 12 and 16 of the trial5 review of issue 12, each with its
# reproducer.  -o through a symbolic link writes the link's target and
# keeps the link (git's lockfile.c resolve_symlink()), /dev/stdout with
# stdout a regular file puts the output in that file; an existing file keeps
# its mode; a 250-byte name works and an empty one is a usage error; two
# outputs naming one file, or an output naming an input, are refused before
# anything runs; a run that fails after one output was written leaves none.
#
# Environment (set by ctest): VT_BIN, VT_SRC.

set -u
. "$(dirname "$0")/lib.sh"

cd "$TMP" || exit 1
cp "$VT_SRC/traces/default.json" t.json
"$VT_BIN" replay t.json >want.txt || { echo "FAIL: replay t.json"; exit 1; }

# run NAME WANT_RC REGEX CMD...: exit WANT_RC and REGEX on stderr
# temporaries left in folder $1 (".NAME.XXXXXX")
no_tmp() { ls -A "$1" | grep -E '^\..*\.[A-Za-z0-9]{6}$' && fail "$2: temporary left"; }

## 1. symbolic links: the target is written, the link stays
mkdir l
echo old >l/real.txt
ln -s real.txt l/link
run o-through-link 0 '' "$VT_BIN" replay t.json -o l/link
[ -L l/link ] || fail "-o link: the link was replaced"
cmp -s l/real.txt want.txt || fail "-o link: the target was not written"
# a chain of two links, the last one dangling: the target is created
ln -s link2 l/link1
ln -s new.txt l/link2
run o-dangling-chain 0 '' "$VT_BIN" replay t.json -o l/link1
{ [ -L l/link1 ] && [ -L l/link2 ]; } || fail "-o dangling chain: a link was replaced"
cmp -s l/new.txt want.txt || fail "-o dangling chain: the target was not created"
# --per-event and --svg through links
: >l/pe.real; ln -s pe.real l/pe.link
: >l/svg.real; ln -s svg.real l/svg.link
run per-event-svg-link 0 '' "$VT_BIN" replay t.json --per-event=l/pe.link \
	--svg=l/svg.link -o /dev/null
{ [ -L l/pe.link ] && [ -L l/svg.link ]; } || fail "--per-event/--svg link replaced"
{ grep -q '"op"' l/pe.real && grep -q '<svg' l/svg.real; } ||
	fail "--per-event/--svg: the link targets were not written"
no_tmp l "links"
# a link to a file in another folder: the temporary goes there
mkdir l/other
echo old >l/other/far.txt
ln -s other/far.txt l/far
run o-link-other-folder 0 '' "$VT_BIN" replay t.json -o l/far
{ [ -L l/far ] && cmp -s l/other/far.txt want.txt; } || fail "-o link to another folder"

# stdout through /proc/self/fd/1: first through a link of ours; /dev/stdout
# itself only when that worked (a broken build would replace the system's
# /dev/stdout when run as root)
ln -s /proc/self/fd/1 l/so
"$VT_BIN" replay t.json -o l/so >l/so.out 2>l/so.err
rc=$?
if [ $rc != 0 ] || [ ! -L l/so ] || ! cmp -s l/so.out want.txt; then
	fail "-o link to /proc/self/fd/1 >FILE: exit $rc, $(wc -c <l/so.out) bytes, $(ls -l l/so)"
else
	for p in /dev/stdout /dev/fd/1 /proc/self/fd/1; do
		"$VT_BIN" replay t.json -o $p >l/so.out 2>l/so.err
		rc=$?
		[ $rc = 0 ] && cmp -s l/so.out want.txt || fail "-o $p >FILE: exit $rc, $(cat l/so.err)"
	done
	[ -L /dev/stdout ] || fail "/dev/stdout is no longer a link"
	# a pipe: written in place
	"$VT_BIN" replay t.json -o l/so 2>l/so.err | cat >l/so.out
	cmp -s l/so.out want.txt || fail "-o link to /proc/self/fd/1 | cat: $(cat l/so.err)"
	# stdout a deleted file: the link's text names no file; written in
	# place, nothing created under that name
	( exec >l/del.txt; rm l/del.txt; "$VT_BIN" replay t.json -o l/so ) 2>l/so.err ||
		fail "-o link to a deleted stdout: $(cat l/so.err)"
	ls -A l | grep -q del && fail "-o link to a deleted stdout created $(ls -A l | grep del)"
fi
no_tmp l "stdout links"

# gate --update-baseline through a link: the baseline file is written
mkdir g
cp t.json g/default.json
"$VT_BIN" gate --update-baseline --baseline=g/b.json g/default.json 2>/dev/null ||
	fail "gate --update-baseline"
ln -s b.json g/link.json
ino=$(stat -c %i g/b.json)
run gate-update-baseline-link 0 '' "$VT_BIN" gate --update-baseline \
	--baseline=g/link.json --strategy=zigzag g/*.json
[ -L g/link.json ] || fail "gate --baseline=LINK --update-baseline: the link was replaced"
{ [ "$(stat -c %i g/b.json)" != "$ino" ] && grep -q '"zigzag"' g/b.json &&
  ! grep -q '"batched' g/b.json; } || fail "gate --baseline=LINK --update-baseline: b.json not written"

## 12. an existing file keeps its mode; a new one gets the umask's
echo old >m600; chmod 600 m600
run o-keeps-mode 0 '' "$VT_BIN" replay t.json -o m600
[ "$(stat -c %a m600)" = 600 ] || fail "-o onto a 0600 file: now $(stat -c %a m600)"
echo old >m640; chmod 640 m640; ln -s m640 m640.link
run o-link-keeps-mode 0 '' "$VT_BIN" replay t.json -o m640.link
[ "$(stat -c %a m640)" = 640 ] || fail "-o through a link onto a 0640 file: now $(stat -c %a m640)"
(umask 027; "$VT_BIN" replay t.json -o mnew)
[ "$(stat -c %a mnew)" = 640 ] || fail "-o new file under umask 027: $(stat -c %a mnew)"

## 16. a 250-byte name (and a 255-byte one) works; an empty one is exit 2
mkdir n
long=$(printf 'x%.0s' $(seq 250))
run o-250-bytes 0 '' "$VT_BIN" replay t.json -o "n/$long"
cmp -s "n/$long" want.txt || fail "-o 250-byte name not written"
long=$(printf 'y%.0s' $(seq 255))
run o-255-bytes 0 '' "$VT_BIN" replay t.json -o "n/$long"
cmp -s "n/$long" want.txt || fail "-o 255-byte name not written"
[ "$(ls -A n | wc -l)" = 2 ] || fail "long names: $(ls -A n)"
run o-empty 2 '^vmaptool: error: -o: the file name is empty$' "$VT_BIN" replay t.json -o ''
run svg-empty 2 '^vmaptool: error: --svg: the file name is empty$' "$VT_BIN" replay t.json --svg=
run per-event-empty 2 '^vmaptool: error: --per-event: the file name is empty$' \
	"$VT_BIN" replay t.json --per-event=
run import-o-empty 2 '^vmaptool: error: -o: the file name is empty$' \
	"$VT_BIN" import "$VT_SRC/tests/data/import/vmap.txt" -o ''
run gate-junit-empty 2 '^vmaptool: error: --junit: the file name is empty$' \
	"$VT_BIN" gate --baseline=g/b.json g/default.json --junit=
run strategies-o-empty 2 'file name is empty' "$VT_BIN" strategies -o ''
ls -A | grep -q '^\.\.' && fail "-o '': a temporary was left"

## 5. outputs that would replace each other or an input: exit 2 first
mkdir c
cp t.json c/t.json
echo keep >c/x
run o-per-event-same 2 "-o 'c/x' and --per-event='c/x' name the same file" \
	"$VT_BIN" replay c/t.json -o c/x --per-event=c/x
run o-svg-same 2 "-o 'c/x' and --svg='c/./x' name the same file" \
	"$VT_BIN" replay c/t.json -o c/x --svg=c/./x
ln -s x c/x.link
run o-svg-same-link 2 "name the same file" \
	"$VT_BIN" replay c/t.json -o c/x.link --svg=c/x
[ "$(cat c/x)" = keep ] || fail "conflicting outputs: c/x was written"
# files not there yet: compared by their path
run o-svg-same-new 2 "-o 'c/new' and --svg='c/../c/new' name the same file" \
	"$VT_BIN" replay c/t.json -o c/new --svg=c/../c/new
run o-per-event-same-new-dir 2 "name the same file" \
	"$VT_BIN" replay c/t.json -o c/nodir/new --per-event=c/nodir//./new
[ -e c/new ] && fail "conflicting new outputs: c/new was written"
run o-is-trace 2 "-o 'c/t.json' and the trace 'c/t.json' name the same file: the output would replace an input" \
	"$VT_BIN" replay c/t.json -o c/t.json
run compare-svg-is-trace 2 "--svg='c/t.json' and the trace 'c/t.json'" \
	"$VT_BIN" compare c/t.json --svg=c/t.json
cmp -s c/t.json t.json || fail "an output replaced the trace"
cp "$VT_SRC/tests/data/import/vmap.txt" c/rec.txt
run import-o-is-recording 2 "the recording 'c/rec.txt'" "$VT_BIN" import c/rec.txt -o c/rec.txt
cmp -s c/rec.txt "$VT_SRC/tests/data/import/vmap.txt" || fail "import -o replaced the recording"
cp g/b.json c/b.json
run gate-junit-is-baseline 2 "--baseline='c/b.json' and --junit='c/b.json' name the same file" \
	"$VT_BIN" gate --baseline=c/b.json c/t.json --junit=c/b.json
run gate-markdown-is-junit 2 "--junit='c/j' and --markdown='c/j'" \
	"$VT_BIN" gate --baseline=c/b.json c/t.json --junit=c/j --markdown=c/j
run gate-o-is-trace 2 "-o 'c/t.json' and the input 'c/t.json'" \
	"$VT_BIN" gate --baseline=c/b.json c/t.json -o c/t.json
cmp -s c/b.json g/b.json || fail "gate --junit replaced the baseline"
# what is not a conflict: the baseline among the traces under
# --update-baseline (it is read, then replaced), devices twice
run gate-update-glob 0 '' "$VT_BIN" gate --update-baseline --baseline=c/b.json c/*.json
run devnull-twice 0 '' "$VT_BIN" replay c/t.json -o /dev/null --per-event=/dev/null
no_tmp c "conflicts"

## 6. a run that fails after writing one output leaves none
mkdir f
run svg-fails 4 "cannot create a temporary file for 'f/nodir/x.svg'" \
	"$VT_BIN" replay t.json -o f/r.txt --svg=f/nodir/x.svg
[ -e f/r.txt ] && fail "-o written although --svg failed (exit 4)"
run o-fails-after-per-event 4 '' \
	"$VT_BIN" replay t.json -o f/nodir/r --per-event=f/pe.jsonl
[ -e f/pe.jsonl ] && fail "--per-event written although -o failed (exit 4)"
echo old >f/keep.txt
run svg-fails-keeps-old 4 '' "$VT_BIN" replay t.json -o f/keep.txt --svg=f/nodir/x.svg
[ "$(cat f/keep.txt)" = old ] || fail "-o replaced an existing file although the run failed"
run gate-junit-fails 4 '' "$VT_BIN" gate --baseline=g/b.json g/default.json \
	-o f/gate.txt --junit=f/nodir/j.xml
[ -e f/gate.txt ] && fail "gate -o written although --junit failed (exit 4)"
run gate-markdown-fails 4 '' "$VT_BIN" gate --baseline=g/b.json g/default.json \
	--junit=f/j.xml --markdown=f/nodir/m.md
[ -e f/j.xml ] && fail "gate --junit written although --markdown failed (exit 4)"
# stdout failing after -o was written: exit 4, -o not left
if [ -w /dev/full ]; then
	run stdout-full 4 'write error on stdout' sh -c \
		'"$0" replay "$1" --per-event=f/pe2.jsonl >/dev/full' "$VT_BIN" t.json
	[ -e f/pe2.jsonl ] && fail "--per-event written although stdout failed (exit 4)"
fi
no_tmp f "failures"
# and both outputs when all succeed
run two-outputs 0 '' "$VT_BIN" replay t.json -o f/r.txt --svg=f/r.svg
{ cmp -s f/r.txt want.txt && grep -q '<svg' f/r.svg; } || fail "-o and --svg not both written"

test_done
