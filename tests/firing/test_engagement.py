from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitflow_harness.firing import (
    ActionPotential,
    Curve,
    Decision,
    EngagementState,
    Exponential,
    Flat,
    ProgressiveStaircase,
    curve_from_dict,
    simulate,
)

AP = ActionPotential(
    burst_threshold=3, peak_multiplier=2.25, absolute_refractory=60, multiplier_half_life=395
)


def _fired_at(curve: Curve, ticks: list[int]) -> EngagementState:
    state = EngagementState(curve)
    for tick in ticks:
        assert state.decide(tick, 1.0, 0.5).fired, tick
        state = state.record_fire(tick, 1.0)
    return state


# -- pinned references ---------------------------------------------------------------------


def test_exponential_suppresses_through_its_half_life_and_refires_one_tick_later() -> None:
    state = _fired_at(Exponential(30000), [0])
    kinds = {state.decide(d, 1, 0.5).kind for d in range(1, 30001)}
    assert kinds == {"suppressed"}
    refire = state.decide(30001, 1, 0.5)
    assert refire.kind == "refire"
    assert refire.salience < 0.5
    assert round(state.decide(15000, 1, 0.5).salience, 4) == 0.7071


def test_staircase_fires_at_each_step_from_the_first_fire_and_is_quiet_after() -> None:
    curve = ProgressiveStaircase([[0, 1.0], [15000, 0.5], [40000, 0.2]])
    results = simulate(curve, [(t, 1.0) for t in range(0, 100001, 5000)], 0.5)
    fired = [(t, d.kind, d.salience, d.level) for t, d in results if d.fired]
    assert fired == [
        (0, "first", 0.0, 1.0),
        (15000, "step", 0.5, 0.5),
        (40000, "step", 0.2, 0.2),
    ]
    assert all(d.kind == "suppressed" for t, d in results if t > 40000)


@pytest.mark.parametrize(
    "curve",
    [
        Exponential(10),
        ProgressiveStaircase([[0, 1.0], [15000, 0.5]]),
        AP,
        Flat(100),
    ],
    ids=lambda c: type(c).__name__,
)
def test_a_first_fire_saw_salience_0_whatever_the_curve(curve: Curve) -> None:
    """If a way fires for the first time, then the salience its gate saw is 0.0 for every
    curve (the way was not in the context); it used to read 1.00 for a staircase."""
    decision = EngagementState(curve).decide(0, 1, 0.5)
    assert (decision.kind, decision.salience) == ("first", 0.0)


def test_staircase_steps_are_measured_from_the_episode_start_not_the_last_fire() -> None:
    """If matches are sparse, then a step fires at the first match past it, and later steps
    still count from the episode's first fire (never reset by a refire)."""
    curve = ProgressiveStaircase([[0, 1.0], [15000, 0.5], [40000, 0.2]])
    results = simulate(curve, [(1000, 1), (17000, 1), (41000, 1), (90000, 1)], 0.5)
    assert [d.kind for _, d in results] == ["first", "step", "step", "suppressed"]


def test_staircase_skips_steps_passed_between_matches() -> None:
    curve = ProgressiveStaircase([[0, 1.0], [100, 0.5], [200, 0.2]])
    results = simulate(curve, [(0, 1), (250, 1), (300, 1)], 0.5)
    assert [d.kind for _, d in results] == ["first", "step", "suppressed"]
    assert results[1][1].salience == 0.2


def test_action_potential_refuses_inside_the_absolute_refractory_period() -> None:
    state = _fired_at(AP, [0])
    assert state.decide(59, 10.0, 0.5).kind == "refractory"
    assert not state.should_fire(59, 10.0)
    assert state.decide(60, 1.0, 0.5).kind == "refire"


def test_action_potential_burst_raises_the_bar_until_it_decays() -> None:
    state = _fired_at(AP, [0, 61, 122])
    at_1000 = state.decide(1000, 1.0, 0.5)
    assert at_1000.kind == "refractory"
    assert at_1000.multiplier > 1.0
    assert state.decide(1000, 2.0, 0.5).kind == "refire"
    later = state.decide(2900, 1.0, 0.5)
    assert later.kind == "refire"
    assert later.multiplier == 1.0


