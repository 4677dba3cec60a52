"""Read a file's lines from the end, so the cost follows what is read, not the file's size."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

BLOCK = 64 * 1024


def reverse_lines(path: Path, *, block: int = BLOCK) -> Iterator[bytes]:
    """Yield the lines of `path` last first, without their line ends.

    A final line without a newline is yielded too (it may be a write in progress).
    """
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        pos = fh.tell()
        rest = b""
        while pos > 0:
            step = min(block, pos)
            pos -= step
            fh.seek(pos)
            chunk = fh.read(step) + rest
            lines = chunk.split(b"\n")
            # The first piece may be the tail of a line that starts in an earlier block.
            rest = lines.pop(0)
            yield from reversed(lines)
        yield rest


def reverse_nonempty_lines(path: Path, *, block: int = BLOCK) -> Iterator[bytes]:
    """Like `reverse_lines`, skipping the empty piece after a trailing newline."""
    for line in reverse_lines(path, block=block):
        if line:
            yield line
