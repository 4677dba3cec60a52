from __future__ import annotations

from pathlib import Path
from typing import Any

from gitflow_harness.report.model import DetectorResult, ReportContext
from gitflow_harness.store.events import Event, FileCounts, ReadStats, make_event
from gitflow_harness.ways import detector as way_firing
from gitflow_harness.ways.detector import WayFiring
from gitflow_harness.workspace import open_workspace
from tests.ways.conftest import write_way

# Exponential, half-life 1000 at the default floor 0.5: refires at 1001, drawn over 2000
# ticks (`gfh ways plot`'s span), so each of the 20 slices is 100 ticks wide.
HALF = "description: notes\ncurve: {type: Exponential, half_life: 1000}\n"


def fired(way: str, tick: int, kind: str = "refire", session: str | None = "claude:a",
          axis: str = "tokens") -> Event:  # fmt: skip
    data = {"way": way, "trigger": "prompt", "tick": tick, "axis": axis, "kind": kind,
            "salience": 0.0}  # fmt: skip
    return make_event("way.fired", data, surface="hook", session=session, branch="b")


def suppressed(way: str, tick: Any, reason: str, session: str | None = "claude:a") -> Event:
    data = {"way": way, "trigger": "prompt", "tick": tick, "axis": "tokens", "kind": "refire",
            "salience": 0.7, "reason": reason}  # fmt: skip
    return make_event("way.suppressed", data, surface="hook", session=session, branch="b")


def run(repo: Path, events: list[Event], *, stats: ReadStats | None = None) -> DetectorResult:
    ctx = ReportContext(open_workspace(repo), stats or ReadStats())
    detector = WayFiring(ctx)
    for event in events:
        detector.observe(event)
    return detector.finish(ctx)


def test_fires_and_suppressions_are_placed_on_the_curve_since_the_previous_fire(
    repo: Path,
) -> None:
    """If a way fires, is refused while still present and fires again past its refire delta,
    then each event lands in the slice of its distance from the session's previous fire."""
    write_way(repo / "hooks" / "ways", "docs/notes", HALF)
    events = [
        fired("docs/notes", 5000, "first"),
        suppressed("docs/notes", 5250, "salience"),  # 250 after: slice 2
        suppressed("docs/notes", 5420, "refractory"),  # slice 4
        fired("docs/notes", 6100),  # 1100 after: slice 11, and the curve starts again
        suppressed("docs/notes", 6150, "salience"),  # 50 after the refire: slice 0
        fired("docs/notes", 9500),  # 3400 after: beyond the span
    ]
    result = run(repo, events)
    assert (result.status, result.considered) == ("fired", 6)
    ways = result.breakdown["ways"]
    notes = ways["docs/notes"]
    assert notes["fired"] == {"first": 1, "refire": 2}
    assert notes["suppressed"] == {"refractory": 1, "salience": 2}
    assert notes["unplaced"] == {"first_fire": 1}
    placed = notes["placed"]
    assert [i for i, n in enumerate(placed["fired"]) for _ in range(n)] == [11, 20]
    assert [i for i, n in enumerate(placed["salience"]) for _ in range(n)] == [0, 2]
    assert [i for i, n in enumerate(placed["refractory"]) for _ in range(n)] == [4]
    assert notes["declared"] == {
        "curve": {"type": "Exponential", "half_life": 1000},
        "axis": "tokens",
        "span": 2000,
        "refire_delta": 1001,
    }
    assert result.breakdown["floor"] == 0.5
    [finding] = result.findings
    assert (finding.subject, finding.tone) == ("docs/notes", "info")
    assert finding.evidence == {"fired": 3, "suppressed": 3, "placed": 5, "unplaced": 1}
    assert "5 of 6 placed on its curve over tokens, 1 not (first fire 1)" in finding.observed
    assert "gfh ways show docs/notes --plot" in finding.next_step


def test_what_cannot_be_placed_is_counted_by_why(repo: Path) -> None:
    """If an event has no earlier fire in its session, no session, another axis, ticks that
    went back, no tick, or a way no longer declared, then it is counted unplaced, by why."""
    write_way(repo / "hooks" / "ways", "docs/notes", HALF)
    events = [
        suppressed("docs/notes", 100, "budget"),  # nothing fired earlier in the session
        fired("docs/notes", 200, "first", session=None),
        suppressed("docs/notes", 300, "salience", session=None),  # no session
        fired("docs/notes", 400, "first"),
        fired("docs/notes", 500, axis="turns"),  # the tokens axis fell back to turns
        fired("docs/notes", 600, "first", session="claude:c"),
        suppressed("docs/notes", 10, "salience", session="claude:c"),  # a compaction
        suppressed("docs/notes", "soon", "salience"),
        fired("gone/way", 700, "first"),
        fired("gone/way", 900),
    ]
    result = run(repo, events)
    ways = result.breakdown["ways"]
    assert ways["docs/notes"]["unplaced"] == {
        "first_fire": 3,
        "no_earlier_fire": 2,
        "no_tick": 1,
        "other_axis": 1,
        "ticks_restarted": 1,
    }
    assert ways["docs/notes"]["placed"] == {}
    assert ways["gone/way"]["declared"] is None
    assert ways["gone/way"]["unplaced"] == {"first_fire": 1, "way_not_declared": 1}
    findings = {f.subject: f for f in result.findings}
    assert findings["docs/notes"].tone == "attention"  # a budget cut kept it from the agent
    assert "character budget" in findings["docs/notes"].next_step
    assert "declared any more" in findings["gone/way"].next_step


