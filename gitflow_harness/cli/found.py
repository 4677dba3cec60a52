"""The workspace a command opens, found from git's own files when they tell what git would.

`gfh status` (each turn's end) and `gfh pills check` (each commit that touches a pill) find
their repository as the hook does (`agent/repo.py`), which spares the `git rev-parse` process
`open_workspace` runs; whatever only git can tell goes to `open_workspace`.
"""

from __future__ import annotations

import os

# Not `typing.TYPE_CHECKING`: these commands do not import typing (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from gitflow_harness.workspace import Workspace

# Set, they tell git where the repository is: git's own discovery answers then.
GIT_PLACES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR")


def found_workspace(
    directory: Path | None, surface: str, *, cached_trunk: bool = True
) -> Workspace:
    """The workspace around `directory`, found as the hook finds its repository: from git's own
    files (`agent/repo.py`), with the trunk of the configuration's shared cache, where
    `open_workspace` would run `git rev-parse` and parse the configuration. Whatever the files
    may not tell as git would (the variables above, a bare repository or a git dir on the way
    up, another owner, another filesystem) is `open_workspace`'s, which asks git.

    Without `cached_trunk` the configuration is read in full when first asked for, by a command
    that needs all of it."""
    from gitflow_harness.workspace import Workspace, open_workspace

    found = _found(directory)
    if found is None:
        return open_workspace(directory, surface=surface)
    from gitflow_harness import git
    from gitflow_harness.hookcall.settings import cached_config

    top, git_dir, common_dir = found
    repo = git.repo_at(top, git_dir, common_dir)
    if not cached_trunk:
        return Workspace(repo, surface=surface)
    try:
        trunk = str(cached_config(top)["repository"]["trunk"])
    except OSError:  # the shared cache cannot be written: read as every command reads it
        return open_workspace(directory, surface=surface)
    return Workspace(repo, surface=surface, trunk=trunk)


def _found(directory: Path | None) -> tuple[str, str, str] | None:
    """The top, git dir and common dir of the worktree around `directory` (real paths, as git
    gives them), or None where only git can tell."""
    if any(os.environ.get(name) for name in GIT_PLACES):
        return None
    from gitflow_harness.agent.repo import locate

    try:
        here = os.path.realpath(directory if directory is not None else os.getcwd())
        info = locate(here)
        if info is None:
            return None
        top = os.path.realpath(info.top)
        if _git_dir_between(here, top) or not _plain_owner(here, top):
            return None
        return top, os.path.realpath(info.git_dir), os.path.realpath(info.common_dir)
    except OSError:
        return None


def _git_dir_between(here: str, top: str) -> bool:
    """True when a directory from `here` up to (not including) `top` is itself a git dir: a
    bare repository, or the inside of `.git`, which git finds first."""
    from gitflow_harness.agent.repo import upwards

    for directory in upwards(here):
        if directory == top:
            break
        if os.path.basename(directory) == ".git" or (
            os.path.isfile(os.path.join(directory, "HEAD"))
            and os.path.isdir(os.path.join(directory, "objects"))
        ):
            return True
    return False


def _plain_owner(here: str, top: str) -> bool:
    """True when this user owns the worktree, on the filesystem `here` is on: git checks the
    owner (`safe.directory`) and stops at a filesystem's edge."""
    mine, at_top = os.stat(here), os.stat(top)
    return at_top.st_uid == os.geteuid() and mine.st_dev == at_top.st_dev
