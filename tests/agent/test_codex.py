"""Codex: context and the session env in `hookSpecificOutput`; Stop only ever observes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitflow_harness.agent import codex, sources
from gitflow_harness.agent import model as ev
from tests.agent import kit
from tests.helpers import CliRunner, read_events

FIXTURES = [(e, p) for a, e, p in kit.fixture_files() if a == "codex"]
# Codex's hooks: the events whose `hookSpecificOutput` carries `additionalContext`.
PROTOCOL_CONTEXT = frozenset({"SessionStart", "PreToolUse"})


def test_context_goes_out_only_where_the_protocol_takes_it() -> None:
    assert codex.CONTEXT_EVENTS <= PROTOCOL_CONTEXT


@pytest.mark.parametrize(("event", "path"), FIXTURES, ids=[p.stem for _, p in FIXTURES])
def test_fixture_round_trips_with_context(
    event: str, path: Path, repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit.plug(monkeypatch, sources.CONTEXT_SOURCES, "tests.agent.kit:plain_source")
    data = json.loads(path.read_text().replace(kit.PLACEHOLDER, str(repo)))
    result = kit.hook(gfh, "codex", event, data)
    assert (result.code, result.err) == (0, "")
    specific: dict[str, object] = {}
    if event in PROTOCOL_CONTEXT:  # every fixture event there has a source that offers
        specific["additionalContext"] = "plain context"
    if event == "SessionStart":
        specific["env"] = {"GFH_SESSION": "codex:0199a7c2-codex"}
    if specific:
        assert result.json() == {"hookSpecificOutput": {"hookEventName": event, **specific}}
    else:
        assert result.out == ""


def test_stop_never_blocks(repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sources.STOP_CHECKS, ev.STOP, ("tests.agent.kit:block_check",))
    result = kit.hook(gfh, "codex", "Stop", kit.payload("codex", "Stop", repo))
    assert (result.code, result.out, result.err) == (0, "", "")


def test_subagent_stop_records_the_declared_verdict(repo: Path, gfh: CliRunner) -> None:
    kit.hook(gfh, "codex", "SubagentStop", kit.payload("codex", "SubagentStop", repo))
    [stopped] = [e for e in read_events(repo) if e["type"] == "subagent.stopped"]
    assert stopped["data"] == {
        "role": "reviewer",
        "agent": "agent-2",
        "verdict": "BLOCKED",
        "model": "gpt-5-codex",  # Codex names the model on every event
    }
    assert stopped["session"] == "codex:0199a7c2-codex"


def test_apply_patch_names_its_files(repo: Path) -> None:
    patch = (
        "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n"
        "*** Add File: docs/new.md\n+hello\n*** End Patch\n"
    )
    data = kit.payload("codex", "PostToolUse.Bash", repo, tool_name="apply_patch")
    data["tool_input"] = {"input": patch}
    event = codex.parse("PostToolUse", data, b"")
    assert event.paths == ("src/a.py", "docs/new.md")
