"""`gfh task`: declare the focus of the agent's turn."""

from __future__ import annotations

import click

from gitflow_harness.cli._common import echo_json, json_option


@click.group()
def task() -> None:
    """Declare, clear or show the session's task (the turn's focus).

    The text stays in owner-only session state; the event log records only a fingerprint.
    Needs an agent session: $GFH_SESSION (the SessionStart hook puts it into the agent's
    environment), else the host's own $CLAUDE_CODE_SESSION_ID, $CODEX_SESSION_ID or
    $CODEX_THREAD_ID.
    """


@task.command("set")
@click.argument("text")
@json_option
def set_(text: str, as_json: bool) -> int:
    """Set the task to TEXT and record the declaration, even when TEXT is unchanged.

    An empty TEXT ("") declares a purely conversational turn.
    """
    from gitflow_harness.ritual.task import declare
    from gitflow_harness.workspace import open_workspace

    declaration = declare(open_workspace(), text)
    if as_json:
        echo_json(declaration.to_dict())
    else:
        click.echo(f"task: {text}" if text else "task: (conversational turn, no focus)")
    return 0


@task.command("clear")
@json_option
def clear(as_json: bool) -> int:
    """Clear the task and record that it was cleared."""
    from gitflow_harness.ritual.task import declare_cleared
    from gitflow_harness.workspace import open_workspace

    declaration = declare_cleared(open_workspace())
    if as_json:
        echo_json(declaration.to_dict())
    else:
        click.echo("task cleared" if declaration.had_task else "task cleared (none was set)")
    return 0


@task.command("show")
@json_option
def show(as_json: bool) -> int:
    """Print the session's task (records nothing)."""
    from gitflow_harness.ritual.task import current_task, require_session

    session = require_session()
    text = current_task(session)
    if as_json:
        echo_json({"session": session, "task": text})
    else:
        if text is None:
            click.echo("(no task set)")
        else:
            click.echo(text or "(empty: a conversational turn)")
    return 0
