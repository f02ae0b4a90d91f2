#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Issue 24 items 1-4, old and new vmaptool side by side in one run.

bench/bench-scale.py --old VMAPTOOL --new VMAPTOOL [--runs N] [--quick] [--no-callgrind]
                     [--only=BENCH,...] [--linear-big=SIZE] [--linear-big-new-only]

Writes its traces (vmaptool gen of the new build) to $TMPDIR/vt-bench-scale/ and, for
each measurement, runs the old and the new binary alternately --runs times, printing
one JSON line per measurement and program (median, min, max of CPU = user + sys from
wait4(), and of wall time):

  events      replay --strategy=pagewise --jobs=1 of 1M small events (test_vmalloc
              fix_size_alloc_test + random_size_align_alloc_test: vmalloc of 1-10
              pages, vfree): events/s of CPU time
  instructions callgrind's instruction count of the same replay of 50k events, per event,
              and per event the inclusive counts of its parts (callgrind_annotate):
              reader, engine, va_lowest_fit and va_merge (the free VA tree), the
              walks (walk_map, walk_unmap), accounting and the tally in it (pricing
              and summing)
  jobs        compare (the default strategies) of a CPU-bound system-heap trace
              (8192 buffers of 128 MiB, order 8, 4 live) with --jobs=1 and --jobs=2:
              wall and CPU, and the ratio wall(jobs=1) / wall(jobs=2); then, where a
              build has bench-jobs beside its vmaptool, its line for the same trace (the
              threads' CPU and idle time, the speed-up on two free cores)
  shape       compare --jobs=1 --per-event of map_mem --size=64G (rodata=full):
              the per-event shapes walk the linear map
  linear      replay (the default strategies) of map_mem --size=256G (rodata=full),
              old and new: CPU and peak RSS; then of --linear-big (default 8T), plain
              and with --verify, old and new (a build before the run tables of the
              linear map needs 8 bytes per page per strategy, 64 GiB for 8 TiB: give
              --linear-big-new-only), and the new build under one strategy (what
              four strategies sharing one linear map should cost)
  gate        the bundled gate (what scripts/gate.sh runs: every trace under traces/
              against traces/baseline.json): CPU and peak RSS
  calibrate   calibrate -j --check=calibration/figures.json (the shipped profiles'
              predictions of every figure): CPU and peak RSS
  vmruns      issue 24 item 1 in the vmalloc area, per strategy (pagewise, zigzag,
              batched, batched-v2, segments): replay --jobs=1 of 6.4 TiB of order-8
              system-heap vmaps at random PFNs (gen systemheap --size=128M
              --buffers=51200 --orders=8,0 --live=4 --mem=16G: 100 times the issue's
              64 GiB, whose replay now takes under 10 ms of CPU, a third of it the
              process's start-up, too short to time; --quick: the 64 GiB), plain and
              with --verify, and of
              order-0 pages at random PFNs (512 vmaps of 4096 pages, each page a
              random PFN, 4 live: written by this script, seeded; gen has no such
              pattern): simulated pages (of the vmap and vmalloc events) per CPU
              second of the whole process, and --verify's CPU over the plain replay's
--only runs the named benches (events, instructions, jobs, shape, linear, gate,
calibrate, vmruns).
The outputs of old and new (and of --jobs=1 and --jobs=2) must be byte-identical,
else exit 1.  On a shared machine compare the ratios of one run, not absolute times.
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time


def run(cmd, out):
    t0 = time.monotonic()
    with open(out, "wb") as f:
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed: " + " ".join(cmd))
    return ru.ru_utime + ru.ru_stime, wall, ru.ru_maxrss


def same(a, b):
    with open(a, "rb") as x, open(b, "rb") as y:
        return x.read() == y.read()


def stats(v):
    return statistics.median(v), min(v), max(v)


def measure(name, progs, args, runs, d, extra=None):
    """Alternate the programs; returns {prog: (cpu list, wall list, rss)}."""
    res = {p: ([], [], 0) for p in progs}
    for _ in range(runs):
        for label, exe in progs.items():
            cpu, wall, rss = run([exe] + args, os.path.join(d, f"{name}-{label}.out"))
            res[label][0].append(cpu)
            res[label][1].append(wall)
            res[label] = (res[label][0], res[label][1], max(res[label][2], rss))
    first = None
    for label in progs:
        out = os.path.join(d, f"{name}-{label}.out")
        if first is None:
            first = out
        elif not same(first, out):
            sys.exit(f"{name}: outputs of {label} and {list(progs)[0]} differ")
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="smaller traces")
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--only", default="events,instructions,jobs,shape,linear,gate,calibrate")
    ap.add_argument("--linear-big", default="8T")
    ap.add_argument("--linear-big-new-only", action="store_true")
    a = ap.parse_args()
    only = set(a.only.split(","))
    d = os.path.join(tempfile.gettempdir(), "vt-bench-scale")
    os.makedirs(d, exist_ok=True)
    loops = 25000 if a.quick else 250000
    bufs = 1024 if a.quick else 8192
    gen = {
        "ev": ["test_vmalloc", "--test=fix_size_alloc_test,random_size_align_alloc_test",
               f"--loops={loops}"],
        "ev50k": ["test_vmalloc", "--test=fix_size_alloc_test,random_size_align_alloc_test",
                  "--loops=12500"],
        "sh": ["systemheap", f"--buffers={bufs}", "--size=128M", "--live=4", "--mem=16G"],
        "mm": ["map_mem", "--size=" + ("16G" if a.quick else "64G")],
        "lm": ["map_mem", "--size=" + ("64G" if a.quick else "256G")],
        "lmbig": ["map_mem", "--size=" + a.linear_big],
        "sh8": ["systemheap", "--size=128M", "--buffers=" + ("512" if a.quick else "51200"),
                "--orders=8,0", "--live=4",
                "--mem=16G"],
    }
    need = {"events": ["ev"], "instructions": ["ev50k"], "jobs": ["sh"], "shape": ["mm"],
            "linear": ["lm", "lmbig"], "vmruns": ["sh8"]}
    gen = {k: g for k, g in gen.items() if any(k in need[b] for b in only if b in need)}
    tr = {}
    for k, g in gen.items():
        tr[k] = os.path.join(d, k + ".jsonl")
        subprocess.run([a.new, "gen"] + g + ["-o", tr[k]], check=True)
    progs = {"old": a.old, "new": a.new}
    events = 4 * loops

    if "linear" in only:
        linear(a, progs, tr, d)
    if "events" in only:
        events_bench(a, progs, tr, d, events)
    if "instructions" in only and not a.no_callgrind:
        instructions(progs, tr, d)
    if "jobs" in only:
        jobs(a, progs, tr, d)
    if "shape" in only:
        shape(a, progs, tr, d)
    if "gate" in only:
        gate(a, progs, d)
    if "vmruns" in only:
        vmruns(a, progs, tr, d)
    if "calibrate" in only:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        fig = os.path.join(root, "calibration", "figures.json")
        tree(a, progs, d, "calibrate", ["calibrate", "-j", "--check=" + fig])


def gate(a, progs, d):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    t = os.path.join(root, "traces")
    files = []
    for pat in ("*.json", "*.jsonl", "test_vmalloc/*.json", "test_vmalloc/*.jsonl"):
        files += sorted(glob.glob(os.path.join(t, pat)))  # as scripts/gate.sh
    tree(a, progs, d, "gate", ["gate", "--baseline=" + os.path.join(t, "baseline.json")]
         + files)


def tree(a, progs, d, name, args):
    """A command over the tree's own files, old and new: CPU and peak RSS."""
    r = measure(name, progs, args, a.runs, d)
    for p in progs:
        cpu = stats(r[p][0])
        print(json.dumps({"bench": name, "program": p, "runs": a.runs,
                          "cpu_s": round(cpu[0], 3), "cpu_s_min": round(cpu[1], 3),
                          "cpu_s_max": round(cpu[2], 3), "peak_rss_kib": r[p][2]}),
              flush=True)


def linear(a, progs, tr, d):
    r = measure("linear", progs, ["replay", tr["lm"]], a.runs, d)
    for p in progs:
        cpu = stats(r[p][0])
        print(json.dumps({"bench": "linear", "program": p, "size": "256G", "runs": a.runs,
                          "cpu_s": round(cpu[0], 3), "cpu_s_min": round(cpu[1], 3),
                          "cpu_s_max": round(cpu[2], 3), "peak_rss_kib": r[p][2]}),
              flush=True)
    big = {"new": a.new} if a.linear_big_new_only else progs
    for extra in ([], ["--verify"]):
        r = measure("linear-big", big, ["replay"] + extra + [tr["lmbig"]], a.runs, d)
        for p in big:
            cpu = stats(r[p][0])
            print(json.dumps({"bench": "linear" + ("-verify" if extra else ""), "program": p,
                              "size": a.linear_big, "runs": a.runs,
                              "cpu_s": round(cpu[0], 3), "cpu_s_min": round(cpu[1], 3),
                              "cpu_s_max": round(cpu[2], 3), "peak_rss_kib": r[p][2]}),
                  flush=True)
    r = measure("linear-one", {"new": a.new}, ["replay", "--strategy=pagewise", tr["lmbig"]],
                a.runs, d)
    cpu = stats(r["new"][0])
    print(json.dumps({"bench": "linear-one-strategy", "program": "new", "size": a.linear_big,
                      "runs": a.runs, "cpu_s": round(cpu[0], 3), "cpu_s_min": round(cpu[1], 3),
                      "cpu_s_max": round(cpu[2], 3), "peak_rss_kib": r["new"][2]}), flush=True)


def events_bench(a, progs, tr, d, events):
    r = measure("events", progs, ["replay", "--strategy=pagewise", "--jobs=1", "-j", tr["ev"]],
                a.runs, d)
    for p in progs:
        cpu = stats(r[p][0])
        print(json.dumps({"bench": "events", "program": p, "events": events, "runs": a.runs,
                          "cpu_s": round(cpu[0], 3), "cpu_s_min": round(cpu[1], 3),
                          "cpu_s_max": round(cpu[2], 3),
                          "events_per_s": round(events / cpu[0]),
                          "peak_rss_kib": r[p][2]}), flush=True)


# where the instructions of an event go: callgrind_annotate's inclusive count of these
# functions (file:function as it prints them), per event
PARTS = {"reader": "core/trace/trace-read.c:vt_trace_next",
         "engine": "core/mm/vmalloc.c:vt_engine_apply",
         "va_lowest_fit": "core/mm/va_free.c:vt_va_free_take_lowest",
         "va_merge": "core/mm/va_free.c:vt_va_free_add",
         "accounting": "core/replay.c:account",
         "tally": "core/tally.c:vt_tally_add",
         "walk_map": "core/mm/walk.c:vt_vmap_small_pages_range_noflush",
         "walk_unmap": "core/mm/walk.c:vt___vunmap_range_noflush"}


def parts(out):
    """{part: inclusive instructions} from a callgrind output file ({} without
    callgrind_annotate)."""
    try:
        text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100",
                               "--auto=no", out],
                              capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    got = {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(\S+)", line)
        if not m:
            continue
        for key, fn in PARTS.items():
            if m.group(2).endswith(fn) and key not in got:
                got[key] = int(m.group(1).replace(",", ""))
    return got


def instructions(progs, tr, d):
    for p, exe in progs.items():
        log = os.path.join(d, f"cg-{p}.log")
        out = os.path.join(d, f"cg-{p}.out")
        subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                        "--log-file=" + log, exe, "replay", "--strategy=pagewise",
                        "--jobs=1", "-j", tr["ev50k"]], stdout=subprocess.DEVNULL,
                       check=True)
        ir = 0
        with open(log) as f:
            for line in f:
                if "refs:" in line:
                    ir = int(line.split("refs:")[1].replace(",", ""))
        print(json.dumps({"bench": "instructions", "program": p, "events": 50000,
                          "instructions": ir,
                          "per_event": round(ir / 50000),
                          "per_event_parts": {k: round(v / 50000)
                                              for k, v in parts(out).items()}}),
              flush=True)


