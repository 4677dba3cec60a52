from __future__ import annotations

from pathlib import Path

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
