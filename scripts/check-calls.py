#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""No two source files of vmaptool (arch/, core/ with core/import/ and
core/inspect/, and cli/) call each other, directly or round a loop
(docs/architecture.md: each floor and each file calls downwards).

Reads the object files of a build (nm: the symbols each defines and the
ones it takes from others), draws an arrow from a file to every file whose
symbols it uses, and fails naming every circle (strongly connected set of
more than one file) with the symbols that tie it.

    scripts/check-calls.py BUILD_DIR
"""
import collections
import os
import subprocess
import sys

LIBS = ("vtarch", "vtcore_obj", "vtimport_obj", "vtinspect_obj", "vtcli_obj")


def objects(build):
    for lib in LIBS:
        top = os.path.join(build, "CMakeFiles", lib + ".dir")
        for d, _, files in os.walk(top):
            for f in files:
                if f.endswith(".o"):
                    path = os.path.join(d, f)
                    yield os.path.relpath(path, top)[:-2], path


def symbols(path):
    out = subprocess.run(["nm", "-P", path], check=True, capture_output=True,
                         text=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        p = line.split()
        if len(p) < 2:
            continue
        (used if p[1] == "U" else defined).add(p[0])
    return defined, used


def circles(graph):
    """Tarjan's strongly connected components of more than one node."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    files = dict(objects(argv[1]))
    if not files:
        print("check-calls: no object files under %s" % argv[1], file=sys.stderr)
        return 2
    owner, uses = {}, {}
    for src, path in files.items():
        defined, used = symbols(path)
        for s in defined:
            owner[s] = src
        uses[src] = used
    graph = collections.defaultdict(set)
    ties = collections.defaultdict(set)
    for src, used in uses.items():
        graph[src]
        for s in used:
            dst = owner.get(s)
            if dst and dst != src:
                graph[src].add(dst)
                ties[(src, dst)].add(s)
    found = circles(graph)
    for comp in found:
        print("circle of %d files: %s" % (len(comp), ", ".join(comp)))
        for a in comp:
            for b in comp:
                if (a, b) in ties:
                    print("  %s -> %s: %s" % (a, b, ", ".join(sorted(ties[(a, b)]))))
    print("check-calls: %d files, %d arrows, %d circle(s)" %
          (len(graph), sum(len(v) for v in graph.values()), len(found)))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
