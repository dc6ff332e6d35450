"""The README's and the manual's commands work as written, so a stale one fails CI.

- Every ```python block of the README runs in a fresh interpreter, and so does every block of
  docs/ marked ``<!-- runnable ... -->``; what a line's ``# ... prints: X`` comment quotes
  must be in its output.
- Every shell block marked ``<!-- runnable ... -->`` (the line before its fence) in the
  README or docs/ runs as written, each command in a shell whose ``python`` is this
  interpreter; a path under ``/tmp/`` becomes the test's own temporary folder.
- Every other shell command of the README is checked without its long run: a
  ``python train.py`` command with ``--check`` (the config, the overrides and the run
  folder validated, nothing trained), a ``make`` target with ``make -n``, ``play.py`` with
  moves on its standard input; what cannot be checked here is listed in ``UNCHECKED`` with
  the reason, so a new README command must be run, checked or listed.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\s*$")
RUNNABLE = "<!-- runnable"

# README commands not run or checked here, and why
UNCHECKED = {
    "make test": "this suite itself",
    ".venv/bin/python -m pytest": "a part of this suite",
    "python evaluate.py --exploit": "a learned best response for 5 minutes: tests/test_exploit.py runs it on a tiny budget",
    "python train.py --resume": "needs an interrupted run's folder: tests/test_train_cli.py and tests/test_vine.py resume one",
}


def blocks(path: Path) -> list[tuple[str, bool, str, int]]:
    """``(language, marked runnable, text, line)`` of each fenced block of ``path``."""
    out, lines = [], path.read_text().splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m and m.group(1):
            start, body = i, []
            i += 1
            while not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            marked = start > 0 and lines[start - 1].startswith(RUNNABLE)
            out.append((m.group(1), marked, "\n".join(body), start + 1))
        i += 1
    return out


def commands(text: str) -> list[str]:
    """The shell commands of a block: continuation lines joined, comments dropped."""
    out, cur = [], ""
    for line in text.splitlines():
        line = cur + line.strip()
        if line.endswith("\\"):
            cur = line[:-1] + " "
            continue
        cur = ""
        words = shlex.split(line, comments=True)
        if words:
            out.append(shlex.join(words))
    return out


def _shell_blocks(marked: bool) -> list[tuple[str, str]]:
    return [
        (f"{p.relative_to(ROOT)}:{line}", cmd)
        for p in DOCS
        for lang, is_marked, text, line in blocks(p)
        if lang in ("bash", "sh", "shell") and is_marked == marked
        for cmd in commands(text)
    ]


def _env(tmp_path: Path) -> dict[str, str]:
    bin_dir = Path(sys.executable).parent  # `python` is the venv's the suite runs in, as if activated
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "MPLBACKEND": "Agg"}


def _run(cmd: str, tmp_path: Path, timeout: int, stdin: str | None = None) -> subprocess.CompletedProcess:
    cmd = cmd.replace("/tmp/", f"{tmp_path}/")
    return subprocess.run(
        ["bash", "-c", cmd], cwd=ROOT, env=_env(tmp_path), input=stdin or "", capture_output=True, text=True,
        timeout=timeout,
    )  # fmt: skip


PYTHON_BLOCKS = [(f"README.md:{line}", text) for lang, _, text, line in blocks(ROOT / "README.md") if lang == "python"]
PYTHON_BLOCKS += [
    (f"{p.relative_to(ROOT)}:{line}", text)
    for p in DOCS[1:]
    for lang, marked, text, line in blocks(p)
    if lang == "python" and marked
]
RUNNABLE_CMDS = [(w, c) for c, w in {c: w for w, c in reversed(_shell_blocks(marked=True))}.items()]  # each once


def test_the_docs_have_what_this_test_runs():
    assert len(PYTHON_BLOCKS) >= 3
    runnable = {cmd for _, cmd in RUNNABLE_CMDS}
    assert any("train.py" in c and "--run-dir" in c for c in runnable)  # the smoke run
    assert any(c.startswith("python evaluate.py --exact") for c in runnable)


@pytest.mark.parametrize(("where", "code"), PYTHON_BLOCKS, ids=[w for w, _ in PYTHON_BLOCKS])
def test_python_blocks_run(where, code, tmp_path):
    r = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, f"{where}\n{r.stderr[-3000:]}"
    for said in re.findall(r"# .*prints: (.+)$", code, flags=re.M):  # a figure the text quotes
        assert said.strip() in r.stdout, f"{where}: the block says it prints {said.strip()!r}, it printed {r.stdout!r}"


@pytest.mark.parametrize(("where", "cmd"), RUNNABLE_CMDS, ids=[w for w, _ in RUNNABLE_CMDS])
def test_runnable_commands_run_as_written(where, cmd, tmp_path):
    r = _run(cmd, tmp_path, timeout=600)
    assert r.returncode == 0, f"{where}: {cmd}\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    if "train.py" in cmd and "--run-dir" in cmd:  # the smoke run wrote a whole run folder and its report
        run_dir = Path(shlex.split(cmd.replace("/tmp/", f"{tmp_path}/"))[-1])
        assert (run_dir / "report.md").is_file() and (run_dir / "state.json").is_file(), r.stdout[-2000:]


README_OTHER = [(w, c) for w, c in _shell_blocks(marked=False) if w.startswith("README.md")]


@pytest.mark.parametrize(("where", "cmd"), README_OTHER, ids=[w for w, _ in README_OTHER])
def test_the_other_readme_commands_are_checked(where, cmd, tmp_path):
    if any(cmd.startswith(k) for k in UNCHECKED):
        return
    words = shlex.split(cmd)
    if words[0] == "make":
        targets = [w for w in words[1:] if "=" not in w]
        r = subprocess.run(["make", "-n", *targets], cwd=ROOT, capture_output=True, text=True, timeout=60)
    elif words[:2] == ["python", "train.py"]:
        r = _run(cmd + " --check", tmp_path, 120)
    elif words[:2] == ["python", "play.py"]:
        r = _run(cmd, tmp_path, 120, stdin="STAND\n" * 5)
    else:
        pytest.fail(f"{where}: {cmd!r} is neither run, checked nor listed in UNCHECKED with a reason")
    assert r.returncode == 0, f"{where}: {cmd}\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
