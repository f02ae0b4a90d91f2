#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write vmaptool(1) and vmaptool-COMMAND(1) from the built binary's --help.

The pages are generated from the argp tables (the same text --help
prints), so they cannot drift from the options the binary takes.  Run by
the build (CMakeLists.txt) and by tests/install/test-install.sh:

    gen-man.py VMAPTOOL OUTDIR
"""
import os
import re
import subprocess
import sys

SECTIONS = {
    "replay": "docs/vmaptool-replay.md", "compare": "docs/vmaptool-compare.md",
    "gate": "docs/vmaptool-gate.md", "gen": "docs/vmaptool-gen.md",
    "import": "docs/vmaptool-import.md", "ptdump": "docs/vmaptool-ptdump.md",
    "inspect": "docs/vmaptool-inspect.md", "strategies": "docs/vmaptool-strategies.md",
    "profiles": "docs/vmaptool-profiles.md",
}


def run(binary, *args):
    env = dict(os.environ, COLUMNS="80", LC_ALL="C", NO_COLOR="1")
    env.pop("ARGP_HELP_FMT", None)
    r = subprocess.run([binary, *args], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"gen-man: {binary} {' '.join(args)} exited {r.returncode}: {r.stderr}")
    return r.stdout


def esc(text):
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join(("\\&" + l) if l.startswith((".", "'")) else l
                     for l in text.split("\n"))


def commands(top_help, rest=None):
    """(name, summary) of the Commands: list; the lines after it in @rest."""
    out, on = [], False
    for line in top_help.split("\n"):
        if line.startswith("Commands:"):
            on = True
            continue
        if on == "done":
            if rest is not None:
                rest.append(line)
            continue
        if on:
            m = re.match(r"  (\S+)\s+(.*)", line)
            if not m:
                on = "done"
                if rest is not None:
                    rest.append(line)
                continue
            out.append((m.group(1), m.group(2)))
    return out


def page(name, summary, help_text, see_also, version):
    lines = help_text.rstrip("\n").split("\n")
    usage = lines[0][len("Usage: "):] if lines[0].startswith("Usage: ") else lines[0]
    rest = lines[1:]
    out = [f'.TH {name.upper()} 1 "" "vmaptool {version}" "vmaptool manual"',
           ".SH NAME", f"{esc(name)} \\- {esc(summary)}",
           ".SH SYNOPSIS", f".B {esc(usage)}", ".SH DESCRIPTION"]
    i, para = 0, []
    # the doc paragraph up to the first option header or option line
    while i < len(rest) and not re.match(r"^ \S.*:$|^ \S.*:\s*$|^\s+-", rest[i]):
        if rest[i].strip():
            para.append(rest[i].strip())
        elif para:
            out += [esc(" ".join(para)), ".PP"]
            para = []
        i += 1
    if para:
        out.append(esc(" ".join(para)))
    out.append(".SH OPTIONS")
    opt = None
    tail = []
    header = []
    for line in rest[i:]:
        # "-j, --json", "-o, --output=FILE", "--color[=auto|always|never]"
        m = re.match(r"^ {2,6}(-[^\s,]+(?:, -[^\s,]+)*)(?:\s+(\S.*))?$", line)
        if m:
            if opt:
                out += [".TP", f".B {esc(opt[0])}", esc(" ".join(opt[1]))]
            opt = (m.group(1).strip(), [m.group(2)] if m.group(2) else [])
            continue
        if opt and re.match(r"^\s{20,}\S", line):
            opt[1].append(line.strip())
            continue
        if opt:
            out += [".TP", f".B {esc(opt[0])}", esc(" ".join(opt[1]))]
            opt = None
        if re.match(r"^ \S", line):          # an option group header
            header.append(line.strip())
            if line.rstrip().endswith(":"):
                out += [".SS " + esc(" ".join(header))]
                header = []
            continue
        if header and re.match(r"^ \S", line) is None and line.strip():
            header.append(line.strip())
            if line.rstrip().endswith(":"):
                out += [".SS " + esc(" ".join(header))]
                header = []
            continue
        tail.append(line)
    if opt:
        out += [".TP", f".B {esc(opt[0])}", esc(" ".join(opt[1]))]
    text = "\n".join(tail).strip()
    if text:
        out.append(".SH NOTES")
        for p in re.split(r"\n\s*\n", text):
            if p.startswith("Commands:"):
                out += [".SS Commands"]
                after = []
                for c, s in commands(p, after):
                    out += [".TP", f".B {esc(c)}", esc(s)]
                if any(l.strip() for l in after):
                    out += [".PP", esc(" ".join(l.strip() for l in after))]
                out.append(".PP")
                continue
            out += [esc(" ".join(l.strip() for l in p.split("\n"))), ".PP"]
    out += [".SH SEE ALSO", esc(see_also)]
    return "\n".join(out) + "\n"


def main():
    binary, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    version = run(binary, "--version").split()[-1]
    top = run(binary, "--help")
    cmds = [(c, s) for c, s in commands(top) if c != "help"]
    see = ", ".join(f"vmaptool-{c}(1)" for c, _ in cmds)
    with open(os.path.join(outdir, "vmaptool.1"), "w") as f:
        f.write(page("vmaptool", "replay vmap/vmalloc/ioremap traces through a "
                     "model of the arm64 kernel-mapping engine", top, see, version))
    # vmaptool help [COMMAND]: the top-level text, or COMMAND --help
    with open(os.path.join(outdir, "vmaptool-help.1"), "w") as f:
        f.write(page("vmaptool-help", "this text, or a command's: vmaptool help [COMMAND]",
                     run(binary, "help").replace("Usage: vmaptool [OPTION...] COMMAND [ARG...]",
                                                 "Usage: vmaptool help [COMMAND]", 1),
                     "vmaptool(1); docs/vmaptool-help.md in the source tree", version))
    for c, s in cmds:
        with open(os.path.join(outdir, f"vmaptool-{c}.1"), "w") as f:
            f.write(page(f"vmaptool-{c}", s, run(binary, c, "--help"),
                         f"vmaptool(1); {SECTIONS.get(c, '')} in the source tree",
                         version))


if __name__ == "__main__":
    main()
