from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

from gitflow_harness.learning.detector import LearningDetector
from gitflow_harness.report.model import Detector, ReportContext
from gitflow_harness.store.config import GraphConfig
from gitflow_harness.store.events import Event, ReadStats
from gitflow_harness.workspace import open_workspace
from tests.learning.conftest import local, started, stopped
from tests.learning.test_graduation import put_answered, put_request

PutPill = Callable[..., Path]
NOW = local("2026-11-20", 18)
DAYS = ("2026-11-05", "2026-11-15")  # either side of a lesson learned on 2026-11-10


def run(
    repo: Path, events: list[Event], **graph: object
) -> tuple[str, int, list[dict[str, object]], tuple[str, ...]]:
    ws = open_workspace(repo)
    if graph:
        ws.config = ws.config._replace(graph=GraphConfig(**graph))  # type: ignore[arg-type]
    detector: Detector = LearningDetector()
    for event in events:
        detector.observe(event)
    result = detector.finish(ReportContext(workspace=ws, stats=ReadStats(), extra={"now": NOW}))
    assert result.id == "learning"
    return result.status, result.considered, [f.to_dict() for f in result.findings], result.notes


def test_nothing_to_go_on_is_insufficient_evidence(repo: Path) -> None:
    assert run(repo, []) == ("insufficient-evidence", 0, [], ())


def test_lessons_without_news_are_quiet(repo: Path, put_pill: PutPill) -> None:
    put_pill()
    status, considered, findings, _ = run(
        repo, [stopped(local("2026-11-19", 9), "implementer", "DONE")]
    )
    assert (status, considered, findings) == ("quiet", 1, [])


def test_an_overdue_role_is_a_finding(repo: Path) -> None:
    events = [stopped(local("2026-11-19", 9, i), "implementer", "FAILED") for i in range(3)]
    status, considered, findings, _ = run(repo, events)
    assert (status, considered) == ("fired", 3)
    [finding] = findings
    assert finding["subject"] == "role implementer"
    assert finding["tone"] == "attention"
    assert finding["evidence"] == {
        "loop_backs": 3,
        "since_lesson": 3,
        "rounds": 3,
        "sent_back": 3,
        "newest_lesson": None,
        "days": 14,
    }
    assert "gfh pills new implementer" in str(finding["next_step"])


def test_owed_requests_open_requests_and_relapses_are_findings(
    repo: Path, put_pill: PutPill
) -> None:
    put_pill("implementer/due", occurrences="3")
    put_pill("implementer/waiting", occurrences="4")
    put_request(repo, "2026-11-10-implementer__waiting.md", pill="implementer/waiting")
    put_pill("implementer/back", under="retired", status="retired", occurrences="5")
    put_answered(
        repo, "2026-11-01-implementer__back.md", "hooks/ways/r/r.md", pill="implementer/back"
    )
    status, _, findings, _ = run(repo, [])
    assert status == "fired"
    subjects = [(f["subject"], f["tone"]) for f in findings]
    assert subjects == [
        ("pill implementer/due", "attention"),
        ("pill implementer/back", "attention"),  # a reopening is owed
        ("request 2026-11-10-implementer__waiting", "info"),
        ("pill implementer/back", "attention"),  # the relapse itself
    ]
    assert "reopening" in str(findings[1]["observed"])
    assert findings[3]["evidence"] == {
        "grown": 2,
        "closed": "2026-11-01-implementer__back",
        "rule_in": "hooks/ways/r/r.md",
    }


def test_a_measured_lesson_is_a_finding_and_unmeasured_ones_a_note(
    repo: Path, put_pill: PutPill
) -> None:
    put_pill(date="2026-11-10", last_seen="2026-11-10")
    put_pill("reviewer/naming", applies_to="[reviewer]", date="2026-11-10", last_seen="2026-11-10")
    events = [stopped(local("2026-11-05", 9, i), "implementer", "FAIL") for i in range(5)]
    events += [stopped(local("2026-11-15", 9, i), "implementer", "DONE") for i in range(5)]
    status, _, findings, notes = run(repo, events)
    assert status == "fired"
    [finding] = findings
    assert finding["subject"] == "lesson implementer/parser (implementer)"
    assert finding["tone"] == "good"
    assert finding["evidence"]["reading"] == "lower"  # type: ignore[index]
    assert notes == ("1 lesson reading(s) not measurable (`gfh learn` says why)",)


def test_unattributed_loop_backs_are_noted(repo: Path) -> None:
    events = [
        stopped(local("2026-11-19", 9), "reviewer", "BLOCKED"),
        started(local("2026-11-19", 10), "reviewer"),
    ]
    _, _, _, notes = run(
        repo, events, stages=("a", "b", "reviewer"), loops={"reviewer": {"BLOCKED": ("a", "b")}}
    )
    assert notes[0].startswith("1 loop-back(s) could not be attributed")


