#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Lint a vmaptool JSON report (docs/report-format.md, docs/report.schema.json), in the spirit
of perf's tests/shell/lib/perf_json_output_lint.py: every key must be known
and every value must have the right type; every counter is an integer.

The metric names and kinds are read from core/stats.h (VT_METRICS), and
the what-if options with the words a report may hold from the option table
core/options.def, so the lint follows the code instead of a copy of the
lists.

usage: lint-report.py [--src DIR] [--per-event LINES.jsonl] [REPORT.json]
(REPORT.json defaults to stdin).  With --per-event, the JSON Lines file is
linted too and its per-event deltas must add up to the report's totals.
Exit 0 if clean, 1 with one line per problem otherwise.
"""
import argparse
import json
import os
import re
import sys

# A state at the end of the trace, not a counter: per-event lines need not
# add up to it (docs/report-format.md, "Per-event lines").
GAUGES = {"lazy_pages_pending"}

OPS = {"vmap", "vunmap", "vmalloc", "vfree", "vm_map_ram", "vm_unmap_ram",
       "ioremap", "iounmap", "purge", "linear_map"}
problems = []
OPTIONS = {}    # json key -> allowed words or int, from core/options.def


def bad(path, msg):
    problems.append("%s: %s" % (path, msg))


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def load_options(src):
    """{json key: set of words a report writes, or int} from options.def:
    a word option's first word for each value, on/off for a flag."""
    text = open(os.path.join(src, "core", "options.def")).read()
    options = {}
    for body in re.findall(r"^VT_OPTION\((.*?)\)\s*$", text, re.S | re.M):
        key = re.search(r'\.json = "([^"]+)"', body).group(1)
        kind = re.search(r"\.kind = VT_OK_(\w+)", body).group(1)
        if kind == "NUMBER":
            options[key] = int
        elif kind == "FLAG":
            options[key] = {"on", "off"}
        else:
            words = re.search(r'\.words = "([^"]+)"', body).group(1).split("|")
            values = [int(v) for v in re.search(r"\.values = \{([^}]*)\}",
                                                 body).group(1).split(",")]
            first = {}
            for w, v in zip(words, values):
                first.setdefault(v, w)
            options[key] = set(first.values())
    if not options:
        sys.exit("lint-report.py: no VT_OPTION entries in core/options.def")
    return options


def load_metrics(src):
    text = open(os.path.join(src, "core", "stats.h")).read()
    return re.findall(r"X\((\w+),\s*(VT_MK_\w+)(?:,\s*VT_MB_\w+)?\)", text)


def keys_exact(path, obj, required, optional=()):
    if not isinstance(obj, dict):
        bad(path, "not an object")
        return False
    for k in obj:
        if k not in required and k not in optional:
            bad(path, "unknown key %r" % k)
    for k in required:
        if k not in obj:
            bad(path, "missing key %r" % k)
    return True


def lint_metrics(path, m, metrics, verify):
    top = [n for n, k in metrics if k == "VT_MK_TOP"]
    tlbi = [n[len("tlbi_"):] for n, k in metrics if k == "VT_MK_TLBI"]
    dsb = [n[len("dsb_"):] for n, k in metrics if k == "VT_MK_DSB"]
    ver = [n for n, k in metrics if k == "VT_MK_VERIFY"]
    cyc = [n[len("cyc_"):] for n, k in metrics if k == "VT_MK_CYC"]
    required = top + ["tlbi_by_kind", "dsb_by_kind", "cycles_by_function"] + \
        (ver if verify else [])
    if not keys_exact(path, m, required):
        return
    for k, v in m.items():
        if k in ("tlbi_by_kind", "dsb_by_kind", "cycles_by_function"):
            continue
        if not is_int(v) or v < 0:
            bad(path + "." + k, "not a non-negative integer: %r" % (v,))
    for name, kinds in (("tlbi_by_kind", tlbi), ("dsb_by_kind", dsb),
                        ("cycles_by_function", cyc)):
        sub = m.get(name)
        if keys_exact(path + "." + name, sub, kinds):
            for k, v in sub.items():
                if not is_int(v) or v < 0:
                    bad(path + "." + name + "." + k, "not a non-negative integer")
    # Totals are the sums of their kinds (interfaces.md 4).
    if all(is_int(m.get(k)) for k in ("tlbi", "dsb")) and \
            isinstance(m.get("tlbi_by_kind"), dict) and \
            isinstance(m.get("dsb_by_kind"), dict):
        if m["tlbi"] != sum(v for v in m["tlbi_by_kind"].values() if is_int(v)):
            bad(path, "tlbi is not the sum of tlbi_by_kind")
        if m["dsb"] != sum(v for v in m["dsb_by_kind"].values() if is_int(v)):
            bad(path, "dsb is not the sum of dsb_by_kind")
    # The estimate is the sum of what each kernel function costs.
    if is_int(m.get("cycles")) and isinstance(m.get("cycles_by_function"), dict) and \
            m["cycles"] != sum(v for v in m["cycles_by_function"].values() if is_int(v)):
        bad(path, "cycles is not the sum of cycles_by_function")


