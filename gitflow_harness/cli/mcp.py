"""`gfh mcp`: serve gfh's verbs to an agent host over MCP (stdio)."""

from __future__ import annotations

import click


@click.command()
def mcp() -> int:
    """Serve the workflow verbs, the task and the reports as MCP tools on stdin/stdout.

    An agent host starts it (see `gfh init --mcp` and docs/mcp.md); each tool returns what the
    command's --json prints. Runs until the host closes stdin.
    """
    from gitflow_harness.mcp.server import serve

    return serve()
