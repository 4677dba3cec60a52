from __future__ import annotations

import hashlib
import json
import stat
from pathlib import Path

import pytest

from gitflow_harness.errors import UsageError
from gitflow_harness.ritual import task
from gitflow_harness.store.state import session_dir, state_home

SESSION = "claude:task-session"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_set_show_clear_round_trip() -> None:
    assert task.current_task(SESSION) is None
    fp = task.set_task(SESSION, "fix the frontmatter parser")
    assert task.current_task(SESSION) == "fix the frontmatter parser"
    assert task.fingerprint("fix the frontmatter parser") == fp
    assert task.clear_task(SESSION) is True
    assert task.current_task(SESSION) is None
    assert task.clear_task(SESSION) is False


def test_an_empty_task_is_a_declaration_not_an_absence() -> None:
    task.set_task(SESSION, "")
    assert task.current_task(SESSION) == ""


def test_state_is_owner_only() -> None:
    task.set_task(SESSION, "x")
    path = Path(session_dir(SESSION), task.TASK_FILE)
    assert mode(path) == 0o600
    assert mode(path.parent) == 0o700
    assert mode(Path(state_home(), task.KEY_FILE)) == 0o600


def test_fingerprint_is_keyed_and_stable() -> None:
    text = "fix the frontmatter parser"
    first = task.fingerprint(text)
    assert first == task.fingerprint(text)
    assert first != task.fingerprint(text + ".")
    assert first != hashlib.sha256(text.encode()).hexdigest()  # a key is needed to compute it
    (Path(state_home(), task.KEY_FILE)).unlink()
    assert task.fingerprint(text) != first  # a new key, a new fingerprint


def test_sessions_do_not_share_tasks() -> None:
    task.set_task(SESSION, "one")
    task.set_task("cursor:other", "two")
    assert task.current_task(SESSION) == "one"
    assert task.current_task("cursor:other") == "two"


def test_tampered_task_is_refused() -> None:
    task.set_task(SESSION, "honest")
    path = Path(session_dir(SESSION), task.TASK_FILE)
    raw = json.loads(path.read_text())
    raw["text"] = "forged"
    path.write_text(json.dumps(raw))
    with pytest.raises(task.TaskStateError, match="fingerprint"):
        task.current_task(SESSION)
    path.write_text("{not json")
    with pytest.raises(task.TaskStateError, match="unreadable"):
        task.current_task(SESSION)


def test_overlong_task_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="at most"):
        task.set_task(SESSION, "x" * (task.MAX_CHARS + 1))
