"""A command's slowest git question, started before the modules that read its answer load.

`gfh status` runs at the end of every turn, the SessionStart hook at the start of every session.
The slowest question of each is `git status` (the changes and HEAD's commit: `ensure` asks it at
session start), and the modules that ask it take longer to import than git takes to answer. Run
as its own process, each starts that `git status` first, in the current directory (`main.py`;
hosts run hooks in the session's directory); `git.start_status` takes it instead of starting
its own when it asks the same question of the worktree around that directory. git answers the
same from any directory of a worktree (porcelain paths are from its top); the arguments and
environment are the same: so is the answer. A question no command takes is left to end with the
process.
"""

from __future__ import annotations

import os

from gitflow_harness import spawn

# Not `typing.TYPE_CHECKING`: `gfh status` does not import typing (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from gitflow_harness.store.fsutil import StrPath

# `git.start_status(repo, head=True)`'s question, which it builds from these: what `gfh status`
# asks first. Without HEAD_OPTIONS it is the question of a command that knows HEAD.
HEAD_OPTIONS = ("--branch", "--no-ahead-behind")
STATUS = ("status", "--porcelain=v2", "-z", "--untracked-files=all", "--no-renames", *HEAD_OPTIONS)

_started: tuple[tuple[str, ...], str, spawn.Spawned] | None = None


def start(args: Sequence[str] = STATUS) -> None:
    """Start `git ARGS` in the current directory, if it can start here (git on PATH, posix_spawn,
    a current directory); if not, the command starts its own when it asks."""
    global _started
    try:
        cwd = os.getcwd()
        started = spawn.spawn(["git", *args], env=None, input=None)
    except OSError:
        return
    if started is not None:
        _started = (tuple(args), cwd, started)


def take(args: Sequence[str], top: StrPath) -> spawn.Spawned | None:
    """The git process `start` started, when it asked `args` (or `args` and more options,
    whose lines the reader skips: `--branch` for a command that knew HEAD already) from a
    directory of the worktree at `top`; taken once."""
    global _started
    if _started is None:
        return None
    asked, cwd, started = _started
    root = os.fspath(top)
    inside = cwd == root or cwd.startswith(root.rstrip(os.sep) + os.sep)
    if asked[: len(args)] != tuple(args) or not inside:
        return None
    _started = None
    return started
