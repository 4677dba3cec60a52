"""`gfh status`: the run its Click command and `main.py`'s path without Click share.

`gfh status` runs at the end of every turn of an agent, so `main.py` sends the flags this module
knows past Click (~35 ms to import) straight to `show`; anything else (`--help`, a misspelt
flag, `-v` before the command) goes through Click.
"""

from __future__ import annotations

import os

from gitflow_harness.cli import flags
from gitflow_harness.cli._verb import run_verb

# Not `typing.TYPE_CHECKING`: `gfh status` does not import typing (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from gitflow_harness.workflow.result import VerbResult
    from gitflow_harness.workflow.run import Console
    from gitflow_harness.workspace import Workspace

# Every option of the Click command (`cli/workflow.py`), each a flag, as its parameter name.
FLAGS = {"--end-turn": "end_turn", "--json": "as_json"}


def without_click(args: Sequence[str]) -> Callable[[], int] | None:
    """Return the run of `gfh status ARGS`, or None when Click is to parse `args`."""
    given = flags(args, FLAGS)
    return None if given is None else lambda: show(**given)


def show(*, end_turn: bool, as_json: bool) -> int:
    """Run `status` and print its box (or its `--json` object) and hints; return the exit code."""

    def action(ws: Workspace, console: Console) -> VerbResult:
        from gitflow_harness.workflow.status import status

        return status(ws, end_turn=end_turn)

    flags = ["--end-turn"] if end_turn else []
    return run_verb(
        "status", action, as_json=as_json, flags=flags, render=_render, opener=_workspace
    )


# Set, they tell git where the repository is: git's own discovery answers then.
GIT_PLACES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR")


def _workspace(directory: Path | None, surface: str) -> Workspace:
    """The workspace around `directory`, found as the hook finds its repository: from git's own
    files (`agent/repo.py`), with the trunk of the configuration's shared cache, where
    `open_workspace` would run `git rev-parse` and parse the configuration. Whatever the files
    may not tell as git would (the variables above, a bare repository or a git dir on the way
    up, another owner, another filesystem) is `open_workspace`'s, which asks git."""
    from gitflow_harness.workspace import Workspace, open_workspace

    found = _found(directory)
    if found is None:
        return open_workspace(directory, surface=surface)
    from gitflow_harness import git
    from gitflow_harness.hookcall.settings import cached_config

    top, git_dir, common_dir = found
    try:
        trunk = str(cached_config(top)["repository"]["trunk"])
    except OSError:  # the shared cache cannot be written: read as every command reads it
        return open_workspace(directory, surface=surface)
    return Workspace(git.repo_at(top, git_dir, common_dir), surface=surface, trunk=trunk)


def _found(directory: Path | None) -> tuple[Path, Path, Path] | None:
    """The top, git dir and common dir of the worktree around `directory` (real paths, as git
    gives them), or None where only git can tell."""
    if any(os.environ.get(name) for name in GIT_PLACES):
        return None
    from pathlib import Path

    from gitflow_harness.agent.repo import locate

    try:
        here = Path(os.path.realpath(directory if directory is not None else os.getcwd()))
        info = locate(here)
        if info is None:
            return None
        top = Path(os.path.realpath(info.top))
        if _git_dir_between(here, top) or not _plain_owner(here, top):
            return None
        return top, Path(os.path.realpath(info.git_dir)), Path(os.path.realpath(info.common_dir))
    except OSError:
        return None


def _git_dir_between(here: Path, top: Path) -> bool:
    """True when a directory from `here` up to (not including) `top` is itself a git dir: a
    bare repository, or the inside of `.git`, which git finds first."""
    for directory in (here, *here.parents):
        if directory == top:
            break
        if directory.name == ".git" or (
            (directory / "HEAD").is_file() and (directory / "objects").is_dir()
        ):
            return True
    return False


def _plain_owner(here: Path, top: Path) -> bool:
    """True when this user owns the worktree, on the filesystem `here` is on: git checks the
    owner (`safe.directory`) and stops at a filesystem's edge."""
    mine, at_top = os.stat(here), os.stat(top)
    return at_top.st_uid == os.geteuid() and mine.st_dev == at_top.st_dev


def _render(result: VerbResult) -> list[str]:
    from gitflow_harness.workflow.status import StatusView

    data = result.data
    return [data.box] if result.outcome == "ok" and isinstance(data, StatusView) else []
