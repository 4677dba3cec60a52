from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitflow_harness.ritual.evidence import box_observations
from gitflow_harness.ritual.stop import conclude_turn, turn_events
from gitflow_harness.store.config import RitualConfig, default_config
from gitflow_harness.store.events import EventLog

RITUAL = default_config().ritual
CHAT_BOX = RITUAL._replace(chat_turns="box")
BOX = "┌─ gfh · feature ─┐\n│ tree  clean     │\n└─────────────────┘\n"


@pytest.fixture
def log(tmp_path: Path) -> EventLog:
    return EventLog(tmp_path / "common")


def rec(
    log: EventLog, type_: str, session: str = "claude:a", surface: str = "hook", **data: Any
) -> None:
    log.record(type_, data, surface=surface, branch="feature", session=session)


def stop(
    log: EventLog,
    reply: str | None,
    *,
    session: str = "claude:a",
    adapter: str = "claude",
    ritual: RitualConfig = RITUAL,
    unsupported: str | None = None,
    continued: bool = False,
) -> Any:
    return conclude_turn(
        log,
        session=session,
        adapter=adapter,
        ritual=ritual,
        branch="feature",
        reply=box_observations(reply),
        tools_unsupported=unsupported,
        continued=continued,
    )


def types(log: EventLog) -> list[str]:
    return [e.type for e in log.read()]


def test_turn_events_stop_at_the_turns_start_and_skip_other_sessions(log: EventLog) -> None:
    rec(log, "turn.started", turn=1, stop_remediation=False)
    rec(log, "coord.task_changed", state="set", fingerprint="old")
    stop(log, BOX)
    rec(log, "turn.started", turn=2, stop_remediation=False)
    rec(log, "tool.requested", session="cursor:other", tool="Shell", phase="pre")
    rec(log, "tool.requested", tool="Bash", phase="pre")
    stop(log, "no box")
    events, complete = turn_events(log, "claude:a")
    assert complete
    assert [e.type for e in events] == [
        "turn.started",
        "tool.requested",
        "turn.completed",
        "stop.verdict",
    ]
    assert events[0].data["turn"] == 2


def test_turn_completed_is_written_before_the_verdict(log: EventLog) -> None:
    rec(log, "turn.started", turn=7, stop_remediation=False)
    rec(log, "tool.requested", tool="Edit", phase="pre")
    rec(log, "tool.requested", tool="Edit", phase="post")
    stop(log, "canary-0101\n" + BOX)
    *_, completed, verdict = list(log.read())
    assert completed.type == "turn.completed"
    assert completed.data == {
        "turn": 7,
        "ritual": {
            "status_box": {"state": "observed", "value": True},
            "status_box_strict": {"state": "observed", "value": True},
        },
        "tool_call_count": {"state": "observed", "value": 1},
        "continued": False,
    }
    assert verdict.type == "stop.verdict"
    assert verdict.data["rule"] == "status"
    for path in log.files():
        assert "canary-0101" not in path.read_text()


def test_claude_block_then_repair_in_the_same_turn(log: EventLog) -> None:
    rec(log, "turn.started", turn=1, stop_remediation=False)
    rec(log, "tool.requested", tool="Edit", phase="post")
    first = stop(log, "all done")
    assert (first.decision, first.rule, first.enforced) == ("block", "status", True)
    rec(log, "coord.status_observed", surface="cli", status="end_turn_checked")
    rec(log, "coord.task_changed", surface="cli", state="set", fingerprint="f")
    second = stop(log, BOX)
    assert (second.decision, second.rule) == ("allow", None)
    assert types(log).count("turn.completed") == 2
    assert [e.data["decision"] for e in log.read() if e.type == "stop.verdict"] == [
        "block",
        "allow",
    ]


