#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Measure an old and a new vmaptool build side by side; print Markdown.

    bench/perf-report.py --old BUILD_DIR --new BUILD_DIR [--runs N] [--quick]

Each build directory holds vmaptool and bench-parse (a Release build).  Every
figure is measured on the same inputs with the old and the new binary run
alternately (old, new, old, new, ...) so that the load of a shared machine
falls on both alike; each cell gives the median and min-max of --runs runs
and the ratio new/old of the medians.  Times are the child's CPU time
(user + sys, from wait4()), which load disturbs less than wall time.  The
instruction counts (valgrind --tool=callgrind) do not depend on load at all.

Every replay's report is compared byte for byte between old and new: a
difference is printed as an error and the script exits 1.

bench/perf-report.sh builds the two trees and runs this script; see
docs/performance.md.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

STRATEGIES = ["pagewise", "zigzag", "batched", "segments"]


def run(cmd):
    """stdout of @cmd, which must succeed."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit("%s: exit %d\n%s" % (" ".join(cmd), p.returncode, p.stderr.decode()[-2000:]))
    return p.stdout


def timed(cmd):
    """(stdout, CPU seconds, peak RSS KiB) of one run of @cmd.

    CPU time from wait4() (microseconds).  Peak RSS through /usr/bin/time:
    a child of this interpreter would inherit its high-water mark (exec
    keeps the old mm's), a child of time(1) does not.
    """
    with tempfile.NamedTemporaryFile("r") as t, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", t.name] + cmd,
                             stdout=subprocess.PIPE, stderr=err)
        out = p.stdout.read()
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            err.seek(0)
            sys.exit("%s: exit %d\n%s" % (" ".join(cmd), p.returncode,
                                           err.read().decode()[-2000:]))
        rss = int(t.read().split()[-1])
    return out, ru.ru_utime + ru.ru_stime, rss


def stats(xs):
    return statistics.median(xs), min(xs), max(xs)


def cell(xs, fmt="%.1f"):
    m, lo, hi = stats(xs)
    return (fmt + " (" + fmt + "-" + fmt + ")") % (m, lo, hi)


def ratio(new, old):
    mo = statistics.median(old)
    return "%.2fx" % (statistics.median(new) / mo) if mo else "-"


def paired(cmds, runs):
    """Run each of @cmds (a dict name -> argv) @runs times, interleaved."""
    res = {k: {"cpu": [], "rss": [], "out": None} for k in cmds}
    for _ in range(runs):
        for k, argv in cmds.items():
            out, cpu, rss = timed(argv)
            res[k]["cpu"].append(cpu)
            res[k]["rss"].append(rss)
            res[k]["out"] = out
    return res


def trace_pages(path):
    """Pages the vmap/vm_map_ram/vmalloc events of a JSON Lines trace map."""
    pages = 0
    with open(path) as f:
        f.readline()
        for line in f:
            ev = json.loads(line)
            if ev["op"] in ("vmap", "vm_map_ram"):
                for r in ev["pages"]:
                    pages += int(r.get("count", 1)) << int(r.get("order", 0))
            elif ev["op"] == "vmalloc":
                pages += (int(ev["size"]) + 4095) >> 12
    return pages


def callgrind_ir(argv):
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + argv,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    m = re.search(r"Collected : (\d+)", p.stderr)
    if p.returncode or not m:
        sys.exit("callgrind failed: %s\n%s" % (" ".join(argv), p.stderr[-2000:]))
    return int(m.group(1))


def parse_mbps(out):
    """MB/s from bench-parse, JSON line (new) or the old text line."""
    s = out.decode()
    for line in s.splitlines():
        if line.startswith("{"):
            return json.loads(line)["mb_per_s"], json.loads(line)["peak_rss_kib"]
        m = re.search(r"([\d.]+) MB/s\s+peak RSS (\d+) KB", line)
        if m:
            return float(m.group(1)), int(m.group(2))
    sys.exit("bench-parse printed no figure:\n" + s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="smaller inputs (a smoke test)")
    ap.add_argument("--old-label", default="old")
    ap.add_argument("--new-label", default="new")
    a = ap.parse_args()
    builds = {"old": a.old, "new": a.new}
    vt = {k: os.path.join(d, "vmaptool") for k, d in builds.items()}
    tmp = tempfile.mkdtemp(prefix="vt-perf-")
    failed = False
    md = []
    w = md.append

    buffers = 64 if a.quick else 512
    sh = os.path.join(tmp, "systemheap-%d.jsonl" % buffers)
    gen = [vt["new"], "gen", "systemheap", "--size=128M", "--buffers=%d" % buffers,
           "--live=4", "--mem=768M", "--no-page-array", "--jsonl", "-o", sh]
    subprocess.run(gen, check=True)
    sh_small = os.path.join(tmp, "systemheap-64.jsonl")
    subprocess.run(gen[:4] + ["--buffers=64"] + gen[5:-1] + [sh_small], check=True)
    pages = trace_pages(sh)
    pages_small = trace_pages(sh_small)

    # ---- replay, every strategy -------------------------------------
    w("## Replay: simulated pages per second, per strategy\n")
    w("`vmaptool replay --strategy=S -q --format=json` of a system-heap trace: %d buffers of "
      "128 MiB (%d GiB of mappings, %d simulated pages mapped and unmapped), order-8 pages, "
      "vmap + vunmap, 4 live; CPU time of the whole process (parse + engine + report). "
      "Median (min-max) of %d paired runs; M simulated pages/s = pages / CPU time.\n"
      % (buffers, buffers // 8, pages, a.runs))
    w("| strategy | %s s | %s s | %s M pages/s | %s M pages/s | speed-up | reports |"
      % (a.old_label, a.new_label, a.old_label, a.new_label))
    w("| --- | --- | --- | --- | --- | --- | --- |")
    for s in STRATEGIES:
        cmds = {k: [vt[k], "replay", "--strategy=" + s, "-q", "--format=json", sh] for k in builds}
        r = paired(cmds, a.runs)
        same = r["old"]["out"] == r["new"]["out"]
        failed |= not same
        mp = {k: [pages / t / 1e6 for t in r[k]["cpu"]] for k in builds}
        w("| %s | %s | %s | %s | %s | %s | %s |" % (
            s, cell(r["old"]["cpu"], "%.3f"), cell(r["new"]["cpu"], "%.3f"),
            cell(mp["old"]), cell(mp["new"]), ratio(mp["new"], mp["old"]),
            "identical" if same else "**DIFFER**"))
    w("")

    # ---- --verify ---------------------------------------------------
    w("## `--verify`: cost over a plain replay\n")
    w("The same with 64 buffers (8 GiB, %d pages); ratio = CPU time with `--verify` / "
      "without, medians of %d paired runs.\n" % (pages_small, a.runs))
    w("| strategy | %s plain s | %s --verify s | %s ratio | %s plain s | %s --verify s | %s ratio | reports |"
      % ((a.old_label,) * 3 + (a.new_label,) * 3))
    w("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for s in STRATEGIES:
        cmds = {}
        for k in builds:
            cmds[k] = [vt[k], "replay", "--strategy=" + s, "-q", "--format=json", sh_small]
            cmds[k + "-v"] = cmds[k] + ["--verify"]
        r = paired(cmds, max(3, a.runs // 2))
        same = r["old-v"]["out"] == r["new-v"]["out"]
        failed |= not same
        row = [s]
        for k in builds:
            row += [cell(r[k]["cpu"], "%.3f"), cell(r[k + "-v"]["cpu"], "%.3f"),
                    ratio(r[k + "-v"]["cpu"], r[k]["cpu"])]
        row.append("identical" if same else "**DIFFER**")
        w("| " + " | ".join(row) + " |")
    w("")

    # ---- compare, --jobs --------------------------------------------
    w("## `compare` of one trace: wall time\n")
    w("`vmaptool compare -q` of the %d-buffer trace (all four strategies); %s has "
      "`--jobs` = 1 only for one trace; %s with `--jobs=1` and with the default "
      "(the number of cores, %d here). Wall time, median (min-max) of %d paired runs.\n"
      % (buffers, a.old_label, a.new_label, os.cpu_count(), a.runs))
    import time
    cmds = {"old": [vt["old"], "compare", "-q", sh],
            "new-1": [vt["new"], "compare", "-q", "--jobs=1", sh],
            "new": [vt["new"], "compare", "-q", sh]}
    walls = {k: [] for k in cmds}
    outs = {}
    for _ in range(a.runs):
        for k, argv in cmds.items():
            t0 = time.monotonic()
            outs[k] = subprocess.run(argv, stdout=subprocess.PIPE, check=True).stdout
            walls[k].append(time.monotonic() - t0)
    same = outs["old"] == outs["new"] == outs["new-1"]
    failed |= not same
    w("| %s | %s --jobs=1 | %s default | default / --jobs=1 | output |" % (
        a.old_label, a.new_label, a.new_label))
    w("| --- | --- | --- | --- | --- |")
    w("| %s | %s | %s | %s | %s |" % (cell(walls["old"], "%.3f"), cell(walls["new-1"], "%.3f"),
                                      cell(walls["new"], "%.3f"),
                                      ratio(walls["new"], walls["new-1"]),
                                      "identical" if same else "**DIFFER**"))
    w("")

    # ---- parsing ----------------------------------------------------
    n = 200000 if a.quick else 1000000
    w("## Reading JSON Lines\n")
    w("`bench-parse %d`: a system-heap-like JSON Lines trace of %d events (92 bytes an "
      "event), read with `vt_trace_open()`/`vt_trace_next()` in a child; MB/s = file size / "
      "CPU time of the bench-parse process (the file exists: no generation), median "
      "(min-max) of %d paired runs; peak RSS of the reading child.\n" % (n, n, a.runs))
    r = {k: [] for k in builds}
    rss = {k: [] for k in builds}
    bp = {k: os.path.join(d, "bench-parse") for k, d in builds.items()}
    src = "/tmp/vt-bench-parse-%d.jsonl" % n
    for _ in range(a.runs):
        for k in builds:
            out, cpu, _ = timed([bp[k], str(n)])
            r[k].append(os.path.getsize(src) / 1e6 / cpu)
            rss[k].append(parse_mbps(out)[1])
    w("| %s MB/s | %s MB/s | speed-up | %s peak RSS KiB | %s peak RSS KiB |" % (
        a.old_label, a.new_label, a.old_label, a.new_label))
    w("| --- | --- | --- | --- | --- |")
    w("| %s | %s | %s | %s | %s |" % (cell(r["old"]), cell(r["new"]), ratio(r["new"], r["old"]),
                                      cell(rss["old"], "%.0f"), cell(rss["new"], "%.0f")))
    w("")

    # ---- a one-document trace: memory ---------------------------------
    doc = os.path.join(tmp, "doc.json")
    with open(src) as f, open(doc, "w") as o:
        h = f.readline().rstrip("\n")
        o.write(h[:-1] + ',"events":[')
        first = True
        for line in f:
            o.write(("\n" if first else ",\n") + line.rstrip("\n"))
            first = False
        o.write("\n]}\n")
    w("## A one-document trace: peak memory\n")
    w("The bench-parse trace as one JSON document (%.0f MB), `vmaptool replay "
      "--strategy=pagewise -q`, once each: peak RSS and CPU time.\n" % (os.path.getsize(doc) / 1e6))
    res = {}
    for k in builds:
        res[k] = timed([vt[k], "replay", "--strategy=pagewise", "-q", "--format=json", doc])
    same = res["old"][0] == res["new"][0]
    failed |= not same
    w("| %s peak RSS | %s peak RSS | %s CPU s | %s CPU s | reports |" % (
        a.old_label, a.new_label, a.old_label, a.new_label))
    w("| --- | --- | --- | --- | --- |")
    w("| %.1f MiB | %.1f MiB | %.2f | %.2f | %s |" % (
        res["old"][2] / 1024, res["new"][2] / 1024, res["old"][1], res["new"][1],
        "identical" if same else "**DIFFER**"))
    w("")
    os.unlink(doc)

    # ---- instructions -----------------------------------------------
    if shutil.which("valgrind"):
        w("## Instructions per simulated page (callgrind)\n")
        w("`valgrind --tool=callgrind vmaptool replay --strategy=S -q` of the 64-buffer trace "
          "(%d pages): instructions of the whole process / pages. Not disturbed by load: "
          "one run each.\n" % pages_small)
        w("| strategy | %s instructions/page | %s instructions/page | ratio |" % (
            a.old_label, a.new_label))
        w("| --- | --- | --- | --- |")
        for s in STRATEGIES:
            ir = {k: callgrind_ir([vt[k], "replay", "--strategy=" + s, "-q", sh_small])
                  for k in builds}
            w("| %s | %.1f | %.1f | %.2fx |" % (s, ir["old"] / pages_small,
                                               ir["new"] / pages_small, ir["new"] / ir["old"]))
        w("")

    shutil.rmtree(tmp)
    # import against trace-cmd report (bench/bench-import.py)
    imp = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                       "bench-import.py"),
                          "--old", vt["old"], "--new", vt["new"], "--runs", str(a.runs),
                          "--old-label", a.old_label, "--new-label", a.new_label, "--markdown"]
                         + (["--quick"] if a.quick else []), stdout=subprocess.PIPE, text=True)
    md.append(imp.stdout.rstrip("\n"))
    failed |= imp.returncode != 0
    print("\n".join(md))
    if failed:
        print("perf-report: old and new reports DIFFER", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
