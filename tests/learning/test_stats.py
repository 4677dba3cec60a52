from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import pytest

from gitflow_harness import git
from gitflow_harness.learning import history, index, stats
from gitflow_harness.learning.pills import Pill, load_catalog
from gitflow_harness.learning.records import Collector, Records, build
from gitflow_harness.learning.report import analyze
from gitflow_harness.store.config import LearningConfig, default_config
from gitflow_harness.store.events import Event
from tests.helpers import git as run_git
from tests.learning.conftest import local, started, stopped

PutPill = Callable[..., Path]
CONFIG = default_config()


def records_of(events: list[Event]) -> Records:
    return build(Collector().feed(events), CONFIG.learning, CONFIG.graph)


# No history: every lesson is placed at the end of its day.
UNPLACED = history.PillMoments(history.ChangeTimes(), "pills")


def pill_in(repo: Path, put_pill: PutPill, key: str = "implementer/parser", **fields: str) -> Pill:
    put_pill(key, **fields)
    return next(p for p in load_catalog(repo, "pills").pills if p.key == key)


@pytest.mark.parametrize(
    ("k", "n", "expected"),
    [
        (5, 5, (0.566, 1.000)),
        (0, 5, (0.000, 0.434)),
        (2, 5, (0.118, 0.769)),
        (1, 5, (0.036, 0.624)),
    ],
)
def test_wilson_95_percent_interval(k: int, n: int, expected: tuple[float, float]) -> None:
    lo, hi = stats.wilson(k, n)
    assert (round(lo, 3), round(hi, 3)) == expected


def test_wilson_refuses_impossible_counts() -> None:
    with pytest.raises(ValueError, match="0 <= k <= n"):
        stats.wilson(6, 5)
    with pytest.raises(ValueError, match="n > 0"):
        stats.wilson(0, 0)


def rounds(
    role: str, day: str, verdicts: list[str], *, model: str | None = "model-a"
) -> list[Event]:
    return [stopped(local(day, 9, i), role, v, model=model) for i, v in enumerate(verdicts)]


def reading(repo: Path, put_pill: PutPill, events: list[Event]) -> stats.Reading:
    pill = pill_in(repo, put_pill, date="2026-11-10", last_seen="2026-11-10")
    return stats.verify(
        records_of(events),
        pill,
        "implementer",
        UNPLACED,
        days=14,
        minimum=5,
        stages={"implementer", "reviewer"},
    )


def test_five_of_five_before_and_none_of_five_after_reads_lower(
    repo: Path, put_pill: PutPill
) -> None:
    found = reading(
        repo,
        put_pill,
        rounds("implementer", "2026-11-05", ["FAIL"] * 5)
        + rounds("implementer", "2026-11-15", ["DONE"] * 5)
        + rounds("reviewer", "2026-11-05", ["DONE", "REJECTED"])
        + rounds("reviewer", "2026-11-15", ["DONE"]),
    )
    assert found.kind == "lower"
    assert (str(found.before), str(found.after)) == ("5/5 [0.566, 1.000]", "0/5 [0.000, 0.434]")
    assert found.model == "model-a"
    assert found.summary() == (
        "lower: before 5/5 [0.566, 1.000], after 0/5 [0.000, 0.434] on model-a"
    )
    before, after = found.control["reviewer"]
    assert (before, after) == (stats.Share(1, 2), stats.Share(0, 1))


def test_more_loop_backs_after_reads_higher(repo: Path, put_pill: PutPill) -> None:
    found = reading(
        repo,
        put_pill,
        rounds("implementer", "2026-11-05", ["DONE"] * 5)
        + rounds("implementer", "2026-11-15", ["FAIL"] * 5),
    )
    assert found.kind == "higher"


