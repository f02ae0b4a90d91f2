#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The help texts and the man pages made from them keep argp's layout
# whatever the lengths of the texts: glibc's argp_fmtstream misplaces a left
# margin when its buffer is nearly full (a header indented 30 columns, the
# option text after it at column 0) and leaves a line of blanks after a
# text that ends at the right margin; cli/help.c repairs both.  Checked
# for the top-level help and every command's: no trailing blanks, no blank
# line inside a group of options nor two in a row, every
# line of the options at column 1 (group header), 2 or 6 (option) or 29
# (its text); compare --help lists the ablation sets it promises; in the
# man pages every option has its text, "-j, --json" is one term and each
# section header is whole.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
V=$VT_BIN
export ASAN_OPTIONS=detect_leaks=0 COLUMNS=80
top=$("$V" --help)
cmds=$(awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1} on && !/^  / {on=0}' <<<"$top")
[ "$(wc -w <<<"$cmds")" -ge 8 ] || die "commands: $cmds"
check() {	# NAME TEXT
	python3 - "$1" "$2" <<'PY' || exit 1
import re, sys
name, text = sys.argv[1], sys.argv[2]
lines = text.split("\n")
for i, l in enumerate(lines):
    if l != l.rstrip():
        sys.exit(f"FAIL: {name}: line {i + 1} has trailing blanks: {l!r}")
first = next(i for i, l in enumerate(lines) if re.match(r"^ +-", l))
start = max(i for i in range(first) if not lines[i]) + 1
stop = next(i for i in range(first, len(lines)) if "--version" in lines[i])
for i in range(start, stop + 1):
    l = lines[i]
    if not l:
        continue
    n = len(l) - len(l.lstrip(" "))
    if n not in (1, 2, 6, 29):
        sys.exit(f"FAIL: {name}: line {i + 1} at column {n}: {l!r}")
    if n == 1:  # a group header: after a blank line, may wrap, ends in ':'
        j = i
        while lines[j - 1].startswith(" ") and not lines[j - 1].startswith("  "):
            j -= 1
        k = i
        while lines[k + 1].startswith(" ") and not lines[k + 1].startswith("  "):
            k += 1
        if lines[j - 1] or not lines[k].endswith(":"):
            sys.exit(f"FAIL: {name}: line {i + 1} at column 1 is no group header: {l!r}")
    if n in (2, 6) and not l.lstrip().startswith("-"):
        sys.exit(f"FAIL: {name}: line {i + 1} at column {n} is no option: {l!r}")
# a blank line ends a group: one, before a header or the group of --help,
# never inside a group (argp's line of blanks after a text that ends at the
# margin, a session 10 trial finding: replay -h after --granule, gen -h
# after --pcpu-objects and a second after --use-huge)
for i in range(start, stop):
    if lines[i]:
        continue
    nxt = lines[i + 1]
    if not nxt:
        sys.exit(f"FAIL: {name}: two blank lines at line {i + 1}")
    if re.match(r"^ +-", nxt) and not nxt.lstrip().startswith("-?, --help"):
        sys.exit(f"FAIL: {name}: a blank line inside a group, before line {i + 2}: {nxt!r}")
PY
}
check "vmaptool --help" "$top"
for c in $cmds; do
	[ "$c" = help ] && continue
	out=$("$V" "$c" --help) || die "$c --help exited $?"
	check "$c --help" "$out"
	out2=$("$V" help "$c")
	[ "$out" = "$out2" ] || die "'help $c' differs from '$c --help'"
done
cmp_help=$("$V" compare --help)
sets=$(tr '\n' ' ' <<<"$cmp_help")
grep -q 'batched = batched@1, batched@12, batched@123, .* batched@12345678\.' <<<"$sets" ||
	die "compare --help does not list the ablation sets: $cmp_help"

# ---- the man pages -------------------------------------------------------------
command -v man >/dev/null || { echo "skip: no man"; exit 0; }
python3 "$VT_SRC/scripts/gen-man.py" "$V" "$TMP/man"
[ -f "$TMP/man/vmaptool-help.1" ] || die "no vmaptool-help.1 (docs/vmaptool-help.md documents 'vmaptool help')"
for f in "$TMP"/man/*.1; do
	c=$(basename "$f" .1)
	case $c in
	vmaptool) help=$("$V" --help) ;;
	vmaptool-help) help=$("$V" help) ;;
	*) help=$("$V" "${c#vmaptool-}" --help) ;;
	esac
	python3 - "$f" "$help" <<'PY' || exit 1
import re, sys
src = open(sys.argv[1]).read().split("\n")
# every group header of --help (column 1 after a blank line, wrapped over
# column-1 lines up to its ':') is one .SS, whole, and the DESCRIPTION holds
# none of it (a session 10 trial finding: a header of two lines ended
# vmaptool-replay(1)'s DESCRIPTION with its first line, its second a .SS)
want, cur, prev = [], None, ""
for l in sys.argv[2].split("\n"):
    if cur is None and not prev and re.match(r"^ \S", l):
        cur = []
    if cur is not None:
        if not re.match(r"^ \S", l):
            sys.exit(f"FAIL: {sys.argv[1]}: --help header without its ':': {cur!r}")
        cur.append(l.strip())
        if l.endswith(":"):
            want.append(" ".join(cur))
            cur = None
    prev = l
got = [l[4:].replace("\\-", "-").replace("\\e", "\\") for l in src
       if l.startswith(".SS ") and l != ".SS Commands"]
if got != want:
    sys.exit(f"FAIL: {sys.argv[1]}: section headers {got!r}, --help has {want!r}")
desc = " ".join(" ".join(src[src.index(".SH DESCRIPTION"):src.index(".SH OPTIONS")]).split())
for h in want:
    if " ".join(h.split()[:3]) in desc.replace("\\-", "-"):
        sys.exit(f"FAIL: {sys.argv[1]}: DESCRIPTION holds header {h!r}")
for i, l in enumerate(src):
    if l == ".TP":
        term, text = src[i + 1], src[i + 2] if i + 2 < len(src) else ""
        if not term.startswith(".B ") or not text.strip() or text.startswith("."):
            sys.exit(f"FAIL: {sys.argv[1]}: option {term!r} has no text")
        if re.match(r"\.B \\-\S,$", term):
            sys.exit(f"FAIL: {sys.argv[1]}: {term!r} cut at its comma")
    if l.startswith(".SS ") and not l.endswith(":") and l != ".SS Commands":
        sys.exit(f"FAIL: {sys.argv[1]}: section header cut: {l!r}")
PY
	MANWIDTH=80 man -l "$f" >"$TMP/page" 2>"$TMP/err" || die "man -l $f: $(cat "$TMP/err")"
done
page=$(MANWIDTH=80 man -l "$TMP/man/vmaptool.1" 2>/dev/null)
grep -A1 -- '--color\[=auto|always|never\]' <<<"$page" | grep -q "colour the table" ||
	die "vmaptool.1: --color without its text"
test_done
