"""Macros: a way's `macro.sh` writes text that goes before or after its body when it fires.

A macro runs only for a way that is about to be delivered, as every way script runs
(`scripts`: only content committed at HEAD, the payload on stdin, the repository root as
working directory, `GFH_WAY`, `GFH_SESSION`, `GFH_WAY_STATE` in its environment, in parallel,
killed with everything it started once the call's script budget is spent). A
ProgressiveStaircase's macro also gets `GFH_SALIENCE` (the step's salience). What it prints on
exit 0 is used; a failure, a timeout or more than `MAX_OUTPUT` bytes leave the body alone. Its
output goes to the agent only, never to disk.
"""

from __future__ import annotations

from gitflow_harness.ways import scripts
from gitflow_harness.ways.scripts import MAX_OUTPUT, Script

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from gitflow_harness.agent.context import HookContext
    from gitflow_harness.ways.scripts import Run

__all__ = ["MAX_OUTPUT", "Macro", "run_for", "run_macros"]


class Macro(Script):
    """One way's macro: the way id, the script (repo-relative, POSIX), and its step's salience."""

    __slots__ = ("salience",)

    def __init__(self, way: str, path: str, salience: float | None = None) -> None:
        env = {"GFH_SALIENCE": f"{salience:g}"} if salience is not None else None
        super().__init__(way, path, env)
        self.salience = salience

    def __repr__(self) -> str:
        return f"Macro({self.way!r}, {self.path!r}, salience={self.salience})"


def run_macros(
    top: Path,
    macros: Sequence[Macro],
    payload: bytes,
    *,
    timeout_s: float,
    session: str | None,
    session_directory: Path | None,
) -> dict[str, str]:
    """Run the committed macros in parallel; return way id -> what it printed (exit 0 only)."""
    runs = scripts.run_scripts(
        top,
        macros,
        payload,
        timeout_s=timeout_s,
        session=session,
        session_directory=session_directory,
        read_output=True,
    )
    return _printed(runs)


def run_for(ctx: HookContext, macros: Sequence[Macro]) -> dict[str, str]:
    """Run macros for a hook call: its payload, its session, the configured timeout."""
    if not macros:
        return {}
    return _printed(scripts.run_for(ctx, macros, read_output=True))


def _printed(runs: Sequence[Run]) -> dict[str, str]:
    return {
        run.way: run.output.decode("utf-8", "replace")
        for run in runs
        if run.status == scripts.EXITED and run.code == 0 and run.output is not None
    }
