"""Tick sources: where a session stands on each firing axis.

- `tokens`: the context position. Claude Code: the last main-chain assistant line of the
  transcript, `input_tokens + cache_creation_input_tokens + cache_read_input_tokens` (one response
  spans several lines with the same `message.id`; sidechain and API-error lines are skipped; after
  a `compact_boundary` the position is unknown until the next assistant line). Codex: the last
  `token_count` event of the rollout file. Both are read from the end of the file, so the cost
  follows what is read, never the transcript's length; the session state then remembers where
  the file was read to (`read_position`), and the next call reads only what was appended. The
  position drops at a compaction; the tick stays monotonic by adding the size before the drop to
  an offset. Until a session has read
  a token position (no transcript, or one that never gives a position), its `tokens` ways tick on
  `turns`; once it has, they stay on `tokens`. The ids that tell responses and boundaries apart
  are kept as short hashes: nothing of a transcript is stored verbatim.
- `turns`: the number of `turn.started` in the session (hosts without a context position).
- `seconds`: the wall clock, in whole seconds.
"""

from __future__ import annotations

import os

from gitflow_harness import jsonio
from gitflow_harness.hookcall.session import COMPACTING

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

    from gitflow_harness.hookcall.session import RuntimeState
    from gitflow_harness.store.fsutil import StrPath

TOKENS: Final = "tokens"
TURNS = "turns"
SECONDS = "seconds"
AXES = (TOKENS, TURNS, SECONDS)

# Give up on a position after reading this much from the end without finding one, even inside
# one line (a base64 image or a huge tool result lands in the transcript as one line): a
# pathological transcript must not make every hook call slow. The position is then unknown,
# and the tick stays where it last was.
MAX_SCAN_BYTES = 8 * 1024 * 1024


class Position:
    """A context position read from a transcript.

    `tokens` None means unknown: nothing usable found, or a compaction boundary is newer than the
    last usage (then `boundary` identifies it). `message` identifies the response it came from.
    """

    __slots__ = ("boundary", "message", "tokens")

    def __init__(
        self, tokens: int | None, *, message: str | None = None, boundary: str | None = None
    ) -> None:
        self.tokens = tokens
        self.message = message
        self.boundary = boundary

    def __repr__(self) -> str:
        return f"Position({self.tokens}, message={self.message!r}, boundary={self.boundary!r})"


def claude_position(path: StrPath, *, max_bytes: int = MAX_SCAN_BYTES) -> Position:
    """Return the context position of a Claude Code transcript, read back from its end."""
    return read_position(path, "claude", None, max_bytes=max_bytes)[0]


def codex_position(path: StrPath, *, max_bytes: int = MAX_SCAN_BYTES) -> Position:
    """Return the context position of a Codex rollout file, read back from its end."""
    return read_position(path, "codex", None, max_bytes=max_bytes)[0]


def _claude_line(raw: bytes) -> Position | None:
    """The position one line of a Claude Code transcript gives, or None for a line that gives
    none. A boundary without an id says `boundary=""`: the reader names it by its place."""
    # Cheap filter first: most lines are user turns and tool results, often large.
    if b"compact_boundary" not in raw and (b'"assistant"' not in raw or _sidechain(raw)):
        return None
    obj = _json(raw)
    if obj is None:
        return None  # a torn line: the host may be writing it right now
    if obj.get("type") == "system" and obj.get("subtype") == "compact_boundary":
        return Position(None, boundary=_id(obj.get("uuid")) or "")
    if obj.get("type") != "assistant" or obj.get("isSidechain") or obj.get("isApiErrorMessage"):
        return None
    message = obj.get("message")
    if not isinstance(message, dict):
        return None
    tokens = _usage(message.get("usage"))
    if tokens is None:
        return None
    # Lines of one response share `message.id` and repeat its usage, so the newest line of
    # the newest response is the position; the id tells a re-read of the same response.
    return Position(tokens, message=_id(message.get("id")))


SIDECHAIN_KEY = b'"isSidechain"'


def _sidechain(raw: bytes) -> bool:
    """True for a line the host marks as a subagent's (`"isSidechain": true` at its top level),
    told without parsing it: a subagent's lines can fill a transcript's tail, each a large
    object. Unsure (the key after a nested object opened), it says False and the line is parsed.
    """
    at = raw.find(SIDECHAIN_KEY)
    if at < 0 or b"{" in raw[1:at]:
        return False
    value = raw[at + len(SIDECHAIN_KEY) : at + len(SIDECHAIN_KEY) + 8].replace(b" ", b"")
    return value.startswith(b":true")


