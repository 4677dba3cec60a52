"""The write half of the event log: encode one envelope and append it.

Split from `store/events.py` so the agent hook path, which appends on every tool call, can write
events without paying for the reader's imports (dataclasses, typing, uuid, datetime: ~10 ms of a
~17 ms interpreter start). `events.EventLog` writes through these same functions, so there is
one encoder and one appender.
"""

from __future__ import annotations

import os
import time

from gitflow_harness import jsonio
from gitflow_harness.errors import GfhError
from gitflow_harness.store.fsutil import UnsafePathError, ensure_private_dir, open_private_append
from gitflow_harness.store.locks import exclusive

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from gitflow_harness.store.fsutil import StrPath

SCHEMA = 1
MAX_LINE_BYTES = 16 * 1024
SURFACES = frozenset({"cli", "mcp", "hook", "git"})
LOG_DIR = ("gitflow-harness", "events")


class EventTooLarge(GfhError):
    """An event whose line would pass the 16 KiB limit: refused, never truncated."""


def new_id() -> str:
    """Return a fresh event id: a random (version 4) UUID as 32 hex digits."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
    raw[8] = (raw[8] & 0x3F) | 0x80  # RFC 4122 variant
    return raw.hex()


def now_at() -> str:
    """Return the current time as an envelope `at`: RFC 3339 UTC, milliseconds, `Z`."""
    ns = time.time_ns()
    seconds, rest = divmod(ns, 1_000_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{rest // 1_000_000:03d}Z"


def envelope(
    type: str,
    data: dict[str, Any],
    *,
    surface: str,
    session: str | None,
    branch: str | None,
    id: str | None = None,
    at: str | None = None,
) -> dict[str, Any]:
    """Return an envelope dict, fields in their documented order."""
    if surface not in SURFACES:
        raise ValueError(f"unknown surface {surface!r}")
    return {
        "schema": SCHEMA,
        "id": id or new_id(),
        "at": at or now_at(),
        "type": type,
        "surface": surface,
        "session": session,
        "branch": branch,
        "data": data,
    }


def encode_line(obj: dict[str, Any]) -> bytes:
    """Return the log line of an envelope dict, newline included; refuse lines over the limit.

    A lone surrogate (what Python makes of bytes that are not UTF-8 in a file name, a branch, an
    environment variable, or of a `\\ud800` escape in a payload) is not Unicode: it is written as
    U+FFFD, the replacement character, so the line stays UTF-8 every JSON reader accepts.
    """
    text = _dumps(obj)
    try:
        line = text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        line = _replace_surrogates(text).encode("utf-8") + b"\n"
    if len(line) > MAX_LINE_BYTES:
        raise EventTooLarge(
            f"event {obj.get('type')!r} is {len(line)} bytes, over the {MAX_LINE_BYTES}-byte line "
            "limit of the event log; refused (events carry ids, names and counts, not text)"
        )
    return line


def encoded_field(key: str, value: str) -> bytes:
    """How `encode_line` writes the envelope field `key` with the string `value`: the bytes a
    reader may search the log's lines for."""
    return _dumps({key: value})[1:-1].encode("utf-8")


def _dumps(obj: dict[str, Any]) -> str:
    return jsonio.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _replace_surrogates(text: str) -> str:
    return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)


def log_directory(common_dir: StrPath) -> Path:
    """Return the event log directory inside a git common dir."""
    from pathlib import Path

    return Path(_log_directory(common_dir))


def _log_directory(common_dir: StrPath) -> str:
    # The hook's appends join it as a `str`: no `pathlib` on that path (store/fsutil.py).
    return os.path.join(common_dir, *LOG_DIR)


class LogWriteError(GfhError):
    """The event log cannot be written (a file or a symlink where its directory or file should
    be, permissions, a full disk)."""


def append_line(directory: StrPath, at: str, line: bytes) -> int:
    """Append one encoded line to the monthly file of `at`, under the lock, with one write;
    return the offset in that file where the line starts."""
    try:
        return _append_line(directory, at, line)
    except UnsafePathError as exc:
        raise LogWriteError(f"cannot write the event log: {exc}") from None
    except OSError as exc:
        if exc.errno in _full():
            raise LogWriteError(
                f"cannot write the event log in {directory}: {exc.strerror or exc}; the log was "
                "left as it was: free some space"
            ) from None
        raise LogWriteError(
            f"cannot write the event log in {directory}: {exc.strerror or exc}; it must be a "
            "directory you can write to (move aside whatever stands in its place)"
        ) from None


def _full() -> frozenset[int]:
    """The errors of a full disk or quota, or a file grown past its limit. (`errno` is imported
    here, on the way to an error: its module's start is 190,000 instructions, a twentieth of a
    millisecond, and no append that succeeds needs it.)"""
    import errno

    return frozenset({errno.ENOSPC, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC)})


def _append_line(directory: StrPath, at: str, line: bytes) -> int:
    # Below the git common dir, no directory of the log may be a planted symlink.
    directory = os.path.normpath(directory)
    ensure_private_dir(directory, root=os.path.dirname(os.path.dirname(directory)))
    name = log_file(at)
    path = os.path.join(directory, name)
    with exclusive(os.path.join(directory, ".lock")):
        fd = open_private_append(path)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                # A writer died mid-line: start ours on a fresh line so only theirs is torn.
                line = b"\n" + line
            try:
                written = os.write(fd, line)
            except OSError:
                _restore(fd, size)
                raise
            if written != len(line):
                # A full disk or a file size limit: take back the part that landed, so the log
                # holds whole lines only.
                _restore(fd, size)
                import errno

                raise OSError(
                    errno.ENOSPC,
                    f"only {written} of {len(line)} bytes could be written to {name} (disk full?)",
                )
        finally:
            os.close(fd)
    return size + (line[:1] == b"\n")  # after the newline that ends a torn line


def _restore(fd: int, size: int) -> None:
    """Cut the file back to `size`, its length before this append (under the lock)."""
    try:
        os.ftruncate(fd, size)
    except OSError:
        pass


def append_event(
    common_dir: StrPath,
    type: str,
    data: dict[str, Any],
    *,
    surface: str,
    session: str | None,
    branch: str | None,
) -> dict[str, Any]:
    """Build, encode and append one event to the log of `common_dir`; return its envelope."""
    return append_event_at(common_dir, type, data, surface=surface, session=session, branch=branch)[
        0
    ]


def append_event_at(
    common_dir: StrPath,
    type: str,
    data: dict[str, Any],
    *,
    surface: str,
    session: str | None,
    branch: str | None,
) -> tuple[dict[str, Any], int]:
    """Like `append_event`; return the envelope and the offset where its line starts in its
    monthly file (`log_file`)."""
    obj = envelope(type, data, surface=surface, session=session, branch=branch)
    return obj, append_line(_log_directory(common_dir), obj["at"], encode_line(obj))


def log_file(at: str) -> str:
    """The name of the monthly file an event stamped `at` belongs to."""
    return f"{at[:7]}.jsonl"
