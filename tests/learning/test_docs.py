"""docs/learning.md describes what exists: its commands, flags and field tables."""

from __future__ import annotations

import re

import click
import pytest

from gitflow_harness.cli.group import cli
from gitflow_harness.learning.pills import PILL_SCHEMA
from gitflow_harness.learning.requests import REQUEST_SCHEMA
from gitflow_harness.store.schema import Schema, describe
from tests.helpers import ROOT

DOC = (ROOT / "docs" / "learning.md").read_text(encoding="utf-8")


def _command(path: list[str]) -> click.Command:
    ctx = click.Context(cli)
    command: click.Command = cli
    for name in path:
        assert isinstance(command, click.Group), path
        found = command.get_command(ctx, name)
        assert found is not None, f"gfh {' '.join(path)} is documented but does not exist"
        command = found
    return command


def test_every_documented_command_and_flag_exists() -> None:
    headings = [line for line in DOC.splitlines() if line.startswith("### ")]
    forms = [form for line in headings for form in re.findall(r"`gfh ([^`]+)`", line)]
    ours = [f for f in forms if f.split()[0] in ("pills", "requests", "learn")]
    assert len(ours) >= 10
    for form in ours:
        words = [w for w in form.split() if re.fullmatch(r"[a-z]+", w)]
        path = words[:1] if words[0] == "learn" else words[:2]
        command = _command(path)
        declared = {opt for p in command.params for opt in getattr(p, "opts", [])}
        for flag in re.findall(r"--[a-z-]+", form):
            assert flag in declared, f"{flag} of gfh {' '.join(path)}"


@pytest.mark.parametrize("schema", [PILL_SCHEMA, REQUEST_SCHEMA], ids=lambda s: s.kind)
def test_field_tables_come_from_the_declared_schemas(schema: Schema) -> None:
    for name, kind, doc in describe(schema):
        assert f"| {name} | {kind} | {doc} |" in DOC