def _codex_line(raw: bytes) -> Position | None:
    """The position one line of a Codex rollout file gives, or None (see `_claude_line`)."""
    if b"token_count" not in raw and b'"compacted"' not in raw:
        return None
    obj = _json(raw)
    if obj is None:
        return None
    if obj.get("type") == "compacted":
        return Position(None, boundary=_id(obj.get("timestamp")) or "")
    payload = obj.get("payload")
    if obj.get("type") != "event_msg" or not isinstance(payload, dict):
        return None
    if payload.get("type") != "token_count" or not isinstance(payload.get("info"), dict):
        return None
    last = payload["info"].get("last_token_usage")
    tokens = last.get("input_tokens") if isinstance(last, dict) else None
    if type(tokens) is int and tokens >= 0:
        return Position(tokens, message=_id(obj.get("timestamp")))
    return None


LINES = {"claude": _claude_line, "codex": _codex_line}  # per `adapter.TOKENS`

# The session state's key for where its transcript was read to (`read_position`).
CURSOR: Final = "transcript"


def read_position(
    path: StrPath, host: str, cursor: object, *, max_bytes: int = MAX_SCAN_BYTES
) -> tuple[Position, dict[str, Any] | None]:
    """Return the transcript's context position and the cursor to remember for the next call.

    The position is the newest line that gives one (`LINES[host]`), when it starts within the
    last `max_bytes` bytes; else it is unknown. A cursor remembers the file (device, inode),
    the offset after its last whole line read, and the newest position line before it (its
    offset and position). With a cursor that still fits the file (a line ends at its offset,
    and its position line still gives that position), only what was appended since is read;
    without one, or when the file shrank, was replaced or rewritten, or more than `max_bytes`
    were appended, the file is read back from its end. Either way the position is the same. The
    cursor holds offsets, the file's numbers and the position's own short hashes: nothing of
    the transcript's text. `max_bytes` must be the same for every call given the cursor.
    """
    from gitflow_harness.store import tail

    line_of = LINES[host]
    with tail.open_binary(path) as fh:
        st = os.fstat(fh.fileno())
        end = st.st_size
        kept = _fitting(cursor, st, fh, line_of, max_bytes)
        if kept is None:
            at, found, newest = _read_back(fh, end, line_of, max_bytes)
        else:
            at, found, newest = _read_on(fh, end, line_of, kept)
        remembered = None
        if at is not None:
            remembered = {"dev": st.st_dev, "ino": st.st_ino, "at": at, **_found_data(found)}
    return _resolve(newest, end, max_bytes), remembered


if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import BinaryIO

    # A position line found: its offset and the position it gives (None: none was found).
    Found = tuple[int, Position] | None
    LineReader = Callable[[bytes], Position | None]


def _read_back(
    fh: BinaryIO, end: int, line_of: LineReader, max_bytes: int
) -> tuple[int | None, Found, Found]:
    """Read back from the end: `(offset after the last whole line, the newest whole position
    line, the newest position line)`; the two differ when the last line, unfinished, gives one.
    The offset is None when no line end lies within `max_bytes`."""
    from gitflow_harness.store.tail import reverse_lines_of

    at: int | None = None
    newest: Found = None
    for start, raw in reverse_lines_of(fh, end, max_bytes=max_bytes):
        position = line_of(raw)
        if at is None:
            # The first piece, after the last newline: empty when the file ends with one, else
            # a line still being written, which is not remembered (it may yet change).
            at = start
            if position is not None:
                newest = (start, position)
            continue
        if position is not None:
            found = (start, position)
            return at, found, newest or found
    return at, None, newest


def _read_on(
    fh: BinaryIO, end: int, line_of: LineReader, kept: dict[str, Any]
) -> tuple[int, Found, Found]:
    """Read what was appended since the cursor (`kept`, which fits the file), newest first."""
    at = kept["at"]
    fh.seek(at)
    data = fh.read(end - at)
    last = data.rfind(b"\n")
    whole_end = at + last + 1  # the offset after the last whole line
    newest: Found = None
    if last + 1 < len(data):  # an unfinished last line
        position = line_of(data[last + 1 :])
        if position is not None:
            newest = (whole_end, position)
    found: Found = _found(kept)
    cut = last
    while cut >= 0:
        begin = data.rfind(b"\n", 0, cut) + 1
        position = line_of(data[begin:cut])
        if position is not None:
            found = (at + begin, position)
            break
        cut = begin - 1
    return whole_end, found, newest or found


def _fitting(
    cursor: object, st: os.stat_result, fh: BinaryIO, line_of: LineReader, max_bytes: int
) -> dict[str, Any] | None:
    """Return the cursor when it still describes this file's first bytes, else None."""
    if not isinstance(cursor, dict):
        return None
    at = cursor.get("at")
    if (
        cursor.get("dev") != st.st_dev
        or cursor.get("ino") != st.st_ino
        or type(at) is not int
        or not 0 <= at <= st.st_size
        or st.st_size - at > max_bytes
    ):
        return None
    from gitflow_harness.store.tail import line_at

    if at and line_at(fh, at - 1, at) != b"":
        return None  # no line ends there any more: rewritten in place
    found = _found(cursor)
    if found is None:
        return cursor if cursor.get("line") is None else None
    start, position = found
    raw = line_at(fh, start, at)
    again = line_of(raw) if raw is not None else None
    if again is None or _fields(again) != _fields(position):
        return None  # its position line is not there any more: rewritten in place
    return cursor


