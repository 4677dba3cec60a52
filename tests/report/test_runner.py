from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from gitflow_harness import halves
from gitflow_harness.report import render, runner
from gitflow_harness.report.detectors import DETECTORS, factories
from gitflow_harness.report.model import DetectorResult, ReportContext
from gitflow_harness.report.repos import open_repositories
from gitflow_harness.report.runner import ROUTES_KEPT, Report, run_report, run_reports
from gitflow_harness.store import eventscan
from gitflow_harness.store.events import Event, EventLog, ReadStats
from gitflow_harness.workspace import open_workspace
from tests.helpers import CliRunner, make_repo
from tests.report.conftest import Seeder, detector, family, report, seed_every_detector


def test_registry_lists_the_detectors_in_order() -> None:
    ids = [make.id for make in factories()]  # type: ignore[attr-defined]
    assert ids == [
        "hint-follow-through",
        "skipped-prepare",
        "learning",
        "stop-ritual",
        "way-firing",
        "hook-errors",
    ]
    assert len(DETECTORS) == len(set(DETECTORS))


def test_torn_and_foreign_lines_are_skipped_and_counted(
    repo: Path, seed: Seeder, gfh: CliRunner
) -> None:
    for _ in range(3):
        seed.verb("status", ("status-branch-behind",))
        seed.verb("update")
    [path] = EventLog(repo / ".git").files()
    with open(path, "ab") as fh:
        fh.write(b'{"schema": 99, "id": "x"}\n[1, 2]\n{"schema": 1, "id"')  # foreign, torn
    seed.verb("status", ("status-branch-behind",))  # the log carries on after a torn line
    doc = report(gfh)
    assert doc["log"] == {"files": 1, "events": 7, "foreign": 2, "torn": 1, "skipped": 3}
    assert family(doc, "branch-update")["fired"] == 4
    assert "3 lines skipped (2 foreign, 1 torn)" in gfh("report").out


class Counter:
    id = "counter"

    def __init__(self, ctx: ReportContext) -> None:
        self.seen = 0

    def observe(self, event: Event) -> None:
        self.seen += 1

    def finish(self, ctx: ReportContext) -> DetectorResult:
        return DetectorResult(self.id, "quiet", self.seen)


def test_the_log_is_streamed_once_for_all_detectors(
    repo: Path, seed: Seeder, monkeypatch: Any
) -> None:
    for _ in range(5):
        seed.verb("status")
    reads = []
    original = eventscan.scan

    def counting_scan(log: EventLog, **kwargs: Any) -> Any:
        reads.append(kwargs)
        return original(log, **kwargs)

    monkeypatch.setattr(eventscan, "scan", counting_scan)
    monkeypatch.setattr(EventLog, "read", None)  # the report's one pass is the scan
    result = run_report(open_workspace(), detectors=[Counter, Counter, *factories()])
    assert len(reads) == 1
    assert [r.considered for r in result.results[:2]] == [5, 5]


class VerbCounter(Counter):
    id = "verb-counter"
    types = frozenset({"verb"})


def test_a_detector_that_declares_its_event_types_sees_only_those(repo: Path, seed: Seeder) -> None:
    for _ in range(3):
        seed.verb("status")
        seed.event("tool.requested", {"tool": "Edit", "phase": "post"}, surface="hook")
    seed.event("git.update", {"via": "merge", "trunk": "main", "onto": "c" * 40})
    result = run_report(open_workspace(), detectors=[VerbCounter, Counter])
    assert [r.considered for r in result.results] == [3, 7]


class Deaf(Counter):
    id = "deaf"
    types: frozenset[str] = frozenset()


def test_a_log_of_more_types_than_are_kept_still_reaches_every_reader(
    repo: Path, seed: Seeder
) -> None:
    # Routes are kept for the first types seen; the rest are worked out per event, the same.
    for n in range(ROUTES_KEPT + 5):
        seed.event(f"custom.{n}", {})
        seed.verb("status")
    result = run_report(open_workspace(), detectors=[VerbCounter, Counter, Deaf])
    count = ROUTES_KEPT + 5
    assert [r.considered for r in result.results] == [count, 2 * count, 0]


def test_since_skips_earlier_events(repo: Path, gfh: CliRunner) -> None:
    october = Seeder(repo, datetime(2026, 10, 5, tzinfo=UTC))
    for _ in range(4):
        october.verb("status", ("status-branch-behind",))
    november = Seeder(repo, datetime(2026, 11, 5, tzinfo=UTC))
    november.verb("status", ("status-branch-behind",))
    assert family(report(gfh), "branch-update")["fired"] == 5
    doc = report(gfh, "--since", "2026-11-01")
    assert doc["since"] == "2026-11-01"
    assert doc["log"]["events"] == 1
    assert detector(doc, "hint-follow-through")["status"] == "insufficient-evidence"


def test_a_bad_since_is_a_usage_error(repo: Path, gfh: CliRunner) -> None:
    result = gfh("report", "--since", "last tuesday")
    assert result.code == 2
    assert "YYYY-MM-DD" in result.err