def test_two_of_five_against_one_of_five_reads_unclear(repo: Path, put_pill: PutPill) -> None:
    found = reading(
        repo,
        put_pill,
        rounds("implementer", "2026-11-05", ["FAIL", "FAIL", "DONE", "DONE", "DONE"])
        + rounds("implementer", "2026-11-15", ["FAIL", "DONE", "DONE", "DONE", "DONE"]),
    )
    assert found.kind == "unclear"


def test_four_rounds_on_one_side_is_not_measurable_and_says_why(
    repo: Path, put_pill: PutPill
) -> None:
    found = reading(
        repo,
        put_pill,
        rounds("implementer", "2026-11-05", ["FAIL"] * 5)
        + rounds("implementer", "2026-11-15", ["DONE"] * 4),
    )
    assert found.kind == "not measurable"
    assert found.reason == (
        "only 4 after the lesson on model-a (5 needed on each side within 14 days)"
    )
    assert found.summary().startswith("not measurable: only 4 after")


def test_rounds_outside_verify_days_do_not_count(repo: Path, put_pill: PutPill) -> None:
    found = reading(
        repo,
        put_pill,
        rounds("implementer", "2026-10-20", ["FAIL"] * 5)  # 21 days before
        + rounds("implementer", "2026-11-15", ["DONE"] * 5),
    )
    assert (
        found.reason == "only 0 before the lesson on model-a (5 needed on each side within 14 days)"
    )


def test_a_change_of_model_is_not_read_as_an_effect(repo: Path, put_pill: PutPill) -> None:
    found = reading(
        repo,
        put_pill,
        rounds("implementer", "2026-11-05", ["FAIL"] * 5, model="model-a")
        + rounds("implementer", "2026-11-15", ["DONE"] * 5, model="model-b"),
    )
    assert found.kind == "not measurable"
    assert "only 0 after the lesson on model-a" in (found.reason or "")


def test_unknown_models_are_not_measurable(repo: Path, put_pill: PutPill) -> None:
    found = reading(
        repo,
        put_pill,
        rounds("implementer", "2026-11-05", ["FAIL"] * 5, model=None)
        + rounds("implementer", "2026-11-15", ["DONE"] * 5, model=None),
    )
    assert found.reason == (
        "the model of all 10 implementer rounds is unknown (the host did not report it), "
        "so no two sides run on the same model"
    )


def test_no_rounds_at_all_is_not_measurable(repo: Path, put_pill: PutPill) -> None:
    found = reading(repo, put_pill, [])
    assert found.reason == "no implementer rounds recorded within 14 days either side of 2026-11-10"


# -- overdue ----------------------------------------------------------------------------------

NOW = local("2026-11-20", 18)


def loads(repo: Path, events: list[Event], *, capture_days: int = 14) -> dict[str, stats.RoleLoad]:
    found = stats.role_loads(
        records_of(events),
        load_catalog(repo, "pills").pills,
        UNPLACED,
        now=NOW,
        capture_at=3,
        capture_days=capture_days,
    )
    return {load.role: load for load in found}


def rejected(day: str, n: int, role: str = "implementer", verdict: str = "FAIL") -> list[Event]:
    return [stopped(local(day, 10, i), role, verdict) for i in range(n)]


def test_three_loop_backs_after_the_newest_lesson_are_overdue(
    repo: Path, put_pill: PutPill
) -> None:
    put_pill(date="2026-11-01", last_seen="2026-11-10")
    found = loads(repo, rejected("2026-11-09", 4) + rejected("2026-11-12", 3))
    load = found["implementer"]
    assert (load.loop_backs, load.since_lesson, load.overdue) == (7, 3, True)
    assert load.newest_lesson == "implementer/parser"


def test_two_loop_backs_are_not_overdue(repo: Path, put_pill: PutPill) -> None:
    put_pill(date="2026-11-01", last_seen="2026-11-10")
    assert not loads(repo, rejected("2026-11-12", 2))["implementer"].overdue


