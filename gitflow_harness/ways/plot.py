"""A terminal plot of a curve's salience over ticks, with the floor and the refire delta drawn.

Plain text within a given width (80 columns by default): one row per tenth of salience, one
column per slice of ticks from 0 to a little beyond the last delta that matters.
"""

from __future__ import annotations

import math

from gitflow_harness.firing.curves import (
    ActionPotential,
    Curve,
    Exponential,
    Flat,
    ProgressiveStaircase,
)

POINT = "•"
DROP = "│"
FLOOR = "┄"
REFIRE = "╎"
LABEL_WIDTH = 5  # "0.50 "


def horizon(curve: Curve, floor: float) -> int:
    """Return the last delta worth drawing: a round number past every interesting one."""
    refire = curve.refire_delta(floor) or 0
    if isinstance(curve, Exponential):
        interesting = max(2 * curve.half_life, refire + curve.half_life // 2)
    elif isinstance(curve, Flat):
        interesting = 2 * max(curve.suppression, 1)
    elif isinstance(curve, ProgressiveStaircase):
        last = curve.steps[-1][0]
        interesting = last + max(last // 4, 1) if last else 10
    else:
        interesting = max(2 * curve.absolute_refractory, curve.burst_window())
    return _nice_ceiling(max(interesting, 10))


def plot(curve: Curve, floor: float, *, width: int = 80, height: int = 11) -> list[str]:
    """Return the plot's lines, none longer than `width`."""
    columns = max(10, width - LABEL_WIDTH - 1)
    rows = max(3, height)
    x_max = horizon(curve, floor)
    grid = [[" "] * columns for _ in range(rows)]

    def row_of(value: float) -> int:
        return round((1.0 - min(1.0, max(0.0, value))) * (rows - 1))

    def column_of(delta: float) -> int:
        return min(columns - 1, max(0, round(delta * (columns - 1) / x_max)))

    floor_row = row_of(floor) if 0.0 <= floor <= 1.0 else None
    if floor_row is not None:
        grid[floor_row] = [FLOOR] * columns
    refires = marks(curve, floor)
    for mark in refires:
        if mark <= x_max:
            column = column_of(mark)
            for line in grid:
                if line[column] == " ":
                    line[column] = REFIRE
    previous: int | None = None
    for column in range(columns):
        delta = math.floor(column * x_max / (columns - 1))
        row = row_of(curve.salience_at(delta))
        if previous is not None and abs(row - previous) > 1:
            for between in range(min(row, previous) + 1, max(row, previous)):
                grid[between][column] = DROP
        grid[row][column] = POINT
        previous = row
    lines = []
    for index, cells in enumerate(grid):
        value = 1.0 - index / (rows - 1)
        labelled = index in (0, rows - 1) or index == floor_row
        label = f"{(floor if index == floor_row else value):4.2f}" if labelled else ""
        lines.append(f"{label:>{LABEL_WIDTH - 1}} ┤" + "".join(cells).rstrip())
    lines.append(" " * (LABEL_WIDTH - 1) + " └" + "─" * columns)
    lines.append(_axis_labels(x_max, columns))
    since = "the episode's first fire" if isinstance(curve, ProgressiveStaircase) else "a fire"
    legend = [f"{POINT} salience over ticks since {since}", f"{FLOOR} floor {floor:g}"]
    if refires:
        legend.append(f"{REFIRE} " + mark_legend(curve, refires))
    indent = " " * (LABEL_WIDTH + 1)
    text = indent
    for part in legend:
        if text != indent and len(text) + 3 + len(part) > width:
            lines.append(text)
            text = indent
        text += ("   " if text != indent else "") + part
    lines.append(text)
    return [line[:width] for line in lines]


def marks(curve: Curve, floor: float) -> list[int]:
    """Return the deltas drawn as vertical lines: where the way can fire again."""
    if isinstance(curve, ProgressiveStaircase):
        return [delta for delta, _ in curve.steps[1:]]
    refire = curve.refire_delta(floor)
    return [] if refire is None else [refire]


def mark_legend(curve: Curve, marks: list[int]) -> str:
    """Say what the vertical lines `marks` returned mean for this curve."""
    if isinstance(curve, ProgressiveStaircase):
        return "steps at " + ", ".join(str(m) for m in marks)
    if isinstance(curve, ActionPotential):
        return f"refractory until {marks[0]}; bursts counted over {curve.burst_window()}"
    return f"refires at {marks[0]}"


def _axis_labels(x_max: int, columns: int) -> str:
    cells = [" "] * (columns + 12)
    for i in range(5):
        value = x_max * i // 4
        text = short(value)
        at = round(i * (columns - 1) / 4)
        start = max(0, min(at - len(text) // 2, columns - len(text)))
        if i == 0:
            start = 0
        if any(c != " " for c in cells[max(0, start - 1) : start + len(text) + 1]):
            continue
        cells[start : start + len(text)] = list(text)
    return " " * (LABEL_WIDTH + 1) + "".join(cells).rstrip()


def short(value: int) -> str:
    """Write a tick count the way an axis labels it: 1.5M, 30k, 250."""
    if value >= 1_000_000 and value % 100_000 == 0:
        return f"{value / 1_000_000:g}M"
    if value >= 10_000 and value % 1000 == 0:
        return f"{value // 1000}k"
    return str(value)


def _nice_ceiling(value: int) -> int:
    """Round up to a number an axis can be read by: 1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 x 10^k."""
    magnitude = int(10 ** max(0, len(str(value)) - 1))
    for step in (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        candidate = int(step * magnitude)
        if candidate >= value:
            return candidate
    return 10 * magnitude