def lint_report(doc, metrics):
    if not keys_exact("report", doc, ("format", "version", "tool", "config",
                                       "traces")):
        return False
    if doc["format"] != "vmaptool-report" or doc["version"] != 1:
        bad("report", "format/version is %r/%r" % (doc["format"], doc["version"]))
    keys_exact("tool", doc["tool"], ("name", "version"))
    c = doc["config"]
    verify = False
    if keys_exact("config", c, ("granule", "va_bits", "levels",
                                "kernel_model", "options"), ("profile",)):
        if c["granule"] not in ("4k", "16k", "64k"):
            bad("config.granule", repr(c["granule"]))
        for k in ("va_bits", "levels"):
            if not is_int(c[k]):
                bad("config." + k, "not an integer")
        if keys_exact("config.options", c["options"], list(OPTIONS)):
            for k, allowed in OPTIONS.items():
                v = c["options"][k]
                if allowed is int:
                    if not is_int(v):
                        bad("config.options." + k, "not an integer")
                elif v not in allowed:
                    bad("config.options." + k, "unexpected value %r" % (v,))
            verify = c["options"]["verify"] == "on"
    if not isinstance(doc["traces"], list) or not doc["traces"]:
        bad("traces", "not a non-empty array")
        return verify
    for i, t in enumerate(doc["traces"]):
        tp = "traces[%d]" % i
        if not keys_exact(tp, t, ("trace", "events", "strategies"), ("config",)):
            continue
        if not isinstance(t["trace"], str):
            bad(tp + ".trace", "not a string")
        if not is_int(t["events"]):
            bad(tp + ".events", "not an integer")
        if "config" in t:
            keys_exact(tp + ".config", t["config"], ("granule", "va_bits", "levels"))
        for j, s in enumerate(t["strategies"]):
            sp = "%s.strategies[%d]" % (tp, j)
            if not keys_exact(sp, s, ("name", "metrics"), ("per_op", "ratios", "estimate")):
                continue
            if "estimate" in s and keys_exact(sp + ".estimate", s["estimate"],
                                              ("baseline", "speedup", "explained_by")):
                for e in s["estimate"]["explained_by"]:
                    keys_exact(sp + ".estimate.explained_by", e,
                               ("event", "baseline_count", "count", "cycles_saved"))
            lint_metrics(sp + ".metrics", s["metrics"], metrics, verify)
            for op, m in s.get("per_op", {}).items():
                if op not in OPS:
                    bad(sp + ".per_op", "unknown op %r" % op)
                lint_metrics("%s.per_op.%s" % (sp, op), m, metrics, verify)
            if "ratios" in s:
                names = [n for n, k in metrics if k == "VT_MK_TOP" or
                         (k == "VT_MK_VERIFY" and verify)]
                if keys_exact(sp + ".ratios", s["ratios"], names):
                    for k, v in s["ratios"].items():
                        if v is not None and (not isinstance(v, (int, float))
                                              or isinstance(v, bool) or v < 0):
                            bad(sp + ".ratios." + k, "not a number or null")
    return verify


def flatten(m, prefix=""):
    out = {}
    for k, v in m.items():
        if isinstance(v, dict):
            out.update(flatten(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


def lint_per_event(path, doc, metrics, verify):
    sums = {}
    expect_index = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            lp = "%s:%d" % (path, n)
            try:
                ev = json.loads(line)
            except ValueError as e:
                bad(lp, "not JSON: %s" % e)
                continue
            if not keys_exact(lp, ev, ("index", "strategy", "op", "id", "va",
                                       "metrics", "shape"), ("huge_fallback",)):
                continue
            if not is_int(ev["index"]) or ev["index"] < 0:
                bad(lp + ".index", "not an index")
            elif ev["index"] < expect_index.get(ev["strategy"], 0):
                bad(lp + ".index", "goes backwards")
            else:
                expect_index[ev["strategy"]] = ev["index"]
            if ev["op"] not in OPS:
                bad(lp + ".op", "unknown op %r" % ev["op"])
            if "huge_fallback" in ev and (ev["huge_fallback"] is not True or
                                          ev["op"] != "vmalloc"):
                bad(lp + ".huge_fallback", "only true, only on a vmalloc")
            if ev["id"] is not None and not is_int(ev["id"]) and \
                    not isinstance(ev["id"], str):
                bad(lp + ".id", "not an integer, string or null")
            if not isinstance(ev["va"], str) or not re.fullmatch(r"0x[0-9a-f]+", ev["va"]):
                bad(lp + ".va", "not a 0x string")
            if keys_exact(lp + ".shape", ev["shape"],
                          ("pte", "pte_cont", "pmd_block", "pud_block")):
                for k, v in ev["shape"].items():
                    if not is_int(v) or v < 0:
                        bad(lp + ".shape." + k, "not a non-negative integer")
            lint_metrics(lp + ".metrics", ev["metrics"], metrics, verify)
            acc = sums.setdefault(ev["strategy"], {})
            for k, v in flatten(ev["metrics"]).items():
                if is_int(v):
                    acc[k] = acc.get(k, 0) + v
    if doc is None:
        return
    if len(doc["traces"]) != 1:
        bad(path, "per-event sums are checked against a one-trace report")
        return
    for s in doc["traces"][0]["strategies"]:
        total = flatten(s["metrics"])
        got = sums.get(s["name"], {})
        for k, v in total.items():
            if k in GAUGES:
                continue
            if got.get(k, 0) != v:
                bad(path, "%s: %s: per-event sum %d != report total %d"
                    % (s["name"], k, got.get(k, 0), v))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", default=os.environ.get(
        "VT_SRC", os.path.join(os.path.dirname(__file__), "..", "..")))
    ap.add_argument("--per-event")
    ap.add_argument("report", nargs="?")
    a = ap.parse_args()
    global OPTIONS
    OPTIONS = load_options(a.src)
    metrics = load_metrics(a.src)
    if not metrics:
        print("lint-report: no VT_METRICS in core/stats.h", file=sys.stderr)
        return 2
    text = open(a.report).read() if a.report else sys.stdin.read()
    try:
        doc = json.loads(text)
    except ValueError as e:
        print("report: not one JSON document: %s" % e)
        return 1
    verify = lint_report(doc, metrics)
    if a.per_event:
        lint_per_event(a.per_event, doc if not problems else None, metrics, verify)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
