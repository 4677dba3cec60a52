"""Cursor: every fixture answers one JSON object with exit 0, context only where Cursor takes it
(docs/hooks.md#what-each-host-can-receive)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitflow_harness.agent import cursor, sources
from gitflow_harness.hookcall import model as ev
from tests.agent import kit
from tests.helpers import CliRunner, read_events

FIXTURES = [(e, p) for a, e, p in kit.fixture_files() if a == "cursor"]
# Cursor's hooks: the only event whose output carries `additional_context`. (`postToolUse`
# answers `updated_mcp_tool_output`, `postToolUseFailure` nothing, `beforeSubmitPrompt`
# `continue` and `user_message`.)
PROTOCOL_CONTEXT = frozenset({"sessionStart"})


def test_context_goes_out_only_where_the_protocol_takes_it() -> None:
    assert cursor.CONTEXT_EVENTS <= PROTOCOL_CONTEXT


@pytest.mark.parametrize(("event", "path"), FIXTURES, ids=[p.stem for _, p in FIXTURES])
def test_fixture_round_trips_with_context(
    event: str, path: Path, repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit.plug(monkeypatch, sources.CONTEXT_SOURCES, "tests.agent.kit:plain_source")
    data = json.loads(path.read_text().replace(kit.PLACEHOLDER, str(repo)))
    result = kit.hook(gfh, "cursor", event, data)
    assert (result.code, result.err) == (0, "")
    out = result.json()
    assert isinstance(out, dict)
    expected: dict[str, object] = {}
    if event == "sessionStart":
        expected["env"] = {"GFH_SESSION": "cursor:c-5b1e"}
    if event in PROTOCOL_CONTEXT:
        expected["additional_context"] = "plain context"
    assert out == expected


def test_stop_block_is_a_followup_message_with_the_remediation_marker(
    repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sources.STOP_CHECKS, ev.STOP, ("tests.agent.kit:block_check",))
    result = kit.hook(gfh, "cursor", "stop", kit.payload("cursor", "stop", repo))
    assert result.code == 0
    message = result.json()["followup_message"]
    assert message.startswith("[gfh:stop-remediation rule=status]\n")
    assert "gfh status --end-turn" in message


def test_a_prompt_opening_with_the_marker_records_stop_remediation(
    repo: Path, gfh: CliRunner
) -> None:
    kit.hook(gfh, "cursor", "beforeSubmitPrompt", kit.payload("cursor", "beforeSubmitPrompt", repo))
    data = kit.payload("cursor", "beforeSubmitPrompt.remediation", repo)
    kit.hook(gfh, "cursor", "beforeSubmitPrompt", data)
    turns = [e["data"] for e in read_events(repo) if e["type"] == "turn.started"]
    assert turns == [
        {"turn": 1, "stop_remediation": False},
        {"turn": 2, "stop_remediation": True},
    ]


def test_parse_reads_snake_case_fields_and_the_workspace_root(repo: Path) -> None:
    data = kit.payload("cursor", "subagentStop", repo)
    event = cursor.parse("subagentStop", data, b"")
    assert event.session == "cursor:c-5b1e"
    assert event.cwd == str(repo)  # from workspace_roots[0]: no top-level cwd
    assert event.role == "reviewer"
    assert event.message == "VERDICT: PASS"
    shell = cursor.parse("postToolUse", kit.payload("cursor", "postToolUse", repo), b"")
    assert (shell.tool, shell.command) == ("Shell", "gfh status --end-turn")
    assert cursor.parse("afterFileEdit", kit.payload("cursor", "afterFileEdit"), b"").kind is None
