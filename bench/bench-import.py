#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""vmaptool import, an old and a new build side by side, against trace-cmd report.

    bench/bench-import.py --old VMAPTOOL --new VMAPTOOL [--runs N] [--markdown]
                          [--old-label L] [--new-label L] [--quick]

For each recording, `vmaptool import -q -o OUT` of the old and the new
binary and (for a trace.dat, when trace-cmd is installed) `trace-cmd report`
of the same file run alternately, --runs times each; every run's CPU time
(user + sys, wait4()) and peak RSS (/usr/bin/time) are kept.  Prints one
JSON line per recording and program (median, min, max), or with --markdown
the tables of docs/performance.md, "Import".  The old and the new trace must
be byte-identical (else exit 1).  Instructions (valgrind --tool=callgrind,
one run each, load-independent) for the real trace.dat.

The recordings: tests/data/recordings/fix256_x10.trace.dat (trace-cmd 3.1.6,
version 7, zstd), the same converted by trace-cmd to version 7 without
compression and to version 6 (when trace-cmd is installed), fix1.trace.txt.xz
(ftrace text, xz) and that text's events repeated 50 times with shifted
timestamps (156 MB; --quick: 5 times), written to $TMPDIR/vt-bench-import/.
"""
import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("perf_report", os.path.join(HERE, "perf-report.py"))
pr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pr)


def repeat_text(src_xz, dst, times):
    """The events of an ftrace text @times over, each copy 1 s later."""
    if os.path.exists(dst):
        return
    text = subprocess.run(["xz", "-dc", src_xz], check=True,
                          stdout=subprocess.PIPE).stdout.decode()
    lines = text.split("\n")
    head = [l for l in lines if l.startswith("#")]
    body = [l for l in lines if l and not l.startswith("#")]
    ts = re.compile(r"^(.{0,60}?\]\s+\S+\s+)(\d+)\.(\d{6}):")
    with open(dst + ".tmp", "w") as out:
        out.write("\n".join(head) + "\n")
        for k in range(times):
            for l in body:
                m = ts.match(l)
                if not m:
                    out.write(l + "\n")
                    continue
                us = int(m.group(2)) * 1000000 + int(m.group(3)) + k * 1000000
                out.write("%s%d.%06d:%s\n" % (m.group(1), us // 1000000, us % 1000000,
                                              l[m.end():]))
    os.rename(dst + ".tmp", dst)


def recordings(data, work, quick):
    rec = os.path.join(data, "recordings")
    dat = os.path.join(rec, "fix256_x10.trace.dat")
    out = [("fix256_x10.trace.dat (v7, zstd)", dat, True)]
    if shutil.which("trace-cmd"):
        for name, extra in (("v7, uncompressed", ["--compression", "none"]),
                            ("v6", ["--file-version", "6"])):
            dst = os.path.join(work, "fix256_x10-%s.dat" % name.split(",")[0])
            if not os.path.exists(dst):
                pr.run(["trace-cmd", "convert", "-i", dat, "-o", dst] + extra)
            out.append(("fix256_x10 (%s)" % name, dst, True))
    out.append(("fix1.trace.txt.xz (ftrace text, xz)", os.path.join(rec, "fix1.trace.txt.xz"), False))
    times = 5 if quick else 50
    big = os.path.join(work, "fix1-x%d.trace.txt" % times)
    repeat_text(os.path.join(rec, "fix1.trace.txt.xz"), big, times)
    out.append(("fix1 text x%d (ftrace text)" % times, big, False))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True, help="the old vmaptool binary")
    ap.add_argument("--new", required=True, help="the new vmaptool binary")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--old-label", default="old")
    ap.add_argument("--new-label", default="new")
    ap.add_argument("--data", default=os.path.join(HERE, "..", "tests", "data"))
    a = ap.parse_args()
    work = os.path.join(os.environ.get("TMPDIR", "/tmp"), "vt-bench-import")
    os.makedirs(work, exist_ok=True)
    report = shutil.which("trace-cmd")
    rows, lines, differ = [], [], False
    for label, path, dat in recordings(a.data, work, a.quick):
        outs = {k: os.path.join(work, "out-%s.jsonl" % k) for k in ("old", "new")}
        cmds = {k: [b, "import", "-q", "-o", outs[k], path]
                for k, b in (("old", a.old), ("new", a.new))}
        if subprocess.run(cmds["old"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode:
            del cmds["old"]		# the old build refuses the file
        if dat and report:
            cmds["report"] = ["trace-cmd", "report", path]
        res = {k: {"cpu": [], "rss": []} for k in cmds}
        for _ in range(a.runs):
            for k, argv in cmds.items():
                _, cpu, rss = pr.timed(argv)
                res[k]["cpu"].append(cpu)
                res[k]["rss"].append(rss)
        res.setdefault("old", {"cpu": [], "rss": []})
        same = None
        if res["old"]["cpu"]:
            with open(outs["old"], "rb") as f1, open(outs["new"], "rb") as f2:
                same = f1.read() == f2.read()
            differ |= not same
        size = os.path.getsize(path)
        for k, v in res.items():
            if not v["cpu"]:
                continue
            m, lo, hi = pr.stats(v["cpu"])
            lines.append(json.dumps({
                "bench": "import", "recording": label, "bytes": size,
                "program": {"old": a.old_label, "new": a.new_label}.get(k, "trace-cmd report"),
                "runs": len(v["cpu"]), "cpu_s": round(m, 4), "cpu_s_min": round(lo, 4),
                "cpu_s_max": round(hi, 4), "peak_rss_kib": int(pr.stats(v["rss"])[0]),
                "output": "n/a" if k == "report" else "old build refused it"
                          if same is None else ("identical" if same else "DIFFERENT")}))
        rows.append((label, size, res, same))
    ir = {}
    dat = os.path.join(a.data, "recordings", "fix256_x10.trace.dat")
    if shutil.which("valgrind"):
        for k, b in (("old", a.old), ("new", a.new)):
            ir[k] = pr.callgrind_ir([b, "import", "-q", "-o", os.path.join(work, "cg.jsonl"), dat])
        if report:
            ir["report"] = pr.callgrind_ir(["trace-cmd", "report", dat])
        lines.append(json.dumps({"bench": "import-instructions", "recording": dat,
                                 **{"instructions_" + k: v for k, v in ir.items()}}))
    if not a.markdown:
        print("\n".join(lines))
    else:
        print(markdown(a, rows, ir, bool(report)))
    if differ:
        print("bench-import: old and new traces DIFFER", file=sys.stderr)
        sys.exit(1)


def markdown(a, rows, ir, report):
    o, n = a.old_label, a.new_label
    md = ["## Import: vmaptool import against trace-cmd report", "",
          "`vmaptool import -q -o OUT` of each recording and, for a trace.dat, `trace-cmd report` "
          "of the same file (its text to a pipe), run alternately; CPU seconds, median (min-max) "
          "of %d runs; \"vs report\" = report's median / import's median (above 1: import is "
          "faster); peak RSS median. The %s and %s traces are compared byte for byte." %
          (a.runs, o, n), "",
          "| recording | MB | %s s | %s s | speed-up | trace-cmd report s | %s vs report | %s vs report | %s peak RSS KiB | %s peak RSS KiB | trace |" % (o, n, o, n, o, n),
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for label, size, res, same in rows:
        old, new = res["old"]["cpu"], res["new"]["cpu"]
        rep = res.get("report", {}).get("cpu", [])
        c = lambda xs: pr.cell(xs, "%.3f") if xs else "-"
        vs = lambda xs: ("%.2fx" % (pr.stats(rep)[0] / pr.stats(xs)[0])) if rep and xs else "-"
        md.append("| %s | %.1f | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            label, size / 1e6, c(old) if old else "refused", c(new),
            pr.ratio(old, new) if old else "-", c(rep), vs(old), vs(new),
            int(pr.stats(res["old"]["rss"])[0]) if old else "-",
            int(pr.stats(res["new"]["rss"])[0]),
            "identical" if same else ("-" if same is None else "DIFFERENT")))
    if ir:
        md += ["", "Instructions (callgrind, one run each) for fix256_x10.trace.dat: "
               "%s %.0f M, %s %.0f M%s." % (
                   o, ir["old"] / 1e6, n, ir["new"] / 1e6,
                   ", trace-cmd report %.0f M (%.2fx %s's, %.2fx %s's)" % (
                       ir["report"] / 1e6, ir["report"] / ir["old"], o,
                       ir["report"] / ir["new"], n) if "report" in ir else "")]
    if not report:
        md += ["", "(trace-cmd is not installed: no report column.)"]
    return "\n".join(md)


if __name__ == "__main__":
    main()
