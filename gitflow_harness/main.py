"""Process entry point: `gfh` and `python -m gitflow_harness`."""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not `typing`'s, nor `collections.abc` at run time: the hook imports this
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import NoReturn

HELP = frozenset({"-h", "--help"})
# The hosts' names of the session-start event (`agent/claude.py`, `codex.py`, `cursor.py`):
# its `ensure` asks `git status` of the worktree first thing (`workflow/facts.py`).
SESSION_START_EVENTS = frozenset({"SessionStart", "sessionStart"})


def main(argv: Sequence[str] | None = None) -> int:
    """Run one gfh command and return its exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["hook"] and not HELP.intersection(args[1:]):
        # The hook runs on every tool call of an agent: skip Click (~15 ms to import) and go
        # straight to the runtime, which checks the arguments itself and fails open on bad ones
        # (a usage error's exit 2 would block the agent). Only `gfh hook --help` takes Click.
        if argv is None:  # the process's own run, not a caller's in-process one
            quick()
            if args[2:3] and args[2] in SESSION_START_EVENTS:
                # Its `git status` (the slowest part of `ensure`: it reads every directory)
                # runs while the runtime loads, as `gfh status`'s does (`early.py`).
                from gitflow_harness import early

                early.start()
            _preload(args[:3])
        from gitflow_harness.agent.runtime import main as hook

        code = hook(*args[1:])
        return code if argv is not None else end(code)
    collecting = True
    if argv is None and args[:1] == ["status"]:
        # Its own process: no collector while its modules load either (each of the imports'
        # passes finds nothing to free: ~1M instructions), and its `git status` runs meanwhile
        # (`early.py`).
        quick()
        collecting = False
        from gitflow_harness import early

        early.start()
        _preload(args[:1])
    from gitflow_harness.cli import guarded, run

    command = _without_click(args)
    if command is None:
        if not collecting:  # Click's run of it, as of every other command
            import gc

            gc.enable()
        return run(args)
    if argv is not None:
        return guarded(command, args)
    quick()
    return end(guarded(command, args))


def _preload(command: Sequence[str]) -> None:
    """Load the modules `command`'s last run imported, from one file (`preload.py`); `end`
    keeps what this run imported besides for the next."""
    from gitflow_harness import preload

    preload.start(command)


def quick() -> None:
    """Ready a process that answers one call and exits (a hook, `status`, `pills check`).

    The cyclic garbage collector passes 5 to 15 times in a hook call, about 1 ms in all, and
    what it could free is freed when the process ends a few milliseconds later: it is turned
    off. A long-lived process (`gfh mcp`) and a caller's own process keep it.
    """
    import gc

    gc.disable()


def end(code: int) -> NoReturn:
    """End a process readied by `quick` with `code`, once its output is written.

    The interpreter's own shutdown (every module torn down, every object freed) is about a
    seventh of `python -c pass`, and a hook call's more: 13.5M instructions of a PostToolUse's
    139M. Nothing of such a call needs it: its files are written and closed, its locks go with
    the process, the threads it may start are daemons, and it registers no exit handler. A
    stream that cannot be flushed any more (a reader gone) has nothing left to say.
    """
    import os

    for stream in (sys.stdout, sys.stderr):
        try:  # not `contextlib.suppress`: `gfh status` imports no contextlib
            stream.flush()
        except (OSError, ValueError):
            pass
    loaded = sys.modules.get("gitflow_harness.preload")
    if loaded is not None:  # its file written, if it is to be, once the answer is out
        loaded.finish()
    os._exit(code)


def _without_click(args: list[str]) -> Callable[[], int] | None:
    """The run of a command asked on every turn (`status`) or commit (`pills check`) when its
    module knows all of `args`: it skips Click, through the same error boundary."""
    if args[:1] == ["status"]:
        from gitflow_harness.cli.status import without_click

        return without_click(args[1:])
    if args[:2] == ["pills", "check"]:
        from gitflow_harness.cli.pills_check import without_click as check

        return check(args[2:])
    return None
