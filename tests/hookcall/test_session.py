"""Session runtime state: owner-only, saved only when changed, robust to damage."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

from gitflow_harness.hookcall.session import SessionState, prune_sessions


def test_state_is_owner_only_and_saved_only_when_changed(hermetic: Path) -> None:
    store = SessionState("claude:abc")
    with store.update() as state:
        assert state == {"v": 1}
    assert not (Path(store.directory) / "runtime.json").exists()
    with store.update() as state:
        state["turns"] = 1
    path = Path(store.directory) / "runtime.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(Path(store.directory).stat().st_mode) == 0o700
    assert Path(store.directory).is_relative_to(hermetic / "gfh-state" / "sessions")
    assert json.loads(path.read_text()) == {"turns": 1, "v": 1}


def test_an_exception_in_the_block_saves_nothing() -> None:
    store = SessionState("claude:abc")
    try:
        with store.update() as state:
            state["turns"] = 5
            raise OSError("stdout went away")
    except OSError:
        pass
    assert store.read() == {"v": 1}


def test_damaged_state_starts_afresh() -> None:
    store = SessionState("claude:abc")
    for junk in (b"{not json", b"[]", b'{"v": 99, "turns": 3}'):
        (Path(store.directory) / "runtime.json").write_bytes(junk)
        assert store.read() == {"v": 1}


def test_distinct_sessions_get_distinct_directories() -> None:
    assert SessionState("claude:a/b").directory != SessionState("claude:a_b").directory


def test_prune_sessions_keeps_the_current_and_the_recent(tmp_path: Path) -> None:
    now = time.time()
    for name, age in (("current", 10**8), ("recent", 10), ("stale", 10**8)):
        d = tmp_path / name
        d.mkdir()
        (d / "runtime.json").write_text("{}")
        for p in (d / "runtime.json", d):
            os.utime(p, (now - age, now - age))
    assert prune_sessions(tmp_path, keep="current", max_age_s=3600, now=now) == 1
    assert sorted(os.listdir(tmp_path)) == [".pruned", "current", "recent"]


def test_prune_sessions_looks_once_per_period(tmp_path: Path) -> None:
    """If the sessions were looked through less than `every_s` ago, then a session start
    leaves them alone; once the period is over (or the marker's time is ahead of the clock),
    it looks again."""
    now = time.time()

    def stale(name: str) -> None:
        d = tmp_path / name
        d.mkdir()
        os.utime(d, (now - 10**8, now - 10**8))

    stale("a")
    assert prune_sessions(tmp_path, keep="", max_age_s=3600, now=now, every_s=600) == 1
    stale("b")
    assert prune_sessions(tmp_path, keep="", max_age_s=3600, now=now + 599, every_s=600) == 0
    assert (tmp_path / "b").exists()
    assert prune_sessions(tmp_path, keep="", max_age_s=3600, now=now + 601, every_s=600) == 1
    stale("c")
    assert prune_sessions(tmp_path, keep="", max_age_s=3600, now=now, every_s=600) == 1
