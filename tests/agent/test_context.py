"""What a hook call knows: paths made repo-relative, settings read with their declared defaults."""

from __future__ import annotations

import os
from pathlib import Path

from gitflow_harness.agent.context import repo_relative
from gitflow_harness.agent.repo import RepoInfo, locate
from gitflow_harness.hookcall.settings import setting
from tests.helpers import git, make_repo


def _repo(top: Path) -> RepoInfo:
    return RepoInfo(top, top / ".git", top / ".git", "main")


def test_paths_become_repo_relative_and_outside_ones_are_dropped(tmp_path: Path) -> None:
    top = tmp_path / "repo"
    (top / "src").mkdir(parents=True)
    repo = _repo(top)
    paths = (
        f"{top}/src/a.py",
        "../b.py",  # relative to the call's cwd, src/
        "/other/a.py",
        f"{tmp_path}/repository/a.py",  # a sibling whose name starts like the top
        str(top),
    )
    assert repo_relative(paths, str(top / "src"), repo) == ("src/a.py", "b.py")
    assert repo_relative(("c.py",), None, repo) == ("c.py",)
    assert repo_relative(("c.py",), None, None) == ()


def test_a_path_through_a_symlinked_top_is_still_inside(tmp_path: Path) -> None:
    top = tmp_path / "repo"
    top.mkdir()
    link = tmp_path / "link"
    os.symlink(top, link)
    assert repo_relative((f"{link}/a.py",), None, _repo(top)) == ("a.py",)


def test_a_setting_the_data_lacks_is_its_declared_default() -> None:
    config = {"ways": {"floor": 0.25}}
    assert setting(config, "ways", "floor") == 0.25
    assert setting(config, "ways", "budget_chars") == 9000
    assert setting({}, "ways", "postcheck_timeout_s") == 5.0
    assert setting({}, "paths", "ways") == "hooks/ways"


def test_a_path_in_a_worktree_of_the_repository_is_relative_to_that_worktree(
    tmp_path: Path,
) -> None:
    """If the agent touches files in linked worktrees — outside the main checkout, as `gfh
    start` makes them, or inside it — then each path is relative to its own worktree; a
    nested repository of its own stays a path of the checkout that holds it."""
    top = make_repo(tmp_path / "proj")
    repo = locate(top)
    assert repo is not None
    outside = tmp_path / "proj.worktrees" / "f1"
    inside = top / ".worktrees" / "f2"
    for name, path in (("f1", outside), ("f2", inside)):
        git(top, "worktree", "add", "-q", "-b", name, str(path))
    vendored = make_repo(top / "vendor" / "lib")
    paths = (
        f"{outside}/src/a.py",
        f"{inside}/src/new/b.py",  # a file, and its folder, that do not exist yet
        f"{vendored}/x.py",
        f"{top}/README.md",
    )
    assert repo_relative(paths, str(top), repo) == (
        "src/a.py",
        "src/new/b.py",
        "vendor/lib/x.py",
        "README.md",
    )
    other = make_repo(tmp_path / "other")
    assert repo_relative((f"{other}/src/a.py",), str(top), repo) == ()
