"""A real Claude Code session that does gfh's ritual through `gfh mcp` alone: the server from
the `.mcp.json` that `gfh init --mcp` wrote, started by Claude Code itself, its tools called by
the scripted model."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import git, read_events
from tests.hosts import claude
from tests.hosts.conftest import gfh_cli, scratch_repo
from tests.hosts.model import ModelServer, Reply, Request, call, say
from tests.hosts.test_claude import BOX_TOP, FEEDBACK, tool_results

pytestmark = pytest.mark.slow

TOOLS = ("mcp__gfh__status", "mcp__gfh__task_set")
MCP_ARGS = ("--mcp-config", ".mcp.json", "--strict-mcp-config")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = scratch_repo(tmp_path / "project", "claude")
    gfh_cli(path, "init", "--adapter", "claude", "--mcp")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "gfh init --mcp")
    return path


def results(request: Request) -> list[dict[str, Any]]:
    """The tool results the request carries that are gfh's JSON objects: Claude Code 2.1.332
    hands the model a result's structured content (as JSON text) in place of its text."""
    found = []
    for text in tool_results(request):
        try:
            value = json.loads(text)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def reply_with_box(request: Request) -> Reply:
    """The closing reply: the box from the status result's data, shown whole."""
    boxes = [r["data"]["box"] for r in results(request) if r.get("verb") == "status"]
    assert boxes, "no status result reached the model"
    assert boxes[-1].startswith(BOX_TOP)
    return say(f"Here is where things stand.\n\n{boxes[-1]}")


def ritual_through_mcp() -> list[Any]:
    return [
        call("mcp__gfh__task_set", task="check the tree"),
        call("mcp__gfh__status", end_turn=True),
        reply_with_box,
    ]


def session_run(
    claude_command: Path, anthropic: ModelServer, repo: Path, env: dict[str, str] | None = None
) -> tuple[claude.Run, str]:
    session_id = str(uuid.uuid4())
    extra = {k: v.format(session=session_id) for k, v in (env or {}).items()}
    run = claude.run(
        claude_command,
        repo,
        anthropic.url,
        "look around",
        tools=TOOLS,
        env=extra,
        args=(*MCP_ARGS, "--session-id", session_id),
    )
    assert run.code == 0, run.stderr
    assert run.session_id == session_id
    return run, f"claude:{session_id}"


def test_the_ritual_through_mcp_alone_is_allowed(
    claude_command: Path, anthropic: ModelServer, repo: Path
) -> None:
    """If the model declares its task and runs the end-turn status through gfh's MCP tools and
    shows the box from the result, then the structured result reached it, the log holds the
    calls as surface `mcp` in the session, and Stop allows the turn without a block.

    The server is given the session through GFH_SESSION here (as the SessionStart hook gives it
    to shell tools); the next test covers a server that must learn it from Claude Code's own
    variable."""
    anthropic.script(*ritual_through_mcp())
    _, session = session_run(
        claude_command, anthropic, repo, env={"GFH_SESSION": "claude:{session}"}
    )
    task, status = (results(anthropic.conversation[i])[-1] for i in (1, 2))
    assert (task["state"], task["session"]) == ("set", session)
    assert (status["verb"], status["outcome"]) == ("status", "ok")
    assert status["data"]["task"] == {"state": "set", "text": "check the tree"}
    assert status["data"]["session"] == session
    ours = [e for e in read_events(repo) if e["surface"] == "mcp"]
    assert [(e["type"], e["session"]) for e in ours] == [
        ("coord.task_changed", session),
        ("coord.status_observed", session),
        ("verb", session),
    ]
    verdicts = [e["data"] for e in read_events(repo) if e["type"] == "stop.verdict"]
    assert [v["decision"] for v in verdicts] == ["allow"]
    assert not [r for r in anthropic.conversation if r.count(FEEDBACK)]


def test_the_server_learns_the_claude_session_from_the_host(
    claude_command: Path, anthropic: ModelServer, repo: Path
) -> None:
    """If nothing hands the server GFH_SESSION, then it learns the session as the CLI does,
    from the CLAUDE_CODE_SESSION_ID Claude Code exports to every MCP server it starts."""
    anthropic.script(*ritual_through_mcp())
    _, session = session_run(claude_command, anthropic, repo)
    ours = [e for e in read_events(repo) if e["surface"] == "mcp"]
    assert ours
    assert {e["session"] for e in ours} == {session}
    verdicts = [e["data"] for e in read_events(repo) if e["type"] == "stop.verdict"]
    assert [v["decision"] for v in verdicts] == ["allow"]
