"""Claude Code: every fixture round-trips to the documented stdout shape and exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitflow_harness.agent import claude, sources
from gitflow_harness.agent import model as ev
from tests.agent import kit
from tests.helpers import CliRunner

FIXTURES = [(e, p) for a, e, p in kit.fixture_files() if a == "claude"]


@pytest.fixture
def with_context(monkeypatch: pytest.MonkeyPatch) -> None:
    kit.plug(monkeypatch, sources.CONTEXT_SOURCES, "tests.agent.kit:plain_source")


# PROTOCOLS.md §1: the events whose output may carry `hookSpecificOutput.additionalContext`.
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