def jobs(a, progs, tr, d):
    jp = {f"{p}-j{j}": exe for p, exe in progs.items() for j in (1, 2)}
    res = {p: ([], [], 0) for p in jp}
    for _ in range(a.runs):
        for label, exe in jp.items():
            j = label[-1]
            cpu, wall, rss = run([exe, "compare", f"--jobs={j}", "-j", tr["sh"]],
                                 os.path.join(d, f"jobs-{label}.out"))
            res[label][0].append(cpu)
            res[label][1].append(wall)
    outs = [os.path.join(d, f"jobs-{label}.out") for label in jp]
    if not all(same(outs[0], o) for o in outs[1:]):
        sys.exit("jobs: outputs differ")
    for p in progs:
        w1 = stats(res[f"{p}-j1"][1])[0]
        w2 = stats(res[f"{p}-j2"][1])[0]
        print(json.dumps({"bench": "jobs", "program": p, "runs": a.runs,
                          "wall_s_jobs1": round(w1, 3), "wall_s_jobs2": round(w2, 3),
                          "cpu_s_jobs1": round(stats(res[f"{p}-j1"][0])[0], 3),
                          "cpu_s_jobs2": round(stats(res[f"{p}-j2"][0])[0], 3),
                          "speedup": round(w1 / w2, 2)}), flush=True)
    for p, exe in progs.items():
        bj = os.path.join(os.path.dirname(os.path.abspath(exe)), "bench-jobs")
        if os.access(bj, os.X_OK):
            r = subprocess.run([bj, "-j", "2", "-r", str(a.runs), tr["sh"]], check=True,
                               stdout=subprocess.PIPE, text=True)
            line = json.loads(r.stdout)
            line["program"] = p
            print(json.dumps(line), flush=True)


