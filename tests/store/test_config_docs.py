"""docs/configuration.md lists exactly the declared keys, with the defaults `gfh config show`
prints, and its error examples are what gfh prints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gitflow_harness.store.config import PRE_COMMIT_DEFAULT, SECTIONS, toml_value
from tests.helpers import ROOT, CliRunner, write

DOC = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
EXAMPLE_TOP = "/home/you/project"


def documented() -> dict[str, str]:
    """Each key of the table with its default column."""
    section = DOC.split("\n## Keys\n", 1)[1].split("\n## ", 1)[0]
    return dict(re.findall(r"^\| `([a-z_.]+)` \| (.+?) \| .+ \|$", section, re.MULTILINE))


def declared() -> dict[str, str]:
    """Each key of the schema with its default as `gfh config show` prints it."""
    out = {}
    for section, schema in SECTIONS.items():
        for field in schema.fields:
            if field.default is None:  # computed from the repository: only gate.prepare
                assert f"{section}.{field.name}" == "gate.prepare"
                default = f"`{toml_value(PRE_COMMIT_DEFAULT)}` or `{toml_value([])}`"
            else:
                default = f"`{toml_value(field.default)}`"
            out[f"{section}.{field.name}"] = default
    return out


def test_the_keys_and_defaults_are_the_declared_ones() -> None:
    assert documented() == declared()


def test_the_defaults_are_what_config_show_prints(repo: Path, gfh: CliRunner) -> None:
    values = gfh("config", "show", "--json").json()["values"]
    shown = {
        f"{section}.{key}": f"`{toml_value(value)}`"
        for section, keys in values.items()
        for key, value in keys.items()
    }
    assert {k: v for k, v in documented().items() if k != "gate.prepare"} == {
        k: v for k, v in shown.items() if k != "gate.prepare"
    }
    assert shown["gate.prepare"] in documented()["gate.prepare"]


@pytest.mark.parametrize(
    "text",
    ['[gate]\nprepare = []\npsuh = "off"\n', '[ways]\nfloor = "high"\n'],
    ids=["unknown-key", "wrong-type"],
)
def test_the_error_examples_are_what_gfh_prints(repo: Path, gfh: CliRunner, text: str) -> None:
    write(repo, ".gitflow-harness.toml", text)
    result = gfh("config", "show")
    assert result.code == 2
    example = result.err.replace(str(repo), EXAMPLE_TOP)
    assert example.startswith(f"gfh: {EXAMPLE_TOP}/.gitflow-harness.toml:")
    assert example.rstrip("\n") in DOC.splitlines()
