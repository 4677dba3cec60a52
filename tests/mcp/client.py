"""The MCP SDK's own client, over stdio, against a real `gfh mcp` process."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult

T = TypeVar("T")
TIMEOUT_S = 120


@asynccontextmanager
async def connect(cwd: Path, env: Mapping[str, str] | None = None) -> AsyncIterator[ClientSession]:
    """Start `gfh mcp` in `cwd` (this test's environment, plus `env`) and open a session."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "gitflow_harness", "mcp"],
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def run(
    cwd: Path,
    body: Callable[[ClientSession], Awaitable[T]],
    env: Mapping[str, str] | None = None,
) -> T:
    """Run `body` against one server started for it, and return what it returned."""

    async def main() -> T:
        with anyio.fail_after(TIMEOUT_S):
            async with connect(cwd, env) as session:
                return await body(session)

    return anyio.run(main)


def structured(result: CallToolResult) -> dict[str, Any]:
    """The result's structured content, checked to be what its JSON text block says."""
    assert isinstance(result.structured_content, dict), result
    texts = [getattr(block, "text", "") for block in result.content]
    assert json.loads(texts[-1]) == result.structured_content
    return result.structured_content


def text(result: CallToolResult) -> str:
    """The result's short text (its first block)."""
    return str(getattr(result.content[0], "text", ""))