def test_a_staircase_is_measured_from_its_episodes_first_fire(repo: Path) -> None:
    """If a staircase steps, then its steps are placed from the episode's first fire, not from
    the step before (its curve's axis is ticks since the first fire)."""
    steps = "steps: [[0, 1.0], [100, 0.5], [300, 0.0]]"
    stairs = f"description: stairs\ncurve: {{type: ProgressiveStaircase, {steps}}}\n"
    write_way(repo / "hooks" / "ways", "stairs", stairs)
    events = [fired("stairs", 1000, "first"), fired("stairs", 1100, "step"),
              fired("stairs", 1300, "step")]  # fmt: skip
    result = run(repo, events)
    data = result.breakdown["ways"]["stairs"]
    span = data["declared"]["span"]
    slices = [i for i, n in enumerate(data["placed"]["fired"]) for _ in range(n)]
    assert slices == [100 * 20 // span, 300 * 20 // span]


def test_an_ended_session_is_forgotten(repo: Path) -> None:
    """If a session ends, then what it kept goes: a later event under its id has no earlier
    fire to be measured from."""
    write_way(repo / "hooks" / "ways", "docs/notes", HALF)
    end = make_event("session.ended", {"reason": "other"}, surface="hook", session="claude:a",
                     branch="b")  # fmt: skip
    events = [fired("docs/notes", 100, "first"), end, suppressed("docs/notes", 200, "salience")]
    result = run(repo, events)
    assert result.breakdown["ways"]["docs/notes"]["unplaced"] == {
        "first_fire": 1,
        "no_earlier_fire": 1,
    }


def test_quiet_ways_are_noted_and_an_empty_log_says_nothing(repo: Path) -> None:
    write_way(repo / "hooks" / "ways", "docs/notes", HALF)
    write_way(repo / "hooks" / "ways", "other", HALF)
    result = run(repo, [])
    assert (result.status, result.considered, result.findings) == ("insufficient-evidence", 0, ())
    stats = ReadStats([FileCounts(Path("events.jsonl"), events=10)])
    result = run(repo, [], stats=stats)
    assert result.status == "quiet"
    assert result.notes == (
        "2 declared way(s) neither fired nor were suppressed: docs/notes, other",
    )
    for n in range(11):
        write_way(repo / "hooks" / "ways", f"w{n:02d}", HALF)
    result = run(repo, [fired("docs/notes", 1, "first")], stats=stats)
    assert result.notes == (
        "12 declared way(s) neither fired nor were suppressed: other, w00, w01, w02, w03, w04, "
        "w05, w06, w07, w08 and 2 more",
    )


def test_what_it_keeps_is_bounded(repo: Path, monkeypatch: Any) -> None:
    """If more ways or sessions come than it keeps apart, then the ways beyond count together
    and the oldest sessions' origins go first."""
    monkeypatch.setattr(way_firing, "MAX_WAYS", 2)
    monkeypatch.setattr(way_firing, "MAX_OPEN", 2)
    events = [fired(f"w{n}", 1, "first", session=f"claude:{n}") for n in range(4)]
    events.append(suppressed("w0", 50, "salience", session="claude:0"))  # its origin was evicted
    result = run(repo, events)
    ways = result.breakdown["ways"]
    assert set(ways) == {"w0", "w1", "(other)"}
    assert sum(ways["(other)"]["fired"].values()) == 2
    assert ways["w0"]["unplaced"] == {"first_fire": 1, "way_not_declared": 1}


def test_events_it_cannot_read_are_passed_over(repo: Path) -> None:
    write_way(repo / "hooks" / "ways", "docs/notes", HALF)
    nameless = make_event(
        "way.fired", {"way": 7, "tick": 1}, surface="hook", session="claude:a", branch="b"
    )
    unended = make_event(
        "session.ended", {"reason": "other"}, surface="hook", session=None, branch="b"
    )
    result = run(repo, [nameless, unended, fired("docs/notes", 10, "first")])
    assert list(result.breakdown["ways"]) == ["docs/notes"]
    assert result.considered == 1


def test_a_kind_or_reason_that_is_no_name_counts_as_unknown(repo: Path) -> None:
    odd = make_event(
        "way.suppressed",
        {"way": "w", "tick": 1, "axis": "tokens", "kind": ["x"], "reason": {"r": 1}},
        surface="hook",
        session="claude:a",
        branch="b",
    )
    data = run(repo, [odd]).breakdown["ways"]["w"]
    assert data["suppressed"] == {"(unknown)": 1}
