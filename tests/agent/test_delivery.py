"""The output path: budget with priority to first fires, record only what was delivered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gitflow_harness.agent import delivery
from gitflow_harness.hookcall import model as ev
from gitflow_harness.hookcall.model import Offer
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


PARSER = "when:\n  keywords: [parser]\n" + kit.EXPONENTIAL


def test_what_the_budget_cuts_is_suppressed_with_reason_budget(repo: Path, gfh: CliRunner) -> None:
    write(repo, ".gitflow-harness.toml", "[ways]\nbudget_chars = 40\n")
    kit.way(repo, "big", PARSER, "B" * 30)
    kit.way(repo, "huge", PARSER, "H" * 35)
    result = kit.hook(
        gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo)
    )
    assert result.json()["hookSpecificOutput"]["additionalContext"] == "B" * 30
    recorded = [
        (e["type"], e["data"]["way"], e["data"].get("reason")) for e in read_events(repo)[1:]
    ]
    assert recorded == [("way.fired", "big", None), ("way.suppressed", "huge", "budget")]


def test_a_refire_gives_way_to_a_first_fire_under_the_budget(repo: Path, gfh: CliRunner) -> None:
    """If a way that already fired refires in the same call as another way's first fire and
    only one fits, then the first fire is delivered and the refire is cut for budget."""
    write(repo, ".gitflow-harness.toml", "[ways]\nbudget_chars = 40\n")
    kit.way(
        repo,
        "again",
        "when:\n  keywords: [parser]\ncurve: {type: Flat, suppression: 0}\n",
        "A" * 30,
    )
    prompt = kit.payload("claude", "UserPromptSubmit", repo)
    kit.hook(gfh, "claude", "UserPromptSubmit", prompt)  # "again" fires first, alone
    kit.way(repo, "new", PARSER, "N" * 30)
    result = kit.hook(gfh, "claude", "UserPromptSubmit", prompt)
    assert result.json()["hookSpecificOutput"]["additionalContext"] == "N" * 30
    assert kit.decisions(repo) == [
        ("again", "fired", 1, "first"),
        ("new", "fired", 2, "first"),
        ("again", "suppressed", 2, "budget"),
    ]


def test_the_host_cap_bounds_the_budget(repo: Path, gfh: CliRunner) -> None:
    write(repo, ".gitflow-harness.toml", "[ways]\nbudget_chars = 50000\n")
    kit.way(repo, "a", PARSER, "a" * 6000)
    kit.way(repo, "b", PARSER, "b" * 6000)
    result = kit.hook(
        gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo)
    )
    assert len(result.json()["hookSpecificOutput"]["additionalContext"]) == 6000


def test_an_offer_withdrawn_under_the_lock_is_not_shown_and_recorded_as_suppressed(
    repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If a way's offer is withdrawn under the lock, then its text is not shown, and the match is
    still recorded — as `way.suppressed` with the reason its check gave — so that the log counts
    every match; a withdrawn offer of other context records nothing."""
    kit.plug(monkeypatch, [ev.PROMPT], "tests.agent.test_delivery:withdrawn")
    result = kit.hook(
        gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo)
    )
    assert result.out == ""
    events = read_events(repo)
    assert [e["type"] for e in events] == ["turn.started", "way.suppressed"]
    assert events[1]["data"] == {"way": "w", "trigger": "prompt", "reason": "refractory"}


def withdrawn(ctx: Any) -> list[Offer]:
    def check(state: Any) -> bool:
        way.reason = "refractory"
        return False

    way = Offer("late", way="w", fired={"trigger": "prompt"}, check=check)
    return [way, Offer("plain", check=lambda state: False)]
