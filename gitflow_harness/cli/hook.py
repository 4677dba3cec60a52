"""`gfh hook`: the agent lifecycle hook (normally reached without Click, see `main.py`)."""

from __future__ import annotations

import click


@click.command(context_settings={"ignore_unknown_options": False})
@click.argument("adapter", type=click.Choice(["claude", "cursor", "codex"]))
@click.argument("event")
def hook(adapter: str, event: str) -> int:
    """Handle one agent hook EVENT of ADAPTER, reading the host's JSON payload on stdin.

    ADAPTER is claude, cursor or codex; EVENT is the host's own event name (for example
    PostToolUse, beforeSubmitPrompt). It records the event's evidence, fires the ways that match
    (the ensure hint first at session start, the role's lessons at subagent start), and writes
    the answer in that host's format and exit-code contract. Events gfh does not handle are
    accepted quietly. On an internal error the hook fails open: exit 0, one line on stderr, a
    hook.error event. `gfh init` installs these hooks.
    """
    from gitflow_harness.agent.runtime import main

    return main(adapter, event)
