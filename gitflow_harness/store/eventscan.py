"""The report's one pass over the event log: each line's envelope decoded and checked in C, its
`data` parsed only for the event types a reader asks for.

The lines of a chunk are decoded with no step of Python between them, each into the structure
of its event type (the types gfh writes), whose `data` is parsed where a reader reads it and
otherwise only checked to be an object. A chunk that cannot be taken so (a line of another
type, a line that is not an envelope, not ASCII, or long enough to nest deeper than orjson
follows) is read again a line at a time, and `events.classify` stays the judge of every line
this pass cannot vouch for: each line is counted as an event, a foreign or a torn line exactly as
`EventLog.read` counts it. (The decoder checks the syntax of what it skips, but not that its
strings are UTF-8: an ASCII line needs no such check.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Final, Literal, Union

import msgspec

from gitflow_harness.store.events import (
    SCHEMA,
    TORN,
    TYPES,
    Event,
    EventLog,
    FileCounts,
    ReadStats,
    classify,
    unreadable_log,
)

CHUNK: Final = 1 << 16  # bytes of lines read at a time: memory stays that of one chunk
# A line of at most this many bytes nests at most 1024 deep, which orjson (`classify`'s first
# parser) accepts: a longer one is left to `classify`.
DEEP: Final = 2048


class _Envelope(msgspec.Struct):
    """The envelope as `classify` accepts it; `data` left as its JSON text."""

    schema: Literal[1]
    id: str
    at: str
    type: str
    surface: Literal["cli", "mcp", "hook", "git"]
    session: str | None
    branch: str | None
    data: msgspec.Raw


class _Object(msgspec.Struct):
    """Any JSON object, its members skipped: the `data` of a type no reader reads."""


Decode = Callable[[bytes], Any]


def _typed_decoder(reads_data: Callable[[str], bool]) -> Decode:
    """Decode one envelope into the structure of its type: `data` a dict where `reads_data`
    asks for it, else an `_Object`. The type is the tag that picks the structure (so a line of
    a type not listed fails), and each structure's `kind`."""
    rest = [(f.name, f.type) for f in msgspec.structs.fields(_Envelope) if f.name != "type"]
    structures = tuple(
        msgspec.defstruct(
            f"_Envelope_{kind}",
            [
                (name, (dict[str, Any] if reads_data(kind) else _Object) if name == "data" else t)
                for name, t in rest
            ],
            tag=kind,
            tag_field="type",
            namespace={"kind": kind},
        )
        for kind in TYPES
    )
    return msgspec.json.Decoder(Union[structures]).decode  # noqa: UP007 (built at run time)


_decode: Final = msgspec.json.Decoder(_Envelope).decode
_decode_data: Final = msgspec.json.Decoder().decode
_new_tuple: Final = tuple.__new__
_OBJECT: Final = 0x7B  # `{`: the JSON text of an object starts with it


def scan(
    log: EventLog, *, stats: ReadStats, reads_data: Callable[[str], bool], since: str | None = None
) -> Iterator[list[Event]]:
    """Yield the log's events, oldest file first, a chunk of lines at a time; count every line
    into `stats`. An event whose type `reads_data` refuses has an empty `data`: no reader looks
    at it, though it was checked to be a JSON object."""
    assert SCHEMA == 1  # what `_Envelope.schema` accepts
    decode_line = _typed_decoder(reads_data)
    try:
        for path in log.files():
            if since is not None and path.stem < since[:7]:
                continue
            counts = FileCounts(path)
            stats.files.append(counts)
            with open(path, "rb") as fh:
                while lines := fh.readlines(CHUNK):
                    events = _whole(lines, decode_line)
                    if events is None:
                        events = _events(lines, counts, reads_data)
                    else:
                        counts.events += len(events)
                    if since is not None:
                        events = [ev for ev in events if ev.at >= since]
                    yield events
    except OSError as exc:
        raise unreadable_log(exc, log.directory) from None


def _whole(lines: list[bytes], decode_line: Decode) -> list[Event] | None:
    """The events of `lines`, each decoded in C with no step of Python between them; or None
    where the lines must be judged one at a time: a line that is not ASCII or is longer than
    `DEEP`, or that is not an envelope of a listed type."""
    if max(map(len, lines)) > DEEP or not all(map(bytes.isascii, lines)):
        return None
    try:
        envelopes = list(map(decode_line, lines))
    except (msgspec.DecodeError, RecursionError):
        return None
    new = _new_tuple
    return [
        new(Event, (e.id, e.at, e.kind, e.surface, e.session, e.branch,
                    e.data if type(e.data) is dict else {}))
        for e in envelopes
    ]  # fmt: skip


def _events(
    lines: list[bytes], counts: FileCounts, reads_data: Callable[[str], bool]
) -> list[Event]:
    from orjson import loads  # (as `EventLog.read` parses: imported once a chunk, not a line)

    out: list[Event] = []
    append = out.append
    decode, decode_data, new = _decode, _decode_data, _new_tuple
    for raw in lines:
        if len(raw) <= DEEP and raw.isascii():
            try:
                env = decode(raw)
            except (msgspec.DecodeError, RecursionError):
                pass
            else:
                kind = env.type
                text = env.data
                if reads_data(kind):
                    try:
                        data = decode_data(text)
                    except (msgspec.DecodeError, RecursionError):
                        data = None
                    if type(data) is dict:
                        append(new(Event, (env.id, env.at, kind, env.surface, env.session,
                                           env.branch, data)))  # fmt: skip
                        continue
                elif memoryview(text)[0] == _OBJECT:
                    append(new(Event, (env.id, env.at, kind, env.surface, env.session,
                                       env.branch, {})))  # fmt: skip
                    continue
        ev = classify(raw, loads)
        if type(ev) is Event:
            append(ev)
        elif ev is TORN:
            counts.torn += 1
        else:
            counts.foreign += 1
    counts.events += len(out)
    return out
