"""The lanes and the context-source hook point, driven end to end through real hook calls.

The firing decisions here come from `kit.gate_source`, a stand-in with a flat refire delta: these
tests prove what the runtime gives a source — the lane, the tick, the epoch, the lock, the commit
after delivery — not the curves, which belong to the firing engine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gitflow_harness.agent import model as ev
from gitflow_harness.agent import sources
from tests.agent import kit
from tests.helpers import CliRunner, read_events


@pytest.fixture
def ways(monkeypatch: pytest.MonkeyPatch) -> dict[str, dict[str, Any]]:
    kit.plug(monkeypatch, [ev.PROMPT, ev.TOOL_POST], "tests.agent.kit:gate_source")
    table: dict[str, dict[str, Any]] = {}
    monkeypatch.setattr(kit, "WAYS", table)
    return table


def _prompt(repo: Path, transcript: Path) -> dict[str, Any]:
    return kit.payload("claude", "UserPromptSubmit", repo, transcript_path=str(transcript))


def _decisions(repo: Path) -> list[tuple[str, int, str | None]]:
    out = []
    for e in read_events(repo):
        if e["type"] == "way.fired":
            out.append(("fired", e["data"]["tick"], e["data"]["kind"]))
        elif e["type"] == "way.suppressed":
            out.append(("suppressed", e["data"]["tick"], e["data"]["reason"]))
    return out


def test_a_prompt_way_fires_is_suppressed_refires_and_returns_after_compaction(
    repo: Path, gfh: CliRunner, tmp_path: Path, ways: dict[str, dict[str, Any]]
) -> None:
    ways["parser"] = {"text": "Parser notes.", "prompt": r"\bparser\b", "delta": 10000}
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(kit.transcript_line("m1", 20000))
    first = kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, transcript))
    assert first.json()["hookSpecificOutput"]["additionalContext"] == "Parser notes."
    with open(transcript, "a") as out:
        out.write(kit.transcript_line("m2", 25000))
    near = kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, transcript))
    assert near.out == ""
    with open(transcript, "a") as out:
        out.write(kit.transcript_line("m3", 30001))
    later = kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, transcript))
    assert later.json()["hookSpecificOutput"]["additionalContext"] == "Parser notes."
    kit.hook(gfh, "claude", "PreCompact", kit.payload("claude", "PreCompact", repo))
    with open(transcript, "a") as out:
        out.write(kit.boundary_line("b1") + kit.transcript_line("m4", 9000))
    after = kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, transcript))
    assert after.json()["hookSpecificOutput"]["additionalContext"] == "Parser notes."
    assert _decisions(repo) == [
        ("fired", 20000, "first"),
        ("suppressed", 25000, "salience"),
        ("fired", 30001, "refire"),
        ("fired", 39001, "first"),  # a new episode, on a tick that kept growing
    ]


def test_an_unsignalled_drop_in_the_transcript_also_starts_a_new_episode(
    repo: Path, gfh: CliRunner, tmp_path: Path, ways: dict[str, dict[str, Any]]
) -> None:
    ways["parser"] = {"text": "Parser notes.", "prompt": "parser", "delta": 10**9}
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(kit.transcript_line("m1", 50000))
    kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, transcript))
    with open(transcript, "a") as out:
        out.write(kit.transcript_line("m2", 4000))
    again = kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, transcript))
    assert again.json()["hookSpecificOutput"]["additionalContext"] == "Parser notes."
    assert _decisions(repo) == [("fired", 50000, "first"), ("fired", 54000, "first")]


def test_the_files_lane_sees_repo_relative_paths(
    repo: Path, gfh: CliRunner, ways: dict[str, dict[str, Any]]
) -> None:
    ways["src"] = {"text": "Source rules.", "files": "src/", "delta": 5}
    ways["docs"] = {"text": "Docs rules.", "files": "docs/", "delta": 5}
    result = kit.hook(
        gfh, "claude", "PostToolUse", kit.payload("claude", "PostToolUse.Write", repo)
    )
    assert result.json()["hookSpecificOutput"]["additionalContext"] == "Source rules."
    [fired] = [e["data"] for e in read_events(repo) if e["type"] == "way.fired"]
    assert (fired["way"], fired["trigger"]) == ("src", "file")


def test_without_a_transcript_the_tick_is_the_turn_count(
    repo: Path, gfh: CliRunner, ways: dict[str, dict[str, Any]]
) -> None:
    ways["parser"] = {"text": "Parser notes.", "prompt": "parser", "delta": 1}
    data = kit.payload("claude", "UserPromptSubmit", repo, transcript_path=None)
    for _ in range(3):
        kit.hook(gfh, "claude", "UserPromptSubmit", data)
    fired = [
        (e["data"]["axis"], e["data"]["tick"])
        for e in read_events(repo)
        if e["type"] == "way.fired"
    ]
    assert fired == [("turns", 1), ("turns", 3)]


def test_every_lane_of_the_design_is_opened_by_its_event() -> None:
    assert {
        ev.PROMPT: {"prompt", "keywords"},
        ev.TOOL_POST: {"files", "commands", "postcheck"},
        ev.TOOL_FAILURE: {"postcheck"},
        ev.SESSION_START: {"session_start"},
        ev.SUBAGENT_START: {"roles"},
    } == sources.LANES
    assert ev.TOOL_PRE not in sources.LANES
