"""Claude Code: every fixture round-trips to the documented stdout shape and exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitflow_harness.agent import claude, sources
from gitflow_harness.hookcall import model as ev
from tests.agent import kit
from tests.helpers import CliRunner, read_events

FIXTURES = [(e, p) for a, e, p in kit.fixture_files() if a == "claude"]


@pytest.fixture
def with_context(monkeypatch: pytest.MonkeyPatch) -> None:
    kit.plug(monkeypatch, sources.CONTEXT_SOURCES, "tests.agent.kit:plain_source")


# Claude Code's hooks: the events whose output may carry `hookSpecificOutput.additionalContext`.
PROTOCOL_CONTEXT = frozenset(
    {
        "SessionStart",
        "Setup",
        "SubagentStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PostToolBatch",
        "Stop",
        "SubagentStop",
    }
)
# The fixtures' events that answer with context when a source offers some at every event gfh
# consults (Stop and SubagentStop could carry it, but there it would keep the turn going).
ANSWERED_WITH_CONTEXT = frozenset(
    {
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "SubagentStart",
    }
)


def test_context_goes_out_only_where_the_protocol_takes_it() -> None:
    assert ANSWERED_WITH_CONTEXT <= PROTOCOL_CONTEXT
    assert claude.CONTEXT_EVENTS <= PROTOCOL_CONTEXT


@pytest.mark.parametrize(("event", "path"), FIXTURES, ids=[p.stem for _, p in FIXTURES])
@pytest.mark.usefixtures("with_context")
def test_fixture_round_trips_with_context(
    event: str, path: Path, repo: Path, gfh: CliRunner
) -> None:
    data = json.loads(path.read_text().replace(kit.PLACEHOLDER, str(repo)))
    result = kit.hook(gfh, "claude", event, data)
    assert result.code == 0
    assert result.err == ""
    if event in ANSWERED_WITH_CONTEXT:
        out = result.json()
        assert out == {
            "hookSpecificOutput": {"hookEventName": event, "additionalContext": "plain context"}
        }
    else:
        assert result.out == ""


@pytest.mark.parametrize(("event", "path"), FIXTURES, ids=[p.stem for _, p in FIXTURES])
def test_fixture_without_sources_prints_nothing(
    event: str, path: Path, repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    for kind in sources.CONTEXT_SOURCES:
        monkeypatch.setitem(sources.CONTEXT_SOURCES, kind, ())
    data = json.loads(path.read_text().replace(kit.PLACEHOLDER, str(repo)))
    result = kit.hook(gfh, "claude", event, data)
    assert (result.code, result.out, result.err) == (0, "", "")


def test_stop_block_exits_2_with_the_rule_on_stderr(
    repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sources.STOP_CHECKS, ev.STOP, ("tests.agent.kit:block_check",))
    result = kit.hook(gfh, "claude", "Stop", kit.payload("claude", "Stop", repo))
    assert result.code == 2
    assert result.out == ""
    assert result.err.rstrip("\n").endswith("[gfh stop] rule=status")
    assert "gfh status --end-turn" in result.err


def test_parse_reads_the_documented_fields(repo: Path) -> None:
    data = kit.payload("claude", "PostToolUse.Write", repo)
    event = claude.parse("PostToolUse", data, b"")
    assert event.kind == ev.TOOL_POST
    assert event.session == "claude:7f3c9d2e-1b4a-4c55-9a61-2f0d8e6b1a90"
    assert event.tool == "Write"
    assert event.paths == (f"{repo}/src/parser.py",)
    assert event.cwd == str(repo)
    assert event.transcript
    assert event.transcript.endswith(".jsonl")
    bash = claude.parse("PostToolUse", kit.payload("claude", "PostToolUse.Bash"), b"")
    assert bash.command == "gfh status --end-turn"
    start = claude.parse("SessionStart", kit.payload("claude", "SessionStart.compact"), b"")
    assert start.source == "compact"
    stop = claude.parse("SubagentStop", kit.payload("claude", "SubagentStop"), b"")
    assert (stop.role, stop.agent) == ("reviewer", "a-7")
    assert stop.message
    assert stop.message.startswith("VERDICT: REJECTED")


def test_unknown_events_are_accepted_quietly(repo: Path, gfh: CliRunner) -> None:
    data = kit.payload("claude", "Stop", repo, hook_event_name="Notification")
    result = kit.hook(gfh, "claude", "Notification", data)
    assert (result.code, result.out, result.err) == (0, "", "")


# The Claude Code event a Cursor event arrives as when Cursor runs the Claude Code hooks.
CURSOR_AS_CLAUDE = {
    "sessionStart": "SessionStart",
    "beforeSubmitPrompt": "UserPromptSubmit",
    "preToolUse": "PreToolUse",
    "postToolUse": "PostToolUse",
    "postToolUseFailure": "PostToolUseFailure",
    "subagentStart": "SubagentStart",
    "subagentStop": "SubagentStop",
    "preCompact": "PreCompact",
    "stop": "Stop",
    "sessionEnd": "SessionEnd",
}
CURSOR_FIXTURES = [
    (CURSOR_AS_CLAUDE[e], p)
    for a, e, p in kit.fixture_files()
    if a == "cursor" and e in CURSOR_AS_CLAUDE
]


@pytest.mark.parametrize("environment", [{"CURSOR_VERSION": "3.7.21"}, {}], ids=["env", "no-env"])
@pytest.mark.parametrize(
    ("event", "path"), CURSOR_FIXTURES, ids=[p.stem for _, p in CURSOR_FIXTURES]
)
@pytest.mark.usefixtures("with_context")
def test_a_call_from_cursor_is_answered_neutrally_and_not_recorded(
    event: str, path: Path, environment: dict[str, str], repo: Path, gfh: CliRunner
) -> None:
    """If Cursor runs the Claude Code hooks, then the Claude adapter stays out of its way."""
    data = json.loads(path.read_text().replace(kit.PLACEHOLDER, str(repo)))
    data.setdefault("session_id", data["conversation_id"])
    result = kit.hook(gfh, "claude", event, data, env=environment)
    assert (result.code, result.out, result.err) == (0, "", "")
    assert read_events(repo) == []


def test_cursor_environment_alone_marks_a_call_as_cursors(repo: Path, gfh: CliRunner) -> None:
    """If Cursor sends a Claude-shaped payload, its environment still tells the call apart."""
    data = kit.payload("claude", "UserPromptSubmit", repo)
    assert kit.hook(gfh, "claude", "UserPromptSubmit", data).code == 0
    assert [e["type"] for e in read_events(repo)] == ["turn.started"]
    for var in claude.CURSOR_ENVIRONMENT:
        result = kit.hook(gfh, "claude", "UserPromptSubmit", data, env={var: "x"})
        assert (result.code, result.out) == (0, "")
    assert [e["type"] for e in read_events(repo)] == ["turn.started"]


def test_cursor_stop_through_the_claude_adapter_never_blocks(repo: Path, gfh: CliRunner) -> None:
    """If Cursor runs a tool turn through both adapters, only its own adapter's Stop decides."""
    env = {"CURSOR_VERSION": "3.7.21"}
    ids = {"conversation_id": "c-dup", "session_id": "c-dup"}
    for cursor_name, claude_name in (
        ("beforeSubmitPrompt", "UserPromptSubmit"),
        ("postToolUse", "PostToolUse"),
    ):
        data = kit.payload("cursor", cursor_name, repo, **ids)
        assert kit.hook(gfh, "claude", claude_name, data, env=env).code == 0
        assert kit.hook(gfh, "cursor", cursor_name, data, env=env).code == 0
    stop = kit.payload("cursor", "stop", repo, **ids)
    assert (kit.hook(gfh, "claude", "Stop", stop, env=env).code) == 0
    cursor_stop = kit.hook(gfh, "cursor", "stop", stop, env=env)
    assert "followup_message" in cursor_stop.json()  # the ritual is still enforced, once
    sessions = {e["session"] for e in read_events(repo)}
    assert sessions == {"cursor:c-dup"}
