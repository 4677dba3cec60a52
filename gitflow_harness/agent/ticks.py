"""Tick sources: where a session stands on each firing axis.

- `tokens`: the context position. Claude Code: the last main-chain assistant line of the
  transcript, `input_tokens + cache_creation_input_tokens + cache_read_input_tokens` (one response
  spans several lines with the same `message.id`; sidechain and API-error lines are skipped; after
  a `compact_boundary` the position is unknown until the next assistant line). Codex: the last
  `token_count` event of the rollout file. Both are read from the end of the file, so the cost
  follows what is read, never the transcript's length. The position drops at a compaction; the
  tick stays monotonic by adding the size before the drop to an offset. Until a session has read
  a token position (no transcript, or one that never gives a position), its `tokens` ways tick on
  `turns`; once it has, they stay on `tokens`. The ids that tell responses and boundaries apart
  are kept as short hashes: nothing of a transcript is stored verbatim.
- `turns`: the number of `turn.started` in the session (hosts without a context position).
- `seconds`: the wall clock, in whole seconds.
"""

from __future__ import annotations

import json

from gitflow_harness.hookcall.session import COMPACTING
from gitflow_harness.store.tail import reverse_lines

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Final

    from gitflow_harness.hookcall.session import RuntimeState

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


def claude_position(path: Path, *, max_bytes: int = MAX_SCAN_BYTES) -> Position:
    """Return the context position of a Claude Code transcript."""
    scanned = 0
    for raw in reverse_lines(path, max_bytes=max_bytes):
        scanned += len(raw) + 1
        # Cheap filter first: most lines are user turns and tool results, often large.
        if b"compact_boundary" not in raw and (b'"assistant"' not in raw or _sidechain(raw)):
            continue
        obj = _json(raw)
        if obj is None:
            continue  # a torn line: the host may be writing it right now
        if obj.get("type") == "system" and obj.get("subtype") == "compact_boundary":
            return Position(None, boundary=_id(obj.get("uuid")) or f"@{scanned}")
        if obj.get("type") != "assistant" or obj.get("isSidechain") or obj.get("isApiErrorMessage"):
            continue
        message = obj.get("message")
        if not isinstance(message, dict):
            continue
        tokens = _usage(message.get("usage"))
        if tokens is None:
            continue
        # Lines of one response share `message.id` and repeat its usage, so the newest line of
        # the newest response is the position; the id tells a re-read of the same response.
        return Position(tokens, message=_id(message.get("id")))
    return Position(None)


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


def codex_position(path: Path, *, max_bytes: int = MAX_SCAN_BYTES) -> Position:
    """Return the context position of a Codex rollout file."""
    scanned = 0
    for raw in reverse_lines(path, max_bytes=max_bytes):
        scanned += len(raw) + 1
        if b"token_count" not in raw and b'"compacted"' not in raw:
            continue
        obj = _json(raw)
        if obj is None:
            continue
        if obj.get("type") == "compacted":
            return Position(None, boundary=_id(obj.get("timestamp")) or f"@{scanned}")
        payload = obj.get("payload")
        if obj.get("type") != "event_msg" or not isinstance(payload, dict):
            continue
        if payload.get("type") != "token_count" or not isinstance(payload.get("info"), dict):
            continue
        last = payload["info"].get("last_token_usage")
        tokens = last.get("input_tokens") if isinstance(last, dict) else None
        if type(tokens) is int and tokens >= 0:
            return Position(tokens, message=_id(obj.get("timestamp")))
    return Position(None)


READERS = {"claude": claude_position, "codex": codex_position}


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
        obj = json.loads(raw)
    except (ValueError, RecursionError):  # the host's file: a line nested past the stack too
        return None
    return obj if isinstance(obj, dict) else None


def _id(value: object) -> str | None:
    """A short hash of an id read from a transcript: ids are only ever compared for equality,
    and the transcript is the host's, so nothing of it is kept verbatim in the session state."""
    if not isinstance(value, str) or not value:
        return None
    from gitflow_harness.store.digest import sha256_hex

    return sha256_hex(value.encode("utf-8", "surrogatepass"))[:16]


def _int(value: object) -> int:
    return value if type(value) is int and value >= 0 else 0
