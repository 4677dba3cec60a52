"""Atomic writes: the temporary file beside the target, made without `tempfile`."""

from __future__ import annotations

import os
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


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 4097, 20_000])
def test_read_within_returns_the_whole_file_up_to_its_limit(tmp_path: Path, size: int) -> None:
    from gitflow_harness.store.fsutil import read_within

    path = tmp_path / "f.bin"
    data = (b"a line\r\n" + bytes(range(256)) * 16)[:size].ljust(size, b"\n")  # bytes as they are
    path.write_bytes(data)
    read, st = read_within(str(path), 20_000)
    assert read == data
    assert st.st_size == size
    assert read_within(str(path), size)[0] == data
    if size:
        assert read_within(str(path), size - 1)[0] is None


def test_read_within_reads_what_a_file_gained_after_its_stat(tmp_path: Path) -> None:
    """The size `fstat` gave is where reading starts, not where it stops."""
    from gitflow_harness.store import fsutil

    path = tmp_path / "grows"
    path.write_bytes(b"a" * 10)
    real = fsutil.os.fstat

    def fstat_then_grow(fd: int) -> os.stat_result:
        st = real(fd)
        with open(path, "ab") as out:
            out.write(b"b" * 5000)
        return st

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fsutil.os, "fstat", fstat_then_grow)
        data, st = fsutil.read_within(str(path), 6000)
    assert (data, st.st_size) == (b"a" * 10 + b"b" * 5000, 10)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fsutil.os, "fstat", fstat_then_grow)
        assert fsutil.read_within(str(path), 6000)[0] is None  # 10,010 bytes now


def test_read_within_raises_for_a_missing_file(tmp_path: Path) -> None:
    from gitflow_harness.store.fsutil import read_within

    with pytest.raises(FileNotFoundError):
        read_within(str(tmp_path / "missing"), 10)


@pytest.mark.parametrize("kind", [str, Path])
def test_private_dirs_are_made_below_a_root_from_str_or_path(
    tmp_path: Path, kind: type[str] | type[Path]
) -> None:
    root = tmp_path / "state"
    root.mkdir()
    fsutil.ensure_private_dir(kind(root / "a" / "b" / "c"), root=kind(root))
    for made in (root / "a", root / "a" / "b", root / "a" / "b" / "c"):
        assert made.is_dir()
        assert made.stat().st_mode & 0o777 == 0o700
    fsutil.ensure_private_dir(kind(root / "a" / "b" / "c"), root=kind(root))  # there: as it is
    fsutil.ensure_private_dir(kind(root), root=kind(root))  # the root itself is not checked


@pytest.mark.parametrize("kind", [str, Path])
def test_a_symlink_below_the_root_is_refused_from_str_or_path(
    tmp_path: Path, kind: type[str] | type[Path]
) -> None:
    root, elsewhere = tmp_path / "state", tmp_path / "elsewhere"
    root.mkdir()
    elsewhere.mkdir()
    (root / "a").symlink_to(elsewhere, target_is_directory=True)
    given_root = str(root) + os.sep if kind is str else root  # a trailing separator is the same
    with pytest.raises(fsutil.UnsafePathError, match="is a symlink"):
        fsutil.ensure_private_dir(kind(root / "a" / "b"), root=given_root)
    assert not (elsewhere / "b").exists()


def test_a_relative_private_dir_is_made_where_the_process_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    fsutil.ensure_private_dir("x/y")
    fsutil.write_private("z.json", "{}")
    assert (tmp_path / "x" / "y").is_dir()
    assert (tmp_path / "z.json").read_text() == "{}"
