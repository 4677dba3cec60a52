"""Helpers for tests: real git repositories and the CLI run in-process."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def git(cwd: Path, *args: str, check: bool = True, env: Mapping[str, str] | None = None) -> str:
    """Run git in `cwd` and return stdout."""
    proc = subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
    return proc.stdout


def make_repo(path: Path, files: Mapping[str, str] | None = None, *, branch: str = "main") -> Path:
    """Create a repository at `path` with `files` (default: a README) in one commit."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", branch)
    for rel, text in (files or {"README.md": "# test\n"}).items():
        write(path, rel, text)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial")
    return path


def reftable_repo(parent: Path) -> Path:
    """A repository whose refs are in a reftable, with one commit on main; the test is skipped
    where this git has no reftable."""
    import pytest

    git(parent, "init", "-q", "--ref-format=reftable", "-b", "main", "rt", check=False)
    top = parent / "rt"
    if not (top / ".git").is_dir():
        pytest.skip("this git has no reftable (`git init --ref-format=reftable` refused)")
    commit(top, "first", {"a.txt": "a\n"})
    return top


def write(root: Path, rel: str, text: str) -> Path:
    """Write `text` to `root/rel`, creating directories."""
    target = root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target


def commit(root: Path, message: str, files: Mapping[str, str]) -> str:
    """Write `files`, commit them, and return the new sha."""
    for rel, text in files.items():
        write(root, rel, text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def diverge(
    repo: Path,
    branch: str,
    ours: Mapping[str, str],
    theirs: Mapping[str, str],
    *,
    trunk: str = "main",
) -> None:
    """Branch `branch` off `trunk` and commit `ours` on it, then commit `theirs` on `trunk`:
    each has a commit the other lacks. `branch` is left checked out."""
    git(repo, "switch", "-q", "-c", branch)
    commit(repo, f"{branch} work", ours)
    git(repo, "switch", "-q", trunk)
    commit(repo, f"{trunk} work", theirs)
    git(repo, "switch", "-q", branch)


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


class CliRunner:
    """Call `gitflow_harness.main.main` in-process, capturing its streams."""

    def __call__(self, *args: str, stdin: str = "", env: Mapping[str, str] | None = None) -> Result:
        from gitflow_harness.main import main

        out, err = io.StringIO(), io.StringIO()
        old_env = {k: os.environ.get(k) for k in (env or {})}
        old_stdin = sys.stdin
        try:
            os.environ.update(env or {})
            sys.stdin = io.StringIO(stdin)
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(list(args))
        finally:
            sys.stdin = old_stdin
            for k, v in old_env.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        return Result(code, out.getvalue(), err.getvalue())


def through_click(*args: str) -> Result:
    """Run `gfh ARGS` in-process through the Click tree, as `main` runs every command it does
    not send past Click."""
    from gitflow_harness.cli import run

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(list(args))
    return Result(code, out.getvalue(), err.getvalue())


def same_both_ways(gfh: CliRunner, *args: str) -> Result:
    """Run `gfh ARGS` through `main` and through Click; assert both printed and exited alike."""
    fast = gfh(*args)
    slow = through_click(*args)
    assert (fast.code, fast.out, fast.err) == (slow.code, slow.out, slow.err)
    return fast


def run_gfh(
    *args: str, cwd: Path, stdin: str | None = None, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `python -m gitflow_harness` as a real subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "gitflow_harness", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        stdin=None if stdin is not None else subprocess.DEVNULL,
    )


def read_events(repo: Path) -> list[dict[str, Any]]:
    """Return every envelope in the repository's event log, in file order."""
    common = Path(git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip())
    out: list[dict[str, Any]] = []
    for path in sorted((common / "gitflow-harness" / "events").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            out.append(json.loads(line))
    return out


def unmeasured_env() -> dict[str, str]:
    """The environment without coverage's subprocess start-up, for tests that count imports.

    Under `make test`, coverage measures every Python subprocess, and its start-up imports
    modules (dataclasses, typing) that gfh itself never loads on the hook path.
    """
    return {
        k: v
        for k, v in os.environ.items()
        if k not in {"COVERAGE_PROCESS_START", "COVERAGE_PROCESS_CONFIG"}
        and not k.startswith("COV_CORE_")
    }


def probe(
    code: str, *, cwd: Path | None = None, stdin: str | None = None, check: bool = False
) -> subprocess.CompletedProcess[str]:
    """Run `code` in a fresh interpreter (`python -c`), unmeasured (see `unmeasured_env`):
    for tests that look at what a process imports or does on its own."""
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        check=check,
        env=unmeasured_env(),
    )
