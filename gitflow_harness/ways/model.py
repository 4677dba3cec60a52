"""The way record: what a way file says once parsed, in a form the index caches can hold.

Light on purpose (standard library and `firing` only): the agent hook builds these from the
cache on every tool call.
"""

from __future__ import annotations

import marshal

from gitflow_harness.firing.record import Record
from gitflow_harness.ways.sieve import ALWAYS as ALWAYS  # a sieve's first part (`Way.sieve`)
from gitflow_harness.ways.sieve import NEVER as NEVER

TYPE_CHECKING = False  # see firing/curves.py: no `typing` import at run time
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

    from gitflow_harness.firing.curves import Curve

AXES = ("tokens", "turns", "seconds")
SCOPES = ("agent", "subagent")
MACRO_PLACES = ("prepend", "append")
LANES = ("prompt", "keywords", "files", "commands", "session_start")
MACRO_FILE = "macro.sh"
POSTCHECK_FILE = "postcheck.sh"
BOM = "\ufeff"
_SET = object.__setattr__
_NEW = tuple.__new__
try:
    from _collections import (  # type: ignore[import-not-found]  # as collections.namedtuple
        _tuplegetter as _item,
    )
except ImportError:  # another Python
    from operator import itemgetter

    def _item(index: int, doc: str) -> property:
        return property(itemgetter(index), doc=doc)


class Lanes(Record):
    """The `when:` triggers of a way; an absent lane is None, empty or False.

    `prompt_hints` and `commands_hints` are literal prefilters for the two regexes (see
    `literals.py`): folded strings one of which every match contains, or None for no prefilter.
    """

    FIELDS = (
        "prompt",
        "keywords",
        "files",
        "commands",
        "session_start",
        "prompt_hints",
        "commands_hints",
    )
    __slots__ = FIELDS
    prompt: str | None
    keywords: tuple[str, ...]
    files: tuple[str, ...]
    commands: str | None
    session_start: bool
    prompt_hints: tuple[str, ...] | None
    commands_hints: tuple[str, ...] | None

    def __init__(
        self,
        prompt: str | None = None,
        keywords: tuple[str, ...] = (),
        files: tuple[str, ...] = (),
        commands: str | None = None,
        session_start: bool = False,
        *,
        prompt_hints: tuple[str, ...] | None = None,
        commands_hints: tuple[str, ...] | None = None,
    ) -> None:
        self._init(
            prompt=prompt,
            keywords=tuple(keywords),
            files=tuple(files),
            commands=commands,
            session_start=session_start,
            prompt_hints=prompt_hints,
            commands_hints=commands_hints,
        )

    def names(self) -> tuple[str, ...]:
        """Return the lanes this way declares, in their documented order."""
        return tuple(name for name in LANES if getattr(self, name))

    def to_json(self) -> dict[str, object]:
        """Return the lanes as declared (absent lanes left out)."""
        out: dict[str, object] = {}
        for name in LANES:
            value = getattr(self, name)
            if value:
                out[name] = list(value) if isinstance(value, tuple) else value
        return out


