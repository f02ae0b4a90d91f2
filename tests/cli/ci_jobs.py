#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run a CI job of docs/ci-gate.md as written, the way GitHub Actions or
GitLab CI would, in a scratch repository.

    ci_jobs.py DOC FILE REPO TMP

FILE names the job by the comment on the first line of its yaml block
(".github/workflows/vmaptool-gate.yml", ".gitlab-ci.yml", or
"traces repository: .gitlab-ci.yml"...).  Every line of a step runs but
those that install packages or build (scripts/setup.sh, apt-get, cmake):
the caller puts the vmaptool under test where the build would (REPO's or
the clone's build/ci/vmaptool).  GitHub's ${{ runner.temp }} and
$RUNNER_TEMP are TMP/elsewhere, ${{ vars.NAME }} is $NAME of the
environment; GitLab's /tmp is TMP/elsewhere and a variable of the
environment wins over the file's, as a project's CI/CD variable does.  Exit status: the
first failing step's (later steps run only under "if: always()").
"""
import os
import re
import subprocess
import sys

import yaml

doc, name, repo, tmp = sys.argv[1:5]
elsewhere = os.path.join(tmp, "elsewhere")
os.makedirs(elsewhere, exist_ok=True)
blocks = {}
for b in re.findall(r"```yaml\n(.*?)```", open(doc).read(), re.S):
    first = b.split("\n", 1)[0]
    assert first.startswith("# "), "a yaml block of %s starts with '# FILE'" % doc
    blocks[first[2:].strip()] = b
assert name in blocks, "%s has no yaml block '# %s' (it has %s)" % (doc, name, list(blocks))


def keep(line):
    """A line CI runs here too: not the install or the build."""
    return not any(w in line for w in ("scripts/setup.sh", "apt-get", "cmake "))


def subst(s):
    s = s.replace("${{ runner.temp }}", elsewhere)
    return re.sub(r"\$\{\{ *vars\.([A-Za-z_]+) *\}\}",
                  lambda m: os.environ.get(m.group(1), ""), s)


def run(script, cwd, env):
    lines = [l for l in script.split("\n") if keep(l)]
    return subprocess.run(["bash", "-e", "-o", "pipefail", "-c", "\n".join(lines)],
                          cwd=cwd, env=env).returncode


env = dict(os.environ)
rc = 0
if "gitlab" not in name:
    wf = yaml.safe_load(blocks[name])
    for k, v in (wf.get("env") or {}).items():
        env[k] = subst(str(v))
    job = next(iter(wf["jobs"].values()))
    env.update({"GITHUB_WORKSPACE": repo, "RUNNER_TEMP": elsewhere,
                "GITHUB_STEP_SUMMARY": os.path.join(tmp, "summary.md")})
    failed = False
    for st in job["steps"]:
        if "run" not in st:
            continue
        if failed and "always()" not in str(st.get("if", "")):
            continue
        r = run(subst(st["run"]), subst(st.get("working-directory", repo)), env)
        if r and not failed:
            failed, rc = True, r
    art = [s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
    assert art and art[0]["with"]["path"].endswith("gate*"), "no gate* artifact"
else:
    doc_ = yaml.safe_load(blocks[name])
    job = doc_["vmaptool-gate"]
    # a project's CI/CD variables (the environment) win over the file's
    for k, v in list((job.get("variables") or {}).items()) + \
            list((doc_.get("variables") or {}).items()):
        env.setdefault(k, str(v))
    env["CI_PROJECT_DIR"] = repo
    lines = [re.sub(r"(?<![\w/.])/tmp(?![\w.])", elsewhere, l) for l in job["script"]]
    rc = run("\n".join(lines), repo, env)
    assert job["artifacts"]["reports"]["junit"] == "gate-junit.xml", "no JUnit report"
sys.exit(rc)
