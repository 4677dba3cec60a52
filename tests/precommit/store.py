"""The pre-commit store every test shares, and the snapshot of this checkout it installs gfh from.

Building a hook environment (a virtualenv, then pip and every dependency) is most of what a real
pre-commit run costs. pre-commit keys each environment by hook repository and rev (by the
dependency list, for `repo: local`) and locks its store while it builds, so one store under the
ignored `.cache/` serves every test and worker of a run, and the runs after it: pre-commit's own
key decides when an environment is rebuilt. For that key to hold across runs, the checkout is
published at a path named after its commit, which is made with fixed dates: the same files give
the same rev and install nothing, edited files give a new rev that is built once. What no test
can still use is dropped each time the checkout is published (`pre-commit gc`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from filelock import FileLock
from pre_commit.clientlib import load_manifest
from pre_commit.store import Store

from tests.helpers import ROOT

CACHE = ROOT / ".cache" / "pre-commit"
HOME = CACHE / "home"  # PRE_COMMIT_HOME of every test (tests/conftest.py)
SNAPSHOTS = CACHE / "published"
# The tests that build or run pre-commit's environments: one worker runs them in turn (`--dist
# loadgroup` in pyproject.toml) while the others run the rest, rather than all of them waiting on
# the store's lock at once.
BUILDS = pytest.mark.xdist_group("pre-commit")
# The commit of a snapshot: fixed, so that its rev names its files and nothing else.
SNAPSHOT_DATE = "2000-01-01T00:00:00+0000"


@dataclass(frozen=True)
class Published:
    """A commit of this checkout as it is now (edits and new files included), by path and rev."""

    path: Path
    rev: str


def _git(cwd: Path, *args: str) -> str:
    # Runs outside the per-test hermetic environment: name everything git would look up.
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Test Agent",
        "GIT_AUTHOR_EMAIL": "agent@example.invalid",
        "GIT_AUTHOR_DATE": SNAPSHOT_DATE,
        "GIT_COMMITTER_NAME": "Test Agent",
        "GIT_COMMITTER_EMAIL": "agent@example.invalid",
        "GIT_COMMITTER_DATE": SNAPSHOT_DATE,
    }
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout


def copy_checkout(target: Path) -> Path:
    """Copy the tracked and untracked-not-ignored files of this checkout into a new repository,
    committed with fixed dates: the same files give the same commit."""
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


def config_text(published: Published, hooks: Sequence[str]) -> str:
    """A .pre-commit-config.yaml that uses `hooks` of the snapshot."""
    lines = [
        "repos:",
        f"  - repo: {published.path}",
        f"    rev: {published.rev}",
        "    hooks:",
        *(f"      - id: {hook}" for hook in hooks),
        "",
    ]
    return "\n".join(lines)


def publish() -> Published:
    """This checkout, committed at `.cache/pre-commit/published/<rev>`; the workers of a run
    share it (the first one copies it there, under a lock)."""
    SNAPSHOTS.mkdir(parents=True, exist_ok=True)
    with FileLock(str(CACHE / "published.lock")):
        staging = SNAPSHOTS / f".partial-{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)  # left by a run that was killed
        copy_checkout(staging)
        rev = _git(staging, "rev-parse", "HEAD").strip()
        published = Published(SNAPSHOTS / rev, rev)
        if published.path.exists():
            shutil.rmtree(staging)
        else:
            staging.rename(published.path)
        _prune(published)
    return published


def _prune(current: Published) -> None:
    """Drop the other snapshots, and every environment that neither a test's config still on
    disk, the current snapshot nor this repository's own hooks use (`pre-commit gc`)."""
    for old in SNAPSHOTS.iterdir():
        if old != current.path and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
    keep = CACHE / "keep.yaml"
    ids = [hook["id"] for hook in load_manifest(str(current.path / ".pre-commit-hooks.yaml"))]
    keep.write_text(config_text(current, ids), encoding="utf-8")
    store = Store(str(HOME))
    for config in (keep, ROOT / ".pre-commit-config.yaml"):
        store.mark_config_used(str(config))
    subprocess.run(
        [sys.executable, "-m", "pre_commit", "gc"],
        cwd=CACHE,
        env={**os.environ, "PRE_COMMIT_HOME": str(HOME)},
        check=True,
        capture_output=True,
        stdin=subprocess.DEVNULL,
    )
