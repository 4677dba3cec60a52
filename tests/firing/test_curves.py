from __future__ import annotations

import math

import pytest

from gitflow_harness.firing import (
    ActionPotential,
    CurveError,
    Exponential,
    Flat,
    ProgressiveStaircase,
    curve_from_dict,
)
from gitflow_harness.firing.curves import MAX_HALF_LIFE

STAIRCASE = [[0, 1.0], [15000, 0.5], [40000, 0.2]]


def test_exponential_salience_halves_every_half_life() -> None:
    curve = Exponential(30000)
    assert curve.salience_at(0) == 1.0
    assert round(curve.salience_at(15000), 4) == 0.7071
    assert curve.salience_at(30000) == 0.5
    assert curve.salience_at(60000) == 0.25


def test_exponential_refire_delta_is_half_life_plus_one_at_floor_half() -> None:
    assert Exponential(30000).refire_delta(0.5) == 30001
    assert Exponential(1).refire_delta(0.5) == 2


def test_exponential_refire_delta_follows_the_formula_at_other_floors() -> None:
    for floor in (0.1, 0.25, 0.3, 0.75, 0.9):
        expected = math.floor(1000 * math.log2(1 / floor)) + 1
        assert Exponential(1000).refire_delta(floor) == expected


def test_the_largest_half_life_still_refires_at_exactly_h_plus_one() -> None:
    """If half-lives were unbounded, then float rounding would put refire deltas off by
    billions (10**26 gave 100000000000000004764729409); up to the bound they are exact."""
    assert Exponential(MAX_HALF_LIFE).refire_delta(0.5) == MAX_HALF_LIFE + 1
    with pytest.raises(CurveError, match="multiplier_half_life: expected an integer from 1"):
        ActionPotential(3, 2.0, 60, MAX_HALF_LIFE + 1)


def test_a_zero_floor_never_refires_and_a_floor_of_one_refires_at_once() -> None:
    assert Exponential(100).refire_delta(0.0) is None
    assert Flat(100).refire_delta(0.0) is None
    assert Exponential(100).refire_delta(1.0) == 1
    assert Flat(100).refire_delta(1.0) == 100


def test_flat_is_full_until_suppression_then_gone() -> None:
    curve = Flat(20000)
    assert curve.salience_at(19999) == 1.0
    assert curve.salience_at(20000) == 0.0
    assert curve.refire_delta(0.5) == 20000


def test_staircase_salience_is_the_step_in_force() -> None:
    curve = ProgressiveStaircase(STAIRCASE)
    assert [curve.salience_at(d) for d in (0, 14999, 15000, 39999, 40000, 10**9)] == [
        1.0,
        1.0,
        0.5,
        0.5,
        0.2,
        0.2,
    ]
    assert curve.refire_delta(0.5) == 15000
    assert ProgressiveStaircase([[0, 1.0]]).refire_delta(0.5) is None


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ([], "non-empty list"),
        ([[5, 1.0]], "first step must be at delta 0"),
        ([[0, 1.0], [10, 0.5], [10, 0.4]], "strictly increase"),
        ([[0, 1.0], [10, 0.5], [5, 0.4]], "strictly increase"),
        ([[0, 0.5], [10, 0.7]], "must not increase"),
        ([[0, 1.5]], "in [0, 1]"),
        ([[0, -0.1]], "in [0, 1]"),
        ([[0, 1.0], [1.5, 0.5]], "non-negative integer"),
        ([[0, 1.0, 3]], "pair"),
        ([[0, True]], "in [0, 1]"),
    ],
)
def test_staircase_violations_are_refused(steps: list[list[float]], message: str) -> None:
    with pytest.raises(CurveError, match=message.replace("[", r"\[").replace("]", r"\]")) as info:
        ProgressiveStaircase(steps)
    assert info.value.field == "steps"


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"type": "Exponential", "half_life": 0}, "half_life", "integer from 1 to 1000000000000"),
        ({"type": "Exponential", "half_life": 2.5}, "half_life", "integer from 1 to 1000000000000"),
        (
            {"type": "Exponential", "half_life": True},
            "half_life",
            "integer from 1 to 1000000000000",
        ),
        (
            {"type": "Exponential", "half_life": 99999999999999999999999999},
            "half_life",
            "integer from 1 to 1000000000000, got 99999999999999999999999999",
        ),
        ({"type": "Exponential"}, "half_life", "missing half_life"),
        ({"type": "Exponential", "half_life": 5, "speed": 2}, "speed", "unknown field 'speed'"),
        ({"type": "Flat", "suppression": -1}, "suppression", "integer >= 0"),
        ({"half_life": 5}, "type", "missing 'type'"),
        ({"type": "Linear"}, "type", "unknown curve type 'Linear'"),
        (
            {
                "type": "ActionPotential",
                "burst_threshold": 3,
                "peak_multiplier": 0.5,
                "absolute_refractory": 60,
                "multiplier_half_life": 395,
            },
            "peak_multiplier",
            "number >= 1",
        ),
    ],
)
def test_invalid_declarations_name_the_field(
    data: dict[str, object], field: str, message: str
) -> None:
    with pytest.raises(CurveError, match=message) as info:
        curve_from_dict(data)
    assert info.value.field == field


