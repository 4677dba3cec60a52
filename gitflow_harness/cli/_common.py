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
