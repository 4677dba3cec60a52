from __future__ import annotations

import pytest

from gitflow_harness.firing import ActionPotential, Curve, Exponential, Flat, ProgressiveStaircase
from gitflow_harness.ways.plot import DROP, FLOOR, POINT, REFIRE, horizon, plot

CURVES = [
    Exponential(30000),
    Exponential(1),
    Flat(0),
    Flat(20000),
    ProgressiveStaircase([[0, 1.0], [15000, 0.5], [40000, 0.2]]),
    ProgressiveStaircase([[0, 0.7]]),
    ActionPotential(3, 2.25, 60, 395),
]


@pytest.mark.parametrize("curve", CURVES)
def test_the_plot_fits_80_columns_and_draws_the_floor(curve: Curve) -> None:
    lines = plot(curve, 0.5)
    assert max(len(line) for line in lines) <= 80
    floor_rows = [line for line in lines if line.startswith("0.50 ┤")]
    assert len(floor_rows) == 1
    assert FLOOR in floor_rows[0]
    assert any(line.lstrip().startswith(f"{POINT} salience over ticks") for line in lines[-2:])


def test_an_exponential_starts_at_the_top_and_crosses_the_floor_at_its_refire() -> None:
    lines = plot(Exponential(30000), 0.5)
    assert lines[0].startswith(f"1.00 ┤{POINT}")
    refire_column = lines[1].index(REFIRE)
    floor_row = lines[5]
    points = [i for i, c in enumerate(floor_row) if c == POINT]
    assert min(points) <= refire_column <= max(points)
    assert "refires at 30001" in lines[-1]
    assert lines[-2].rstrip().endswith("60k")


def test_the_horizon_reaches_past_every_interesting_delta() -> None:
    assert horizon(Exponential(30000), 0.5) == 60000
    assert horizon(Flat(20000), 0.5) == 40000
    assert horizon(ProgressiveStaircase([[0, 1.0], [15000, 0.5], [40000, 0.2]]), 0.5) == 50000
    assert horizon(ActionPotential(3, 2.25, 60, 395), 0.5) == 3000


def test_a_staircase_marks_every_step_and_draws_its_drops() -> None:
    lines = plot(ProgressiveStaircase([[0, 1.0], [15000, 0.5], [40000, 0.2]]), 0.5)
    grid = lines[:11]
    assert any(DROP in row for row in grid)
    assert "steps at 15000, 40000" in "\n".join(lines[-2:])


def test_a_narrow_plot_still_fits() -> None:
    lines = plot(Exponential(500), 0.25, width=40, height=6)
    assert max(len(line) for line in lines) <= 40
    assert sum(line.startswith(("1.00", "0.25", "0.00")) for line in lines) == 3
