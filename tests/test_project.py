"""The project's own set-up: what `make test`, `make test-fast` and CI run and enforce."""

from __future__ import annotations

import re
import tomllib

from tests.helpers import ROOT


def _recipe(target: str) -> str:
    """The commands of a Makefile target, continuation lines joined."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8").replace("\\\n", " ")
    match = re.search(rf"^{re.escape(target)}:[^\n]*\n((?:\t[^\n]*\n)+)", text, re.MULTILINE)
    assert match, target
    return match.group(1)


def test_the_whole_suite_may_not_drop_below_the_coverage_floor() -> None:
    """If the suite's branch coverage fell under the floor, `make test` (and so CI) would fail:
    it measures the whole suite with coverage, which reads the floor from pyproject.toml."""
    coverage = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "coverage"
    ]
    assert coverage["report"]["fail_under"] >= 93
    assert coverage["run"]["branch"] is True
    recipe = _recipe("test")
    assert "--cov " in recipe
    assert "--cov-fail-under" not in recipe  # the floor is pyproject's, in one place
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_quick_run_measures_no_coverage() -> None:
    """`make test-fast` skips the slow tests, so its coverage is partial: it must not measure
    it, or the floor would fail a run that is incomplete on purpose."""
    assert "--cov" not in _recipe("test-fast")
