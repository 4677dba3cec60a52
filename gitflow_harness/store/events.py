"""The append-only event log in the git common dir.

One JSON object per line in `<git-common-dir>/gitflow-harness/events/YYYY-MM.jsonl`. Appends hold
an exclusive lock and write each line with a single `write()`, so concurrent writers never
interleave; a writer killed mid-write leaves at most one torn line, and the next append starts a
fresh line. Readers classify every line as an event, a foreign line (valid JSON of another shape)
or a torn line (not JSON), and never fail on the last two.
"""

from __future__ import annotations

import os

from gitflow_harness import jsonio
from gitflow_harness.errors import GfhError
from gitflow_harness.records import Mutable
from gitflow_harness.store import eventwrite
from gitflow_harness.store.eventwrite import (
    LOG_DIR,
    MAX_LINE_BYTES,
    SCHEMA,
    SURFACES,
    EventTooLarge,
    append_line,
    encode_line,
    now_at,
)
from gitflow_harness.store.session_env import session_from_env
from gitflow_harness.store.tail import (
    lines_holding_from,
    reverse_lines_holding,
    reverse_nonempty_lines,
)

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from datetime import datetime
    from pathlib import Path
    from typing import Any, Final, NamedTuple

    from gitflow_harness.store.fsutil import StrPath
else:
    from gitflow_harness.records import NamedTuple

__all__ = [
    "EVENT",
    "FOREIGN",
    "LOG_DIR",
    "MAX_LINE_BYTES",
    "SCHEMA",
    "SURFACES",
    "TORN",
    "TYPES",
    "Event",
    "EventLog",
    "EventTooLarge",
    "FileCounts",
    "ReadStats",
    "classify",
    "encode",
    "format_at",
    "make_event",
    "now_at",
    "parse_at",
    "session_from_env",
    "unreadable_log",
]


# The event types gfh writes (DESIGN.md lists their `data`). A reader must still take any
# other type: a log outlives versions, and another version may write types this one does not
# know.
TYPES: Final = (
    "verb", "git.update", "turn.started", "turn.completed", "coord.task_changed",
    "coord.status_observed", "tool.requested", "way.fired", "way.suppressed",
    "subagent.started", "subagent.stopped", "stop.verdict", "hook.error", "session.ended",
)  # fmt: skip


class Event(NamedTuple):
    """One envelope (docs/events.md). A NamedTuple: the report builds a million of these."""

    id: str
    at: str
    type: str
    surface: str
    session: str | None
    branch: str | None
    data: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """Return the envelope as written to the log, fields in their documented order."""
        return {
            "schema": SCHEMA,
            "id": self.id,
            "at": self.at,
            "type": self.type,
            "surface": self.surface,
            "session": self.session,
            "branch": self.branch,
            "data": self.data,
        }

    def when(self) -> datetime:
        """Return `at` as an aware UTC datetime."""
        return parse_at(self.at)


def format_at(moment: datetime) -> str:
    """Return RFC 3339 UTC with milliseconds and `Z`."""
    from datetime import UTC  # not at import: a Stop reads and writes `at` as text alone

    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_at(text: str) -> datetime:
    """Parse an envelope `at` string into an aware UTC datetime."""
    from datetime import datetime

    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def make_event(
    type: str,
    data: dict[str, Any],
    *,
    surface: str,
    session: str | None,
    branch: str | None,
    at: str | None = None,
) -> Event:
    """Build a validated envelope."""
    if surface not in SURFACES:
        raise ValueError(f"unknown surface {surface!r}")
    return Event(eventwrite.new_id(), at or now_at(), type, surface, session, branch, data)


def encode(event: Event) -> bytes:
    """Return the event's log line, newline included; refuse lines over the limit."""
    return encode_line(event.to_dict())


_new_tuple: Final = tuple.__new__

EVENT: Final = "event"
FOREIGN: Final = "foreign"
TORN: Final = "torn"