def _fields(position: Position) -> tuple[int | None, str | None, str | None]:
    return position.tokens, position.message, position.boundary


def _found(cursor: dict[str, Any]) -> Found:
    """The position line a cursor remembers, or None (also for a cursor that does not parse)."""
    line = cursor.get("line")
    tokens = cursor.get("tokens")
    message = cursor.get("message")
    boundary = cursor.get("boundary")
    if (
        type(line) is not int
        or line < 0
        or line >= cursor["at"]
        or not (tokens is None or (type(tokens) is int and tokens >= 0))
        or not (message is None or isinstance(message, str))
        or not (boundary is None or isinstance(boundary, str))
    ):
        return None
    return line, Position(tokens, message=message, boundary=boundary)


def _found_data(found: Found) -> dict[str, Any]:
    if found is None:
        return {"line": None}
    line, position = found
    return {
        "line": line,
        "tokens": position.tokens,
        "message": position.message,
        "boundary": position.boundary,
    }


def _resolve(newest: Found, end: int, max_bytes: int) -> Position:
    """The position a read back from `end` gives: the newest position line when it starts
    within the last `max_bytes` bytes; a boundary without an id is named by its distance from
    the end (as many bytes as a read back passes to reach its start, line ends counted)."""
    from gitflow_harness.store.tail import window_holds

    if newest is None or not window_holds(newest[0], end, max_bytes):
        return Position(None)
    start, position = newest
    if position.boundary == "":
        return Position(None, boundary=f"@{end - start + 1}")
    return position


def observe(state: RuntimeState, position: Position) -> bool:
    """Fold a position into the session's token bookkeeping; True if it reveals a compaction.

    A compaction already signalled by a hook (`expect`) is not counted again when its drop or
    its boundary shows up in the transcript.
    """
    tokens = state.get("tokens")
    if not isinstance(tokens, dict):
        tokens = state["tokens"] = {}
    offset = _int(tokens.get("offset"))
    last = _int(tokens.get("last"))
    expected = tokens.get("expect") is True
    if position.tokens is None:
        if position.boundary is None or position.boundary == tokens.get("boundary"):
            return False
        tokens["boundary"] = position.boundary
        if expected:
            return False
        tokens["expect"] = True  # its drop, when the next response lands, is this same one
        return True
    if position.message != tokens.get("message"):
        state.pop(COMPACTING, None)  # a new response: a compaction signalled before is over
    if position.tokens < last:
        # The context shrank (compacted): carry the tick on from where it stood, so it only
        # grows, and grows by what the new context adds. Adding the whole new context would
        # count the summary and system prompt as elapsed since fires made just before.
        tokens["offset"] = offset + last - position.tokens
        tokens["last"] = position.tokens
        tokens["message"] = position.message
        tokens.pop("expect", None)
        return not expected
    if expected and position.message != tokens.get("message"):
        # A new response without a drop: the context did not shrink below what was last seen,
        # so no later drop can belong to the compaction that was signalled.
        tokens.pop("expect", None)
    tokens["last"] = position.tokens
    tokens["message"] = position.message
    return False


def token_tick(state: RuntimeState) -> int:
    """Return the monotonic token tick: offset plus the last position."""
    tokens = state.get("tokens")
    if not isinstance(tokens, dict):
        return 0
    return _int(tokens.get("offset")) + _int(tokens.get("last"))


def has_tokens(state: RuntimeState) -> bool:
    """True once the session read a token position from its transcript: from then on the
    `tokens` axis ticks on it. Until then (no transcript, or none that gives a position) it
    ticks on turns, so ways on it can still refire."""
    tokens = state.get("tokens")
    return isinstance(tokens, dict) and type(tokens.get("last")) is int


def turn_tick(state: RuntimeState) -> int:
    turns = state.get("turns")
    return turns if isinstance(turns, int) and turns >= 0 else 0


def seconds_tick() -> int:
    import time

    return int(time.time())


def _usage(usage: object) -> int | None:
    if not isinstance(usage, dict):
        return None
    total = 0
    for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"):
        value = usage.get(key, 0)
        if type(value) is not int or value < 0:
            return None
        total += value
    return total


def _json(raw: bytes) -> dict[str, Any] | None:
    try:
        obj = jsonio.loads(raw)
    except (ValueError, RecursionError):  # the host's file: a line nested past the stack too
        return None
    return obj if isinstance(obj, dict) else None


def _id(value: object) -> str | None:
    """A short hash of an id read from a transcript: ids are only ever compared for equality,
    and the transcript is the host's, so nothing of it is kept verbatim in the session state."""
    if not isinstance(value, str) or not value:
        return None
    from gitflow_harness.home import name_hash

    return name_hash(value.encode("utf-8", "surrogatepass"))


def _int(value: object) -> int:
    return value if type(value) is int and value >= 0 else 0
