from __future__ import annotations

import datetime as dt

from gitflow_harness.learning.records import Collector, build
from gitflow_harness.store.config import GraphConfig, default_config
from gitflow_harness.store.events import Event, make_event
from tests.learning.conftest import started, stopped

T0 = dt.datetime(2026, 11, 20, 9, 0, tzinfo=dt.UTC)
LEARNING = default_config().learning
NO_GRAPH = GraphConfig(stages=(), loops={})


def at(minutes: float) -> dt.datetime:
    return T0 + dt.timedelta(minutes=minutes)


def records_of(events: list[Event], graph: GraphConfig = NO_GRAPH):  # type: ignore[no-untyped-def]
    return build(Collector().feed(events), LEARNING, graph)


def test_without_a_graph_a_loop_back_is_charged_to_the_role_that_reported_it() -> None:
    recs = records_of(
        [stopped(at(0), "implementer", "DONE"), stopped(at(5), "reviewer", "REJECTED")]
    )
    [lb] = recs.loop_backs
    assert (lb.reporter, lb.charged, lb.round) == ("reviewer", "reviewer", 1)
    assert recs.sent_back == {1}


def test_the_only_target_takes_the_loop_back_and_its_latest_round_is_sent_back() -> None:
    graph = GraphConfig(
        stages=("implementer", "reviewer"), loops={"reviewer": {"REJECTED": ("implementer",)}}
    )
    recs = records_of(
        [
            stopped(at(0), "implementer", "DONE"),
            stopped(at(1), "implementer", "DONE", session="claude:other"),
            stopped(at(2), "implementer", "DONE"),
            stopped(at(5), "reviewer", "REJECTED"),
        ],
        graph,
    )
    [lb] = recs.loop_backs
    assert (lb.charged, lb.round) == ("implementer", 2)
    assert recs.sent_back == {2}


def test_among_several_targets_the_next_dispatched_within_24_hours_is_charged() -> None:
    graph = GraphConfig(
        stages=("planner", "implementer", "reviewer"),
        loops={"reviewer": {"BLOCKED": ("implementer", "planner")}},
    )
    recs = records_of(
        [
            stopped(at(0), "planner", "DONE"),
            stopped(at(10), "implementer", "DONE"),
            stopped(at(20), "reviewer", "BLOCKED"),
            started(at(30), "implementer", session="claude:other"),  # another session
            started(at(40), "reviewer"),  # not a target
            started(at(50), "planner"),
            stopped(at(60), "reviewer", "BLOCKED", session="claude:s2"),
            started(at(60 + 25 * 60), "implementer", session="claude:s2"),  # too late
        ],
        graph,
    )
    first, second = recs.loop_backs
    assert (first.charged, first.round) == ("planner", 0)
    assert (second.charged, second.round) == (None, None)
    assert recs.unattributed == 1
    assert recs.sent_back == {0}


def test_only_loop_back_verdicts_count_and_the_graph_adds_its_own() -> None:
    graph = GraphConfig(stages=(), loops={"reviewer": {"REWORK": ("reviewer",)}})
    recs = records_of(
        [
            stopped(at(0), "reviewer", "UNCLEAR"),
            stopped(at(1), "reviewer", None),
            stopped(at(2), "reviewer", "REWORK"),
            stopped(at(3), "implementer", "REWORK"),  # declared for reviewer only
            stopped(at(4), "implementer", "FAILED"),
        ],
        graph,
    )
    assert [(lb.reporter, lb.verdict) for lb in recs.loop_backs] == [
        ("reviewer", "REWORK"),
        ("implementer", "FAILED"),
    ]


def test_events_without_a_role_are_skipped_and_counted() -> None:
    bad = make_event(
        "subagent.stopped", {"verdict": "FAIL"}, surface="hook", session=None, branch=None
    )
    other = make_event("verb", {"verb": "status"}, surface="cli", session=None, branch=None)
    collector = Collector().feed([bad, other, stopped(at(0), "implementer", "FAIL")])
    assert collector.skipped == 1
    assert len(collector.seen) == 1


def test_events_with_an_unreadable_time_are_skipped_and_counted() -> None:
    good = stopped(at(0), "implementer", "FAIL")
    bad = good._replace(at="yesterday")
    naive = good._replace(at="2026-11-20T09:00:00")
    recs = records_of([bad, naive, good])
    assert (len(recs.rounds), recs.skipped) == (1, 2)


def test_rounds_are_ordered_by_time_whatever_the_log_order() -> None:
    recs = records_of([stopped(at(5), "a", "DONE"), stopped(at(1), "b", "DONE")])
    assert [r.role for r in recs.rounds] == ["b", "a"]
    assert recs.before("a", at(0), at(10)) == [1]
    assert recs.after("a", at(5), at(10)) == []
