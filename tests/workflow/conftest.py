"""Scenes for the workflow verbs: a trunk with a feature worktree, gate commands, sessions."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from gitflow_harness import git as gitmod
from tests.helpers import commit, git, make_repo

SESSION = "claude:7f3e2a91-session"


def configure(repo: Path, *, prepare: Sequence[str] = (), test: Sequence[str] = ()) -> None:
    """Commit a .gitflow-harness.toml with these gate commands on the current branch."""
    lines = ["[gate]", f"prepare = {_toml_list(prepare)}", f"test = {_toml_list(test)}", ""]
    commit(repo, "configure the gate", {".gitflow-harness.toml": "\n".join(lines)})


def _toml_list(items: Sequence[str]) -> str:
    import json

    return "[" + ", ".join(json.dumps(i) for i in items) + "]"


def add_worktree(repo: Path, branch: str = "feature/x") -> Path:
    """Create `branch` from main in a worktree beside the repository; return its path."""
    path = repo.parent / "repo.worktrees" / branch.replace("/", "-")
    git(repo, "worktree", "add", "-q", "-b", branch, str(path), "main")
    return path


@pytest.fixture
def feature(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A feature/x worktree of `repo`, the current directory."""
    path = add_worktree(repo)
    monkeypatch.chdir(path)
    return path


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    """A file outside every worktree where gate commands log that they ran."""
    return tmp_path / "ran.log"


def runs(marker: Path) -> list[str]:
    """The gate commands that logged to `marker`, in order."""
    return marker.read_text().split() if marker.exists() else []


def tree(path: Path) -> str:
    """The tree identity of the working tree at `path`."""
    return gitmod.tree_identity(gitmod.discover(path))


@pytest.fixture
def gated(feature: Path, marker: Path) -> Path:
    """feature/x with a prepare that always passes and a test that passes once ok.txt exists."""
    configure(
        feature,
        prepare=[f"echo prepare >> {marker}"],
        test=[f"echo test >> {marker}", "test -f ok.txt"],
    )
    return feature


@pytest.fixture
def shallow_feature(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `--depth 1` clone on a feature branch whose merge base with main was cut off."""
    origin = make_repo(tmp_path / "origin")
    git(origin, "switch", "-q", "-c", "feature/old")
    commit(origin, "feature work", {"f.txt": "f\n"})
    git(origin, "switch", "-q", "main")
    for i in range(3):
        commit(origin, f"trunk {i}", {f"t{i}.txt": "t\n"})
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", "--no-single-branch", f"file://{origin}", "clone")
    git(clone, "switch", "-q", "feature/old")
    monkeypatch.chdir(clone)
    return clone


@pytest.fixture
def session(monkeypatch: pytest.MonkeyPatch) -> str:
    """An agent session: $GFH_SESSION is set."""
    monkeypatch.setenv("GFH_SESSION", SESSION)
    return SESSION


def verb_events(repo: Path, verb: str | None = None) -> list[dict[str, Any]]:
    from tests.helpers import read_events

    return [
        e
        for e in read_events(repo)
        if e["type"] == "verb" and (verb is None or e["data"]["verb"] == verb)
    ]
