"""`hook-errors`: hook calls that failed open, counted by adapter, event and reason."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from gitflow_harness.report.detectors.hook_errors import MAX_KEYS, HookErrors, reason_of
from gitflow_harness.store.events import make_event
from tests.agent import kit
from tests.helpers import CliRunner
from tests.report.conftest import Seeder, detector, report


def _findings(doc: dict[str, object]) -> dict[str, dict[str, object]]:
    findings = doc["findings"]
    assert isinstance(findings, list)
    return {f["subject"]: f for f in findings if f["detector"] == "hook-errors"}


def test_the_fail_opens_of_real_hook_calls_are_counted_by_reason_and_hook(
    repo: Path, gfh: CliRunner
) -> None:
    """If hook calls fail open — a session id missing from two prompts, a mistyped adapter — then
    the report counts them per reason, each with the hooks it came from and what to do, in JSON,
    text and markdown; the other events the calls recorded are not counted."""
    kit.way(repo, "tests", "when:\n  keywords: [tests]\n" + kit.EXPONENTIAL)
    prompt = kit.payload("claude", "UserPromptSubmit", repo)
    del prompt["session_id"]
    for _ in range(2):
        assert kit.hook(gfh, "claude", "UserPromptSubmit", prompt).code == 0
    gfh("hook", "claud", "Stop", stdin=json.dumps(kit.payload("claude", "Stop", repo)))
    cursor = kit.payload("cursor", "beforeSubmitPrompt", repo)
    del cursor["conversation_id"]
    kit.hook(gfh, "cursor", "beforeSubmitPrompt", cursor)

    doc = report(gfh)
    assert detector(doc, "hook-errors") == {"id": "hook-errors", "status": "fired", "considered": 4}
    found = _findings(doc)
    assert list(found) == ["NoSession", "UsageError"]  # the most frequent first
    no_session = found["NoSession"]
    assert no_session["tone"] == "attention"
    assert no_session["evidence"] == {
        "errors": 3,
        "hooks": {"claude UserPromptSubmit": 2, "cursor beforeSubmitPrompt": 1},
    }
    assert "session id" in str(no_session["next_step"])
    assert found["UsageError"]["evidence"] == {"errors": 1, "hooks": {"claud Stop": 1}}

    text = gfh("report").out
    assert "hook-errors          fired                  4" in text
    assert "hook-errors · NoSession · attention" in text
    assert "evidence: errors 3 · hooks claude UserPromptSubmit 2, cursor beforeSubmitPrompt 1" in (
        " ".join(text.split())
    )
    markdown = gfh("report", "--format", "markdown").out
    assert "| `hook-errors` | fired | 4 |" in markdown
    assert "| 3 | claude UserPromptSubmit 2, cursor beforeSubmitPrompt 1 |" in markdown


def test_without_hook_errors_the_detector_is_quiet(repo: Path, gfh: CliRunner) -> None:
    kit.hook(gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo))
    doc = report(gfh)
    assert detector(doc, "hook-errors") == {"id": "hook-errors", "status": "quiet", "considered": 0}
    assert _findings(doc) == {}


def test_only_the_window_of_the_report_counts(repo: Path, gfh: CliRunner) -> None:
    error = {"adapter": "claude", "event": "Stop", "error": "KeyError at gitflow_harness/x.py:1"}
    october = Seeder(repo, datetime(2026, 10, 5, tzinfo=UTC))
    october.event("hook.error", error, surface="hook")
    november = Seeder(repo, datetime(2026, 11, 5, tzinfo=UTC))
    for _ in range(2):
        november.event("hook.error", error, surface="hook")
    assert detector(report(gfh), "hook-errors")["considered"] == 3
    doc = report(gfh, "--since", "2026-11-01")
    assert detector(doc, "hook-errors")["considered"] == 2
    [internal] = _findings(doc).values()
    assert internal["subject"] == "KeyError"
    assert "internal error" in str(internal["next_step"])


def test_reasons_are_the_errors_leading_names() -> None:
    assert reason_of("ValueError at gitflow_harness/agent/ticks.py:88") == "ValueError"
    assert reason_of("ConfigError: /repo/.gitflow-harness.toml:1: unknown key") == "ConfigError"
    assert reason_of("WayProblem: hooks/ways/x/x.md:5: error: …") == "WayProblem"
    assert reason_of("InvalidPayload: stdin is not JSON") == "InvalidPayload"
    assert reason_of(" not a name") == "(unknown)"
    assert reason_of(None) == "(unknown)"


def test_memory_is_bounded_however_many_kinds_of_error_the_log_holds() -> None:
    """If a log holds more distinct (adapter, event, reason) triples than the detector keeps,
    then the rest are still counted, together, and memory stays flat."""
    detector = HookErrors()
    total = MAX_KEYS * 3
    for i in range(total):
        data = {"adapter": "claude", "event": f"Event{i}", "error": f"E{i}: x"}
        detector.observe(make_event("hook.error", data, surface="hook", session=None, branch=None))
    assert len(detector._counts) == MAX_KEYS + 1
    assert sum(detector._counts.values()) == total


def test_a_git_stage_hook_error_gets_the_git_stage_next_step(repo: Path) -> None:
    """If `gfh-record-update` could not record (adapter `git`), the advice is about that hook,
    not an internal error of gfh's own."""
    from gitflow_harness.report.detectors.hook_errors import GIT_STAGE, INTERNAL
    from gitflow_harness.report.model import ReportContext
    from gitflow_harness.store.events import ReadStats
    from gitflow_harness.workspace import open_workspace

    found = HookErrors()
    for adapter, event in (("git", "record-update"), ("claude", "PostToolUse")):
        data = {"adapter": adapter, "event": event, "error": f"Err{adapter}: x"}
        found.observe(make_event("hook.error", data, surface="git", session=None, branch=None))
    result = found.finish(ReportContext(open_workspace(repo), ReadStats()))
    steps = {f.subject: f.next_step for f in result.findings}
    assert steps == {"Errgit": GIT_STAGE, "Errclaude": INTERNAL}
