#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write vmaptool(1) and vmaptool-COMMAND(1) from the built binary's --help.

The pages are generated from the argp tables (the same text --help
prints), so they cannot drift from the options the binary takes.  The
sections --help has no text for come from the source tree: EXAMPLES from
the command lines of README.md's "Examples" and the command's
docs/vmaptool-COMMAND.md, EXIT STATUS from docs/exit-codes.md's table,
ENVIRONMENT and FILES from the lists below (tests/cli/test-man-sections.sh
checks them against the getenv() calls and the installed share/ folders).
Run by the build (CMakeLists.txt) and by tests/cli/test-man-sections.sh:

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


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Every variable vmaptool reads (getenv() in cli/ and core/), and glibc
# argp's own.
ENVIRONMENT = [
    ("VMAPTOOL_PROFILES", "the folder of the cost profiles --profile=NAME names, "
     "instead of share/vmaptool/profiles (docs/cost-model.md)"),
    ("NO_COLOR", "set and not empty: no colour under --color=auto (the default)"),
    ("TERM", "dumb: no colour under --color=auto"),
    ("TMPDIR", "the folder of the unlinked temporary files gen stages a trace for "
     "standard output in and import spools a pipe and its events in; /tmp when unset "
     "or empty"),
    ("ARGP_HELP_FMT", "read by glibc's argp: the layout of --help"),
]

# What the binary reads from <bindir>/../share/vmaptool (or, run from the
# build tree, the source tree), and what the install adds beside it.
FILES = [
    ("<prefix>/share/vmaptool/traces/",
     "the bundled traces; a TRACE that names no file and holds no '/' is read "
     "from here (NAME, NAME.json or NAME.jsonl): vmaptool replay default"),
    ("<prefix>/share/vmaptool/profiles/",
     "the cost profiles, one NAME.json each (--profile=NAME; vmaptool profiles "
     "lists them; calibrate --write rewrites them)"),
    ("<prefix>/share/vmaptool/calibration/figures.json",
     "the published figures vmaptool calibrate fits the profiles to"),
    ("<prefix>/share/bash-completion/completions/vmaptool", "the bash completion"),
]


def examples(cmd):
    """The command lines for @cmd (None: every command) of README.md's
    Examples and of docs/vmaptool-@cmd.md, in order, without repeats."""
    def lines(path, only_examples):
        try:
            text = open(os.path.join(ROOT, path)).read()
        except OSError:
            return []
        if only_examples:
            text = text.split("## Examples", 1)[-1].split("\n## ", 1)[0]
        out, fenced = [], False
        for line in text.split("\n"):
            if line.startswith("```"):
                fenced = not fenced
                continue
            if not fenced and not line.startswith("    "):
                continue
            line = re.sub(r"^\s*(\$ )?", "", line)
            line = re.sub(r"\s+# .*$", "", line).rstrip()
            words = line.split()
            if (len(words) >= 2 and words[0] == "vmaptool" and
                    (cmd is None or words[1] == cmd) and "[" not in line and
                    "..." not in line and "|" not in line.split("'")[0]):
                out.append(line)
        return out
    seen, out = set(), []
    src = lines("README.md", True)
    if cmd is not None:
        src += lines(SECTIONS.get(cmd, f"docs/vmaptool-{cmd}.md"), False)
    for line in src:
        if line not in seen:
            seen.add(line)
            out.append(line)
    return out


def exit_status(cmd):
    """(code, meaning) of docs/exit-codes.md's table; code 1 is gate's
    alone (vt_exit_code() in cli/diag.c: a regression or a missing trace),
    so a page of another command leaves it out."""
    out = []
    for line in open(os.path.join(ROOT, "docs/exit-codes.md")):
        m = re.match(r"^\| (\d+) \| ([^|]*) \|", line)
        if m and (m.group(1) != "1" or cmd in (None, "gate")):
            out.append((m.group(1), m.group(2).strip().replace("`", "")))
    return out


def extra_sections(cmd):
    out = [".SH EXAMPLES"]
    for line in examples(cmd):
        out += [".PP", ".nf", esc(line), ".fi"]
    out += [".PP", esc("The traces/ and tests/ paths are the source tree's; "
                       "an installed vmaptool finds the bundled traces by name "
                       "(see FILES)."), ".SH EXIT STATUS"]
    for code, meaning in exit_status(cmd):
        out += [".TP", f".B {code}", esc(meaning)]
    out += [".PP", esc("docs/exit-codes.md in the source tree gives examples of each."),
            ".SH ENVIRONMENT"]
    for name, text in ENVIRONMENT:
        out += [".TP", f".B {esc(name)}", esc(text)]
    out.append(".SH FILES")
    for name, text in FILES:
        out += [".TP", f".B {esc(name)}", esc(text)]
    out += [".PP", esc("<prefix> is the folder above the one holding the vmaptool "
                       "binary, so a moved prefix keeps working.")]
    return out


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


def page(name, summary, help_text, see_also, version, cmd=None):
    lines = help_text.rstrip("\n").split("\n")
    usage = lines[0][len("Usage: "):] if lines[0].startswith("Usage: ") else lines[0]
    rest = lines[1:]
    out = [f'.TH {name.upper()} 1 "" "vmaptool {version}" "vmaptool manual"',
           ".SH NAME", f"{esc(name)} \\- {esc(summary)}",
           ".SH SYNOPSIS", f".B {esc(usage)}", ".SH DESCRIPTION"]
    i, para = 0, []
    # the doc paragraph (argp's column 0) up to the first option line or
    # group header (column 1), the header's first line, not the one with
    # its ':': a header argp wraps over two lines is one .SS
    while i < len(rest) and not re.match(r"^ \S|^\s+-", rest[i]):
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
    out += extra_sections(cmd)
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
                     "vmaptool(1); docs/vmaptool-help.md in the source tree", version,
                     "help"))
    for c, s in cmds:
        with open(os.path.join(outdir, f"vmaptool-{c}.1"), "w") as f:
            f.write(page(f"vmaptool-{c}", s, run(binary, c, "--help"),
                         f"vmaptool(1); {SECTIONS.get(c, '')} in the source tree",
                         version, c))


if __name__ == "__main__":
    main()
