"""The output path: budget with priority to first fires, record only what was delivered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gitflow_harness.agent import delivery
from gitflow_harness.agent import model as ev
from gitflow_harness.agent.model import Offer
from gitflow_harness.agent.session import SessionState
from tests.agent import kit
from tests.helpers import CliRunner, read_events, write


def test_first_fires_claim_the_budget_before_refires() -> None:
    refire = Offer("r" * 50, way="a", first=False)
    first = Offer("f" * 60, way="b")
    small = Offer("s" * 30, way="c")
    kept, cut = delivery.select([refire, first, small], budget=100)
    assert kept == [first, small]  # 60 + 2 (separator) + 30 = 92
    assert cut == [refire]
    kept, cut = delivery.select([refire, first, small], budget=91)
    assert kept == [first]
    assert cut == [refire, small]


def test_delivered_text_never_exceeds_the_budget() -> None:
    offers = [Offer("x" * n, way=str(n)) for n in (10, 20, 30, 40)]
    for budget in range(0, 120):
        kept, _ = delivery.select(offers, budget)
        assert len("\n\n".join(o.text for o in kept)) <= budget


@pytest.fixture
def ways(monkeypatch: pytest.MonkeyPatch) -> dict[str, dict[str, Any]]:
    kit.plug(
        monkeypatch, [ev.PROMPT, ev.TOOL_POST, ev.SESSION_START], "tests.agent.kit:gate_source"
    )
    table: dict[str, dict[str, Any]] = {}
    monkeypatch.setattr(kit, "WAYS", table)
    return table


def test_what_the_budget_cuts_is_suppressed_with_reason_budget(
    repo: Path, gfh: CliRunner, ways: dict[str, dict[str, Any]]
) -> None:
    write(repo, ".gitflow-harness.toml", "[ways]\nbudget_chars = 40\n")
    ways["big"] = {"text": "B" * 30, "prompt": "parser", "delta": 10}
    ways["huge"] = {"text": "H" * 35, "prompt": "parser", "delta": 10}
    result = kit.hook(
        gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo)
    )
    assert result.json()["hookSpecificOutput"]["additionalContext"] == "B" * 30
    recorded = [
        (e["type"], e["data"]["way"], e["data"].get("reason")) for e in read_events(repo)[1:]
    ]
    assert recorded == [("way.fired", "big", None), ("way.suppressed", "huge", "budget")]


def test_the_host_cap_bounds_the_budget(
    repo: Path, gfh: CliRunner, ways: dict[str, dict[str, Any]]
) -> None:
    write(repo, ".gitflow-harness.toml", "[ways]\nbudget_chars = 50000\n")
    ways["a"] = {"text": "a" * 6000, "prompt": "parser", "delta": 10}
    ways["b"] = {"text": "b" * 6000, "prompt": "parser", "delta": 10}
    result = kit.hook(
        gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo)
    )
    assert len(result.json()["hookSpecificOutput"]["additionalContext"]) == 6000


def test_an_offer_withdrawn_under_the_lock_is_neither_shown_nor_recorded(
    repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit.plug(monkeypatch, [ev.PROMPT], "tests.agent.test_delivery:withdrawn")
    result = kit.hook(
        gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo)
    )
    assert result.out == ""
    assert [e["type"] for e in read_events(repo)] == ["turn.started"]


def withdrawn(ctx: Any) -> list[Offer]:
    return [Offer("late", way="w", fired={"trigger": "prompt"}, check=lambda state: False)]


def test_cursor_prompt_context_waits_for_the_next_event_that_takes_it(
    repo: Path, gfh: CliRunner, ways: dict[str, dict[str, Any]]
) -> None:
    """If a way matches Cursor's beforeSubmitPrompt (no context channel), then nothing is shown
    or recorded there; its id waits in the session state and the next postToolUse delivers it."""
    ways["tests"] = {
        "text": "Run the tests with gfh test.",
        "prompt": "tests",
        "delta": 5,
        "axis": "turns",
    }
    prompt = kit.hook(
        gfh, "cursor", "beforeSubmitPrompt", kit.payload("cursor", "beforeSubmitPrompt", repo)
    )
    assert prompt.json() == {}
    assert "way.fired" not in [e["type"] for e in read_events(repo)]
    state = SessionState("cursor:c-5b1e").read()
    assert state["pending"] == [
        {"source": "tests.agent.kit:gate_source", "way": "tests", "trigger": "prompt"}
    ]
    assert "gfh test" not in json.dumps(state)
    post = kit.hook(gfh, "cursor", "postToolUse", kit.payload("cursor", "postToolUse", repo))
    assert post.json() == {"additional_context": "Run the tests with gfh test."}
    [fired] = [e["data"] for e in read_events(repo) if e["type"] == "way.fired"]
    assert (fired["way"], fired["trigger"], fired["axis"]) == ("tests", "prompt", "turns")
    again = kit.hook(gfh, "cursor", "postToolUse", kit.payload("cursor", "postToolUse", repo))
    assert again.json() == {}
    assert SessionState("cursor:c-5b1e").read()["pending"] == []