def classify(raw: bytes, loads: Callable[[bytes], Any] = jsonio.loads) -> Event | str:
    """Return the Event in one log line, or FOREIGN / TORN.

    `loads` may be a faster parser than `json.loads`; a line it refuses is judged again by
    `jsonio.loads` (the standard library's own scanner), so the verdict is always the standard
    library's. (orjson reads an integer
    past 64 bits as a float; gfh writes none: its numbers are counts, durations and turns.)
    """
    if len(raw) > MAX_LINE_BYTES + 1:
        return FOREIGN  # gfh never writes such a line: another tool's, not parsed at all
    try:
        obj = loads(raw)
    except ValueError:  # includes UnicodeDecodeError
        return TORN if loads is jsonio.loads else classify(raw)
    except RecursionError:
        return FOREIGN  # valid-looking JSON nested deeper than the parser follows
    if type(obj) is not dict or obj.get("schema") != SCHEMA or type(obj["schema"]) is not int:
        return FOREIGN
    try:
        fields = (
            obj["id"], obj["at"], obj["type"], obj["surface"], obj["session"], obj["branch"],
            obj["data"],
        )  # fmt: skip
    except KeyError:
        return FOREIGN
    id_, at, kind, surface, session, branch, data = fields
    # Checked on local names, not the tuple's fields: this runs once per line of the log.
    if (
        type(id_) is not str
        or type(at) is not str
        or type(kind) is not str
        or type(surface) is not str  # (a list or an object cannot be looked up in a set)
        or surface not in SURFACES
        or (session is not None and type(session) is not str)
        or (branch is not None and type(branch) is not str)
        or type(data) is not dict
    ):
        return FOREIGN
    # The tuple's own constructor: a NamedTuple's `__new__` is one more Python call per line.
    return _new_tuple(Event, fields)


class FileCounts(Mutable):
    """How the lines of one log file were classified."""

    _fields = ("path", "events", "foreign", "torn")
    __slots__ = _fields

    def __init__(self, path: Path, events: int = 0, foreign: int = 0, torn: int = 0) -> None:
        self.path = path
        self.events = events
        self.foreign = foreign
        self.torn = torn


class ReadStats(Mutable):
    """Counts gathered while streaming the log; readers report what they skipped."""

    _fields = ("files",)
    __slots__ = _fields

    def __init__(self, files: list[FileCounts] | None = None) -> None:
        self.files = [] if files is None else files

    @property
    def events(self) -> int:
        return sum(f.events for f in self.files)

    @property
    def foreign(self) -> int:
        return sum(f.foreign for f in self.files)

    @property
    def torn(self) -> int:
        return sum(f.torn for f in self.files)

    @property
    def skipped(self) -> int:
        return self.foreign + self.torn


def unreadable_log(exc: OSError, directory: Path) -> GfhError:
    """The one-line error for a log that exists but cannot be read (EventLog raises OSError):
    it names the path and the fix, because an unreadable log is never an empty one."""
    where = exc.filename or directory
    return GfhError(
        f"cannot read the event log at {where}: {exc.strerror or exc}; the log must be a "
        "directory of readable files: fix its permissions, or move what is there aside so "
        "gfh starts a new log"
    )


