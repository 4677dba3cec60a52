"""The stdio MCP server on the official SDK: the tools of `mcp/tools.py`, run by `mcp/calls.py`.

Calls run in worker threads, so the event loop keeps answering (and sending progress) while a
gate runs. Calls that change the repository run one at a time; the others run beside them and
read the repository as git shows it at that moment. Start-up imports the SDK and the tool
declarations only: each call imports what its command needs.
"""

from __future__ import annotations

import contextlib
import functools
import json
from typing import TYPE_CHECKING, Any, Final

from gitflow_harness import __version__
from gitflow_harness.mcp.tools import BY_NAME, TOOLS

if TYPE_CHECKING:
    import mcp_types as types
    from mcp.server import Server, ServerRequestContext

    from gitflow_harness.mcp.calls import Answer

NAME: Final = "gfh"
INSTRUCTIONS: Final = (
    "gfh's workflow verbs and end-of-turn ritual as tools. Each result is what `gfh <command> "
    "--json` prints. End a turn that used tools with task_set (the turn's focus), then status "
    "with end_turn true, and show the status box from that result in your reply. Pass cwd to "
    "work in a worktree made by start."
)


def build() -> Server[Any]:
    """Return the server, its handlers registered."""
    import anyio
    import anyio.from_thread
    import anyio.to_thread
    import mcp_types as types
    from mcp.server import Server

    serial = anyio.Lock()  # calls that change the repository, one at a time

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=t.name, description=t.description, input_schema=t.input_schema())
                for t in TOOLS
            ]
        )

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        from gitflow_harness.mcp.calls import call

        steps = 0

        def progress(line: str) -> None:
            # From the worker thread: hand the note to the loop, which sends it if the client
            # asked for progress (a progress token) and drops it otherwise.
            nonlocal steps
            steps += 1
            # A client gone away must not fail the gate run.
            with contextlib.suppress(Exception):
                anyio.from_thread.run(ctx.session.report_progress, float(steps), None, line)

        tool = BY_NAME.get(params.name)
        run = functools.partial(call, params.name, params.arguments, progress=progress)
        if tool is not None and tool.mutating(params.arguments or {}):
            async with serial:
                return _result(await anyio.to_thread.run_sync(run))
        return _result(await anyio.to_thread.run_sync(run))

    return Server(
        NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _result(answer: Answer) -> types.CallToolResult:
    """The MCP result: the `--json` object as structured content, and as text beside the short
    text (the specification's advice, for hosts that read only text)."""
    import mcp_types as types

    content: list[types.ContentBlock] = [types.TextContent(type="text", text=answer.text)]
    structured = None
    if answer.structured is not None:
        # Through JSON as the CLI prints it: the same values, the same types.
        text = json.dumps(answer.structured, indent=2, ensure_ascii=False, default=str)
        structured = json.loads(text)
        content.append(types.TextContent(type="text", text=text))
    return types.CallToolResult(
        content=content, structured_content=structured, is_error=answer.is_error
    )


def serve() -> int:
    """Serve MCP on stdin and stdout until the client closes them; return the exit code."""
    import anyio

    anyio.run(_serve)
    return 0


async def _serve() -> None:
    from mcp.server.stdio import stdio_server

    server = build()
    # While serving, the SDK points fd 1 at stderr: stray output of anything a call runs
    # cannot reach the protocol's stream.
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
