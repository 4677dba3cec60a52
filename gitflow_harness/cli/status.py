"""`gfh status`: the run its Click command and `main.py`'s path without Click share.

`gfh status` runs at the end of every turn of an agent, so `main.py` sends the flags this module
knows past Click (~35 ms to import) straight to `show`; anything else (`--help`, a misspelt
flag, `-v` before the command) goes through Click.
"""

from __future__ import annotations

from gitflow_harness.cli import flags
from gitflow_harness.cli._verb import run_verb
from gitflow_harness.cli.found import found_workspace

# Not `typing.TYPE_CHECKING`: `gfh status` does not import typing (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

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
        "status", action, as_json=as_json, flags=flags, render=_render, opener=found_workspace
    )


def _render(result: VerbResult) -> list[str]:
    from gitflow_harness.workflow.status import StatusView

    data = result.data
    return [data.box] if result.outcome == "ok" and isinstance(data, StatusView) else []
