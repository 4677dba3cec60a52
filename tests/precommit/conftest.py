"""The real pre-commit framework over this repository's hooks, in scratch repositories.

pre-commit builds one environment per (repository, rev): every test here points at the same
published snapshot of this checkout, so a worker builds it once in its `PRE_COMMIT_HOME`
(set by `tests/conftest.py`). `pre-commit try-repo` always builds its own, in a throwaway store.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import ROOT, commit


@dataclass(frozen=True)
class Published:
    """A commit of this checkout as it is now (edits and new files included), by path and rev."""

    path: Path
    rev: str


def _git(cwd: Path, *args: str) -> str:
    # Runs before the per-test hermetic environment: name everything git would look up.
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Test Agent",
        "GIT_AUTHOR_EMAIL": "agent@example.invalid",
        "GIT_COMMITTER_NAME": "Test Agent",
        "GIT_COMMITTER_EMAIL": "agent@example.invalid",
    }
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout


def copy_checkout(target: Path) -> Path:
    """Copy the tracked and untracked-not-ignored files of this checkout into a new repository."""
    listed = _git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for rel in sorted(set(filter(None, listed.split("\0")))):
        source = ROOT / rel
        if not source.exists() and not source.is_symlink():
            continue  # deleted in the working tree, not yet in git
        dest = target / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            dest.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, dest)
    _git(target, "init", "-q", "-b", "main")
    _git(target, "add", "-A")
    _git(target, "commit", "-q", "--no-verify", "-m", "snapshot")
    return target


@pytest.fixture(scope="session")
def published(tmp_path_factory: pytest.TempPathFactory) -> Published:
    """This checkout, committed in a repository of its own, for `repo:` and `try-repo`."""
    path = copy_checkout(tmp_path_factory.mktemp("published") / "gitflow-harness")
    return Published(path, _git(path, "rev-parse", "HEAD").strip())


def pre_commit(
    cwd: Path, *args: str, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the real `pre-commit` (the one installed beside these tests)."""
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
    )


def run_git(
    cwd: Path, *args: str, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a git command that may run hooks; the caller reads the result."""
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
    )


def install(repo: Path, published: Published, hooks: Sequence[str], types: Sequence[str]) -> None:
    """Commit a .pre-commit-config.yaml using `hooks` of the snapshot and install `types`."""
    lines = [
        "repos:",
        f"  - repo: {published.path}",
        f"    rev: {published.rev}",
        "    hooks:",
        *(f"      - id: {hook}" for hook in hooks),
        "",
    ]
    commit(repo, "use the gfh hooks", {".pre-commit-config.yaml": "\n".join(lines)})
    flags = [arg for t in types for arg in ("-t", t)]
    proc = pre_commit(repo, "install", *flags)
    assert proc.returncode == 0, proc.stdout + proc.stderr
