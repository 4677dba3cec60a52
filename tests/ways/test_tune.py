from __future__ import annotations

from pathlib import Path

from gitflow_harness.firing import Exponential, Flat, ProgressiveStaircase
from gitflow_harness.store.events import Event, make_event
from gitflow_harness.ways import tune
from gitflow_harness.ways.model import Lanes, Way
from gitflow_harness.ways.parse import parse_way_file
from tests.ways.conftest import write_way


def _way(way_id: str, curve: object, *, axis: str = "tokens", file: str = "/x.md") -> Way:
    return Way(
        id=way_id,
        file=file,
        description="d",
        lanes=Lanes(keywords=("x",)),
        curve=curve,  # type: ignore[arg-type]
        axis=axis,
    )


def _match(
    way_id: str,
    tick: int,
    session: str | None = "claude:s1",
    *,
    fired: bool = True,
    axis: str = "tokens",
) -> Event:
    data: dict[str, object] = {
        "way": way_id,
        "trigger": "prompt",
        "tick": tick,
        "axis": axis,
        "kind": "first" if fired else "refire",
        "salience": 0.5,
    }
    if not fired:
        data["reason"] = "salience"
    return make_event(
        "way.fired" if fired else "way.suppressed",
        data,
        surface="hook",
        session=session,
        branch="main",
    )


def test_tune_moves_half_lives_down_and_up() -> None:
    fast = _way("fast", Exponential(30000))
    slow = _way("slow", Exponential(10000))
    events = [
        _match("fast", 0),
        _match("slow", 0),
        _match("fast", 8000, fired=False),
        _match("slow", 1000, "claude:s2"),
        _match("fast", 16000, fired=False),
        _match("fast", 24000),
        _match("slow", 90000),
        _match("slow", 91500, "claude:s2"),
        _match("slow", 180000),
    ]
    down, up = tune.suggest([fast, slow], events, min_samples=3)
    assert (down.samples, down.sessions, down.median, down.suggested) == (3, 1, 8000.0, 8000)
    assert down.flagged
    assert down.change is not None
    assert round(down.change, 4) == -0.7333
    assert (up.samples, up.sessions, up.median, up.suggested) == (3, 2, 90000.0, 90000)
    assert up.flagged
    assert up.change == 8.0
    assert up.tuned_curve() == Exponential(90000)


def test_suggestions_round_to_500_half_up_and_never_below_500() -> None:
    def suggested(deltas: list[int]) -> int | None:
        ticks, events = 0, [_match("w", 0)]
        for delta in deltas:
            ticks += delta
            events.append(_match("w", ticks))
        (s,) = tune.suggest([_way("w", Exponential(5000))], events, min_samples=1)
        return s.suggested

    assert suggested([8249]) == 8000
    assert suggested([8250]) == 8500
    assert suggested([100, 120, 90]) == 500
    assert suggested([1000, 3000]) == 2000


def test_a_suggestion_never_exceeds_the_largest_half_life() -> None:
    ticks = (0, 2 * 10**12, 4 * 10**12, 6 * 10**12)
    (s,) = tune.suggest(
        [_way("a", Exponential(1000))], [_match("a", t) for t in ticks], min_samples=3
    )
    assert s.suggested == 10**12
    assert s.tuned_curve() == Exponential(10**12)


def test_small_changes_are_not_flagged() -> None:
    events = [_match("w", t) for t in (0, 11000, 22000, 33000)]
    (s,) = tune.suggest([_way("w", Exponential(10000))], events, min_samples=3)
    assert s.suggested == 11000
    assert not s.flagged
    assert s.status == "suggested"


def test_too_few_samples_means_no_suggestion() -> None:
    events = [_match("w", t) for t in (0, 5000, 10000)]
    (s,) = tune.suggest([_way("w", Exponential(30000))], events, min_samples=3)
    assert (s.samples, s.suggested, s.status, s.flagged) == (2, None, "insufficient", False)


