#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ftrace-text import runs in flat memory (docs/vmaptool-import.md,
# "Memory"): the events of fix1.trace.txt.xz repeated 2 and 20 times
# (bench/bench-import.py's copies, each 1 s later) are imported from the
# file and from a pipe; the peak RSS of the 20x import (/usr/bin/time
# -f %M) must stay within 1.5x that of the 2x one (before: 3.8x),
# and the two reads of the 20x text must give the same events.  No time
# is measured.  Exit 77 when python3 or /usr/bin/time is absent (the
# recording is part of the tree).
set -u
. "$(dirname "$0")/lib.sh"
rec=$VT_DATA/recordings/fix1.trace.txt.xz
test_require python3
[ -x /usr/bin/time ] || test_skip "no /usr/bin/time (package time)"
[ -f "$rec" ] || die "no $rec"
# under ASan (the asan preset) freed memory waits in a quarantine that
# grows with every free: let it be reused, as without ASan
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0
tmp=$TMP
python3 - "$VT_SRC" "$VT_BIN" "$rec" "$tmp" <<'PY'
import importlib.util, os, subprocess, sys
src, vt, rec, tmp = sys.argv[1:5]
spec = importlib.util.spec_from_file_location("bi", os.path.join(src, "bench", "bench-import.py"))
bi = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bi)

def peak(args, stdin=None):
    """Peak RSS (KiB) of one import (/usr/bin/time: a small parent, whose
    child's high-water mark is the import's own, not this Python's)."""
    out = os.path.join(tmp, "rss")
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as f:
        r = subprocess.run(["/usr/bin/time", "-o", out, "-f", "%M"] + args,
                           stdin=f, stdout=subprocess.DEVNULL)
    if r.returncode:
        sys.exit("FAIL: %s exited with %d" % (" ".join(args), r.returncode))
    with open(out) as f:
        return int(f.read().split()[-1])

res = {}
for n in (2, 20):
    txt = os.path.join(tmp, "x%d.txt" % n)
    bi.repeat_text(rec, txt, n)
    res[n] = peak([vt, "import", "-q", "-o", os.path.join(tmp, "f%d.json" % n), txt])
    res["pipe%d" % n] = peak([vt, "import", "-q", "-o", os.path.join(tmp, "p%d.json" % n), "-"], txt)
    os.unlink(txt)
print("peak RSS KiB:", res)
ok = True
for kind in ("", "pipe"):
    small, big = res[kind + "2" if kind else 2], res[kind + "20" if kind else 20]
    if big > 1.5 * small:
        print("FAIL: %s 20x copies peak at %d KiB, 2x at %d KiB (bound 1.5x)"
              % (kind or "file", big, small))
        ok = False
def events(path):
    with open(path) as f:
        return f.read().split('"events":', 1)[1]
if events(os.path.join(tmp, "f20.json")) != events(os.path.join(tmp, "p20.json")):
    print("FAIL: the 20x text read from the file and from a pipe gives different events")
    ok = False
sys.exit(0 if ok else 1)
PY
test_done $?