def test_action_potential_has_no_outward_decay() -> None:
    """If the floor is 0 (salience can never drop below it), then an ActionPotential way still
    fires on every match outside its refractory period: the floor does not gate it."""
    results = simulate(AP, [(0, 1), (100, 1), (1000, 1)], 0.0)
    assert [d.kind for _, d in results] == ["first", "refire", "refire"]


def test_action_potential_history_keeps_only_fires_that_still_count() -> None:
    state = _fired_at(AP, [0, 61, 122, 3000])
    assert state.history == (3000,)
    assert state.last_fire == 3000
    assert state.episode_start == 0


# -- gate details --------------------------------------------------------------------------


def test_a_tick_going_backwards_is_a_zero_delta_not_a_crash() -> None:
    state = _fired_at(Exponential(100), [5000])
    decision = state.decide(10, 1, 0.5)
    assert decision.kind == "suppressed"
    assert decision.salience == 1.0
    ap = _fired_at(AP, [5000])
    assert ap.decide(10, 5.0, 0.5).kind == "refractory"


def test_record_fire_after_a_tick_went_backwards_keeps_history_in_the_past() -> None:
    """If the tick went back below earlier fires, then those fires count as just now (never as
    future ones), so the newest fire stays the last one."""
    curve = ActionPotential(3, 2.25, 0, 395)
    state = _fired_at(curve, [5000]).record_fire(200, 1)
    assert state.history == (200, 200)
    assert state.last_fire == 200


def test_flat_refires_exactly_at_suppression() -> None:
    state = _fired_at(Flat(20000), [0])
    assert state.decide(19999, 1, 0.5).kind == "suppressed"
    assert state.decide(20000, 1, 0.5).kind == "refire"


def test_first_fire_reports_zero_salience_and_the_staircase_its_first_step() -> None:
    assert EngagementState(Exponential(10)).decide(0, 1, 0.5) == Decision("first", 0.0, 1.0)
    staircase = ProgressiveStaircase([[0, 0.8], [10, 0.3]])
    # The salience seen is 0.0 at every first fire; the staircase's first step is its level.
    assert EngagementState(staircase).decide(7, 1, 0.5) == Decision("first", 0.0, 1.0, 0.8)


def test_record_fire_refuses_what_the_inward_gate_refuses() -> None:
    state = _fired_at(AP, [0])
    with pytest.raises(ValueError, match="inward gate refuses"):
        state.record_fire(10, 1.0)


def test_reset_episode_makes_the_next_match_a_first_fire() -> None:
    state = _fired_at(Exponential(30000), [0]).reset_episode()
    assert state == EngagementState(Exponential(30000))
    assert state.decide(5, 1, 0.5).kind == "first"


@pytest.mark.parametrize("tick", [-1, 1.5, True, "3"])
def test_ticks_must_be_non_negative_integers(tick: object) -> None:
    with pytest.raises(ValueError, match="tick"):
        EngagementState(Exponential(5)).decide(tick, 1, 0.5)  # type: ignore[arg-type]


@pytest.mark.parametrize("magnitude", [0, -1, float("nan"), "2"])
def test_magnitudes_must_be_positive_numbers(magnitude: object) -> None:
    with pytest.raises(ValueError, match="magnitude"):
        EngagementState(Exponential(5)).decide(1, magnitude, 0.5)  # type: ignore[arg-type]


def test_decision_reason_maps_to_the_suppression_event_reasons() -> None:
    assert Decision("suppressed", 0.9, 1.0).reason == "salience"
    assert Decision("refractory", 0.0, 1.5).reason == "refractory"
    assert Decision("refire", 0.4, 1.0).reason is None
    assert Decision("step", 0.5, 1.0).fired


# -- serialisation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        [],
        {"last_fire": -1, "episode_start": 0, "history": []},
        {"last_fire": 5, "episode_start": None, "history": []},
        {"last_fire": None, "episode_start": None, "history": [3]},
        {"last_fire": 5, "episode_start": 0, "history": "5"},
        {"last_fire": 5, "episode_start": 0, "history": [], "extra": 1},
        {"last_fire": True, "episode_start": 0},
    ],
)
def test_from_dict_refuses_what_to_dict_cannot_write(data: object) -> None:
    with pytest.raises(ValueError, match="engagement state"):
        EngagementState.from_dict(AP, data)


