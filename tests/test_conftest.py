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

    assert state_home() == hermetic / "gfh-state"
    for name in ("HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "GFH_STATE_HOME"):
        if name in conftest.REAL_ENV:
            monkeypatch.setenv(name, conftest.REAL_ENV[name])
        else:
            monkeypatch.delenv(name, raising=False)
    assert state_home() in conftest.REAL_DIRS
    assert conftest.gfh_user_dirs() == conftest.REAL_DIRS
    assert not any(d.is_relative_to(hermetic) for d in conftest.REAL_DIRS)


def test_the_snapshot_sees_a_change_deep_inside(tmp_path: Path) -> None:
    """If a file deep inside a watched directory is added or changed, the snapshot differs,
    though the directory's own modification time does not move."""
    root = tmp_path / "gitflow-harness"
    session = root / "sessions" / "claude_s-1-0123456789ab"
    session.mkdir(parents=True)
    assert conftest.snapshot((tmp_path / "absent",)) == {}
    before = conftest.snapshot((root,))
    runtime = session / "runtime.json"
    runtime.write_text("{}\n")
    after = conftest.snapshot((root,))
    assert after[str(root)] == before[str(root)]
    assert conftest.changed(before, after) == [str(session), str(runtime)]
    os.utime(runtime, ns=(0, 0))  # the same size, another time
    assert conftest.changed(after, conftest.snapshot((root,))) == [str(runtime)]