class Way(Record, tuple):  # type: ignore[type-arg]  # a Record whose values are a tuple's items
    """One way: `<ways root>/<id>/<name>.md`, its frontmatter parsed, and its siblings noted.

    A way loaded from the index cache decodes its fields when first read: the hook matches
    the lanes of every way on every call, but needs the curve and the rest only of the few
    that matched. A cache entry that turns out damaged is parsed again from the file.

    The hook builds one for every way of the index on every call, so it is a tuple: `(id,
    file, has_macro, has_postcheck, state)`, made by one `tuple.__new__`, where setting nine
    slots of a frozen record took 13,800 instructions a way (6.9M for 500 ways, a twentieth of a
    warm call). `state` is the list `[payload, repair, lanes, rest, sieve]` of what is decoded
    on first use. Equality, hashing and repr are the record's: by its fields, not its items.
    """

    FIELDS = (
        "id",
        "file",
        "description",
        "lanes",
        "curve",
        "axis",
        "scope",
        "roles",
        "macro",
        "has_macro",
        "has_postcheck",
    )
    __slots__ = ()
    if TYPE_CHECKING:
        id: str  # the directory's path under the ways root, `/`-separated
        file: str  # the way file's path
        has_macro: bool
        has_postcheck: bool
        # [payload, repair, lanes, rest, sieve]: see the class's docstring
        _state: list[Any]
    else:
        id = _item(0, "the directory's path under the ways root, `/`-separated")
        file = _item(1, "the way file's path")
        has_macro = _item(2, "whether macro.sh is beside it")
        has_postcheck = _item(3, "whether postcheck.sh is beside it")
        _state = _item(4, "[payload, repair, lanes, rest, sieve]")

    def __new__(
        cls,
        *,
        id: str,
        file: str,
        description: str,
        lanes: Lanes,
        curve: Curve,
        axis: str = "tokens",
        scope: tuple[str, ...] = ("agent",),
        roles: tuple[str, ...] = (),
        macro: str = "prepend",
        has_macro: bool = False,
        has_postcheck: bool = False,
    ) -> Way:
        rest = (description, curve, axis, tuple(scope), tuple(roles), macro)
        state = [None, None, lanes, rest, None]
        return _NEW(cls, (id, file, has_macro, has_postcheck, state))

    @property
    def _lanes(self) -> Lanes | None:
        """The lanes if decoded (or parsed) already, else None."""
        lanes: Lanes | None = self._state[2]
        return lanes

    @property
    def lanes(self) -> Lanes:
        lanes: Lanes | None = self._state[2]
        if lanes is None:
            lanes = self._decode_lanes()
        return lanes

    @property
    def session_start(self) -> bool:
        """Whether the way fires at session start (its `session_start` lane), read from its
        cache entry without decoding its other lanes: a session's start asks it of every way."""
        state = self._state
        lanes: Lanes | None = state[2]
        if lanes is None:
            try:
                value = state[0][3]
            except (IndexError, KeyError, TypeError):
                value = None
            if type(value) is bool:
                return value
            lanes = self._decode_lanes()  # damaged: decoded (or parsed again) as ever
        return lanes.session_start

    @property
    def description(self) -> str:
        return self._decoded()[0]

    @property
    def curve(self) -> Curve:
        return self._decoded()[1]

    @property
    def axis(self) -> str:
        return self._decoded()[2]

    @property
    def scope(self) -> tuple[str, ...]:
        return self._decoded()[3]

    @property
    def roles(self) -> tuple[str, ...]:
        return self._decoded()[4]

    @property
    def macro(self) -> str:
        """Where macro.sh's output goes: "prepend" or "append"."""
        return self._decoded()[5]

    @property
    def path(self) -> Path:
        from pathlib import Path

        return Path(self.file)

    def trigger_names(self) -> tuple[str, ...]:
        """Return every way this way can fire: its lanes, `postcheck`, `roles` (SubagentStart)."""
        names = self.lanes.names()
        if self.has_postcheck:
            names += ("postcheck",)
        if self.roles:
            names += ("roles",)
        return names

    def sieve(self) -> list[Any]:
        """`[literals, keywords, prefixes]`: what a prompt or a path must hold for this way's
        lanes to match it (`match.prompt_possible`, `match.files_possible`), read from the cache
        entry without decoding the lanes (`sieve.py`).

        `literals` is NEVER (no `prompt` regex), ALWAYS (a regex no literal prefilters) or the
        literals one of which every match of the regex holds; `keywords` is `sieve.needles` of
        the keywords; `prefixes` what every path each `files` glob matches starts with.
        """
        state = self._state
        sieve: list[Any] | None = state[4]
        if sieve is None:
            payload = state[0]
            if payload is not None:
                sieve = payload[2]
            if not (
                type(sieve) is list
                and len(sieve) == 3
                and type(sieve[1]) is list
                and type(sieve[2]) is list
            ):
                sieve = _sieve(self.lanes)  # parsed, not cached (or damaged: its lanes decide)
            state[4] = sieve
        return sieve

    def to_payload(self) -> list[object]:
        """Return what the index caches store: `[lanes, rest, sieve, session_start]`.

        The worktree's cache is a `marshal` file read whole by every hook call (the shared one,
        by the first in a new worktree), so what most calls never look at is kept as one
        opaque value, decoded on first use: the lanes (one `marshal`
        bytes value of plain lists, decoded for a way the sieve lets through, or at an event
        whose lane it has no sieve for: a command's) and the rest (description, curve, axis,
        scope, roles, macro: one JSON string, needed only for a way that matched). The sieve
        (`sieve`) lets a prompt or a path pass most ways by without decoding their lanes, and
        `session_start` answers the session's start. (Kept as lists, 500 ways' lanes made a
        warm call's read of its cache half as long again: 11.8M instructions, 7.9M now.) The
        file and siblings are found on each load.
        """
        from gitflow_harness import jsonio

        lanes = self.lanes
        rest = [
            self.description,
            self.curve.to_list(),
            self.axis,
            list(self.scope),
            list(self.roles),
            self.macro,
        ]
        listed = [
            lanes.prompt,
            list(lanes.keywords),
            list(lanes.files),
            lanes.commands,
            lanes.session_start,
            _listed(lanes.prompt_hints),
            _listed(lanes.commands_hints),
        ]
        return [
            marshal.dumps(listed),
            jsonio.dumps(rest, ensure_ascii=False, separators=(",", ":")),
            self.sieve(),  # worked out once: the hook's match reads it next
            lanes.session_start,
        ]

    @classmethod
    def from_payload(
        cls,
        payload: object,
        *,
        id: str,
        file: str,
        has_macro: bool,
        has_postcheck: bool,
        repair: Callable[[Way], Way],
    ) -> Way:
        """Wrap a payload stored by `to_payload`; its fields are decoded when first read.

        `repair(way)` parses the way file again when the payload turns out damaged: the
        index's, so that this record never imports the parser (which imports it)."""
        if type(payload) is not list or len(payload) != 4:
            raise ValueError("way payload: expected [lanes, rest, sieve, session_start]")
        state = [payload, repair, None, None, None]
        return _NEW(cls, (id, file, has_macro, has_postcheck, state))

    def _decode_lanes(self) -> Lanes:
        state = self._state
        try:
            assert state[0] is not None
            p = marshal.loads(state[0][0])
            lanes = object.__new__(Lanes)  # as `Lanes._make`, spelt out: once per way per call
            _SET(lanes, "prompt", p[0])
            _SET(lanes, "keywords", tuple(p[1]))
            _SET(lanes, "files", tuple(p[2]))
            _SET(lanes, "commands", p[3])
            _SET(lanes, "session_start", p[4])
            _SET(lanes, "prompt_hints", _hints(p[5]))
            _SET(lanes, "commands_hints", _hints(p[6]))
            if len(p) != len(Lanes.FIELDS):
                raise ValueError("lanes: expected one value per field")
        except (AssertionError, EOFError, IndexError, TypeError, ValueError):
            lanes = self._reparse().lanes
        state[2] = lanes
        return lanes

    def _decoded(self) -> tuple[str, Curve, str, tuple[str, ...], tuple[str, ...], str]:
        state = self._state
        rest: tuple[str, Curve, str, tuple[str, ...], tuple[str, ...], str] | None = state[3]
        if rest is None:
            from gitflow_harness import jsonio
            from gitflow_harness.firing.curves import curve_from_list

            try:
                assert state[0] is not None
                p = jsonio.loads(state[0][1])
                rest = (
                    str(p[0]),
                    curve_from_list(p[1]),
                    str(p[2]),
                    tuple(p[3]),
                    tuple(p[4]),
                    str(p[5]),
                )
            except (AssertionError, IndexError, TypeError, ValueError):
                rest = self._reparse()._decoded()
            state[3] = rest
        return rest

    def _reparse(self) -> Way:
        """Parse the way file again: its cache entry was damaged."""
        repair: Callable[[Way], Way] | None = self._state[1]
        assert repair is not None  # only a way wrapped from a payload has one to decode
        return repair(self)


