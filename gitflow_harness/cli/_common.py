"""Small pieces every command module shares."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from gitflow_harness.cli.output import echo_json, json_text

__all__ = ["FiniteFloatRange", "echo_json", "json_option", "json_text", "since_date", "table"]

json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")


def table(rows: Sequence[Sequence[str]], gap: str = "  ", least: Sequence[int] = ()) -> list[str]:
    """Return `rows` as lines whose columns line up: every column but the last is padded to
    its widest cell (at least `least[i]`). A cell's own line breaks and tabs become spaces, so
    one row stays one line."""
    cells = [[" ".join(str(c).split()) for c in row] for row in rows]
    if not cells:
        return []
    widths = [max(len(row[i]) for row in cells if i < len(row)) for i in range(len(cells[0]))]
    widths = [max(w, least[i] if i < len(least) else 0) for i, w in enumerate(widths)]
    lines = []
    for row in cells:
        padded = [c.ljust(widths[i]) for i, c in enumerate(row[:-1])] + row[-1:]
        lines.append(gap.join(padded).rstrip())
    return lines


def since_date(value: str | None) -> str | None:
    """Return a `--since` date as `YYYY-MM-DD`, or refuse it in one line (exit 2)."""
    import datetime as dt

    from gitflow_harness.errors import UsageError

    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        raise UsageError(f"--since {value!r}: expected a date YYYY-MM-DD") from None


class FiniteFloatRange(click.FloatRange):
    """A float range that also refuses `nan` and `inf`, which no range check catches."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        import math

        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number