def test_a_declaration_that_is_not_a_mapping_is_refused() -> None:
    with pytest.raises(CurveError, match="expected a mapping"):
        curve_from_dict("Exponential")


@pytest.mark.parametrize(
    "curve",
    [
        Exponential(30000),
        Flat(0),
        ProgressiveStaircase(STAIRCASE),
        ActionPotential(3, 2.25, 60, 395),
    ],
)
def test_declarations_round_trip(curve: object) -> None:
    data = curve.to_dict()  # type: ignore[attr-defined]
    assert curve_from_dict(data) == curve


@pytest.mark.parametrize(
    "curve",
    [Exponential(100), Flat(100), ProgressiveStaircase(STAIRCASE), ActionPotential(3, 2, 60, 395)],
)
def test_negative_deltas_count_as_zero(curve: object) -> None:
    assert curve.salience_at(-5) == curve.salience_at(0)  # type: ignore[attr-defined]
    assert curve.salience_at(-(10**30)) == curve.salience_at(0)  # type: ignore[attr-defined]


def test_action_potential_burst_window_is_where_a_fire_stops_counting() -> None:
    curve = ActionPotential(3, 2.25, 60, 395)
    window = curve.burst_window()
    assert curve.contribution(window - 1) > 0.01 >= curve.contribution(window)
    assert window == 2625


def test_action_potential_multiplier_needs_threshold_live_fires() -> None:
    curve = ActionPotential(3, 2.25, 60, 395)
    assert curve.multiplier_at(878, (0, 61, 122), 1000) > 1.0
    assert curve.multiplier_at(878, (61, 122), 1000) == 1.0
    # At the moment of the third fire the burst is near its peak.
    assert 2.0 < curve.multiplier_at(0, (0, 61, 122), 122) <= 2.25


def test_action_potential_multiplier_is_its_documented_formula() -> None:
    """1 + (peak - 1) * min(1, sum of contributions / threshold): docs/ways.md's example."""
    curve = ActionPotential(3, 2.25, 60, 395)
    strength = sum(curve.contribution(1000 - t) for t in (0, 61, 122))
    assert curve.multiplier_at(878, (0, 61, 122), 1000) == pytest.approx(
        1 + 1.25 * min(1.0, strength / 3)
    )
    assert curve.multiplier_at(878, (0, 61, 122), 1000) == pytest.approx(1.2415, abs=1e-4)


def test_refire_delta_of_a_subnormal_floor_is_a_number() -> None:
    assert Exponential(1000).refire_delta(1e-320) == pytest.approx(1000 * 1063, rel=0.01)


def test_curves_are_immutable_and_hashable() -> None:
    curve = Exponential(10)
    with pytest.raises(AttributeError, match="immutable"):
        curve.half_life = 20  # type: ignore[misc]
    assert {Exponential(10), Exponential(10), Flat(10)} == {Exponential(10), Flat(10)}
    assert Exponential(10) != Flat(10)
    assert repr(Exponential(10)) == "Exponential(half_life=10)"
