from __future__ import annotations

import os
import re
import stat
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitflow_harness.store import home, state
from gitflow_harness.store.fsutil import atomic_write, write_private


def test_state_home_honours_the_override(hermetic: Path) -> None:
    assert Path(state.state_home()) == hermetic / "gfh-state"


def test_state_home_defaults_to_the_platform_dir(
    hermetic: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GFH_STATE_HOME")
    assert Path(state.state_home()) == hermetic / ".local" / "state" / "gitflow-harness"


@pytest.mark.parametrize(
    ("xdg", "home"),
    [
        (None, "/home/dev"),
        ("", "/home/dev/"),
        ("/srv/state", "/home/dev"),
        ("/srv/state/", None),
        ("relative/state", "/home/dev"),
        ("  ", "/home/dev"),
        (None, "relative-home"),
        (None, "/"),
    ],
)
def test_state_home_is_what_platformdirs_answers(
    hermetic: Path, monkeypatch: pytest.MonkeyPatch, xdg: str | None, home: str | None
) -> None:
    """The XDG rule is applied without importing platformdirs where it is unambiguous; every
    answer is platformdirs' own (DESIGN pins `platformdirs.user_state_dir`)."""
    import platformdirs

    monkeypatch.delenv("GFH_STATE_HOME")
    for name, value in (("XDG_STATE_HOME", xdg), ("HOME", home)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    expected = os.path.normpath(platformdirs.user_state_dir(state.APP))
    assert state.state_home() == expected


def test_state_home_of_a_linux_user_imports_no_platformdirs(
    hermetic: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GFH_STATE_HOME")
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.setattr(home.sys, "platform", "linux")
    monkeypatch.setitem(sys.modules, "platformdirs", None)  # an import of it raises
    assert state.state_home() == str(hermetic / ".local" / "state" / "gitflow-harness")
    monkeypatch.setenv("XDG_STATE_HOME", "relative")
    with pytest.raises(ImportError):
        state.state_home()


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
