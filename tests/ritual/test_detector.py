from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from gitflow_harness.report.model import ReportContext
from gitflow_harness.ritual.detector import StopRitual
from gitflow_harness.ritual.evaluate import NO_TURN_STARTED, NOT_CONTINUED
from gitflow_harness.store.events import ReadStats, format_at, make_event
from gitflow_harness.workspace import open_workspace


def verdict(
    session: str, decision: str, rule: str | None, adapter: str = "claude", **extra: Any
) -> Any:
    data = {
        "adapter": adapter,
        "decision": decision,
        "rule": rule,
        "reason": extra.pop("reason", "r"),
        "enforced": adapter != "codex",
        "tool_turn": extra.pop("tool_turn", True),
        "turn": extra.pop("turn", 1),
        "remediation": extra.pop("remediation", False),
        "continuation": extra.pop("continuation", False),
        **({"unchecked": extra.pop("unchecked")} if "unchecked" in extra else {}),
    }
    at = extra.pop("at", None)
    return make_event("stop.verdict", data, surface="hook", session=session, branch="b", at=at)


def prompt(session: str, *, remediation: bool = False, at: str | None = None) -> Any:
    data = {"turn": None, "stop_remediation": remediation}
    return make_event("turn.started", data, surface="hook", session=session, branch="b", at=at)


def ended(session: str) -> Any:
    data = {"reason": "other"}
    return make_event("session.ended", data, surface="hook", session=session, branch="b")


def hours(n: float) -> str:
    return format_at(datetime(2026, 12, 1, tzinfo=UTC) + timedelta(hours=n))


def run(events: list[Any], repo: Path) -> Any:
    detector = StopRitual()
    for ev in events:
        detector.observe(ev)
    return detector.finish(ReportContext(open_workspace(repo), ReadStats()))


def test_no_verdicts_is_insufficient_evidence(repo: Path) -> None:
    result = run([], repo)
    assert (result.status, result.considered, result.findings) == ("insufficient-evidence", 0, ())


def test_counts_blocks_repairs_fail_opens_and_unprompted_turns(repo: Path) -> None:
    events = [
        verdict("claude:a", "allow", None, turn=1),  # unprompted, complete
        verdict("claude:a", "block", "status", turn=2),
        verdict("claude:a", "block", "box", turn=2),  # Claude continues the same turn
        verdict("claude:a", "allow", None, turn=2),  # repaired within the turn
        verdict("cursor:b", "block", "task", adapter="cursor", turn=1),
        verdict("cursor:b", "allow", None, adapter="cursor", turn=2, remediation=True),  # repaired
        verdict("codex:c", "allow", "status", adapter="codex"),  # would have blocked
        verdict("claude:d", "fail_open", None, reason="no turn.started recorded"),
        verdict("claude:e", "allow", None, tool_turn=False),  # prose turn: not a tool turn
        verdict("claude:f", "block", "box", turn=1),
        verdict("claude:f", "allow", None, turn=2),  # a new human turn: not a repair
    ]
    result = run(events, repo)
    assert result.status == "fired"
    assert result.considered == 9
    [finding] = result.findings
    assert finding.tone == "attention"
    assert finding.evidence == {
        "evaluated": 9,
        "blocked": 4,
        "repaired": 2,
        "ended_by_gfh": 0,
        "ended_by_host": 1,  # claude:f's turn 1: a new turn began with it still blocked
        "pending": 0,
        "fail_open": 1,
        "tool_turns": 6,
        "unprompted": 2,
    }
    assert result.notes == (
        "turns evaluated by adapter: claude 6, codex 1, cursor 2",
        "blocks by rule: box 2, status 1, task 1",
        "would have blocked (observe-only adapters): codex:status 1",
        "fail-opens by reason: no turn.started recorded 1",
        "turns ended unrepaired, by the rule that failed: box 1",
    )
    assert "Fail-opens" in finding.next_step


def test_all_turns_complete_is_good(repo: Path) -> None:
    result = run([verdict("claude:a", "allow", None), verdict("claude:a", "allow", None)], repo)
    [finding] = result.findings
    assert finding.tone == "good"
    assert finding.evidence["unprompted"] == 2


