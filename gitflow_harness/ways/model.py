"""The way record: what a way file says once parsed, in a form the JSON index cache can hold.

Light on purpose (standard library and `firing` only): the agent hook builds these from the
cache on every tool call.
"""

from __future__ import annotations

from gitflow_harness.firing.curves import Curve, curve_from_dict
from gitflow_harness.firing.record import Record

TYPE_CHECKING = False  # see firing/curves.py: no `typing` import at run time
if TYPE_CHECKING:
    from pathlib import Path

AXES = ("tokens", "turns", "seconds")
SCOPES = ("agent", "subagent")
MACRO_PLACES = ("prepend", "append")
LANES = ("prompt", "keywords", "files", "commands", "session_start")
MACRO_FILE = "macro.sh"
POSTCHECK_FILE = "postcheck.sh"
BOM = "\ufeff"


class Lanes(Record):
    """The `when:` triggers of a way; an absent lane is None, empty or False."""

    FIELDS = ("prompt", "keywords", "files", "commands", "session_start")
    __slots__ = FIELDS
    prompt: str | None
    keywords: tuple[str, ...]
    files: tuple[str, ...]
    commands: str | None
    session_start: bool

    def __init__(
        self,
        prompt: str | None = None,
        keywords: tuple[str, ...] = (),
        files: tuple[str, ...] = (),
        commands: str | None = None,
        session_start: bool = False,
    ) -> None:
        self._init(
            prompt=prompt,
            keywords=tuple(keywords),
            files=tuple(files),
            commands=commands,
            session_start=session_start,
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


class Way(Record):
    """One way: `<ways root>/<id>/<name>.md`, its frontmatter parsed, and its siblings noted."""

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
    __slots__ = FIELDS
    id: str  # the directory's path under the ways root, `/`-separated
    file: str  # the way file's path
    description: str
    lanes: Lanes
    curve: Curve
    axis: str
    scope: tuple[str, ...]
    roles: tuple[str, ...]
    macro: str  # where macro.sh's output goes: "prepend" or "append"
    has_macro: bool
    has_postcheck: bool

    def __init__(
        self,
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
    ) -> None:
        self._init(
            id=id,
            file=file,
            description=description,
            lanes=lanes,
            curve=curve,
            axis=axis,
            scope=tuple(scope),
            roles=tuple(roles),
            macro=macro,
            has_macro=has_macro,
            has_postcheck=has_postcheck,
        )

    @property
    def path(self) -> Path:
        from pathlib import Path

        return Path(self.file)

    @property
    def directory(self) -> str:
        return self.file.rsplit("/", 1)[0] if "/" in self.file else "."

    def trigger_names(self) -> tuple[str, ...]:
        """Return every way this way can fire: its lanes, `postcheck`, `roles` (SubagentStart)."""
        names = self.lanes.names()
        if self.has_postcheck:
            names += ("postcheck",)
        if self.roles:
            names += ("roles",)
        return names

    def to_json(self) -> dict[str, object]:
        """Return what the index cache stores (the file and siblings are found on each load)."""
        return {
            "id": self.id,
            "description": self.description,
            "when": self.lanes.to_json(),
            "curve": self.curve.to_dict(),
            "axis": self.axis,
            "scope": list(self.scope),
            "roles": list(self.roles),
            "macro": self.macro,
        }

    @classmethod
    def from_json(
        cls, data: dict[str, object], *, file: str, has_macro: bool, has_postcheck: bool
    ) -> Way:
        """Rebuild a way stored by `to_json`; raise ValueError (or KeyError) on a bad entry."""
        when = data["when"]
        if not isinstance(when, dict):
            raise ValueError("when: expected an object")
        return cls(
            id=str(data["id"]),
            file=file,
            description=str(data["description"]),
            lanes=Lanes(
                prompt=when.get("prompt"),
                keywords=tuple(when.get("keywords", ())),
                files=tuple(when.get("files", ())),
                commands=when.get("commands"),
                session_start=bool(when.get("session_start", False)),
            ),
            curve=curve_from_dict(data["curve"]),
            axis=str(data["axis"]),
            scope=tuple(data["scope"]),  # type: ignore[arg-type]
            roles=tuple(data["roles"]),  # type: ignore[arg-type]
            macro=str(data["macro"]),
            has_macro=has_macro,
            has_postcheck=has_postcheck,
        )


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


def split_body(text: str) -> str:
    """Return the markdown after the frontmatter (the whole text when there is none)."""
    if not text.startswith("---"):
        return text
    first_end = text.find("\n")
    if first_end < 0 or text[:first_end].rstrip("\r").rstrip() != "---":
        return text
    at = first_end + 1
    while at <= len(text):
        end = text.find("\n", at)
        line = text[at:] if end < 0 else text[at:end]
        if line.rstrip("\r").rstrip() in ("---", "..."):
            return "" if end < 0 else text[end + 1 :]
        if end < 0:
            break
        at = end + 1
    return text


def read_body(way: Way) -> str:
    """Read the way file and return its body (the text to inject, before any macro)."""
    with open(way.file, "rb") as fh:
        text = fh.read().decode("utf-8")
    return split_body(text.removeprefix(BOM))