def trace_pages(path):
    """Pages the vmap and vmalloc events of a JSON Lines trace map."""
    n = 0
    with open(path) as f:
        for line in f:
            ev = json.loads(line)
            if ev.get("op") == "vmap":
                n += sum(r.get("count", 1) << r.get("order", 0) for r in ev["pages"])
            elif ev.get("op") == "vmalloc":
                n += (ev["size"] + 4095) // 4096
    return n


def random_order0(path, vmaps=512, pages=4096, live=4, seed=1):
    """vmap of order-0 pages, each at a random PFN (4K, 48-bit VA)."""
    import random
    r = random.Random(seed)
    with open(path, "w") as f:
        f.write(json.dumps({"format": "vmaptool-trace", "version": 1,
                            "config": {"granule": "4k", "va_bits": 48}}) + "\n")
        alive = []
        for i in range(1, vmaps + 1):
            pg = [{"pfn": hex(r.randrange(0x40000, 0x400000)), "order": 0, "count": 1}
                  for _ in range(pages)]
            f.write(json.dumps({"op": "vmap", "id": i, "pages": pg, "flags": ["VM_MAP"],
                                "caller": "system_heap_do_vmap"}) + "\n")
            alive.append(i)
            if len(alive) > live:
                f.write(json.dumps({"op": "vunmap", "id": alive.pop(r.randrange(len(alive))),
                                    "caller": "system_heap_do_vmap"}) + "\n")
        for i in alive:
            f.write(json.dumps({"op": "vunmap", "id": i,
                                "caller": "system_heap_do_vmap"}) + "\n")