def test_codex_never_blocks_but_says_what_it_would_have(log: EventLog) -> None:
    rec(log, "turn.started", session="codex:x", turn=1, stop_remediation=False)
    rec(log, "tool.requested", session="codex:x", tool="Bash", phase="pre")
    enforce_all = RitualConfig(("claude", "cursor", "codex"), True, True, True)
    verdict = stop(log, "fixed", session="codex:x", adapter="codex", ritual=enforce_all)
    assert (verdict.decision, verdict.rule, verdict.enforced) == ("allow", "status", False)


def test_adapters_outside_enforce_only_observe(log: EventLog) -> None:
    rec(log, "turn.started", turn=1, stop_remediation=False)
    observe = RitualConfig(("cursor",), True, True, True, chat_turns="box")
    verdict = stop(log, "prose", ritual=observe)
    assert (verdict.decision, verdict.rule, verdict.enforced) == ("allow", "box", False)


def test_missing_evidence_fails_open_with_a_reason_and_is_recorded(log: EventLog) -> None:
    verdict = stop(log, BOX)
    assert verdict.decision == "fail_open"
    assert "no turn.started" in verdict.reason
    nosession = stop(log, BOX, session=None)  # type: ignore[arg-type]
    assert nosession.decision == "fail_open"
    recorded = [e for e in log.read() if e.type == "stop.verdict"]
    assert [e.data["decision"] for e in recorded] == ["fail_open", "fail_open"]
    assert recorded[1].session is None


def test_cloud_conversations_cannot_attest_tools(log: EventLog) -> None:
    rec(log, "turn.started", session="cursor:bc-1", turn=1, stop_remediation=False)
    stop(log, BOX, session="cursor:bc-1", adapter="cursor", unsupported="tool_hooks")
    [completed] = [e for e in log.read() if e.type == "turn.completed"]
    assert completed.data["tool_call_count"] == {
        "state": "unsupported",
        "capability": "tool_hooks",
    }


