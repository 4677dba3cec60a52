"""Read a file's lines from the end, so the cost follows what is read, not the file's size."""

from __future__ import annotations

import os
from pathlib import Path

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import BinaryIO

BLOCK = 64 * 1024


def reverse_lines(
    path: Path, *, block: int = BLOCK, max_bytes: int | None = None
) -> Iterator[bytes]:
    """Yield the lines of `path` last first, without their line ends.

    A final line without a newline is yielded too (it may be a write in progress). Each byte is
    read once and each line joined once, however long it is. With `max_bytes`, nothing before
    the last `max_bytes` bytes is read: the lines that end there are yielded, and a line that
    starts before them is not (whether it is whole cannot be known without reading on).
    """
    with open(path, "rb") as fh:
        end = fh.seek(0, os.SEEK_END)
        for _start, line in reverse_lines_of(fh, end, block=block, max_bytes=max_bytes):
            yield line


def open_binary(path: Path) -> BinaryIO:
    """Open `path` for reading bytes (the one place this module's readers open a file)."""
    return open(path, "rb")


def reverse_lines_of(
    fh: BinaryIO, end: int, *, block: int = BLOCK, max_bytes: int | None = None
) -> Iterator[tuple[int, bytes]]:
    """Yield `(start, line)` for the lines of the open file's first `end` bytes, last first,
    as `reverse_lines` does, with the offset each line starts at.

    With `max_bytes`, a line is yielded when it starts after `end - max_bytes` (or at 0 when
    that is 0): `window_holds` says the same of an offset.
    """
    pos = end
    stop = 0 if max_bytes is None else max(0, pos - max(0, max_bytes))
    pieces: list[bytes] = []  # the line being assembled, its last piece first
    while pos > stop:
        step = min(block, pos - stop)
        pos -= step
        fh.seek(pos)
        chunk = fh.read(step)
        end = len(chunk)
        cut = chunk.rfind(b"\n", 0, end)
        while cut >= 0:
            pieces.append(chunk[cut + 1 : end])
            yield pos + cut + 1, b"".join(reversed(pieces)) if len(pieces) > 1 else pieces[0]
            pieces = []
            end = cut
            cut = chunk.rfind(b"\n", 0, end)
        pieces.append(chunk[:end])
    if pos == 0:  # the first line of the file: its start is the file's
        yield 0, b"".join(reversed(pieces))


def line_at(fh: BinaryIO, start: int, end: int, *, block: int = 4096) -> bytes | None:
    """Return the line of the open file that starts at `start`, without its newline, when a
    newline ends it before `end`; else None. Only that line is read (a block at a time)."""
    pieces: list[bytes] = []
    pos = start
    fh.seek(start)
    while pos < end:
        chunk = fh.read(min(block, end - pos))
        if not chunk:
            return None
        cut = chunk.find(b"\n")
        if cut >= 0:
            pieces.append(chunk[:cut])
            return b"".join(pieces)
        pieces.append(chunk)
        pos += len(chunk)
    return None


def window_holds(start: int, end: int, max_bytes: int | None) -> bool:
    """True when `reverse_lines_of(fh, end, max_bytes=max_bytes)` yields the line that starts
    at `start`: it starts inside the last `max_bytes` bytes, not at their edge."""
    stop = 0 if max_bytes is None else max(0, end - max(0, max_bytes))
    return start > stop or start == 0 == stop


def reverse_nonempty_lines(path: Path, *, block: int = BLOCK) -> Iterator[bytes]:
    """Like `reverse_lines`, skipping the empty piece after a trailing newline."""
    for line in reverse_lines(path, block=block):
        if line:
            yield line


def reverse_lines_holding(
    path: Path, needle: bytes, *, block: int = BLOCK
) -> Iterator[tuple[int, bytes | None]]:
    """Yield `(passed, line)` for the lines of `path` that contain `needle`, last first, where
    `passed` counts the non-empty lines since the previous one yielded that do not; last comes
    `(passed, None)` for the lines before the first that does.

    Lines without `needle` are counted and dropped a block at a time, never stepped through one
    by one: the cost of reading back over other writers' lines is a search, not a loop.
    """
    passed = 0
    with open(path, "rb") as fh:
        pos = fh.seek(0, os.SEEK_END)
        carry = b""  # the start of the newest line not yet whole: it began before the block
        while pos > 0:
            step = min(block, pos)
            pos -= step
            fh.seek(pos)
            buffer = fh.read(step) + carry
            if pos > 0:
                cut = buffer.find(b"\n")
                if cut < 0:  # the block lies inside one line
                    carry = buffer
                    continue
                carry, start = buffer[:cut], cut + 1
            else:
                carry, start = b"", 0
            if buffer.find(needle, start) < 0:
                passed += _nonempty(buffer, start)
                continue
            for line in reversed(buffer[start:].split(b"\n")):
                if not line:
                    continue
                if needle in line:
                    yield passed, line
                    passed = 0
                else:
                    passed += 1
    yield passed, None


FORWARD_BLOCK = 64 * 1024


def lines_holding_from(
    path: Path, offset: int, needle: bytes, *, block: int = FORWARD_BLOCK
) -> Iterator[tuple[int, bytes | None]]:
    """Like `reverse_lines_holding`, forwards from `offset`: yield `(passed, line)` for the
    non-empty lines from there on that contain `needle`, oldest first, where `passed` counts
    the lines since the previous one yielded that do not; last comes `(passed, None)` for the
    lines after the last that does. A last line without a newline counts as a line.

    `passed` counts empty lines too (it is at least the count of non-empty lines): telling
    them apart would search every block a second time, and a reader that bounds how far it
    reads needs no more than an upper bound.
    """
    passed = 0
    with open(path, "rb") as fh:
        fh.seek(offset)
        carry = b""  # the start of a line not yet whole: it goes on in the next block
        while True:
            chunk = fh.read(block)
            buffer = carry + chunk if carry else chunk
            if chunk:
                cut = buffer.rfind(b"\n")  # the whole lines end here; searched up to it
                if cut < 0:  # the block lies inside one line
                    carry = buffer
                    continue
                carry = buffer[cut + 1 :]
            elif not buffer:
                break
            else:
                cut = len(buffer)  # the last line, without a newline
            if buffer.find(needle, 0, cut) < 0:
                passed += buffer.count(b"\n", 0, cut) + 1
            else:
                for line in buffer[:cut].split(b"\n"):
                    if line and needle in line:
                        yield passed, line
                        passed = 0
                    else:
                        passed += 1
            if not chunk:
                break
    yield passed, None


def _nonempty(buffer: bytes, start: int) -> int:
    """Count the non-empty lines of `buffer[start:]`, without splitting it when it can."""
    if buffer.find(b"\n\n", start) >= 0:
        return sum(1 for line in buffer[start:].split(b"\n") if line)
    if len(buffer) == start:
        return 0
    ends = (buffer[start : start + 1] == b"\n") + (buffer[-1:] == b"\n")
    return buffer.count(b"\n", start) + 1 - ends
