"""The workflow and report docs describe what exists, and only that."""

from __future__ import annotations

import re

import pytest

from gitflow_harness.hints import HINTS
from gitflow_harness.report.detectors import DETECTORS, factories
from tests.helpers import ROOT, CliRunner

WORKFLOW = (ROOT / "docs" / "workflow.md").read_text(encoding="utf-8")
REPORT = (ROOT / "docs" / "report.md").read_text(encoding="utf-8")
VERBS = re.findall(r"^\| `gfh (\w+)[^`]*` \|", WORKFLOW, re.MULTILINE)


def test_the_verb_table_lists_every_verb() -> None:
    assert VERBS == ["start", "status", "update", "prepare", "test", "done", "accept", "ensure"]


@pytest.mark.parametrize("verb", [*VERBS, "report"])
def test_every_documented_command_exists(verb: str, gfh: CliRunner) -> None:
    result = gfh(verb, "--help")
    assert result.code == 0
    assert "--json" in result.out


def test_the_hint_table_matches_the_registry() -> None:
    row = re.compile(r"^\| `([a-z-]+)` \| [a-z-]+ \| [a-z]+ \|\s*[a-z-]*\s*\| (.+) \|$", re.M)
    rows = dict(row.findall(WORKFLOW))
    assert set(rows) == set(HINTS)
    for hid, text in rows.items():
        assert text == HINTS[hid].text, hid


def test_every_detector_is_documented() -> None:
    ids = [make.id for make in factories()]  # type: ignore[attr-defined]
    assert len(ids) == len(DETECTORS)
    for detector_id in ids:
        assert f"## {detector_id}" in REPORT


def test_the_gate_index_limits_are_the_codes() -> None:
    """If the index prunes down to half its limit, the docs say both numbers."""
    from gitflow_harness.workflow.gate_index import KEEP

    text = " ".join(WORKFLOW.split())
    assert f"at most {KEEP} trees: a write that goes past {KEEP} forgets the oldest" in text
    assert f"down to the newest {KEEP // 2}" in text
