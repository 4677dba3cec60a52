"""Read a file's lines from the end, so the cost follows what is read, not the file's size."""

from __future__ import annotations

import os

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import BinaryIO

    from gitflow_harness.store.fsutil import StrPath

BLOCK = 64 * 1024


def reverse_lines(
    path: StrPath, *, block: int = BLOCK, max_bytes: int | None = None
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


def open_binary(path: StrPath) -> BinaryIO:
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


def reverse_nonempty_lines(path: StrPath, *, block: int = BLOCK) -> Iterator[bytes]:
    """Like `reverse_lines`, skipping the empty piece after a trailing newline."""
    for line in reverse_lines(path, block=block):
        if line:
            yield line


def reverse_lines_holding(
    path: StrPath,
    needle: bytes,
    *,
    block: int = BLOCK,
    end: int | None = None,
    reach: int | None = None,
) -> Iterator[bytes | None]:
    """Yield the non-empty lines of `path` that contain `needle`, last first.

    With `end`, the file is read as if it ended there. With `reach`, only the lines that start
    within the last `reach` bytes are looked at (a line whose start is `reach` bytes from the
    end is): when an earlier line is left unread for it, `None` comes last.

    Lines without `needle` are dropped a block at a time, never stepped through one by one: the
    cost of reading back over other writers' lines is a search, not a loop.
    """
    with open(path, "rb") as fh:
        pos = fh.seek(0, os.SEEK_END) if end is None else end
        bounded = reach is not None and max(0, reach) < pos
        # Bounded, the search reads down to the byte before the first start within reach: a
        # newline there says a line starts at it.
        stop = pos - max(0, reach) - 1 if bounded and reach is not None else 0
        carry = b""  # the start of the newest line not yet whole: it began before the block
        while pos > stop:
            step = min(block, pos - stop)
            pos -= step
            fh.seek(pos)
            buffer = fh.read(step) + carry
            if pos > 0 or bounded:  # the first piece began before the block (or out of reach)
                cut = buffer.find(b"\n")
                if cut < 0:  # the block lies inside one line
                    carry = buffer
                    continue
                carry, start = buffer[:cut], cut + 1
            else:
                carry, start = b"", 0
            if buffer.find(needle, start) < 0:
                continue
            for line in reversed(buffer[start:].split(b"\n")):
                if line and needle in line:
                    yield line
    if bounded:
        yield None


FORWARD_BLOCK = 64 * 1024


def lines_holding_from(
    path: StrPath, offset: int, needle: bytes, *, block: int = FORWARD_BLOCK
) -> Iterator[bytes]:
    """Like `reverse_lines_holding`, forwards from `offset`: yield the non-empty lines from there
    on that contain `needle`, oldest first; a last line without a newline is one too.

    Each block is searched where it lies: only a line that began in the block before is joined.
    """
    with open(path, "rb") as fh:
        fh.seek(offset)
        carry = b""  # the start of a line not yet whole: it goes on in the next block
        while True:
            chunk = fh.read(block)
            if not chunk:
                if carry and needle in carry:
                    yield carry
                return
            last = chunk.rfind(b"\n")  # the whole lines end here
            if last < 0:  # the block lies inside one line
                carry += chunk
                continue
            start = 0
            if carry:
                start = chunk.find(b"\n") + 1
                line = carry + chunk[: start - 1]
                if line and needle in line:
                    yield line
            hit = chunk.find(needle, start, last)
            while hit >= 0:
                begin = max(chunk.rfind(b"\n", start, hit) + 1, start)
                stop = chunk.find(b"\n", hit, last + 1)
                if stop > begin:
                    yield chunk[begin:stop]
                start = stop + 1
                hit = chunk.find(needle, start, last)
            carry = chunk[last + 1 :]
