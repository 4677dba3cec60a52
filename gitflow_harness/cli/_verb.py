"""Running one workflow verb from the CLI: workspace, console, hints, the event, the output."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, ExitStack

import click

from gitflow_harness import hints
from gitflow_harness.cli._common import echo_json
from gitflow_harness.errors import GfhError
from gitflow_harness.hints import Hint
from gitflow_harness.store.events import session_from_env
from gitflow_harness.workflow.commands import Console
from gitflow_harness.workflow.result import VerbResult
from gitflow_harness.workspace import Workspace

Action = Callable[[Workspace, Console], VerbResult]
Render = Callable[[VerbResult], list[str]]


def run_verb(
    verb: str,
    action: Action,
    *,
    as_json: bool,
    flags: Iterable[str],
    render: Render,
    guard: Callable[[], AbstractContextManager[None]] | None = None,
) -> int:
    """Run `action` as the verb `verb`, print its result, record its `verb` event.

    `guard`, when given, is entered before anything else (a lock the whole run holds); a
    refusal it raises is reported as every other refusal."""
    with ExitStack() as stack:
        if guard is not None:
            try:
                stack.enter_context(guard())
            except GfhError as exc:
                if as_json:
                    echo_json(VerbResult(verb, "refused", {"error": exc.message}).envelope())
                raise
        return _run_verb(verb, action, as_json=as_json, flags=flags, render=render)


def _run_verb(
    verb: str,
    action: Action,
    *,
    as_json: bool,
    flags: Iterable[str],
    render: Render,
) -> int:
    from gitflow_harness.workflow.facts import Facts
    from gitflow_harness.workspace import open_workspace

    started = time.perf_counter()
    hints.drain()  # whatever an earlier run in this process left is not this run's to deliver
    flag_names = [*flags, *(["--json"] if as_json else [])]
    try:
        ws = open_workspace()
        label = ws.head().label
    except GfhError as exc:
        if as_json:  # not a repository, a bad configuration: still one object, not recorded
            echo_json(VerbResult(verb, "refused", {"error": exc.message}).envelope())
        raise
    # Under --json, stdout carries exactly one object: live output goes to stderr.
    console = Console(
        sys.stderr if as_json else sys.stdout, lambda line: click.echo(line, err=as_json)
    )
    agent = session_from_env() is not None
    try:
        result = action(ws, console)
    except GfhError as exc:
        hints.drain()
        refused = VerbResult(verb, "refused", {"error": exc.message}, facts=Facts(ws).snapshot())
        if as_json:
            # Every verb with --json prints one object, a refusal too; the error boundary
            # still says why in one line on stderr and sets the exit code.
            echo_json(refused.envelope())
        _record(ws, refused, label, started, flag_names, ())
        raise
    shown = hints.deliverable(result.hints, agent=agent)
    supplemental = hints.deliverable(hints.drain(), agent=agent)
    if as_json:
        echo_json(result.envelope(shown))
        for item in supplemental:
            click.echo(hint_line(item), err=True)
    else:
        if result.outcome != "ok":
            click.echo(f"gfh {verb}: {result.outcome}: {result.message}", err=True)
        for line in render(result):
            click.echo(line)
        for item in (*shown, *supplemental):
            click.echo(hint_line(item))
    _record(ws, result, label, started, flag_names, (*shown, *supplemental))
    return result.exit_code


def hint_line(item: Hint) -> str:
    """One hint as text: what to do, then its stable id."""
    return f"hint: {item.text}  [{item.id}]"


def default_render(result: VerbResult) -> list[str]:
    """The result's message when it went well (a failure's message goes to stderr)."""
    return [result.message] if result.outcome == "ok" and result.message else []


def _record(
    ws: Workspace,
    result: VerbResult,
    label: str,
    started: float,
    flags: list[str],
    delivered: tuple[Hint, ...],
) -> None:
    from gitflow_harness.workflow.record import record_verb

    try:
        record_verb(
            ws,
            result,
            branch=label,
            duration_ms=int((time.perf_counter() - started) * 1000),
            flags=flags,
            delivered=delivered,
        )
    except (OSError, GfhError) as exc:
        if result.data.get("reason") == "end-turn-not-recorded":
            return  # the verb already failed for this very reason, and said so
        # The work is done either way; losing its record is worth a warning, not a failure.
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        click.echo(
            f"gfh: warning: this run was not recorded in {ws.log.directory}: {why}", err=True
        )
