from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitflow_harness import git
from gitflow_harness.store.events import EventLog
from tests.helpers import CliRunner


def _log(repo: Path) -> EventLog:
    return EventLog(git.discover(repo).common_dir)


def test_tail_prints_latest_events(repo: Path, gfh: CliRunner) -> None:
    log = _log(repo)
    for i in range(5):
        log.record(
            "verb", {"verb": "status", "i": i}, surface="cli", branch="main", session="claude:s"
        )
    result = gfh("events", "tail", "-n", "2")
    assert result.code == 0
    lines = result.out.splitlines()
    assert len(lines) == 2
    assert '"i":3' in lines[0]
    assert '"i":4' in lines[1]
    assert "verb" in lines[1]
    assert "claude:s" in lines[1]
    as_json = gfh("events", "tail", "-n", "1", "--json").json()
    assert as_json[0]["data"] == {"verb": "status", "i": 4}
    assert as_json[0]["schema"] == 1


def test_tail_of_an_empty_log_prints_nothing(repo: Path, gfh: CliRunner) -> None:
    result = gfh("events", "tail")
    assert (result.code, result.out) == (0, "")


def test_verify_counts_and_fails_on_torn_lines(repo: Path, gfh: CliRunner) -> None:
    log = _log(repo)
    assert gfh("events", "verify").out.startswith("no event log yet")
    log.record("verb", {}, surface="cli", branch="main")
    ok = gfh("events", "verify")
    assert ok.code == 0
    [path] = log.files()
    assert ok.out == f"{path.name}: 1 events, 0 foreign, 0 torn\n"
    with open(path, "ab") as fh:
        fh.write(b'{"other": "tool"}\n{"schema":1,"id":"trunc')
    bad = gfh("events", "verify")
    assert bad.code == 1
    assert bad.out == f"{path.name}: 1 events, 1 foreign, 1 torn\n"
    assert "1 torn line(s)" in bad.err
    data = gfh("events", "verify", "--json").json()
    assert data["ok"] is False
    assert data["files"] == [{"file": path.name, "events": 1, "foreign": 1, "torn": 1}]


def test_tail_help_says_json_prints_a_list(gfh: CliRunner) -> None:
    out = gfh("events", "tail", "--help").out
    assert "--json" in out
    assert "JSON list" in out
    assert "one JSON object" not in out


@pytest.mark.parametrize(
    "command",
    [
        ("events", "verify"),
        ("events", "tail"),
        ("learn",),
        ("ways", "list"),
        ("ways", "tune"),
        ("report",),
    ],
)
def test_a_log_path_that_is_a_file_is_one_line_naming_it(
    repo: Path, gfh: CliRunner, command: tuple[str, ...]
) -> None:
    """If the log's directory is a file, the reader says so in one line (exit 1), as `gfh report`
    does, with no internal error and no crash report."""
    events = repo / ".git" / "gitflow-harness" / "events"
    events.parent.mkdir(parents=True)
    events.touch()
    result = gfh(*command)
    assert result.code == 1
    assert result.out == ""
    [line] = result.err.splitlines()
    assert line.startswith(f"gfh: cannot read the event log at {events}: Not a directory; ")
    assert "move what is there aside" in line
    assert not (Path(os.environ["GFH_STATE_HOME"]) / "crash").exists()
    assert gfh("report").err.split(": Not a directory")[0] == line.split(": Not a directory")[0]
