"""`gfh hook`: the agent lifecycle hook (normally reached without Click, see `main.py`)."""

from __future__ import annotations

import click


# The arguments are taken as they come and checked by the runtime: a hook command with a typo
# must fail open (exit 0), where Click's usage error would exit 2, which every host reads as
# "block".
@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED, metavar="ADAPTER EVENT")
def hook(args: tuple[str, ...]) -> int:
    """Handle one agent hook EVENT of ADAPTER, reading the host's JSON payload on stdin.

    ADAPTER is claude, cursor or codex; EVENT is the host's own event name (for example
    PostToolUse, beforeSubmitPrompt). It records the event's evidence, fires the ways that match
    (the ensure hint first at session start, the role's lessons at subagent start), and writes
    the answer in that host's format and exit-code contract. Events gfh does not handle are
    accepted quietly. On an internal error the hook fails open: exit 0, one line on stderr, a
    hook.error event. So does a hook command with a wrong adapter or a missing or extra
    argument, since every host reads exit 2 as "block". `gfh init` installs these hooks.
    """
    from gitflow_harness.agent.runtime import main

    return main(*args)
