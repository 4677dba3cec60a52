"""The test environment itself: property tests without a deadline, and a tripwire on the real
user's gfh directories."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from tests import conftest


def test_property_tests_run_without_a_deadline() -> None:
    assert settings.default.deadline is None
    assert settings(max_examples=5).deadline is None  # a test's own settings keep it off


def test_the_tripwire_watches_the_directories_gfh_uses_for_the_real_user(
    hermetic: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the product computed its state directory for the real user, it would be one the
    tripwire watches; the test's own home is not watched."""
    from gitflow_harness.store.state import state_home

    assert Path(state_home()) == hermetic / "gfh-state"
    for name in ("HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "GFH_STATE_HOME"):
        if name in conftest.REAL_ENV:
            monkeypatch.setenv(name, conftest.REAL_ENV[name])
        else:
            monkeypatch.delenv(name, raising=False)
    assert Path(state_home()) in conftest.REAL_DIRS
    assert conftest.gfh_user_dirs() == conftest.REAL_DIRS
    assert not any(d.is_relative_to(hermetic) for d in conftest.REAL_DIRS)


def test_the_tripwire_sees_writes_deep_inside_and_not_reads(tmp_path: Path) -> None:
    """Creating, writing, renaming or removing anything below a watched directory counts;
    reading does not, and neither does writing beside it."""
    root = tmp_path / "gitflow-harness"
    session = root / "sessions" / "claude_s-1-0123456789ab"
    session.mkdir(parents=True)
    runtime = session / "runtime.json"
    runtime.write_text("{}\n")
    watched = (root,)
    assert conftest.writes_to("open", (str(runtime), "w", os.O_WRONLY), watched)
    assert conftest.writes_to("open", (runtime, None, os.O_RDWR | os.O_CREAT), watched)
    assert conftest.writes_to("os.mkdir", (str(session / "new"), 0o700, -1), watched)
    assert conftest.writes_to("os.rename", (str(tmp_path / "x"), str(runtime), -1, -1), watched)
    assert conftest.writes_to("os.remove", (str(root),), watched)
    assert not conftest.writes_to("open", (str(runtime), "r", os.O_RDONLY), watched)
    assert not conftest.writes_to("open", (str(tmp_path / "gitflow-harness-2"), "w", 1), watched)
    assert not conftest.writes_to("open", (5, "w", os.O_WRONLY), watched)


def test_the_tripwire_is_armed_in_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The installed audit hook notes a real write into a watched directory (here a temporary
    one standing in for the real user's)."""
    monkeypatch.setattr(conftest, "REAL_DIRS", (tmp_path,))
    try:
        (tmp_path / "runtime.json").write_text("{}\n")
        (tmp_path / "runtime.json").read_text()
        assert conftest._trespasses == [f"open {str(tmp_path / 'runtime.json')!r}"]
    finally:
        conftest._trespasses.clear()


def test_no_session_variable_reaches_a_test() -> None:
    """If the suite runs inside an agent, then the host's session variables it inherits are
    gone: every variable a command learns its session from, and Claude Code's marker."""
    from gitflow_harness.store.session_env import HOST_VARIABLES, VARIABLE

    for name in (VARIABLE, *(name for name, _ in HOST_VARIABLES), "CLAUDECODE"):
        assert name not in os.environ


def test_a_frozen_clock_leaves_pytests_own_clock_alone() -> None:
    """If a test freezes the clock, then pytest still times it by the real one (`--durations`
    read 1.8e9 s when freezegun stopped pytest's clock at the frozen instant)."""
    import datetime as dt

    from _pytest import timing
    from freezegun import freeze_time

    with freeze_time("2000-01-01T00:00:00Z"):
        assert dt.date.today() == dt.date(2000, 1, 1)  # the test's own clock is frozen
        assert timing.Instant().time > 1.7e9  # pytest's is not