def test_a_continuation_belongs_to_the_turn_it_continues(repo: Path) -> None:
    """If another Stop hook kept an allowed turn going, then the verdicts on what followed are
    that turn's: not a new turn evaluated, and a repair within it counts as one."""
    events = [
        verdict("claude:a", "allow", None, turn=4),
        verdict("claude:a", "block", "status", turn=4, continuation=True),
        verdict("claude:a", "allow", None, turn=4, continuation=True),
    ]
    result = run(events, repo)
    [finding] = result.findings
    assert result.considered == 1
    assert finding.evidence == {
        "evaluated": 1,
        "blocked": 1,
        "repaired": 1,
        "ended_by_gfh": 0,
        "ended_by_host": 0,
        "pending": 0,
        "fail_open": 0,
        "tool_turns": 1,
        "unprompted": 1,
    }


def test_a_stop_without_a_readable_payload_is_counted_as_a_fail_open(repo: Path) -> None:
    unreadable = make_event(
        "stop.verdict",
        {
            "adapter": "claude",
            "decision": "fail_open",
            "rule": None,
            "reason": "payload_unreadable",
            "enforced": True,
            "tool_turn": False,
            "turn": None,
            "remediation": False,
        },
        surface="hook",
        session=None,
        branch="b",
    )
    result = run([verdict("claude:a", "allow", None), unreadable], repo)
    [finding] = result.findings
    assert (finding.evidence["evaluated"], finding.evidence["fail_open"]) == (2, 1)
    assert "fail-opens by reason: payload_unreadable 1" in result.notes
    assert "prompt hook" not in finding.next_step  # the reason is not a missing turn.started
    assert "the notes give each reason" in finding.next_step


@pytest.mark.parametrize(
    ("reason", "prompt_hook"),
    [
        (NO_TURN_STARTED, True),
        (NOT_CONTINUED, True),
        # The turn's start may be older than the scan reaches: not a missing prompt hook.
        ("no turn.started of this session within the last 50000 events of the log; x", False),
        ("payload_unreadable", False),
    ],
)
def test_only_a_turn_the_prompt_hook_missed_points_at_the_prompt_hook(
    repo: Path, reason: str, prompt_hook: bool
) -> None:
    result = run([verdict("claude:a", "fail_open", None, reason=reason)], repo)
    [finding] = result.findings
    assert ("prompt hook" in finding.next_step) is prompt_hook


def test_a_turn_allowed_with_the_box_unchecked_is_not_counted_as_completed(repo: Path) -> None:
    """If the host sent no reply text, the box was skipped, not kept: such a turn stays out of
    the unprompted share, and the notes say how many were left unchecked."""
    events = [
        verdict("claude:a", "allow", None, turn=1),
        verdict("claude:b", "allow", None, turn=1, unchecked=["box"]),
    ]
    result = run(events, repo)
    [finding] = result.findings
    assert (finding.evidence["tool_turns"], finding.evidence["unprompted"]) == (1, 1)
    assert "rules left unchecked (the host sent no reply text): box 1" in result.notes


def test_a_host_that_ended_a_blocked_turn_is_counted_as_ending_it_unrepaired(repo: Path) -> None:
    """If a turn's last verdict was a block and the session's next prompt is its own (not
    Cursor's remediation), then the host ended the turn over gfh's head: 9 blocks, 0 repaired,
    1 ended by the host — not nothing."""
    events = [prompt("claude:a")]
    events += [verdict("claude:a", "block", "status", turn=1) for _ in range(9)]
    events += [prompt("claude:a"), verdict("claude:a", "allow", None, turn=2)]
    result = run(events, repo)
    [finding] = result.findings
    assert {k: finding.evidence[k] for k in ("blocked", "repaired", "ended_by_host")} == {
        "blocked": 9,
        "repaired": 0,
        "ended_by_host": 1,
    }
    assert "1 ended unrepaired (0 by gfh's bound, 1 by the host)" in finding.observed
    assert "turns ended unrepaired, by the rule that failed: status 1" in result.notes
    assert finding.tone == "attention"
    assert "ritual still failing" in finding.next_step


def test_a_remediation_prompt_continues_the_blocked_turn(repo: Path) -> None:
    events = [
        verdict("cursor:b", "block", "status", adapter="cursor", turn=1),
        prompt("cursor:b", remediation=True),
        verdict("cursor:b", "allow", None, adapter="cursor", turn=2, remediation=True),
    ]
    [finding] = run(events, repo).findings
    assert (finding.evidence["repaired"], finding.evidence["ended_by_host"]) == (1, 0)


