"""Reading a file's lines from the end: every line once, within a byte budget, linear cost."""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitflow_harness.store import tail
from gitflow_harness.store.tail import reverse_lines, reverse_nonempty_lines


def _expected(data: bytes, max_bytes: int | None) -> list[bytes]:
    """The lines, last first; with a budget, only those whose start lies inside it."""
    if max_bytes is None or max_bytes >= len(data):
        return data.split(b"\n")[::-1]
    pieces = data[len(data) - max_bytes :].split(b"\n")
    return pieces[1:][::-1]  # the first piece may start before the budget: not a known line


@settings(max_examples=300)
@given(
    st.lists(st.sampled_from([b"a", b"bc", b"\n", b"defgh", b"\n\n"]), max_size=40).map(b"".join),
    st.integers(min_value=1, max_value=7),
    st.one_of(st.none(), st.integers(min_value=0, max_value=60)),
)
def test_lines_come_last_first_within_the_budget(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, block: int, max_bytes: int | None
) -> None:
    path = tmp_path_factory.mktemp("tail") / "f"
    path.write_bytes(data)
    assert list(reverse_lines(path, block=block, max_bytes=max_bytes)) == _expected(data, max_bytes)


def test_the_event_log_reading_skips_the_empty_piece_after_the_last_newline(
    tmp_path: Path,
) -> None:
    path = tmp_path / "log"
    path.write_bytes(b'{"a": 1}\n\n{"b": 2}\n')
    assert list(reverse_nonempty_lines(path, block=3)) == [b'{"b": 2}', b'{"a": 1}']


class _Metered(bytes):
    """What the counting file's `read` returns: counts the bytes `+` copies."""

    copied = 0

    def __add__(self, other: Any) -> bytes:
        _Metered.copied += len(self) + len(other)
        return bytes(self) + bytes(other)

    def __radd__(self, other: Any) -> bytes:
        _Metered.copied += len(self) + len(other)
        return bytes(other) + bytes(self)


class _Counting:
    """A binary file that counts the bytes read from it."""

    def __init__(self, fh: Any) -> None:
        self.fh = fh
        self.read_bytes = 0

    def __enter__(self) -> _Counting:
        return self

    def __exit__(self, *exc: object) -> None:
        self.fh.close()

    def read(self, n: int = -1) -> bytes:
        data = self.fh.read(n)
        self.read_bytes += len(data)
        return _Metered(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.fh, name)


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> list[_Counting]:
    opened: list[_Counting] = []
    real_open = builtins.open

    def counting_open(*args: Any, **kwargs: Any) -> _Counting:
        opened.append(_Counting(real_open(*args, **kwargs)))
        return opened[-1]

    monkeypatch.setattr(tail, "open", counting_open, raising=False)
    _Metered.copied = 0
    return opened


def test_a_long_last_line_is_assembled_once(tmp_path: Path, counting: list[_Counting]) -> None:
    """If a line spans many blocks, then its pieces are joined once when its start is found,
    not re-copied with every block (which made a 32 MB line cost seconds)."""
    path = tmp_path / "t"
    line = b"x" * (2 * 1024 * 1024)
    path.write_bytes(b"first\n" + line + b"\n")
    assert list(reverse_lines(path, block=4096)) == [b"", line, b"first"]
    assert counting[0].read_bytes == path.stat().st_size  # every byte read once
    assert _Metered.copied <= 2 * path.stat().st_size


def test_the_budget_stops_reading_inside_a_line(tmp_path: Path, counting: list[_Counting]) -> None:
    """If the last line is longer than the budget, then reading stops at the budget and the
    line, whose start was never seen, is not yielded."""
    path = tmp_path / "t"
    path.write_bytes(b'{"early": 1}\n' + b"y" * (4 * 1024 * 1024))
    assert list(reverse_lines(path, max_bytes=1024 * 1024)) == []
    assert counting[0].read_bytes == 1024 * 1024


def test_without_a_budget_the_whole_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "t"
    path.write_bytes(b"one\ntwo")
    assert list(reverse_lines(path)) == [b"two", b"one"]
    assert list(reverse_lines(path, max_bytes=0)) == []


def _holding(data: bytes, needle: bytes, reach: int | None = None) -> list[bytes | None]:
    """What `reverse_lines_holding` yields, worked out one line at a time: the lines holding
    `needle`, last first, of those that start within `reach` bytes of the end; None last when
    a line starts further back."""
    starts, begin = [], 0
    for line in data.split(b"\n"):
        starts.append((begin, line))
        begin += len(line) + 1
    out: list[bytes | None] = []
    for begin, line in reversed(starts):
        if reach is not None and len(data) - begin > reach:
            return [*out, None]
        if line and needle in line:
            out.append(line)
    return out


@settings(max_examples=300)
@given(
    st.lists(st.sampled_from([b"a", b"xy", b"\n", b"bxyc", b"\n\n", b"x"]), max_size=40).map(
        b"".join
    ),
    st.integers(min_value=1, max_value=7),
    st.sampled_from([b"xy", b"a", b""]),
    st.one_of(st.none(), st.integers(min_value=0, max_value=60)),
    st.integers(min_value=0, max_value=60),
)
def test_lines_holding_a_needle_come_last_first_within_reach(
    tmp_path_factory: pytest.TempPathFactory,
    data: bytes,
    block: int,
    needle: bytes,
    reach: int | None,
    cut: int,
) -> None:
    """If a file is read back for the lines holding a needle, then each comes once, last
    first, among the lines that start within `reach` bytes of the end (a line that starts
    exactly that far back is one); None comes last when an earlier line is left unread; and a
    file read as if it ended at `end` gives what a file of those bytes gives."""
    path = tmp_path_factory.mktemp("tail") / "f"
    path.write_bytes(data)
    found = list(tail.reverse_lines_holding(path, needle, block=block, reach=reach))
    assert found == _holding(data, needle, reach)
    end = min(cut, len(data))
    found = list(tail.reverse_lines_holding(path, needle, block=block, end=end, reach=reach))
    assert found == _holding(data[:end], needle, reach)


@settings(max_examples=300)
@given(
    st.lists(st.sampled_from([b"a", b"xy", b"\n", b"axa", b"\n\n"]), max_size=40).map(b"".join),
    st.integers(min_value=1, max_value=7),
    st.integers(min_value=0, max_value=60),
    st.sampled_from([b"x", b"xy", b""]),
)
def test_lines_holding_a_needle_come_forwards_from_an_offset(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, block: int, offset: int, needle: bytes
) -> None:
    """If the lines from an offset on are read forwards, then each non-empty line holding the
    needle comes once, in order, whole however the blocks cut it, the last line too when no
    newline ends it."""
    path = tmp_path_factory.mktemp("fwd") / "f"
    path.write_bytes(data)
    offset = min(offset, len(data))
    expected = [line for line in data[offset:].split(b"\n") if line and needle in line]
    assert list(tail.lines_holding_from(path, offset, needle, block=block)) == expected