def test_text_fits_80_columns(seed: Seeder, gfh: CliRunner) -> None:
    for _ in range(4):
        seed.verb("status", ("status-branch-behind",), branch="feature/" + "long-name-" * 12)
    for gate in ("red", "red", "green", "green"):
        seed.verb("done", gate=gate, branch="feature/" + "another-long-name-" * 8)
    out = gfh("report").out
    assert "branch-update" in out
    assert "skipped-prepare" in out
    assert "next:" in out
    assert "evidence:" in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_markdown_is_ready_for_a_pull_request(seed: Seeder, gfh: CliRunner) -> None:
    for _ in range(4):
        seed.verb("status", ("status-branch-behind",))
    out = gfh("report", "--format", "markdown").out
    assert out.startswith("## gfh report\n")
    assert "| `hint-follow-through` | fired | 3 |" in out
    assert "| fired | followed | not followed | censored |" in out
    assert "| 4 | 0 | 3 | 1 |" in out
    assert "**Next step:**" in out


def test_markdown_escapes_table_breakers(repo: Path) -> None:
    from gitflow_harness.report.model import Finding
    from gitflow_harness.report.runner import Report
    from gitflow_harness.store.events import ReadStats

    finding = Finding("d", "a|b", "info", "x <y> | z", {"k": "v|w"}, "do it")
    doc = render.markdown(Report((DetectorResult("d", "fired", 1, (finding,)),), ReadStats(), None))
    assert "a\\|b" in doc
    assert "x &lt;y&gt; \\| z" in doc
    assert "v\\|w" in doc


def test_empty_log_reports_without_findings(repo: Path, gfh: CliRunner) -> None:
    doc = report(gfh)
    assert doc["findings"] == []
    assert doc["log"]["events"] == 0
    assert [d["status"] for d in doc["detectors"]] == ["insufficient-evidence"] * 6
    assert "0 events read; no lines skipped" in gfh("report").out


def test_a_log_that_cannot_be_read_is_an_error_not_an_empty_report(
    repo: Path, gfh: CliRunner
) -> None:
    """If the log's place holds something that is not a readable directory, the report says so
    and exits 1, instead of reporting "0 events read"; a log never written is simply empty."""
    assert gfh("report", "--json").json()["log"]["events"] == 0  # nothing logged yet: fine
    state = repo / ".git" / "gitflow-harness"
    state.mkdir()
    (state / "events").write_text("not a directory\n")
    result = gfh("report", "--json")
    assert result.code == 1
    assert result.out == ""
    assert result.err.startswith(f"gfh: cannot read the event log at {state / 'events'}: ")
    assert "Not a directory" in result.err
    assert "move what is there aside" in result.err
    assert len(result.err.splitlines()) == 1


def _three(tmp_path: Path) -> list[Path]:
    """Three repositories: one whose hints are followed, one whose hooks failed open, and one
    with a torn line."""
    a, b, c = (make_repo(tmp_path / name) for name in ("a", "b", "c"))
    first = Seeder(a)
    for _ in range(3):
        first.verb("status", ("status-branch-behind",))
        first.verb("update")
    second = Seeder(b)
    for event in ("UserPromptSubmit", "Stop"):
        error = {"adapter": "claude", "event": event, "error": "NoSession: no session id"}
        second.event("hook.error", error, surface="hook")
    third = Seeder(c)
    third.verb("status")
    [path] = EventLog(c / ".git").files()
    with open(path, "ab") as fh:
        fh.write(b'{"schema": 1, "id"\n')
    return [a, b, c]


def test_a_report_over_repositories_sums_them_and_keeps_each(
    tmp_path: Path, gfh: CliRunner, monkeypatch: Any
) -> None:
    """If several repositories are reported on, the combined part adds their counts and labels
    each finding with its repository, and each repository keeps its own report as it would
    alone; the current directory need not be a repository."""
    repos = _three(tmp_path)
    monkeypatch.chdir(tmp_path)
    doc = report(gfh, *(arg for r in repos for arg in ("--repo", str(r))))
    assert doc["log"] == {"files": 3, "events": 9, "foreign": 0, "torn": 1, "skipped": 1}
    assert detector(doc, "hint-follow-through")["status"] == "fired"
    assert detector(doc, "hook-errors") == {"id": "hook-errors", "status": "fired", "considered": 2}
    assert detector(doc, "skipped-prepare")["status"] == "insufficient-evidence"
    subjects = [f["subject"] for f in doc["findings"]]
    assert "a · branch-update" in subjects
    assert "b · NoSession" in subjects
    notes = detector(doc, "hint-follow-through")["notes"]
    assert [n.split(":")[0] for n in notes] == ["a", "b", "c"]
    parts = doc["repositories"]
    assert [(p["label"], p["repo"]["name"], p["repo"]["path"]) for p in parts] == [
        (r.name, r.name, str(r)) for r in repos
    ]
    assert [p["log"]["events"] for p in parts] == [6, 2, 1]
    assert [p["log"]["torn"] for p in parts] == [0, 0, 1]
    monkeypatch.chdir(repos[0])
    alone = report(gfh)
    assert "repositories" not in alone
    assert {k: v for k, v in parts[0].items() if k not in ("repo", "label")} == alone
    assert family(alone, "branch-update") == {
        "fired": 3,
        "followed": 3,
        "not_followed": 0,
        "censored": 0,
    }


