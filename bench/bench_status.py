"""`gfh status` in a feature worktree of a repository with 20,000 commits and 1,000 files,
against `git status --porcelain=v2 --branch` in the same worktree (what the box adds: the trunk,
ahead/behind, the tree identity, the gate of this tree, the task, one event appended): asked
again about the same state (once the edit is older than the tree identity's two seconds of
settling), and asked first after an edit.

Both targeted cases run gfh as a user's install runs it: a virtual environment of its own with
the package in its site-packages and the console script pip writes, the
dependencies reached through one `.pth` line, as pipx reaches its shared pip; the interpreter
starts with its site as usual. This checkout's own venv is an editable install: setuptools'
finder, which it imports at every interpreter start (`pathlib`, `importlib.util`, `fnmatch`,
`urllib.parse`), makes a bare `python -c pass` there cost more than twice what it does in the
installed layout, and no user runs it; against `git status` that cost fell on gfh alone. The
same-state call in the editable venv is still measured, last and without a target, for scale.
Each call has a user's environment: gfh's state under a home of the benchmark's own, where the
XDG rule puts it, with no `$GFH_STATE_HOME` (`runner.user_env`).
"""

from __future__ import annotations

import itertools
import os
import subprocess
import time
from pathlib import Path

from bench.bench_hook import _gfh_argv, installed
from bench.runner import Measurement, compare, time_once, user_env
from gitflow_harness.workflow.tree_identity import SETTLED_NS

COMMITS = 20_000
FILES = 1_000
TARGET = 8.0
ROOT = Path(__file__).resolve().parent.parent


def run(work: Path) -> list[Measurement]:
    feature = feature_worktree(work)
    edited = feature / "src" / "f00001.txt"
    edited.write_text("an edit in progress\n", encoding="utf-8")
    # A user's: gfh's state where the XDG rule puts it, no `$GFH_STATE_HOME`; git, in the
    # baseline as in gfh, with the same home.
    user, _ = user_env(work)
    env = {"GFH_SESSION": "claude:bench", **user}
    gfh = installed(work / "installed", "status")
    # time_once accepts exit 1 (a verb's failure): make sure the installed gfh shows the box.
    shown = subprocess.run(gfh, cwd=feature, env={**os.environ, **env}, capture_output=True)
    if not shown.stdout.startswith("┌─ gfh".encode()):
        raise RuntimeError(f"the installed gfh status failed: {shown.stderr.decode()[-500:]}")
    # The same state asked again: the edit is older than the tree identity's settling time,
    # so its cached identity is used, as it is for every call but the first after an edit
    # (measured next). Measured sooner, each call would be the first after an edit.
    time.sleep(SETTLED_NS / 1e9 + 0.5)
    baseline = ["git", "status", "--porcelain=v2", "--branch"]
    steady = compare(
        f"gfh status ({COMMITS:,} commits, {FILES:,} files, one edit)",
        lambda: time_once(gfh, cwd=feature, env=env),
        "git status --porcelain=v2 --branch",
        lambda: time_once(baseline, cwd=feature, env=user),
        runs=21,
        target=TARGET,
    )
    steady.notes.append(
        "the worktree is 40 commits behind main and 1 ahead, with one modified file; the same "
        "state asked about again, as an agent asks at the end of each turn"
    )
    edits = itertools.count()

    def after_an_edit() -> float:
        edited.write_text(f"an edit in progress, take {next(edits)}\n", encoding="utf-8")
        return time_once(gfh, cwd=feature, env=env)

    first = compare(
        "gfh status, the first call after an edit",
        after_an_edit,
        "git status --porcelain=v2 --branch",
        lambda: time_once(baseline, cwd=feature, env=user),
        runs=21,
        target=TARGET,
    )
    first.notes.append(
        "the file is rewritten before each call (untimed), so the tree identity is computed "
        "from a temporary index every time, as on the first call after an agent's edit"
    )
    time.sleep(SETTLED_NS / 1e9 + 0.5)  # the last edit above settles: the same state again
    editable = _gfh_argv("status")
    checkout = compare(
        "gfh status, same state, in this checkout's editable venv (no target)",
        lambda: time_once(editable, cwd=feature, env=env),
        "git status --porcelain=v2 --branch",
        lambda: time_once(baseline, cwd=feature, env=user),
        runs=21,
    )
    checkout.notes.append(
        "the editable install's finder and this venv's `.pth` files run at every interpreter "
        "start here, gfh or not: what a contributor's checkout pays on top of an install"
    )
    return [steady, first, checkout]


def feature_worktree(work: Path) -> Path:
    """The big repository at `work/repo`, and a feature worktree 40 commits behind its trunk
    with one commit of its own: where an agent runs gfh. Return the worktree."""
    repo = work / "repo"
    build(repo)
    feature = work / "repo.worktrees" / "feature-bench"
    _git(repo, "worktree", "add", "-q", "-b", "feature/bench", str(feature), "main~40")
    (feature / "work.txt").write_text("feature work\n", encoding="utf-8")
    _git(feature, "add", "work.txt")
    _git(feature, "commit", "-q", "-m", "feature work")
    return feature


def build(repo: Path) -> None:
    """Create `repo` with COMMITS commits on main touching FILES files, via `git fast-import`."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    stream = bytearray()
    mark = 0

    def blob(text: str) -> int:
        nonlocal mark
        mark += 1
        data = text.encode()
        stream.extend(b"blob\nmark :%d\ndata %d\n%s\n" % (mark, len(data), data))
        return mark

    when = 1_700_000_000
    for n in range(COMMITS):
        changes = (
            [(f"src/f{i:05d}.txt", blob(f"file {i}\n")) for i in range(FILES)]
            if n == 0
            else [(f"src/f{n % FILES:05d}.txt", blob(f"file {n % FILES} revision {n}\n"))]
        )
        mark += 1
        message = f"commit {n}".encode()
        stream.extend(
            b"commit refs/heads/main\nmark :%d\n"
            b"committer Bench <bench@example.invalid> %d +0000\ndata %d\n%s\n"
            % (mark, when + n * 60, len(message), message)
        )
        for path, blob_mark in changes:
            stream.extend(b"M 100644 :%d %s\n" % (blob_mark, path.encode()))
        stream.extend(b"\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=bytes(stream), check=True)
    _git(repo, "reset", "-q", "--hard", "main")


IDENTITY = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


def _git(cwd: Path, *args: str) -> None:
    env = {**os.environ, **IDENTITY}
    subprocess.run(["git", *args], cwd=cwd, check=True, stdin=subprocess.DEVNULL, env=env)
