"""The real pre-commit framework over this repository's hooks, in scratch repositories.

Every test points at the same published snapshot of this checkout (the `published` fixture of
`tests/conftest.py`) and shares one pre-commit store, so an environment is built once per run,
and only when its input changed since the last one (`tests/precommit/store.py`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.helpers import commit, unmeasured_env
from tests.precommit.store import Published, config_text


def pre_commit(
    cwd: Path, *args: str, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the real `pre-commit` (the one installed beside these tests). Coverage does not
    measure it: the hooks it runs, gfh's included, run in its own environments, where coverage
    is not installed, so measuring pre-commit would only add coverage's start-up to each run."""
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**unmeasured_env(), **(env or {})},
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
    commit(repo, "use the gfh hooks", {".pre-commit-config.yaml": config_text(published, hooks)})
    flags = [arg for t in types for arg in ("-t", t)]
    proc = pre_commit(repo, "install", *flags)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def run_hook(repo: Path, published: Published, hook: str) -> subprocess.CompletedProcess[str]:
    """Run one hook of the snapshot on every file of `repo`, as `pre-commit try-repo` does (a
    config outside the repository that names the snapshot, its rev and the hook), from the
    shared store rather than a throwaway one that would build the environment again."""
    config = repo.parent / f"{repo.name}-{hook}.pre-commit-config.yaml"
    config.write_text(config_text(published, [hook]), encoding="utf-8")
    return pre_commit(repo, "run", "--config", str(config), hook, "--all-files")
