from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gitflow_harness.ritual.stop import stop_verdict, turn_events
from gitflow_harness.store.config import RitualConfig, default_config
from gitflow_harness.store.events import EventLog

RITUAL = default_config().ritual


@pytest.fixture
def log(tmp_path: Path) -> EventLog:
    return EventLog(tmp_path / "common")


def rec(
    log: EventLog, type_: str, session: str = "claude:a", surface: str = "hook", **data: Any
) -> None:
    log.record(type_, data, surface=surface, branch="feature", session=session)


def completed(log: EventLog, box: bool, session: str = "claude:a") -> None:
    obs = {"state": "observed", "value": box}
    rec(
        log,
        "turn.completed",
        session=session,
        turn=1,
        ritual={"status_box": obs, "status_box_strict": obs},
        tool_call_count={"state": "observed", "value": 1},
    )


def test_turn_events_stop_at_the_turns_start_and_skip_other_sessions(log: EventLog) -> None:
    rec(log, "turn.started", turn=1, stop_remediation=False)
    rec(log, "coord.task_changed", state="set", fingerprint="old")
    completed(log, True)
    rec(log, "turn.started", turn=2, stop_remediation=False)
    rec(log, "tool.requested", session="cursor:other", tool="Shell", phase="pre")
    rec(log, "tool.requested", tool="Bash", phase="pre")
    completed(log, False)
    events = turn_events(log, "claude:a")
    assert [e.type for e in events] == ["turn.started", "tool.requested", "turn.completed"]
    assert events[0].data["turn"] == 2


def test_claude_block_then_repair_in_the_same_turn(log: EventLog) -> None:
    rec(log, "turn.started", turn=1, stop_remediation=False)
    rec(log, "tool.requested", tool="Edit", phase="post")
    completed(log, False)
    first = stop_verdict(log, session="claude:a", adapter="claude", ritual=RITUAL)
    assert (first.decision, first.rule, first.enforced) == ("block", "status", True)
    rec(log, "coord.status_observed", surface="cli", status="end_turn_checked")
    rec(log, "coord.task_changed", surface="cli", state="set", fingerprint="f")
    completed(log, True)
    second = stop_verdict(log, session="claude:a", adapter="claude", ritual=RITUAL)
    assert (second.decision, second.rule) == ("allow", None)


def test_codex_never_blocks_but_says_what_it_would_have(log: EventLog) -> None:
    rec(log, "turn.started", session="codex:x", turn=1, stop_remediation=False)
    rec(log, "tool.requested", session="codex:x", tool="Bash", phase="pre")
    completed(log, False, session="codex:x")
    enforce_all = RitualConfig(("claude", "cursor", "codex"), True, True, True)
    verdict = stop_verdict(log, session="codex:x", adapter="codex", ritual=enforce_all)
    assert (verdict.decision, verdict.rule, verdict.enforced) == ("allow", "status", False)


def test_adapters_outside_enforce_only_observe(log: EventLog) -> None:
    rec(log, "turn.started", turn=1, stop_remediation=False)
    completed(log, False)
    observe = RitualConfig(("cursor",), True, True, True)
    verdict = stop_verdict(log, session="claude:a", adapter="claude", ritual=observe)
    assert (verdict.decision, verdict.rule, verdict.enforced) == ("allow", "status", False)


def test_missing_evidence_fails_open_with_a_reason(log: EventLog) -> None:
    completed(log, True)
    verdict = stop_verdict(log, session="claude:a", adapter="claude", ritual=RITUAL)
    assert verdict.decision == "fail_open"
    assert "no turn.started" in verdict.reason
    nosession = stop_verdict(log, session=None, adapter="claude", ritual=RITUAL)
    assert nosession.decision == "fail_open"


def test_unreadable_log_fails_open(log: EventLog, monkeypatch: pytest.MonkeyPatch) -> None:
    """If reading the log fails (permissions, I/O), then the stop is allowed as fail_open."""
    rec(log, "turn.started", turn=1, stop_remediation=False)
    completed(log, True)

    def unreadable(self: EventLog) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(EventLog, "reverse", unreadable)
    verdict = stop_verdict(log, session="claude:a", adapter="claude", ritual=RITUAL)
    assert verdict.decision == "fail_open"
    assert verdict.reason == "event log unreadable: Permission denied"
