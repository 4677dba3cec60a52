"""The workspace `gfh status` and `gfh pills check` find from git's own files: the one git
finds, wherever git alone can tell it is git's to find."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitflow_harness.cli.found import _plain_owner, found_workspace
from gitflow_harness.workspace import Workspace, open_workspace
from tests.helpers import commit, git, write


def _where(ws: Workspace) -> tuple[object, ...]:
    return (ws.repo, ws.surface, ws.configured_trunk)


@pytest.mark.parametrize("place", ["top", "subdirectory", "worktree", "through a symlink"])
def test_the_workspace_from_gits_files_is_the_one_git_finds(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, place: str
) -> None:
    """Read from the `.git` entry, `commondir` and the configuration's cache, the workspace
    is the one `git rev-parse` and the configuration's parser give: real paths, as git says
    them."""
    write(repo, ".gitflow-harness.toml", '[repository]\ntrunk = "main"\n')
    commit(repo, "configure", {})
    write(repo, "src/deep/x.txt", "x\n")
    git(repo, "worktree", "add", "-q", "-b", "feature/wt", str(tmp_path / "wt"))
    (tmp_path / "link").symlink_to(repo)
    start = {
        "top": repo,
        "subdirectory": repo / "src" / "deep",
        "worktree": tmp_path / "wt",
        "through a symlink": tmp_path / "link" / "src",
    }[place]
    monkeypatch.chdir(start)
    found = found_workspace(None, "mcp")
    assert _where(found) == _where(open_workspace(start, surface="mcp"))
    assert found.known_head is None  # HEAD's commit comes with `git status`
    assert found.label == open_workspace(start).head().label


@pytest.mark.parametrize("variable", ["GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR"])
def test_the_variables_that_place_a_repository_are_gits_to_read(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    """Where git is told where the repository is, git's own discovery answers: run from a
    directory with no repository, `GIT_DIR` and `GIT_WORK_TREE` still find it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    values = {"GIT_DIR": str(repo / ".git"), "GIT_WORK_TREE": str(repo)}
    if variable == "GIT_COMMON_DIR":
        monkeypatch.chdir(repo)
        monkeypatch.setenv("GIT_COMMON_DIR", str(repo / ".git"))
    else:
        monkeypatch.chdir(outside)
        for name, value in values.items():
            monkeypatch.setenv(name, value)
    assert _where(found_workspace(None, "cli")) == _where(open_workspace())


def test_a_worktree_of_another_owner_or_filesystem_is_gits_to_judge(repo: Path) -> None:
    """Ownership (`safe.directory`) and a filesystem's edge are git's checks: the files are
    read only where neither could differ."""
    assert _plain_owner(repo, repo)
    proc = Path("/proc")
    if proc.is_dir() and os.stat(proc).st_dev != os.stat(repo).st_dev:
        assert not _plain_owner(proc, repo)


def test_without_the_cached_trunk_the_configuration_is_read_in_full(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`gfh pills check` needs all of the configuration: it is read when first asked for, as
    `open_workspace` reads it."""
    write(
        repo, ".gitflow-harness.toml", '[repository]\ntrunk = "main"\n[paths]\npills = "lessons"\n'
    )
    monkeypatch.chdir(repo)
    found = found_workspace(None, "cli", cached_trunk=False)
    assert _where(found) == _where(open_workspace())
    assert found.config == open_workspace().config
    assert found.config.paths.pills == "lessons"