def test_the_bound_of_gfh_ends_a_turn_unrepaired(repo: Path) -> None:
    events = [verdict("claude:a", "block", "task", turn=1) for _ in range(3)]
    events.append(verdict("claude:a", "fail_open", "task", turn=1, reason="remediation_exhausted"))
    events.append(prompt("claude:a"))
    result = run(events, repo)
    [finding] = result.findings
    assert (finding.evidence["ended_by_gfh"], finding.evidence["ended_by_host"]) == (1, 0)
    assert (finding.evidence["repaired"], finding.evidence["fail_open"]) == (0, 1)
    assert "turns ended unrepaired, by the rule that failed: task 1" in result.notes
    assert "ritual still failing" in finding.next_step


def test_a_block_at_the_end_of_the_log_is_pending_until_its_session_goes_quiet(
    repo: Path,
) -> None:
    """If the log ends on a block, then a repair may be under way: pending, not unrepaired —
    unless a day of the log passed since, which only an ended session stays quiet for."""
    recent = [verdict("claude:a", "block", "box", at=hours(0))]
    others = [verdict("claude:z", "allow", None, at=hours(23))]
    [finding] = run(recent + others, repo).findings
    assert (finding.evidence["pending"], finding.evidence["ended_by_host"]) == (1, 0)
    assert "1 still blocked at the end of the log" in finding.observed
    later = [verdict("claude:z", "allow", None, at=hours(25))]
    [finding] = run(recent + later, repo).findings
    assert (finding.evidence["pending"], finding.evidence["ended_by_host"]) == (0, 1)


def test_a_session_that_ends_on_a_block_ended_its_turn_unrepaired(repo: Path) -> None:
    """If the session ends while its turn is blocked (Claude Code -p giving up, then
    SessionEnd), then the host ended that turn: not pending, whatever the log's end."""
    events = [prompt("claude:a"), verdict("claude:a", "block", "task"), ended("claude:a")]
    [finding] = run(events, repo).findings
    assert (finding.evidence["pending"], finding.evidence["ended_by_host"]) == (0, 1)
    still = [prompt("claude:b"), verdict("claude:b", "block", "task"), ended("claude:other")]
    [finding] = run(still, repo).findings
    assert (finding.evidence["pending"], finding.evidence["ended_by_host"]) == (1, 0)


def test_the_breakdown_gives_each_adapters_outcomes(repo: Path) -> None:
    """If turns end differently on different hosts, then the breakdown says which host did
    what: verdicts allowed, blocked, observed only and failed open, and how blocked turns
    ended (repaired, unrepaired, still pending), each under its own adapter."""
    events = [
        verdict("claude:a", "block", "box", turn=1, at=hours(0)),
        verdict("claude:a", "allow", None, turn=1, at=hours(0.1)),  # repaired
        verdict("claude:b", "block", "task", turn=1, at=hours(0.2)),
        prompt("claude:b", at=hours(0.3)),  # a new prompt: the host ended it unrepaired
        verdict("codex:c", "allow", "status", adapter="codex", at=hours(0.4)),
        verdict("cursor:d", "fail_open", None, adapter="cursor", reason="x", at=hours(0.5)),
        verdict("cursor:e", "block", "box", adapter="cursor", at=hours(0.6)),  # pending
    ]
    result = run(events, repo)
    zero = dict.fromkeys(
        ("evaluated", "allowed", "blocked", "would_block", "repaired", "ended_unrepaired",
         "pending", "fail_open"),
        0,
    )  # fmt: skip
    assert result.breakdown["adapters"] == {
        "claude": {**zero, "evaluated": 2, "allowed": 1, "blocked": 2, "repaired": 1,
                   "ended_unrepaired": 1},
        "codex": {**zero, "evaluated": 1, "would_block": 1},
        "cursor": {**zero, "evaluated": 2, "blocked": 1, "pending": 1, "fail_open": 1},
    }  # fmt: skip
    assert result.breakdown["fail_open_by_reason"] == {"x": 1}
    assert result.breakdown["unrepaired_by_rule"] == {"task": 1}
    assert result.breakdown["blocks_by_rule"] == {"box": 2, "task": 1}
    assert result.to_dict()["breakdown"] == result.breakdown
