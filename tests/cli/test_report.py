from __future__ import annotations

import re

from gitflow_harness.report.detectors import DETECTORS, factories
from tests.helpers import CliRunner


def test_help_names_every_registered_detector_in_report_order(gfh: CliRunner) -> None:
    """If a detector joins the registry, `gfh report --help` must name it too."""
    result = gfh("report", "--help")
    assert result.code == 0
    ids = [make.id for make in factories()]  # type: ignore[attr-defined]
    assert len(ids) == len(DETECTORS) == 6
    listed = re.findall(r"^ {4}([a-z-]+) {2,}\S", result.out, re.MULTILINE)
    assert listed == ids
    assert all(len(line) <= 80 for line in result.out.splitlines())