def test_the_detector_keeps_only_subagent_events(repo: Path) -> None:
    from gitflow_harness.store.events import make_event

    detector = LearningDetector()
    detector.observe(
        make_event("verb", {"verb": "status"}, surface="cli", session=None, branch=None)
    )
    detector.observe(stopped(local("2026-11-19", 9), "implementer", "DONE"))
    assert len(detector._collector.seen) == 1
    assert isinstance(NOW, dt.datetime)


def _relapsed_with(repo: Path, put_pill: PutPill, **reopening: object) -> None:
    """A retired pill answered at 3 occurrences, now at 5, and a reopening of it."""
    put_pill("implementer/back", under="retired", status="retired", occurrences="5")
    put_answered(
        repo, "2026-11-01-implementer__back.md", "hooks/ways/r/r.md", pill="implementer/back"
    )
    put_request(
        repo,
        "2026-11-05-implementer__back.md",
        pill="implementer/back",
        rule_in="hooks/ways/r/r.md",
        reopens="2026-11-01-implementer__back.md",
        occurrences=5,
        **reopening,
    )


def test_while_a_reopening_is_open_the_relapse_is_that_request_alone(
    repo: Path, put_pill: PutPill
) -> None:
    _relapsed_with(repo, put_pill)
    _, _, findings, _ = run(repo, [])
    assert [(f["subject"], f["tone"]) for f in findings] == [
        ("request 2026-11-05-implementer__back", "info")
    ]


def test_after_a_declined_reopening_the_relapse_is_told_as_declined_not_as_attention(
    repo: Path, put_pill: PutPill
) -> None:
    """If the maintainer declined the reopening, then the relapse is reported as declined
    (info), not as something to act on, until the lesson recurs enough to be owed again."""
    _relapsed_with(repo, put_pill, status="declined", declined="the rule stays as it is")
    _, _, findings, _ = run(repo, [])
    [finding] = findings
    assert (finding["subject"], finding["tone"]) == ("pill implementer/back", "info")
    assert finding["observed"] == (
        "Retired lesson implementer/back came back 2 time(s) after its rule in hooks/ways/r/r.md "
        "was committed; its reopening 2026-11-05-implementer__back was declined (the rule "
        "stays as it is)."
    )
    assert finding["evidence"] == {
        "grown": 2,
        "closed": "2026-11-01-implementer__back",
        "rule_in": "hooks/ways/r/r.md",
        "declined": "2026-11-05-implementer__back",
    }


def test_a_lower_reading_of_a_retired_lesson_does_not_ask_to_graduate_it(
    repo: Path, put_pill: PutPill
) -> None:
    put_pill(under="retired", status="retired", date="2026-11-10", last_seen="2026-11-10")
    events = [stopped(local("2026-11-05", 9, i), "implementer", "FAIL") for i in range(5)]
    events += [stopped(local("2026-11-15", 9, i), "implementer", "DONE") for i in range(5)]
    _, _, findings, _ = run(repo, events)
    [finding] = findings
    assert finding["evidence"]["reading"] == "lower"  # type: ignore[index]
    assert "graduate it into a way" not in str(finding["next_step"])
    assert finding["next_step"] == "It graduated already: keep the rule that answered it."


def test_the_breakdown_carries_every_reading_with_its_control_stages(
    repo: Path, put_pill: PutPill
) -> None:
    """If a lesson is measured, then the breakdown gives both sides with their intervals and the
    other stages' shares over the same days (the control); an unmeasured reading keeps why."""
    put_pill(date="2026-11-10", last_seen="2026-11-10")
    put_pill("reviewer/naming", applies_to="[reviewer]", date="2026-11-10", last_seen="2026-11-10")
    events = [stopped(local("2026-11-05", 9, i), "implementer", "FAIL") for i in range(5)]
    events += [stopped(local("2026-11-15", 9, i), "implementer", "DONE") for i in range(5)]
    events += [stopped(local(day, 10, i), "reviewer", "DONE") for day in DAYS for i in range(2)]
    ws = open_workspace(repo)
    detector = LearningDetector()
    for event in events:
        detector.observe(event)
    result = detector.finish(ReportContext(workspace=ws, stats=ReadStats(), extra={"now": NOW}))
    lessons = {lesson["pill"]: lesson for lesson in result.breakdown["lessons"]}
    [measured] = lessons["implementer/parser"]["verify"]
    assert measured["reading"] == "lower"
    assert (measured["before"]["k"], measured["before"]["n"]) == (5, 5)
    assert (measured["after"]["k"], measured["after"]["n"]) == (0, 5)
    assert 0 <= measured["after"]["low"] < measured["after"]["high"] < measured["before"]["low"]
    control = measured["control"]["reviewer"]
    assert (control["before"]["n"], control["after"]["n"]) == (2, 2)
    [unmeasured] = lessons["reviewer/naming"]["verify"]
    assert unmeasured["reading"] == "not measurable"
    assert unmeasured["reason"]