def test_unordered_evidence_is_left_out() -> None:
    """If an event has no session, is on another axis, or its tick went backwards, then it
    contributes no delta: those cannot be compared with the matches around them."""
    events = [
        _match("w", 0),
        _match("w", 100, None),
        _match("w", 300, axis="turns"),
        _match("w", 1000),
        _match("w", 400),  # a new transcript: the count starts over
        _match("w", 1400),
        _match("w", 1400),  # same tick: counted once
        _match("other", 5),
    ]
    (s,) = tune.suggest([_way("w", Exponential(30000))], events, min_samples=1)
    assert (s.samples, s.median) == (2, 1000.0)


def test_flat_tunes_suppression_and_other_curves_are_not_tunable() -> None:
    events = [_match(w, t) for w in ("flat", "steps") for t in (0, 4000, 8000, 12000)]
    flat, steps = tune.suggest(
        [_way("flat", Flat(20000)), _way("steps", ProgressiveStaircase([[0, 1.0]]))],
        events,
        min_samples=3,
    )
    assert (flat.parameter, flat.suggested, flat.tuned_curve()) == ("suppression", 4000, Flat(4000))
    assert (steps.parameter, steps.status, steps.samples) == (None, "not-tunable", 3)


def test_apply_changes_only_the_number_in_the_curve_block(ways_root: Path) -> None:
    text = (
        "---\ndescription: 'half_life: 30000 in prose'\ncurve:\n  type: Exponential\n"
        "  half_life: 30000   # tuned by hand\nwhen: {keywords: [x]}\n---\nhalf_life: 30000\n"
    )
    path = write_way(ways_root, "a", "")
    path.write_text(text)
    way, _ = parse_way_file(str(path), "a")
    assert way is not None
    events = [_match("a", t) for t in (0, 8000, 16000, 24000)]
    (s,) = tune.suggest([way], events, min_samples=3)
    tune.apply(s)
    assert path.read_text() == text.replace("  half_life: 30000   #", "  half_life: 8000   #")


def test_apply_on_a_flow_curve_changes_only_the_number(ways_root: Path) -> None:
    path = write_way(
        ways_root, "a", "description: D\ncurve: {type: Flat, suppression: 20000}  # c\n"
    )
    way, _ = parse_way_file(str(path), "a")
    assert way is not None
    (s,) = tune.suggest([way], [_match("a", t) for t in (0, 5000, 10000, 15000)], min_samples=3)
    tune.apply(s)
    assert path.read_text() == (
        "---\ndescription: D\ncurve: {type: Flat, suppression: 5000}  # c\n---\nBody text.\n"
    )


def test_apply_skips_comments_when_it_looks_for_the_number_and_keeps_them(
    ways_root: Path,
) -> None:
    """If the curve block's comments mention the parameter, then they are neither taken for
    the value nor lost: only the number changes."""
    frontmatter = (
        "description: D\ncurve:\n  # half_life: 1 was too short\n  type: Exponential\n"
        "  half_life: 30000 # tuned\nx-after: kept\n"
    )
    path = write_way(ways_root, "a", frontmatter)
    way, _ = parse_way_file(str(path), "a")
    assert way is not None
    (s,) = tune.suggest([way], [_match("a", t) for t in (0, 8000, 16000, 24000)], min_samples=3)
    tune.apply(s)
    assert path.read_text() == (
        "---\n"
        + frontmatter.replace("half_life: 30000 #", "half_life: 8000 #")
        + "---\nBody text.\n"
    )


def test_apply_rewrites_the_block_when_the_number_cannot_be_changed_in_place(
    ways_root: Path,
) -> None:
    path = write_way(
        ways_root,
        "a",
        "description: D\ncurve:\n  type: Exponential\n  half_life: 0x7530\nx-after: kept\n",
    )
    way, _ = parse_way_file(str(path), "a")
    assert way is not None
    assert way.curve.to_dict()["half_life"] == 30000
    (s,) = tune.suggest([way], [_match("a", t) for t in (0, 8000, 16000, 24000)], min_samples=3)
    tune.apply(s)
    assert path.read_text() == (
        "---\ndescription: D\ncurve: {type: Exponential, half_life: 8000}\nx-after: kept\n"
        "---\nBody text.\n"
    )