def test_from_dict_drops_history_when_the_curve_no_longer_looks_back() -> None:
    state = _fired_at(AP, [0, 100])
    moved = EngagementState.from_dict(Exponential(50), state.to_dict())
    assert moved == EngagementState(Exponential(50), (), 100, 0)


# -- properties ----------------------------------------------------------------------------

ticks = st.integers(min_value=0, max_value=10**7)
curves = st.one_of(
    st.builds(Exponential, st.integers(min_value=1, max_value=10**6)),
    st.builds(Flat, st.integers(min_value=0, max_value=10**6)),
    st.lists(
        st.tuples(st.integers(min_value=1, max_value=10**6), st.floats(0.0, 1.0)),
        max_size=5,
    ).map(
        lambda pairs: ProgressiveStaircase(
            [[0, 1.0]]
            + [
                [d, s]
                for d, s in zip(
                    sorted({d for d, _ in pairs}),
                    sorted((s for _, s in pairs), reverse=True),
                    strict=False,
                )
            ]
        )
    ),
    st.builds(
        ActionPotential,
        st.integers(min_value=1, max_value=6),
        st.floats(min_value=1.0, max_value=5.0),
        st.integers(min_value=0, max_value=5000),
        st.integers(min_value=1, max_value=5000),
    ),
)
floors = st.floats(min_value=0.0, max_value=1.0)


@given(curves, st.lists(st.integers(min_value=-(10**7), max_value=10**8), min_size=2, max_size=20))
def test_salience_is_within_unit_range_and_never_increases(curve: Curve, deltas: list[int]) -> None:
    values = [curve.salience_at(d) for d in sorted(deltas)]
    assert all(0.0 <= v <= 1.0 for v in values)
    assert all(a >= b for a, b in itertools.pairwise(values))


@given(
    curves,
    st.lists(st.tuples(ticks, st.sampled_from([1, 1, 2, 3])), max_size=30),
    floors,
)
def test_decisions_for_a_stream_of_matches_are_deterministic(
    curve: Curve, matches: list[tuple[int, int]], floor: float
) -> None:
    """If every match is decided by a state rebuilt from JSON, with a curve rebuilt from its
    declaration — as each hook call does, in a new process — then the decisions are exactly
    those of one state kept in memory: nothing a decision depends on is lost in between."""
    in_memory = simulate(curve, matches, floor)
    stored: str | None = None
    rebuilt = []
    for tick, magnitude in matches:
        fresh_curve = curve_from_dict(json.loads(json.dumps(curve.to_dict())))
        state = (
            EngagementState.from_dict(fresh_curve, json.loads(stored))
            if stored is not None
            else EngagementState(fresh_curve)
        )
        decision = state.decide(tick, magnitude, floor)
        if decision.fired:
            state = state.record_fire(tick, magnitude)
        stored = json.dumps(state.to_dict())
        rebuilt.append((tick, decision))
    assert rebuilt == in_memory
    assert all(
        d.kind in ("first", "refire", "step", "suppressed", "refractory") for _, d in rebuilt
    )


@given(curves, st.lists(st.tuples(ticks, st.sampled_from([1, 2, 3])), max_size=30), floors)
def test_state_round_trips_through_json(
    curve: Curve, matches: list[tuple[int, int]], floor: float
) -> None:
    state = EngagementState(curve)
    for tick, magnitude in matches:
        if state.decide(tick, magnitude, floor).fired:
            state = state.record_fire(tick, magnitude)
        data = json.loads(json.dumps(state.to_dict()))
        assert EngagementState.from_dict(curve, data) == state


@settings(max_examples=200)
@given(
    st.one_of(
        st.builds(Exponential, st.integers(min_value=1, max_value=10**6)),
        st.builds(Flat, st.integers(min_value=0, max_value=10**6)),
    ),
    st.floats(min_value=0.001, max_value=1.0),
    ticks,
    st.integers(min_value=-3, max_value=3),
)
def test_refire_delta_agrees_with_decide(
    curve: Exponential | Flat, floor: float, start: int, offset: int
) -> None:
    refire = curve.refire_delta(floor)
    assert refire is not None
    state = _fired_at(curve, [start])
    delta = max(0, refire + offset)
    decision = state.decide(start + delta, 1, floor)
    assert decision.fired == (delta >= refire)
