"""Parse a way file against its declared schema (docs/ways.md), with a line for every problem.

This is the only ways module that reads YAML; the index calls it for files that changed.
"""

from __future__ import annotations

import re

from gitflow_harness.firing.curves import CurveError, curve_from_dict
from gitflow_harness.store.documents import Document, DocumentError, read_document
from gitflow_harness.store.schema import (
    REQUIRED,
    Bool,
    Choice,
    Converter,
    Field,
    Invalid,
    Mapping_,
    Problem,
    Schema,
    Str,
    StrList,
)
from gitflow_harness.ways.literals import checked_literals
from gitflow_harness.ways.model import AXES, MACRO_PLACES, SCOPES, Lanes, Way

TYPE_CHECKING = False  # the index parses ways on a hook call: no `typing` (see records.py)
if TYPE_CHECKING:
    from pathlib import Path  # nor `pathlib`: a first load of changed ways has `str` paths
    from typing import Any, Final

MIGRATE_HINT: Final = "redisclose is retired: run `gfh ways migrate` to turn it into a curve"


class Regex(Converter):
    """A regular expression that compiles (Python syntax)."""

    def __init__(self, *, ignorecase: bool = False) -> None:
        self.flags = re.IGNORECASE if ignorecase else 0
        self.description = "a regular expression" + (
            " (matched case-insensitively)" if ignorecase else ""
        )

    def __call__(self, value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            raise Invalid(f"expected {self.description}, got {value!r}")
        try:
            self.literals(value)
        except re.error as exc:
            where = f" at position {exc.pos}" if exc.pos is not None else ""
            raise Invalid(f"regex {value!r} does not compile: {exc.msg}{where}") from None
        return value

    def literals(self, value: str) -> tuple[str, ...] | None:
        """Return the prefilter of a value this converter accepted (from the same parse)."""
        return checked_literals(value, self.flags)


PROMPT = Regex(ignorecase=True)
COMMANDS = Regex()

WHEN_SCHEMA: Final = Schema(
    "when:",
    (
        Field("prompt", PROMPT, None, "regex searched in the user's prompt"),
        Field(
            "keywords",
            StrList(item=Str(nonempty=True), nonempty=True),
            (),
            "words or phrases; any one in the prompt matches",
        ),
        Field(
            "files",
            StrList(item=Str(nonempty=True), nonempty=True),
            (),
            "globs on repo-relative paths an Edit, Write or Read touched",
        ),
        Field("commands", COMMANDS, None, "regex searched in a shell command"),
        Field("session_start", Bool(), False, "fire when a session starts"),
    ),
    extra_prefix=None,
    noun="lane",
)

WAY_SCHEMA: Final = Schema(
    "a way",
    (
        Field("description", Str(nonempty=True, one_line=True), REQUIRED, "what the way is for"),
        Field("when", Mapping_(), None, "the lanes that trigger it (see `when:` below)"),
        Field(
            "curve",
            Mapping_(),
            REQUIRED,
            "the firing curve: Exponential, Flat, ProgressiveStaircase or ActionPotential",
        ),
        Field("axis", Choice(*AXES), "tokens", "what a tick counts"),
        Field(
            "scope",
            StrList(item=Choice(*SCOPES), nonempty=True),
            ("agent",),
            "who it is injected into",
        ),
        Field(
            "roles",
            StrList(item=Str(nonempty=True)),
            (),
            "subagent roles it is injected into at SubagentStart",
        ),
        Field("macro", Choice(*MACRO_PLACES), "prepend", "where macro.sh's output goes"),
    ),
    forbidden={"redisclose": MIGRATE_HINT},
)


def way_id(file: Path, root: Path | None) -> str:
    """Return a way's id: its directory's path under the ways root (`/`-separated)."""
    directory = file.parent
    if root is not None:
        try:
            return directory.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return directory.name


def nested_redisclose(meta: dict[str, Any]) -> list[str]:
    """Return the top-level keys whose value holds a `redisclose` at any depth (`x-*` fields are
    the user's own and are not looked into)."""

    def holds(value: object) -> bool:
        if isinstance(value, dict):
            return "redisclose" in value or any(holds(v) for v in value.values())
        if isinstance(value, list):
            return any(holds(v) for v in value)
        return False

    return [k for k, v in meta.items() if not str(k).startswith("x-") and holds(v)]


def _may_name_redisclose(doc: Document) -> bool:
    """False when no key at any depth can be `redisclose`: YAML spells a key out in the text
    but for an escape, and only a double-quoted scalar has escapes."""
    if "redisclose" in doc.text:
        return True
    head = doc.text[: len(doc.text) - len(doc.body)]
    return '"' in head and "\\" in head


def without_redisclose(value: Any) -> Any:
    """Return `value` with every `redisclose` key removed, at any depth."""
    if isinstance(value, dict):
        return {k: without_redisclose(v) for k, v in value.items() if k != "redisclose"}
    if isinstance(value, list):
        return [without_redisclose(v) for v in value]
    return value


def check_way(
    doc: Document, way_id: str, *, has_macro: bool = False, has_postcheck: bool = False
) -> tuple[Way | None, list[Problem]]:
    """Check a parsed way file; return the way (None when it has errors) and every problem."""
    where = str(doc.path)
    nested = nested_redisclose(doc.meta) if _may_name_redisclose(doc) else []
    meta = doc.meta
    if nested:
        meta = {k: without_redisclose(v) if k in nested else v for k, v in meta.items()}
    values, problems = WAY_SCHEMA.check(
        meta,
        path=where,
        lines={k: span.line for k, span in doc.spans.items()},
        default_line=doc.frontmatter_line,
    )
    for key in nested:
        # Retired wherever it is: one message pointing at the fix, none about the rest of it.
        line = nested_lines(doc, key).get("redisclose", doc.line_of(key))
        problems.append(Problem(where, line, "error", f"{key}.{MIGRATE_HINT}"))
    if "redisclose" in doc.meta or nested:
        # One message pointing at the fix, not a second one about the curve it replaces.
        problems = [p for p in problems if p.message != "missing required field 'curve'"]
    when = values.get("when")
    if not isinstance(when, dict):
        lanes = Lanes()
    else:
        lane_values, found = _check_when(doc, when, where, {})
        if found:  # rare: only then are the lanes' own lines worth finding
            lane_values, found = _check_when(doc, when, where, nested_lines(doc, "when"))
        problems.extend(found)
        prompt, commands = lane_values.get("prompt"), lane_values.get("commands")
        lanes = Lanes(
            prompt=prompt,
            keywords=lane_values.get("keywords") or (),
            files=lane_values.get("files") or (),
            commands=commands,
            session_start=bool(lane_values.get("session_start")),
            prompt_hints=PROMPT.literals(prompt) if prompt else None,
            commands_hints=COMMANDS.literals(commands) if commands else None,
        )
    curve = None
    raw_curve = values.get("curve")
    if isinstance(raw_curve, dict) and "curve" not in nested:
        try:
            curve = curve_from_dict(raw_curve)
        except CurveError as exc:
            line = nested_lines(doc, "curve").get(exc.field or "", doc.line_of("curve"))
            problems.append(Problem(where, line, "error", f"curve: {exc}"))
    if any(p.severity == "error" for p in problems) or curve is None:
        return None, problems
    way = Way(
        id=way_id,
        file=where,
        description=values["description"].strip(),
        lanes=lanes,
        curve=curve,
        axis=values["axis"],
        scope=values["scope"],
        roles=values["roles"],
        macro=values["macro"],
        has_macro=has_macro,
        has_postcheck=has_postcheck,
    )
    return way, problems


def _check_when(
    doc: Document, when: dict[str, Any], where: str, lines: dict[str, int]
) -> tuple[dict[str, Any], list[Problem]]:
    return WHEN_SCHEMA.check(
        when, path=where, lines=lines, default_line=doc.line_of("when"), qualifier="when."
    )


def parse_way_file(
    file: str,
    way_id: str,
    *,
    has_macro: bool = False,
    has_postcheck: bool = False,
    data: bytes | None = None,
) -> tuple[Way | None, list[Problem]]:
    """Read and check one way file (`data`: its bytes, when read already); the problems are its
    errors (warnings need the repo)."""
    try:
        doc = read_document(file, data)
    except DocumentError as exc:
        return None, list(exc.problems)
    way, problems = check_way(doc, way_id, has_macro=has_macro, has_postcheck=has_postcheck)
    return way, [p for p in problems if p.severity == "error"]


# Compiled when first needed (only a way with problems needs it): compiling it costs a first
# load, which imports this module, 600,000 instructions.
_NESTED_KEY = r"^([ \t]+)([A-Za-z_][\w-]*)[ \t]*:(?:\s|$)"


def nested_lines(doc: Document, key: str) -> dict[str, int]:
    """Return the 1-based lines of the keys directly inside a top-level block mapping."""
    span = doc.spans.get(key)
    if span is None or span.one_line:
        return {}
    block = doc.text[span.block_start : span.block_end].split("\n")
    found: dict[str, int] = {}
    indent: int | None = None
    for offset, line in enumerate(block[1:], start=1):
        match = re.match(_NESTED_KEY, line)
        if match is None:
            continue
        width = len(match.group(1).expandtabs())
        if indent is None:
            indent = width
        if width == indent:
            found.setdefault(match.group(2), span.line + offset)
    return found
