"""Showing one workflow verb's run on the command line: its output, its hints, its exit code.

No Click here: `gfh status` shows its run through this module without importing it.
"""

from __future__ import annotations

import sys

from gitflow_harness.cli.output import echo, echo_json
from gitflow_harness.hints import Hint
from gitflow_harness.workflow.result import VerbResult
from gitflow_harness.workflow.run import Console
from gitflow_harness.workflow.run import run_verb as workflow_run

# Not `typing.TYPE_CHECKING`: `gfh status` does not import typing (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from gitflow_harness.workflow.run import Action, Guard, Opener

    Render = Callable[[VerbResult], list[str]]


def run_verb(
    verb: str,
    action: Action,
    *,
    as_json: bool,
    flags: Iterable[str],
    render: Render,
    guard: Guard | None = None,
    opener: Opener | None = None,
) -> int:
    """Run `action` as the verb `verb` (`workflow/run.py`), print its result, return the exit
    code; a refusal is raised for the error boundary to say, after its object under --json.

    `guard`, when given, is a lock the whole run holds; a refusal it raises is reported as every
    other refusal. `opener`, when given, opens the run's workspace (`workflow/run.py`)."""
    flag_names = [*flags, *(["--json"] if as_json else [])]
    # Under --json, stdout carries exactly one object: live output goes to stderr.
    console = Console(sys.stderr if as_json else sys.stdout, lambda line: echo(line, err=as_json))
    run = workflow_run(
        verb, action, console=console, flags=flag_names, surface="cli", guard=guard, opener=opener
    )
    if run.warning:
        echo(run.warning, err=True)
    if run.error is not None:
        if as_json:
            # Every verb with --json prints one object, a refusal too; the error boundary
            # still says why in one line on stderr and sets the exit code.
            echo_json(run.envelope())
        raise run.error
    result = run.result
    if as_json:
        echo_json(run.envelope())
        for item in run.supplemental:
            echo(hint_line(item), err=True)
    else:
        if result.outcome != "ok":
            echo(f"gfh {verb}: {result.outcome}: {result.message}", err=True)
        for line in render(result):
            echo(line)
        for item in run.delivered:
            echo(hint_line(item))
    return result.exit_code


def hint_line(item: Hint) -> str:
    """One hint as text: what to do, then its stable id."""
    return f"hint: {item.text}  [{item.id}]"


def default_render(result: VerbResult) -> list[str]:
    """The result's message when it went well (a failure's message goes to stderr)."""
    return [result.message] if result.outcome == "ok" and result.message else []
