"""The hook's repository lookup agrees with git, reading git's files instead of running it."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness import git as gitgw
from gitflow_harness.agent.repo import locate
from tests.helpers import commit, git, make_repo


def _agree(where: Path) -> None:
    found = locate(where)
    assert found is not None
    repo = gitgw.discover(where)
    assert Path(found.top).resolve() == Path(repo.top).resolve() if repo.top else False
    assert Path(found.git_dir).resolve() == Path(repo.git_dir).resolve()
    assert Path(found.common_dir).resolve() == Path(repo.common_dir).resolve()
    assert found.branch == gitgw.head(repo).label


def test_main_checkout_and_subdirectory(repo: Path) -> None:
    (repo / "src" / "deep").mkdir(parents=True)
    _agree(repo)
    _agree(repo / "src" / "deep")


def test_linked_worktree_shares_the_common_dir(repo: Path, tmp_path: Path) -> None:
    git(repo, "worktree", "add", "-q", "-b", "feature/x", str(tmp_path / "wt"))
    _agree(tmp_path / "wt")
    found = locate(tmp_path / "wt")
    assert found is not None
    assert found.branch == "feature/x"
    assert Path(found.common_dir).resolve() == (repo / ".git").resolve()


def test_detached_head_is_labelled_head(repo: Path) -> None:
    commit(repo, "second", {"a.txt": "a"})
    git(repo, "checkout", "-q", "--detach", "HEAD~1")
    _agree(repo)
    assert locate(repo).branch == "HEAD"  # type: ignore[union-attr]


def test_a_branch_name_that_is_not_utf8_is_read_as_git_gives_it(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "caf\udce9")  # the byte 0xe9, not UTF-8
    assert (repo / ".git" / "HEAD").read_bytes() == b"ref: refs/heads/caf\xe9\n"
    assert locate(repo).branch == "caf\udce9"  # type: ignore[union-attr]


def test_unborn_branch(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "trunk")
    _agree(tmp_path)


def test_submodule_style_gitdir_file(tmp_path: Path) -> None:
    inner = make_repo(tmp_path / "inner")
    moved = tmp_path / "modules" / "inner"
    moved.parent.mkdir()
    (inner / ".git").rename(moved)
    (inner / ".git").write_text("gitdir: ../modules/inner\n")
    git(inner, "config", "core.worktree", str(inner))
    found = locate(inner)
    assert found is not None
    assert found.git_dir == str(moved)
    assert found.common_dir == str(moved)


def test_outside_a_repository_is_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    (tmp_path / "plain").mkdir()
    assert locate(tmp_path / "plain") is None


def test_git_dir_in_the_environment_is_left_to_git(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = make_repo(tmp_path / "elsewhere")
    monkeypatch.setenv("GIT_DIR", str(elsewhere / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(elsewhere))
    found = locate(repo)
    assert found is not None
    assert Path(found.top).resolve() == elsewhere.resolve()


@pytest.mark.parametrize("project_dir", [True, False])
def test_a_hook_whose_directory_was_removed_fails_open_to_the_project(
    repo: Path, project_dir: bool
) -> None:
    """`gfh accept` run by an agent deletes the worktree its hooks then run in. The call is no
    internal error: it records in the project the host names, or quietly nowhere."""
    import json
    import os
    import subprocess
    import sys

    from tests.agent.kit import payload
    from tests.helpers import read_events

    gone = repo.parent / "feature-worktree"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(gone))
    data = json.dumps(payload("claude", "UserPromptSubmit", gone))
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(repo)}
    if not project_dir:
        env.pop("CLAUDE_PROJECT_DIR")
    # The shell enters the worktree, deletes it, and becomes the hook: its cwd is gone.
    proc = subprocess.run(
        [
            "sh",
            "-c",
            'cd "$1" && rm -rf "$1" && exec "$2" -m gitflow_harness hook claude UserPromptSubmit',
            "sh",
            str(gone),
            sys.executable,
        ],
        input=data,
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 0
    assert "internal error" not in proc.stderr
    started = [e for e in read_events(repo) if e["type"] == "turn.started"]
    assert len(started) == (1 if project_dir else 0)
