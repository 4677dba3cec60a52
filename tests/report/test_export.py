"""`gfh events export` is read by the real DuckDB as it is, and says what the report says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from gitflow_harness.report.export import SCHEMA
from gitflow_harness.store.events import EventLog
from tests.helpers import CliRunner, make_repo
from tests.report.conftest import Seeder, detector, report


def _three(tmp_path: Path) -> list[Path]:
    repos = [make_repo(tmp_path / name) for name in ("api", "web", "docs")]
    for n, repo in enumerate(repos):
        seed = Seeder(repo)
        for _ in range(n + 2):
            seed.verb("status", ("status-branch-behind",))
            seed.event("tool.requested", {"tool": "Edit", "phase": "post"}, surface="hook")
        for _ in range(n):
            error = {"adapter": "claude", "event": "Stop", "error": "NoSession: none"}
            seed.event("hook.error", error, surface="hook")
        seed.event(
            "turn.completed",
            {"turn": 1, "ritual": {"status_box": {"state": "observed", "value": True}}},
            surface="hook",
        )
    [path] = EventLog(repos[2] / ".git").files()
    with open(path, "ab") as fh:
        fh.write(b'{"schema": 7}\n{"schema": 1, "id": "torn\n')  # neither is exported
    return repos


def _export(gfh: CliRunner, tmp_path: Path, *args: str) -> Path:
    result = gfh("events", "export", *args)
    assert result.code == 0, result.err
    out = tmp_path / "events.jsonl"
    out.write_text(result.out, encoding="utf-8")
    return out


def test_duckdb_counts_over_the_export_equal_the_report_over_the_same_repositories(
    tmp_path: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If three repositories are exported to one stream, DuckDB reads it with no options and
    its counts per repository, per type and of hook errors are the report's over them."""
    repos = _three(tmp_path)
    monkeypatch.chdir(tmp_path)
    args = [arg for r in repos for arg in ("--repo", str(r))]
    out = _export(gfh, tmp_path, *args)
    doc = report(gfh, *args)
    db = duckdb.connect()
    per_repo = db.sql(
        f"SELECT repo.path, count(*) FROM read_ndjson('{out}') GROUP BY ALL ORDER BY ALL"
    ).fetchall()
    from_report = sorted((p["repo"]["path"], p["log"]["events"]) for p in doc["repositories"])
    assert per_repo == from_report
    assert [n for _, n in from_report] == [5, 11, 8]  # api, docs, web
    [(total, errors, schemas)] = db.sql(
        "SELECT count(*), count(*) FILTER (WHERE type = 'hook.error'), "
        f"list_distinct(list(schema)) FROM read_json_auto('{out}')"
    ).fetchall()
    assert total == doc["log"]["events"] == 24
    assert errors == detector(doc, "hook-errors")["considered"] == 3
    assert schemas == [SCHEMA]
    ids = db.sql(
        f"SELECT DISTINCT repo.name, repo.id FROM read_ndjson('{out}') ORDER BY 1"
    ).fetchall()
    assert ids == sorted((p["repo"]["name"], p["repo"]["id"]) for p in doc["repositories"])
    nested = db.sql(
        f"SELECT data.ritual.status_box.state FROM read_ndjson('{out}') "
        "WHERE type = 'turn.completed'"
    ).fetchall()
    assert nested == [("observed",)] * 3


def test_each_line_is_the_event_as_logged_with_its_repository(
    tmp_path: Path, repo: Path, gfh: CliRunner
) -> None:
    seed = Seeder(repo)
    seed.verb("status", branch="feature/é")
    [logged] = [json.loads(line) for line in next(iter(EventLog(repo / ".git").files())).open()]
    [line] = _export(gfh, tmp_path).read_text(encoding="utf-8").splitlines()
    record: dict[str, Any] = json.loads(line)
    assert list(record) == [
        "schema", "repo", "id", "at", "type", "surface", "session", "branch", "data",
    ]  # fmt: skip
    assert record["schema"] == SCHEMA
    assert record["repo"]["name"] == "repo"
    assert record["repo"]["path"] == str(repo)
    assert {k: v for k, v in record.items() if k not in ("schema", "repo")} == {
        k: v for k, v in logged.items() if k != "schema"
    }


def test_since_exports_only_the_later_events(repo: Path, gfh: CliRunner, tmp_path: Path) -> None:
    from datetime import UTC, datetime

    Seeder(repo, datetime(2026, 10, 5, tzinfo=UTC)).verb("status")
    Seeder(repo, datetime(2026, 11, 5, tzinfo=UTC)).verb("update")
    lines = _export(gfh, tmp_path, "--since", "2026-11-01").read_text().splitlines()
    assert [json.loads(line)["data"]["verb"] for line in lines] == ["update"]
    assert gfh("events", "export", "--since", "soon").code == 2


def test_a_line_only_the_standard_library_reads_is_exported_as_logged(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    """If an event holds what orjson will neither read nor write (a lone surrogate, an integer
    past 64 bits), the standard library reads and writes its line: nothing is dropped or
    changed, and the line stays ASCII, valid UTF-8 whatever it holds."""
    big = 2**70 + 1  # no float holds it
    Seeder(repo).event("tool.requested", {"tool": "Edit", "s": "x", "n": 1}, surface="hook")
    [path] = EventLog(repo / ".git").files()
    logged = (
        path.read_bytes().replace(b'"x"', b'"\\ud800"').replace(b'"n":1', f'"n":{big}'.encode())
    )
    path.write_bytes(logged)  # as another writer could leave it: gfh's own never holds these
    [line] = _export(gfh, tmp_path).read_text(encoding="utf-8").splitlines()
    assert line.isascii()
    assert json.loads(line)["data"] == {"tool": "Edit", "s": "\ud800", "n": big}