def test_loop_backs_older_than_capture_days_do_not_count(repo: Path) -> None:
    found = loads(repo, rejected("2026-11-01", 5) + rejected("2026-11-18", 2), capture_days=14)
    load = found["implementer"]
    assert (load.loop_backs, load.overdue) == (2, False)


def test_a_lesson_of_another_role_does_not_settle_them(repo: Path, put_pill: PutPill) -> None:
    put_pill("reviewer/naming", applies_to="[reviewer]", date="2026-11-15", last_seen="2026-11-15")
    load = loads(repo, rejected("2026-11-12", 3))["implementer"]
    assert (load.newest_lesson, load.overdue) == (None, True)


def test_a_shared_lesson_of_the_role_does_settle_them(repo: Path, put_pill: PutPill) -> None:
    put_pill(
        "shared/naming",
        applies_to="[reviewer, implementer]",
        date="2026-11-15",
        last_seen="2026-11-15",
    )
    load = loads(repo, rejected("2026-11-12", 3))["implementer"]
    assert (load.newest_lesson, load.overdue) == ("shared/naming", False)


def test_unclear_verdicts_do_not_count(repo: Path) -> None:
    load = loads(repo, rejected("2026-11-12", 5, verdict="UNCLEAR"))["implementer"]
    assert (load.rounds, load.loop_backs, load.overdue) == (5, 0, False)


def test_same_day_loop_backs_are_ordered_by_the_lessons_commit_time(
    repo: Path, put_pill: PutPill
) -> None:
    """If the day alone decided, all six would be settled (or none) by a lesson of that day."""
    put_pill(date="2026-11-01", last_seen="2026-11-12")
    commit_at = local("2026-11-12", 11).isoformat()
    run_git(repo, "add", "-A")
    run_git(
        repo,
        "commit",
        "-q",
        "-m",
        "bump",
        env={"GIT_AUTHOR_DATE": commit_at, "GIT_COMMITTER_DATE": commit_at},
    )
    events = [stopped(local("2026-11-12", 10, i), "implementer", "FAIL") for i in range(3)]
    events += [stopped(local("2026-11-12", 12, i), "implementer", "FAIL") for i in range(3)]
    report = analyze(git.discover(repo), CONFIG, Collector().feed(events), now=NOW)
    [load] = report.roles
    assert (load.loop_backs, load.since_lesson, load.overdue) == (6, 3, True)
    # Git keeps seconds: the commit counts as the end of its second.
    assert load.lesson_moment == local("2026-11-12", 11) + dt.timedelta(microseconds=999_999)
    events = events[:3] + events[3:5]
    report = analyze(git.discover(repo), CONFIG, Collector().feed(events), now=NOW)
    assert not report.roles[0].overdue


def test_capture_at_is_configurable(repo: Path) -> None:
    learning = CONFIG.learning._replace(capture_at=5)
    assert isinstance(learning, LearningConfig)
    found = stats.role_loads(
        records_of(rejected("2026-11-12", 4)),
        [],
        UNPLACED,
        now=NOW,
        capture_at=learning.capture_at,
        capture_days=14,
    )
    assert not found[0].overdue


# -- applied ----------------------------------------------------------------------------------


def test_applied_counts_dispatches_of_injected_roles_after_the_lesson(
    repo: Path, put_pill: PutPill
) -> None:
    pill = pill_in(repo, put_pill, date="2026-11-10", last_seen="2026-11-10")
    recs = records_of(
        [
            started(local("2026-11-09", 9), "implementer"),
            started(local("2026-11-11", 9), "implementer"),
            started(local("2026-11-12", 9), "implementer"),
            started(local("2026-11-12", 9), "reviewer"),
        ]
    )
    found = stats.applied(recs, pill, UNPLACED, injected={"implementer"}, until=None)
    assert found == stats.Applied(2)
    assert stats.applied(recs, pill, UNPLACED, injected={"reviewer"}, until=None) == (
        stats.Applied(None, "its roles are not injected (not in graph.stages)")
    )
    assert stats.applied(records_of([]), pill, UNPLACED, injected={"implementer"}, until=None) == (
        stats.Applied(None, "no subagent starts recorded, so no injection can be counted")
    )


