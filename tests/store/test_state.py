from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from gitflow_harness.store import state
from gitflow_harness.store.fsutil import atomic_write, write_private


def test_state_home_honours_the_override(hermetic: Path) -> None:
    assert state.state_home() == hermetic / "gfh-state"


def test_state_home_defaults_to_the_platform_dir(
    hermetic: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GFH_STATE_HOME")
    assert state.state_home() == hermetic / ".local" / "state" / "gitflow-harness"


def test_session_dirs_are_private_and_distinct(hermetic: Path) -> None:
    old = os.umask(0o022)
    try:
        a = state.session_dir("claude:7f3c/../../etc")
        b = state.session_dir("claude:7f3c_.._.._etc")
    finally:
        os.umask(old)
    assert a != b
    assert a.parent == hermetic / "gfh-state" / "sessions"
    assert "/" not in a.name
    for path in (a, a.parent, a.parent.parent):
        assert stat.S_IMODE(path.stat().st_mode) == 0o700


def test_write_private_is_0600_and_atomic(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "file.json"
    write_private(target, "{}")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert stat.S_IMODE(target.parent.stat().st_mode) == 0o700
    write_private(target, '{"a": 1}')
    assert target.read_text() == '{"a": 1}'
    assert [p.name for p in target.parent.iterdir()] == ["file.json"]


def test_atomic_write_keeps_the_files_mode(tmp_path: Path) -> None:
    target = tmp_path / "script.sh"
    target.write_text("old")
    target.chmod(0o755)
    atomic_write(target, "new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o755
