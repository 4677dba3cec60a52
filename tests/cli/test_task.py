from __future__ import annotations

import stat
from pathlib import Path

import pytest

from gitflow_harness.store.state import session_dir
from tests.helpers import CliRunner, read_events

SESSION = {"GFH_SESSION": "claude:task-test"}


def test_set_records_on_every_call_even_unchanged(repo: Path, gfh: CliRunner) -> None:
    first = gfh("task", "set", "fix the parser", env=SESSION)
    assert (first.code, first.out) == (0, "task: fix the parser\n")
    again = gfh("task", "set", "fix the parser", "--json", env=SESSION)
    assert again.code == 0
    assert again.json()["had_task"] is True
    events = [e for e in read_events(repo) if e["type"] == "coord.task_changed"]
    assert len(events) == 2
    assert {e["session"] for e in events} == {"claude:task-test"}
    assert events[0]["data"]["state"] == "set"
    assert events[0]["data"]["fingerprint"] == events[1]["data"]["fingerprint"]
    assert len(events[0]["data"]["fingerprint"]) == 64


def test_the_text_stays_in_private_session_state(repo: Path, gfh: CliRunner) -> None:
    gfh("task", "set", "canary-4417 refactor", env=SESSION)
    log_text = "".join(p.read_text() for p in (repo / ".git" / "gitflow-harness").rglob("*.jsonl"))
    assert "canary-4417" not in log_text
    stored = Path(session_dir("claude:task-test"), "task.json")
    assert "canary-4417" in stored.read_text()
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    assert gfh("task", "show", env=SESSION).out == "canary-4417 refactor\n"


def test_empty_text_declares_a_conversational_turn(repo: Path, gfh: CliRunner) -> None:
    result = gfh("task", "set", "", env=SESSION)
    assert result.out == "task: (conversational turn, no focus)\n"
    [event] = [e for e in read_events(repo) if e["type"] == "coord.task_changed"]
    assert event["data"]["state"] == "set"
    assert gfh("task", "show", "--json", env=SESSION).json() == {
        "session": "claude:task-test",
        "task": "",
    }
    # Said in words, as the status box says it, rather than as a blank line.
    assert gfh("task", "show", env=SESSION).out == "(empty: a conversational turn)\n"


def test_clear_records_and_show_reports_none(repo: Path, gfh: CliRunner) -> None:
    gfh("task", "set", "x", env=SESSION)
    cleared = gfh("task", "clear", env=SESSION)
    assert cleared.out == "task cleared\n"
    assert gfh("task", "clear", env=SESSION).out == "task cleared (none was set)\n"
    assert gfh("task", "show", env=SESSION).out == "(no task set)\n"
    states = [e["data"]["state"] for e in read_events(repo) if e["type"] == "coord.task_changed"]
    assert states == ["set", "cleared", "cleared"]


def test_show_records_nothing(repo: Path, gfh: CliRunner) -> None:
    gfh("task", "show", env=SESSION)
    assert read_events(repo) == []


def test_without_a_session_it_refuses_clearly(repo: Path, gfh: CliRunner) -> None:
    result = gfh("task", "set", "x")
    assert result.code == 2
    assert result.err.startswith(
        "gfh: no agent session: no $GFH_SESSION, $CLAUDE_CODE_SESSION_ID, $CODEX_SESSION_ID or "
        "$CODEX_THREAD_ID; "
    )
    assert "GFH_SESSION=<adapter>:<id>" in result.err
    assert read_events(repo) == []


@pytest.mark.parametrize(
    ("variable", "session"),
    [("CLAUDE_CODE_SESSION_ID", "claude:7f3c"), ("CODEX_THREAD_ID", "codex:0199")],
)
def test_the_hosts_own_session_variable_is_enough(
    repo: Path, gfh: CliRunner, variable: str, session: str
) -> None:
    """If GFH_SESSION never reached the agent's commands, then the session the host exports
    to them names the task's session, and the box shows it."""
    env = {variable: session.partition(":")[2]}
    assert gfh("task", "set", "ship it", env=env).code == 0
    [declared] = [e for e in read_events(repo) if e["type"] == "coord.task_changed"]
    assert declared["session"] == session
    box = gfh("status", env=env).out
    assert "│ task     ship it" in box
    assert f"│ session  {session}" in box


def test_status_shows_the_task(repo: Path, gfh: CliRunner) -> None:
    gfh("task", "set", "ship the parser", env=SESSION)
    box = gfh("status", env=SESSION).out
    assert "│ task     ship the parser" in box


def test_an_unwritable_log_leaves_the_task_as_it_was(repo: Path, gfh: CliRunner) -> None:
    assert gfh("task", "set", "before", env=SESSION).code == 0
    events_dir = repo / ".git" / "gitflow-harness" / "events"
    moved = events_dir.with_name("events.moved")
    events_dir.rename(moved)
    events_dir.write_text("in the way\n")
    result = gfh("task", "set", "after", env=SESSION)
    assert result.code == 1
    assert result.err.count("\n") == 1
    assert "cannot write the event log" in result.err
    assert "retry `gfh task set`" in result.err
    assert gfh("task", "show", env=SESSION).out == "before\n"
    assert gfh("task", "clear", env=SESSION).code == 1
    assert gfh("task", "show", env=SESSION).out == "before\n"


def test_an_unusable_state_home_is_a_clear_error(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    result = gfh("task", "set", "x", env={**SESSION, "GFH_STATE_HOME": str(blocker)})
    assert result.code == 1
    assert result.err.startswith(f"gfh: cannot create the state directory {blocker}/sessions/")
    assert "$GFH_STATE_HOME" in result.err
