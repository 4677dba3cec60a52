"""One tool call in-process: hints delivered outside the envelope, and unknown failures."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from gitflow_harness import hints
from gitflow_harness.mcp import calls
from gitflow_harness.mcp.tools import BY_NAME
from gitflow_harness.workflow.commands import Console
from gitflow_harness.workflow.result import VerbData, VerbResult
from gitflow_harness.workspace import Workspace
from tests.helpers import read_events

SESSION = "claude:3b9e"


@pytest.fixture
def agent(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("GFH_SESSION", SESSION)
    return SESSION


def hint_ids(repo: Path) -> list[list[str]]:
    return [e["data"]["hint_ids"] for e in read_events(repo) if e["type"] == "verb"]


@pytest.mark.usefixtures("repo", "agent")
def test_a_hint_queued_outside_any_call_is_not_delivered_by_the_next_call(repo: Path) -> None:
    """If something in the server's process queued a supplemental hint outside a call, then
    the next tool call neither shows nor records it as its own: it stays with the process."""
    early = hints.hint("ensure-main-worktree-first", trunk="main")
    hints.supplement(early)
    try:
        answer = calls.call("status", {})
        assert "ensure-main-worktree-first" not in answer.text
        assert hint_ids(repo) == [[]]
        assert hints.drain() == (early,)
    finally:
        hints.drain()


@pytest.mark.usefixtures("agent")
def test_concurrent_calls_each_deliver_only_the_hints_they_queued(repo: Path) -> None:
    both_queued = threading.Barrier(2, timeout=30)

    def action(hint_id: str, **values: Any) -> calls.Action:
        def run(ws: Workspace, console: Console) -> VerbResult:
            hints.supplement(hints.hint(hint_id, **values))
            both_queued.wait()  # each call has queued its hint before either drains
            return VerbResult("prepare", "ok", VerbData())

        return run

    answers: dict[str, calls.Answer] = {}

    def call(key: str, act: calls.Action) -> None:
        with hints.isolated():
            answers[key] = calls.run_verb(BY_NAME["prepare"], {"cwd": None}, lambda _: None, act)

    threads = [
        threading.Thread(target=call, args=("a", action("ensure-main-worktree-first", trunk="m"))),
        threading.Thread(target=call, args=("b", action("status-trunk-dirty", trunk="m"))),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert "[ensure-main-worktree-first]" in answers["a"].text
    assert "[status-trunk-dirty]" not in answers["a"].text
    assert "[status-trunk-dirty]" in answers["b"].text
    assert "[ensure-main-worktree-first]" not in answers["b"].text
    assert sorted(hint_ids(repo)) == [["ensure-main-worktree-first"], ["status-trunk-dirty"]]
    assert hints.drain() == ()


@pytest.mark.usefixtures("repo")
def test_an_unexpected_failure_is_an_error_answer_with_a_crash_report(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def boom(*_: Any) -> calls.Answer:
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setitem(calls.HANDLERS, "status", boom)
    answer = calls.call("status", {})
    assert answer.is_error
    assert answer.structured is None
    assert answer.text.startswith("gfh: internal error: RuntimeError: boom (full report: ")
    assert "second line" not in answer.text


def test_a_failed_gate_hands_back_only_the_end_of_a_long_output() -> None:
    out = calls._Output()
    for i in range(20_000):
        out.write(f"line {i}\n")
    kept = calls._tail(out.getvalue())
    assert kept.endswith("line 19999")
    assert len(kept) <= calls.OUTPUT_TAIL_CHARS
    assert len(out.getvalue()) <= calls._Output.LIMIT
