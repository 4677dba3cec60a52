from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitflow_harness.store import state
from gitflow_harness.store.fsutil import atomic_write, write_private


def test_session_dirs_are_private_and_distinct(hermetic: Path) -> None:
    old = os.umask(0o022)
    try:
        a = Path(state.session_dir("claude:7f3c/../../etc"))
        b = Path(state.session_dir("claude:7f3c_.._.._etc"))
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


def test_a_session_dir_planted_as_a_symlink_is_refused(hermetic: Path, tmp_path: Path) -> None:
    """If a session's directory is a symlink to elsewhere, then it is refused, not followed."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    sessions = hermetic / "gfh-state" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / state.session_key("claude:s1")).symlink_to(elsewhere)
    with pytest.raises(state.StateDirError, match="is a symlink") as info:
        state.session_dir("claude:s1")
    assert info.value.message.startswith("refusing the state directory: ")


def test_a_sessions_dir_planted_as_a_symlink_is_refused(hermetic: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (hermetic / "gfh-state").mkdir()
    (hermetic / "gfh-state" / "sessions").symlink_to(elsewhere)
    with pytest.raises(state.StateDirError, match="sessions is a symlink"):
        state.session_dir("claude:s1")
    assert list(elsewhere.iterdir()) == []


def test_a_state_root_others_can_write_is_refused_with_the_fix(hermetic: Path) -> None:
    root = hermetic / "gfh-state"
    root.mkdir()
    root.chmod(0o777)
    with pytest.raises(state.StateDirError, match=r"writable by others \(mode 0777\)") as info:
        state.session_dir("claude:s1")
    assert f"`chmod go-w {root}`" in info.value.message


@given(st.text(max_size=120))
def test_a_session_keeps_its_plain_characters_in_its_directory_name(session: str) -> None:
    """If a session id holds any characters, then its directory name keeps its first 80 with
    every one but ASCII letters, digits, `.`, `_` and `-` made `_`, then a short hash."""
    readable, digest = state.session_key(session).rsplit("-", 1)
    assert readable == re.sub(r"[^A-Za-z0-9._-]", "_", session)[:80]
    assert len(digest) == 12