class EventLog:
    """The event log of one repository (shared by all its worktrees)."""

    def __init__(self, common_dir: StrPath) -> None:
        # A `str`: the Stop hook reads and appends without `pathlib` (store/fsutil.py).
        self._directory = os.path.join(common_dir, *LOG_DIR)

    @property
    def directory(self) -> Path:
        """The log's directory."""
        from pathlib import Path

        return Path(self._directory)

    def path_for(self, at: str) -> Path:
        """Return the monthly file an event stamped `at` belongs to."""
        return self.directory / f"{at[:7]}.jsonl"

    def append(self, event: Event) -> Event:
        """Append one event under the lock with a single write."""
        append_line(self._directory, event.at, encode(event))
        return event

    def record(
        self,
        type: str,
        data: dict[str, Any],
        *,
        surface: str,
        branch: str | None,
        session: str | None = None,
        use_env_session: bool = True,
    ) -> Event:
        """Build and append an event; the session comes from the environment unless given."""
        if session is None and use_env_session:
            session = session_from_env()
        return self.append(make_event(type, data, surface=surface, session=session, branch=branch))

    def files(self) -> list[Path]:
        """Return the monthly files, oldest first; none when nothing was ever logged.

        A log directory that exists but cannot be listed (not a directory, no permission)
        raises OSError: an unreadable log is not an empty one.
        """
        from pathlib import Path

        return [Path(path) for path in self._files()]

    def _files(self) -> list[str]:
        """`files`, as `str` paths (their names sort as the paths do)."""
        try:
            names = os.listdir(self._directory)
        except FileNotFoundError:
            return []
        return [
            path
            for name in sorted(names)
            if name.endswith(".jsonl")
            and not name.startswith(".")
            and os.path.isfile(path := os.path.join(self._directory, name))
        ]

    def read(self, *, since: str | None = None, stats: ReadStats | None = None) -> Iterator[Event]:
        """Stream every event, oldest file first; count what is not an event into `stats`.

        `since` is an `at`-comparable prefix (e.g. `2026-11-01`); whole months before it are
        skipped unopened and earlier events filtered out. A log that exists but cannot be read
        raises the one-line `unreadable_log` error: an unreadable log is never an empty one.
        """
        try:
            for path in self.files():
                if since is not None and path.stem < since[:7]:
                    continue
                counts = FileCounts(path)
                if stats is not None:
                    stats.files.append(counts)
                yield from _read_file(path, counts, since)
        except OSError as exc:
            raise unreadable_log(exc, self.directory) from None

    def tail(self, n: int) -> list[Event]:
        """Return the last `n` events, oldest first, reading the files from their ends."""
        from collections import deque  # only here: the Stop hook's reads import no `collections`

        found: deque[Event] = deque()
        if n <= 0:
            return []
        for ev in self.reverse():
            found.appendleft(ev)
            if len(found) >= n:
                break
        return list(found)

    def reverse(self) -> Iterator[Event]:
        """Yield events newest first, reading each file from its end.

        The cost follows how far back the caller reads, not the size of the log.
        """
        for path in reversed(self.files()):
            for raw in reverse_nonempty_lines(path):
                ev = classify(raw)
                if type(ev) is Event:
                    yield ev

    def reverse_of(self, session: str, *, reach: int | None = None) -> Iterator[Event | None]:
        """Yield `session`'s events, newest first.

        With `reach`, only the lines that start within the last `reach` bytes of the log are
        looked at (`tail.reverse_lines_holding`), and `None` comes last when an older line is
        left unread for it. A line without the envelope's `session` field as `encode` writes it
        (`"session":"claude:abc"`) cannot be one of its events: it is never parsed.
        """
        needle = _session_needle(session)
        files = self._files()
        for i in range(len(files) - 1, -1, -1):
            path = files[i]
            if reach is not None and reach <= 0:
                if any(os.stat(older).st_size for older in files[: i + 1]):
                    yield None
                return
            size = os.stat(path).st_size if reach is not None else None
            for ev in _session_events(
                session, reverse_lines_holding(path, needle, end=size, reach=reach)
            ):
                yield ev
                if ev is None:
                    return
            if reach is not None and size is not None:
                reach -= size

    def forward_of(
        self, session: str, name: str, offset: int, *, reach: int | None = None
    ) -> Iterator[Event]:
        """Like `reverse_of`, forwards: `session`'s events from the line at `offset` of the
        monthly file `name` on, oldest first, through the later files. Nothing when there is no
        such file or, with `reach`, when that line starts more than `reach` bytes before the
        log's end: exactly when `reverse_of` with that reach would not look at it."""
        needle = _session_needle(session)
        later = [path for path in self._files() if os.path.basename(path) >= name]
        if not later or os.path.basename(later[0]) != name:
            return
        if reach is not None and sum(os.stat(p).st_size for p in later) - offset > reach:
            return
        for path in later:
            for ev in _session_events(session, lines_holding_from(path, offset, needle)):
                if ev is not None:  # (a read on has no reach to end short of)
                    yield ev
            offset = 0

    def verify(self) -> list[FileCounts]:
        """Classify every line of every file."""
        stats = ReadStats()
        for _ in self.read(stats=stats):
            pass
        return stats.files


def _session_needle(session: str) -> bytes:
    """What every line of `session`'s events holds: the envelope's `session` field as
    `encode` writes it, compact (`"session":"claude:abc"`). The key is part of the needle: a
    long needle lets the search skip further, and lines that merely quote the id (another
    session's event naming it) are passed by, not parsed. An id that JSON escapes could be
    written either way: then the needle is empty and every line is parsed."""
    quoted = jsonio.dumps(session, ensure_ascii=False)
    return eventwrite.encoded_field("session", session) if quoted[1:-1] == session else b""


def _session_events(session: str, lines: Iterable[bytes | None]) -> Iterator[Event | None]:
    """`session`'s events among the lines holding its needle, and the None that ends a read
    back short of its reach: a line that is another session's event, or no event, is left."""
    for raw in lines:
        if raw is None:
            yield None
            return
        ev = classify(raw)
        if type(ev) is Event and ev.session == session:
            yield ev


def _read_file(path: Path, counts: FileCounts, since: str | None) -> Iterator[Event]:
    # orjson parses a line in about a third of the time of `json.loads`. It is imported here,
    # not at the top: the hook path that reads the log's tail never pays for its imports.
    from orjson import loads

    with open(path, "rb") as fh:
        for raw in fh:
            ev = classify(raw, loads)
            if type(ev) is Event:
                counts.events += 1
                if since is None or ev.at >= since:
                    yield ev
            elif ev is TORN:
                counts.torn += 1
            else:
                counts.foreign += 1