def vmruns(a, progs, tr, d):
    o0 = os.path.join(d, "order0.jsonl")
    random_order0(o0)
    for s in ("pagewise", "zigzag", "batched", "batched-v2", "segments"):
        cpu = {}
        for name, path, extra in (("order8", tr["sh8"], []),
                                  ("order8-verify", tr["sh8"], ["--verify"]),
                                  ("order0", o0, [])):
            pages = trace_pages(path)
            r = measure(f"vmruns-{s}-{name}", progs,
                        ["replay", f"--strategy={s}", "--jobs=1", "-j"] + extra + [path],
                        a.runs, d)
            for p in progs:
                c = stats(r[p][0])
                cpu[(p, name)] = c[0]
                print(json.dumps({"bench": "vmruns", "strategy": s, "trace": name,
                                  "program": p, "runs": a.runs, "pages": pages,
                                  "cpu_s": round(c[0], 4), "cpu_s_min": round(c[1], 4),
                                  "cpu_s_max": round(c[2], 4),
                                  "gpages_per_s": round(pages / c[0] / 1e9, 2),
                                  "mpages_per_s": round(pages / c[0] / 1e6, 1),
                                  "peak_rss_kib": r[p][2]}), flush=True)
        for p in progs:
            print(json.dumps({"bench": "vmruns-verify-ratio", "strategy": s, "program": p,
                              "verify_over_plain": round(cpu[(p, "order8-verify")] /
                                                         cpu[(p, "order8")], 2)}),
                  flush=True)


def shape(a, progs, tr, d):
    r = measure("shape", progs, ["compare", "--jobs=1", "--per-event", tr["mm"]], a.runs, d)
    for p in progs:
        cpu = stats(r[p][0])
        print(json.dumps({"bench": "shape", "program": p, "runs": a.runs,
                          "cpu_s": round(cpu[0], 3), "cpu_s_min": round(cpu[1], 3),
                          "cpu_s_max": round(cpu[2], 3), "peak_rss_kib": r[p][2]}),
              flush=True)


if __name__ == "__main__":
    main()