def test_unreadable_log_fails_open(log: EventLog, monkeypatch: pytest.MonkeyPatch) -> None:
    """If reading the log fails (permissions, I/O), then the stop is allowed as fail_open."""
    rec(log, "turn.started", turn=1, stop_remediation=False)

    def unreadable(self: EventLog, session: str, **_: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(EventLog, "reverse_of", unreadable)
    verdict = stop(log, BOX)
    assert verdict.decision == "fail_open"
    assert verdict.reason == "event log unreadable: Permission denied"
    monkeypatch.undo()
    assert [e.data["decision"] for e in log.read() if e.type == "stop.verdict"] == ["fail_open"]


def test_the_scan_stops_at_the_turns_start_and_says_when_it_could_not_reach_it(
    log: EventLog,
) -> None:
    rec(log, "turn.started", turn=1, stop_remediation=False)
    for _ in range(30):
        rec(log, "tool.requested", session="cursor:busy", tool="Shell", phase="pre")
    [path] = log.files()
    data = path.read_bytes()
    events, complete = turn_events(log, "claude:a", reach=len(data))
    assert complete
    assert [e.type for e in events] == ["turn.started"]
    events, complete = turn_events(log, "claude:a", reach=len(data) - 1)
    assert (events, complete) == ([], False)


def test_a_start_beyond_the_scan_limit_fails_open_with_that_reason(
    log: EventLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    rec(log, "turn.started", turn=1, stop_remediation=False)
    for _ in range(5):
        rec(log, "tool.requested", session="cursor:busy", tool="Shell", phase="pre")
    monkeypatch.setattr("gitflow_harness.ritual.stop.SCAN_BYTES", 300)
    verdict = conclude_turn(
        log,
        session="claude:a",
        adapter="claude",
        ritual=RITUAL,
        branch="feature",
        reply=box_observations(BOX),
    )
    assert verdict.decision == "fail_open"
    assert "within the last 300 bytes of the log" in verdict.reason


def test_an_interrupted_turn_is_recorded_and_allowed_unevaluated(log: EventLog) -> None:
    rec(log, "turn.started", session="cursor:c", turn=4, stop_remediation=False)
    rec(log, "tool.requested", session="cursor:c", tool="Shell", phase="post")
    verdict = conclude_turn(
        log,
        session="cursor:c",
        adapter="cursor",
        ritual=RITUAL,
        branch="feature",
        reply=box_observations(None),
        interrupted="the turn ended with status aborted",
    )
    assert (verdict.decision, verdict.rule, verdict.turn) == ("allow", None, 4)
    assert verdict.reason == "not evaluated: the turn ended with status aborted"
    assert types(log)[-2:] == ["turn.completed", "stop.verdict"]


def test_verdicts_carry_their_turn_and_whether_it_repairs_another(log: EventLog) -> None:
    rec(log, "turn.started", session="cursor:c", turn=1, stop_remediation=False)
    rec(log, "tool.requested", session="cursor:c", tool="Shell", phase="post")
    first = stop(log, None, session="cursor:c", adapter="cursor")
    assert (first.decision, first.turn, first.remediation) == ("block", 1, False)
    rec(log, "turn.started", session="cursor:c", turn=2, stop_remediation=True)
    rec(log, "coord.status_observed", session="cursor:c", surface="cli", status="end_turn_checked")
    rec(log, "coord.task_changed", session="cursor:c", surface="cli", state="set", fingerprint="f")
    second = stop(log, None, session="cursor:c", adapter="cursor")
    assert (second.decision, second.turn, second.remediation) == ("allow", 2, True)


def test_a_continued_turn_is_recorded_and_judged_after_its_allowed_stop(log: EventLog) -> None:
    """If the host says a Stop continues a turn gfh had allowed (another Stop hook kept it
    going), then `turn.completed` records `continued` and the verdict judges what came after."""
    rec(log, "turn.started", turn=3, stop_remediation=False)
    rec(log, "tool.requested", tool="Edit", phase="post")
    rec(log, "coord.status_observed", surface="cli", status="end_turn_checked")
    rec(log, "coord.task_changed", surface="cli", state="set", fingerprint="f")
    assert stop(log, BOX).decision == "allow"
    rec(log, "tool.requested", tool="Edit", phase="post")
    again = stop(log, BOX, continued=True)
    assert (again.decision, again.rule, again.turn) == ("block", "status", 3)
    completed = [e.data for e in log.read() if e.type == "turn.completed"]
    assert [c["continued"] for c in completed] == [False, True]
    recorded = [e.data for e in log.read() if e.type == "stop.verdict"]
    assert [(v["continuation"], v["tool_turn"]) for v in recorded] == [(False, True), (True, True)]
    rec(log, "coord.status_observed", surface="cli", status="end_turn_checked")
    assert stop(log, BOX, continued=True).decision == "allow"


def test_a_verdict_records_the_rules_it_could_not_check(log: EventLog) -> None:
    rec(log, "turn.started", turn=1, stop_remediation=False)
    rec(log, "tool.requested", tool="Bash", phase="post")
    rec(log, "coord.status_observed", surface="cli", status="end_turn_checked")
    rec(log, "coord.task_changed", surface="cli", state="set", fingerprint="f")
    verdict = stop(log, None)
    assert (verdict.decision, verdict.unchecked) == ("allow", ("box",))
    [recorded] = [e.data for e in log.read() if e.type == "stop.verdict"]
    assert recorded["unchecked"] == ["box"]
    assert recorded["reason"].startswith("ritual complete; the box was not checked")
    rec(log, "turn.started", turn=2, stop_remediation=False)
    prose = stop(log, None, ritual=CHAT_BOX)
    assert (prose.decision, prose.turn, prose.rule) == ("fail_open", 2, None)


def tool_turn(log: EventLog, turn: int = 1, *, remediation: bool = False) -> None:
    rec(log, "turn.started", turn=turn, stop_remediation=remediation)
    rec(log, "tool.requested", tool="Bash", phase="post")


def test_remediation_is_bounded_by_max_blocks(log: EventLog) -> None:
    """If a turn was blocked `max_blocks` times in a row, then its next failing Stop is let
    through as `fail_open` `remediation_exhausted`, naming the rule that still failed; each
    block said how many tries were left."""
    tool_turn(log)
    verdicts = [stop(log, "still no box", continued=i > 0) for i in range(4)]
    assert [(v.decision, v.rule) for v in verdicts] == [
        ("block", "status"),
        ("block", "status"),
        ("block", "status"),
        ("fail_open", "status"),
    ]
    assert verdicts[0].reason.endswith(
        "2 of 3 tries left before gfh lets this turn end unrepaired."
    )
    assert "1 of 3 tries left" in verdicts[1].reason
    assert verdicts[2].reason.endswith(
        "0 of 3 tries left: gfh lets this turn end at its next Stop, repaired or not."
    )
    assert verdicts[3].reason == "remediation_exhausted"
    # The next turn starts afresh.
    tool_turn(log, 2)
    assert stop(log, "no box").decision == "block"


def test_an_allowed_stop_restarts_the_count(log: EventLog) -> None:
    tool_turn(log)
    one = RITUAL._replace(max_blocks=1)
    assert stop(log, "no", ritual=one).decision == "block"
    rec(log, "coord.status_observed", surface="cli", status="end_turn_checked")
    rec(log, "coord.task_changed", surface="cli", state="set", fingerprint="f")
    assert stop(log, BOX, ritual=one, continued=True).decision == "allow"
    # Another Stop hook kept the turn going: its continuation has its own tries.
    rec(log, "tool.requested", tool="Bash", phase="post")
    assert stop(log, BOX, ritual=one, continued=True).decision == "block"
    assert stop(log, BOX, ritual=one, continued=True).reason == "remediation_exhausted"


def test_remediation_turns_count_toward_the_bound(log: EventLog) -> None:
    """If Cursor repairs in follow-up turns, then their blocks count with the turn they
    repair: the window walks back over remediation turns."""
    tool_turn(log)
    two = RITUAL._replace(max_blocks=2)
    assert stop(log, None, adapter="cursor", session="claude:a", ritual=two).decision == "block"
    rec(log, "turn.started", turn=2, stop_remediation=True)
    assert stop(log, None, adapter="cursor", ritual=two).decision == "block"
    rec(log, "turn.started", turn=3, stop_remediation=True)
    verdict = stop(log, None, adapter="cursor", ritual=two)
    assert (verdict.decision, verdict.rule, verdict.reason) == (
        "fail_open",
        "status",
        "remediation_exhausted",
    )
    # A prompt of the user's own is a new turn, with its own tries.
    tool_turn(log, 4)
    assert stop(log, None, adapter="cursor", ritual=two).decision == "block"


def test_max_blocks_zero_only_observes(log: EventLog) -> None:
    tool_turn(log)
    verdict = stop(log, "no box", ritual=RITUAL._replace(max_blocks=0))
    assert (verdict.decision, verdict.rule, verdict.enforced) == ("allow", "status", False)
    assert "tries left" not in verdict.reason


_MONTHS = ("2026-11", "2026-12")
_LINES = ["start", "repair", "tool", "other", "other_quoting", "torn", "empty", "foreign"]


def _write(log: EventLog, kind: str, month: str) -> tuple[dict[str, Any], int] | None:
    """Append one line of `kind` to the monthly file `month`; return where a turn start
    landed, as the prompt hook keeps it."""
    from gitflow_harness.store.eventwrite import append_line, encode_line, envelope

    at = f"{month}-01T00:00:00.000Z"
    raw = {
        "torn": b'{"schema":1,"session":"claude:a","type":"turn.star\n',
        "empty": b"\n",
        "foreign": b'{"not": "an event", "session": "claude:a"}\n',
    }.get(kind)
    if raw is not None:
        path = log.directory / f"{month}.jsonl"
        log.directory.mkdir(parents=True, exist_ok=True)
        with open(path, "ab") as fh:
            fh.write(raw)
        return None
    session = "claude:a" if kind in ("start", "repair", "tool") else "claude:b"
    data: dict[str, Any] = {"turn": 1, "stop_remediation": kind == "repair"}
    if kind == "other_quoting":
        data = {"about": "claude:a"}  # another session's event quoting the id
    type_ = "turn.started" if kind in ("start", "repair") else "tool.requested"
    obj = envelope(type_, data, surface="hook", session=session, branch="feature", at=at)
    offset = append_line(log.directory, at, encode_line(obj))
    return (obj, offset) if type_ == "turn.started" else None


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(st.tuples(st.sampled_from(_LINES), st.sampled_from(_MONTHS)), max_size=40),
    st.integers(min_value=0, max_value=12_000),
    st.sampled_from(["kept", "stale", "garbage", "moved", "earlier"]),
)
def test_reading_on_from_the_turns_start_gives_what_reading_back_gives(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[tuple[str, str]],
    reach: int,
    hint: str,
) -> None:
    """If the state says where the latest turn started (or says something stale, broken or
    pointing into another line), then the turn's events and whether its start was found within
    `reach` bytes of the log's end are what reading the log back gives: the Stop decides on the
    same evidence."""
    from gitflow_harness.hookcall.session import TURN_START, remember_turn_start

    log = EventLog(tmp_path_factory.mktemp("log") / "common")
    lines = sorted(lines, key=lambda line: line[1])  # months in order, as time writes them
    state: dict[str, Any] = {}
    starts = []
    for kind, month in lines:
        landed = _write(log, kind, month)
        if landed is not None:
            starts.append(landed)
            remember_turn_start(state, landed)  # type: ignore[arg-type]
    start: object = state.get(TURN_START)
    if hint == "stale" and len(starts) > 1:
        remember_turn_start(state, starts[-2])  # type: ignore[arg-type]
        start = state[TURN_START]
    elif hint == "garbage":
        start = {"file": 3, "at": "x"}
    elif hint == "moved" and isinstance(start, dict):
        start = {**start, "at": start["at"] + 1}
    elif hint == "earlier" and isinstance(start, dict):
        start = {**start, "at": max(0, start["at"] - 1)}  # the line before's newline
    expected = turn_events(log, "claude:a", reach=reach)
    found = turn_events(log, "claude:a", reach=reach, start=start)
    assert ([e.id for e in found[0]], found[1]) == ([e.id for e in expected[0]], expected[1])


def test_the_stop_reads_on_from_where_the_turn_started(
    log: EventLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the state says where the turn's `turn.started` landed, then the Stop reads the log
    on from there, never back, and decides as the read back does."""
    from gitflow_harness.hookcall.session import TURN_START, remember_turn_start
    from gitflow_harness.store.eventwrite import append_event_at

    for i in range(30):
        rec(log, "tool.requested", session="claude:b", tool="Edit", phase="post", i=i)
    state: dict[str, Any] = {}
    landed = append_event_at(
        log.directory.parent.parent,
        "turn.started",
        {"turn": 3, "stop_remediation": False},
        surface="hook",
        session="claude:a",
        branch="feature",
    )
    remember_turn_start(state, landed)  # type: ignore[arg-type]
    rec(log, "tool.requested", tool="Bash", phase="pre")
    rec(log, "tool.requested", session="claude:b", tool="Edit", phase="post")

    def no_reading_back(self: EventLog, session: str) -> Any:
        raise AssertionError("read back")

    monkeypatch.setattr(EventLog, "reverse_of", no_reading_back)
    verdict = conclude_turn(
        log,
        session="claude:a",
        adapter="claude",
        ritual=RITUAL,
        branch="feature",
        reply=box_observations(BOX),
        start=state[TURN_START],
    )
    assert (verdict.turn, verdict.tool_turn) == (3, True)  # the turn's own tool call counted
    monkeypatch.undo()
    events, complete = turn_events(log, "claude:a")
    assert complete
    kinds = ["turn.started", "tool.requested", "turn.completed", "stop.verdict"]
    assert [e.type for e in events] == kinds