def _sieve(lanes: Lanes) -> list[Any]:
    from gitflow_harness.ways.sieve import literal_prefix, needles

    if not lanes.prompt:
        literals: int | list[str] = NEVER
    elif lanes.prompt_hints is None:
        literals = ALWAYS
    else:
        literals = list(lanes.prompt_hints)
    return [literals, needles(lanes.keywords), [literal_prefix(g) for g in lanes.files]]


def _listed(hints: tuple[str, ...] | None) -> list[str] | None:
    return None if hints is None else list(hints)


def _hints(value: object) -> tuple[str, ...] | None:
    if value is None:
        return None
    if type(value) is not list:
        raise ValueError("hints: expected a list of strings")
    return tuple(value)


class LoadProblem(Record):
    """Why a way file could not be loaded: `path:line: severity: message`."""

    FIELDS = ("path", "line", "severity", "message")
    __slots__ = FIELDS
    path: str
    line: int | None
    severity: str
    message: str

    def __init__(self, path: str, line: int | None, severity: str, message: str) -> None:
        self._init(path=path, line=line, severity=severity, message=message)

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.severity}: {self.message}"


def read_body(way: Way) -> str:
    """Read the way file and return its body (the text to inject, before any macro)."""
    from gitflow_harness.store.frontmatter import body

    with open(way.file, "rb") as fh:
        text = fh.read().decode("utf-8")
    return body(text.removeprefix(BOM))