def test_text_and_markdown_show_the_whole_then_each_repository(
    tmp_path: Path, gfh: CliRunner
) -> None:
    repos = _three(tmp_path)
    args = [arg for r in repos for arg in ("--repo", str(r))]
    text = gfh("report", *args).out
    assert text.startswith("gfh report · 9 events read in 3 repositories; 1 lines skipped")
    assert all(len(line) <= 80 for line in text.splitlines())
    sections = [line for line in text.splitlines() if line.startswith("repository ")]
    assert sections == [
        "repository a · 6 events read; no lines skipped",
        "repository b · 2 events read; no lines skipped",
        "repository c · 1 events read; 1 lines skipped (0 foreign, 1 torn)",
    ]
    assert "a · branch-update · good" in text
    md = gfh("report", "--format", "markdown", *args).out
    assert [line for line in md.splitlines() if line.startswith("## ")] == [
        "## gfh report",
        "## repository a",
        "## repository b",
        "## repository c",
    ]
    one = gfh("report", "--repo", str(repos[1])).out
    assert one.startswith("gfh report · 2 events read in 1 repository;")


def test_repositories_that_share_a_name_are_labelled_by_their_path(tmp_path: Path) -> None:
    first = make_repo(tmp_path / "one" / "app")
    second = make_repo(tmp_path / "two" / "app")
    result = run_reports(open_repositories([str(first), str(second)]))
    assert [p.label for p in result.repositories] == [str(first), str(second)]
    assert [p.repo.name for p in result.repositories] == ["app", "app"]


class Where(VerbCounter):
    """Reads a few types, and says which process finished it."""

    id = "where"

    def finish(self, ctx: ReportContext) -> DetectorResult:
        if os.getpid() != PARENT and os.environ.get("GFH_TEST_CHILD_FAILS"):
            raise RuntimeError("the child fails")
        return DetectorResult(self.id, "quiet", self.seen, notes=(str(os.getpid()),))


PARENT = os.getpid()


def _split(monkeypatch: pytest.MonkeyPatch, *, may: bool) -> None:
    monkeypatch.setattr(runner, "SPLIT_BYTES", 0)
    monkeypatch.setattr(halves, "available", lambda: may)


def _without_where(report: Report) -> tuple[dict[str, Any], list[int]]:
    doc = report.to_dict()
    doc["detectors"] = [d for d in doc["detectors"] if d["id"] != "where"]
    return doc, [f.events for f in report.stats.files]


def test_a_long_log_is_streamed_beside_a_child_with_the_same_results(
    repo: Path, seed: Seeder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the log is long and a CPU is idle, a child runs the detectors that read a few types
    of event while this process runs those that read every event; the report is the one a
    single pass gives."""
    seed_every_detector(repo, seed)
    detectors = [*factories(), Where, Counter]
    _split(monkeypatch, may=False)
    alone = run_report(open_workspace(), detectors=detectors)
    _split(monkeypatch, may=True)
    split = run_report(open_workspace(), detectors=detectors)
    assert _without_where(split) == _without_where(alone)
    assert alone.results[-2].notes == (str(PARENT),)
    [child] = split.results[-2].notes
    assert int(child) != PARENT
    assert split.results[-2].considered == alone.results[-2].considered > 0


def test_when_the_child_fails_this_process_runs_its_part_after_its_own(
    repo: Path, seed: Seeder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the child fails, this process runs the child's detectors over the log again: the
    results are the same, and the log's lines are counted once."""
    seed_every_detector(repo, seed)
    detectors = [*factories(), Where, Counter]
    _split(monkeypatch, may=False)
    alone = run_report(open_workspace(), detectors=detectors)
    _split(monkeypatch, may=True)
    monkeypatch.setenv("GFH_TEST_CHILD_FAILS", "1")
    rerun = run_report(open_workspace(), detectors=detectors)
    assert _without_where(rerun) == _without_where(alone)
    assert rerun.results[-2].notes == (str(PARENT),)


def test_only_the_months_read_count_toward_the_fork(
    repo: Path, seed: Seeder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If `--since` skips the months that make the log long, the report streams the rest in
    one process: what counts is what will be read."""
    seed_every_detector(repo, seed)
    ws = open_workspace()
    [path] = ws.log.files()
    path.rename(path.with_name("2020-01.jsonl"))
    (ws.log.directory / "2030-01.jsonl").write_bytes(b"")
    running = [make(ReportContext(ws, ReadStats())) for make in factories()]
    monkeypatch.setattr(halves, "available", lambda: True)
    monkeypatch.setattr(runner, "SPLIT_BYTES", 1)
    here, apart = runner._sides(ws, running, None)
    assert [d.id for d in here] == ["hint-follow-through"]
    assert len(apart) == len(running) - 1
    assert runner._sides(ws, running, "2025-06-01") == (running, [])
