"""Postchecks: a way's `postcheck.sh` asks for the way to fire after a tool ran (docs/hooks.md).

Each runs as every way script runs (`scripts`: only content committed at HEAD, the payload on
stdin, the repository root as working directory, in parallel, killed with everything it started
once the call's script budget, `ways.postcheck_timeout_s`, is spent), its output discarded.
Exit 0 requests firing through the same gate as every other lane. It may leave its macro a
finding in `$GFH_WAY_STATE`; that finding is never an input to the firing decision.
"""

from __future__ import annotations

from gitflow_harness.git.tree import MODIFIED, UNTRACKED
from gitflow_harness.ways import scripts
from gitflow_harness.ways.scripts import FAILED, TIMEOUT, Run, Script

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from gitflow_harness.agent.context import HookContext

REQUESTED = "requested"  # exit 0: fire, through the gate
QUIET = "quiet"  # any other exit

__all__ = ["FAILED", "MODIFIED", "QUIET", "REQUESTED", "TIMEOUT", "UNTRACKED", "Postcheck"]


class Postcheck(Script):
    """One way's postcheck: the way id and the script, repo-relative (POSIX)."""

    __slots__ = ()

    def __init__(self, way: str, path: str) -> None:
        super().__init__(way, path)

    def __repr__(self) -> str:
        return f"Postcheck({self.way!r}, {self.path!r})"


def run_postchecks(
    top: Path,
    checks: Sequence[Postcheck],
    payload: bytes,
    *,
    timeout_s: float,
    session: str | None,
    session_directory: Path | None,
) -> list[Run]:
    """Run the committed postchecks in parallel; return one result per check, in order."""
    runs = scripts.run_scripts(
        top,
        checks,
        payload,
        timeout_s=timeout_s,
        session=session,
        session_directory=session_directory,
    )
    return [_verdict(run) for run in runs]


def run_for(ctx: HookContext, checks: Sequence[Postcheck]) -> list[Run]:
    """Run postchecks for a hook call: its payload, its session, the configured timeout."""
    return [_verdict(run) for run in scripts.run_for(ctx, checks)]


def _verdict(run: Run) -> Run:
    if run.status == scripts.EXITED:
        run.status = REQUESTED if run.code == 0 else QUIET
    return run
