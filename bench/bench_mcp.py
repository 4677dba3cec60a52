"""`status` as an MCP tool call to a running `gfh mcp`, timed from the MCP SDK's client, against
the same command as a fresh `gfh status --json` process, in the feature worktree `status` is
benchmarked in (20,000 commits, 1,000 files, one edit). The server is started once, as a host
starts it at the beginning of a session: a call pays neither interpreter start-up nor imports."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from bench.bench_status import feature_worktree
from bench.runner import PYTHON, Measurement, compare, time_once


def run(work: Path) -> list[Measurement]:
    import anyio.from_thread
    from mcp import ClientSession, StdioServerParameters, stdio_client

    feature = feature_worktree(work)
    (feature / "src" / "f00001.txt").write_text("an edit in progress\n", encoding="utf-8")
    env = {"GFH_SESSION": "claude:bench", "GFH_STATE_HOME": str(work / "state")}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "gitflow_harness", "mcp"],
        env={**os.environ, **env},
        cwd=feature,
    )

    class Connection:
        """The client's session, entered and left through the portal's event loop."""

        def __init__(self) -> None:
            self.stack = None

        async def __aenter__(self) -> ClientSession:
            from contextlib import AsyncExitStack

            self.stack = AsyncExitStack()
            read, write = await self.stack.enter_async_context(stdio_client(params))
            session = await self.stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            return session

        async def __aexit__(self, *exc: object) -> None:
            assert self.stack is not None
            await self.stack.aclose()

    with (
        anyio.from_thread.start_blocking_portal() as portal,
        portal.wrap_async_context_manager(Connection()) as session,
    ):

        def call() -> float:
            start = time.perf_counter()
            result = portal.call(session.call_tool, "status", {})
            elapsed = time.perf_counter() - start
            if result.is_error:
                raise RuntimeError(f"status failed: {result.content}")
            return elapsed

        measured = compare(
            "status tool call to a running gfh mcp (SDK client, stdio)",
            call,
            "gfh status --json (fresh process)",
            lambda: time_once(
                [PYTHON, "-m", "gitflow_harness", "status", "--json"], cwd=feature, env=env
            ),
            runs=21,
            target=0.5,
        )
    measured.notes.append(
        "the same worktree and state as the status benchmark: 40 behind main, 1 ahead, one "
        "modified file; each call appends its verb event, as the command does"
    )
    return [measured]
