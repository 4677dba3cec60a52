"""Atomic writes: the temporary file beside the target, made without `tempfile`."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness.store import fsutil


def test_a_write_leaves_no_temporary_file_and_keeps_the_mode(tmp_path: Path) -> None:
    target = tmp_path / "cache.json"
    fsutil.write_private(target, "{}", sync=False)
    fsutil.write_private(target, '{"a": 1}')
    assert target.read_text() == '{"a": 1}'
    assert target.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["cache.json"]


def test_a_taken_temporary_name_is_not_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If every temporary name drawn is taken, then the write fails rather than overwrite one."""
    monkeypatch.setattr("os.urandom", lambda n: b"\0" * n)
    monkeypatch.setattr(fsutil, "TEMP_ATTEMPTS", 3)
    taken = tmp_path / f".cache.json.{'00' * 6}.tmp"
    taken.write_text("someone else's")
    with pytest.raises(FileExistsError):
        fsutil.atomic_write(tmp_path / "cache.json", "{}")
    assert taken.read_text() == "someone else's"
    assert not (tmp_path / "cache.json").exists()
