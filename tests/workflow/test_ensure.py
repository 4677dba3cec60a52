from __future__ import annotations

from pathlib import Path

from gitflow_harness import hints
from gitflow_harness.workflow.ensure import ensure
from gitflow_harness.workspace import open_workspace
from tests.helpers import CliRunner
from tests.workflow.conftest import verb_events


def test_ensure_prints_the_hint_outside_the_envelope(
    repo: Path, gfh: CliRunner, session: str
) -> None:
    result = gfh("ensure", "--json")
    assert result.code == 0
    envelope = result.json()
    assert envelope["hints"] == []
    assert envelope["data"]["on_trunk"] is True
    assert "[ensure-main-worktree-first]" in result.err
    [event] = verb_events(repo, "ensure")
    assert event["data"]["hint_ids"] == ["ensure-main-worktree-first"]
    assert event["session"] == session


def test_ensure_text_mode_prints_the_line(repo: Path, gfh: CliRunner, session: str) -> None:
    out = gfh("ensure").out
    assert "hint: you are in the main checkout on main" in out


def test_ensure_in_a_worktree_says_nothing(feature: Path, gfh: CliRunner, session: str) -> None:
    result = gfh("ensure")
    assert "hint:" not in result.out + result.err
    assert verb_events(feature, "ensure")[0]["data"]["hint_ids"] == []


def test_ensure_hint_is_for_agents_only(repo: Path, gfh: CliRunner) -> None:
    result = gfh("ensure")
    assert "hint:" not in result.out
    assert verb_events(repo, "ensure")[0]["data"]["hint_ids"] == []


def test_domain_ensure_queues_the_hint_for_the_entry_point(repo: Path) -> None:
    hints.drain()
    result = ensure(open_workspace())
    assert result.hints == ()
    [queued] = hints.drain()
    assert queued.id == "ensure-main-worktree-first"
    assert "main" in queued.text
    assert hints.drain() == ()


def test_a_hook_records_what_it_delivered_with_its_own_session(repo: Path) -> None:
    """The SessionStart hook runs before $GFH_SESSION exists: it passes its session and
    surface, and records the supplemental hint it delivered."""
    from gitflow_harness.workflow.record import record_verb

    hints.drain()
    ws = open_workspace()
    result = ensure(ws)
    delivered = hints.drain()
    event = record_verb(
        ws,
        result,
        branch="main",
        duration_ms=3,
        delivered=delivered,
        surface="hook",
        session="claude:fresh-session",
    )
    assert event["surface"] == "hook"
    assert event["session"] == "claude:fresh-session"
    assert event["data"]["hint_ids"] == ["ensure-main-worktree-first"]
    [recorded] = verb_events(repo, "ensure")
    assert recorded["data"]["hint_ids"] == ["ensure-main-worktree-first"]
