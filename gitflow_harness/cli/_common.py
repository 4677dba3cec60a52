"""Small pieces every command module shares."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")


def echo_json(obj: Any) -> None:
    """Print `obj` as indented JSON on stdout."""
    click.echo(json.dumps(obj, indent=2, ensure_ascii=False, default=str))


class FiniteFloatRange(click.FloatRange):
    """A float range that also refuses `nan` and `inf`, which no range check catches."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        import math

        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number
