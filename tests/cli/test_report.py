from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

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


def test_output_writes_the_report_to_a_file_instead_of_stdout(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    """If `--output FILE` is given, then the report goes to FILE, whole, replacing what was
    there, and nothing goes to stdout; every format goes there the same way."""
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "report.html"
    out.write_text("an older report\n", encoding="utf-8")
    result = gfh("report", "--format", "html", "--output", str(out))
    assert (result.code, result.out) == (0, "")
    written = out.read_text(encoding="utf-8")
    assert written.startswith("<!DOCTYPE html>")
    assert written.endswith("</html>\n")
    assert [p.name for p in out.parent.iterdir()] == ["report.html"]  # no temporary file left
    as_json = out.parent / "report.json"
    assert gfh("report", "--json", "--output", str(as_json)).code == 0
    assert json.loads(as_json.read_text(encoding="utf-8")) == gfh("report", "--json").json()


@pytest.mark.parametrize("where", ["missing/dir/report.html", "a-directory"])
def test_an_output_that_cannot_be_written_is_one_line(
    repo: Path, gfh: CliRunner, tmp_path: Path, where: str
) -> None:
    (tmp_path / "a-directory").mkdir()
    target = tmp_path / where
    result = gfh("report", "--format", "markdown", "--output", str(target))
    assert result.code == 2
    assert result.out == ""
    [line] = result.err.strip().splitlines()
    assert str(target) in line
    assert "cannot write it" in line
    assert "name a file in a directory you can write" in line