def test_a_retired_lesson_is_placed_by_its_first_commit_and_retired_by_its_move(
    repo: Path, put_pill: PutPill
) -> None:
    """If the retired path's commit placed the lesson, everything before retirement was lost."""

    def commit_at(hour: int, message: str) -> None:
        when = local("2026-11-10", hour).isoformat()
        run_git(repo, "add", "-A")
        env = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
        run_git(repo, "commit", "-q", "-m", message, env=env)

    put_pill(date="2026-11-10", last_seen="2026-11-10")
    commit_at(10, "lesson")
    (repo / "pills/implementer/parser.md").unlink()
    put_pill(under="retired", status="retired", date="2026-11-10", last_seen="2026-11-10")
    commit_at(15, "retired")
    events = [started(local("2026-11-10", 12), "implementer")]
    events += [started(local("2026-11-10", 16), "implementer")]
    events += [stopped(local("2026-11-10", 12), "implementer", "DONE")]
    report = analyze(git.discover(repo), CONFIG, Collector().feed(events), now=NOW)
    [lesson] = report.lessons
    [reading] = lesson.readings
    assert reading.since == local("2026-11-10", 10) + dt.timedelta(microseconds=999_999)
    assert lesson.applied == stats.Applied(1)


def test_a_roles_rounds_sent_back_never_exceed_its_rounds(repo: Path) -> None:
    """If loop-backs are charged with no round of the role behind them (or two verdicts hit
    one round), then the role's loop-backs may outnumber its rounds; the rounds sent back
    never do, and the loop-backs without a round are counted apart."""
    from gitflow_harness.store.config import GraphConfig

    graph = GraphConfig(
        stages=("implementer", "reviewer"), loops={"reviewer": {"REJECTED": ("implementer",)}}
    )
    events = [
        stopped(local("2026-11-19", 9), "implementer", "DONE"),
        stopped(local("2026-11-19", 10), "reviewer", "REJECTED"),
        stopped(local("2026-11-19", 11), "reviewer", "REJECTED"),
        stopped(local("2026-11-19", 12), "reviewer", "REJECTED", session="claude:s2"),
        stopped(local("2026-11-19", 13), "reviewer", "REJECTED", session=None),
    ]
    records = build(Collector().feed(events), CONFIG.learning, graph)
    [implementer, reviewer] = stats.role_loads(
        records, [], UNPLACED, now=NOW, capture_at=3, capture_days=14
    )
    assert (implementer.role, implementer.rounds, implementer.sent_back) == ("implementer", 1, 1)
    assert (implementer.loop_backs, implementer.without_round) == (4, 2)
    assert (reviewer.rounds, reviewer.sent_back, reviewer.loop_backs) == (4, 0, 0)


def test_the_report_counts_injection_by_the_hooks_own_rule(repo: Path, put_pill: PutPill) -> None:
    """If the graph leaves a lesson's role out of its stages, then the hook gives that role no
    index, and the report counts no injection for it; without a graph, it counts them."""
    from gitflow_harness.store.config import GraphConfig

    put_pill(date="2026-11-10", last_seen="2026-11-10")
    events = [started(local("2026-11-11", 9), "implementer")]
    graph = GraphConfig(stages=("reviewer",), loops={})
    staged = CONFIG._replace(graph=graph)
    for config, applied in (
        (CONFIG, stats.Applied(1)),
        (staged, stats.Applied(None, "its roles are not injected (not in graph.stages)")),
    ):
        report = analyze(git.discover(repo), config, Collector().feed(events), now=NOW)
        [lesson] = report.lessons
        assert lesson.applied == applied
        expected = index.subagent_context(repo, "pills", config.graph.stages, "implementer")
        assert (expected != "") == (applied.rounds is not None)
