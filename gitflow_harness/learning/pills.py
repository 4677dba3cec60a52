"""Pills: lessons as committed files, their declared schema, their place, and their rules.

A pill lives at `pills/<role>/<slug>.md` (one role) or `pills/shared/<slug>.md` (several), and
once retired under `pills/retired/<role|shared>/<slug>.md`. Its *key* is `<role|shared>/<slug>`
wherever it sits, so a pill keeps its name (and its requests) when it is retired.
"""

from __future__ import annotations

import datetime as dt
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from gitflow_harness import __version__
from gitflow_harness.errors import GfhError, UsageError
from gitflow_harness.learning.cache import cached, markdown_stamps
from gitflow_harness.learning.folders import layout_folder
from gitflow_harness.store.schema import (
    REQUIRED,
    Choice,
    Date,
    Field,
    Int,
    Problem,
    Schema,
    Str,
    StrList,
)

# Not `typing.TYPE_CHECKING`: `gfh pills check` does not import typing (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final, NamedTuple
else:
    from gitflow_harness.records import NamedTuple

SHARED: Final = "shared"
RETIRED: Final = "retired"
SEVERITIES: Final = ("low", "medium", "high")
STATUSES: Final = ("active", "retired")
SECTIONS: Final = ("What went wrong", "Rule", "Why", "How to apply")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")

PILL_SCHEMA: Final = Schema(
    "pill",
    (
        Field(
            "id", Str(nonempty=True, one_line=True), REQUIRED, "`<folder>-<slug>`, from its place"
        ),
        Field(
            "applies_to",
            StrList(item=Str(nonempty=True), nonempty=True),
            REQUIRED,
            "the roles (agent types) it applies to",
        ),
        Field("severity", Choice(*SEVERITIES), REQUIRED, "how much it costs when forgotten"),
        Field("status", Choice(*STATUSES), REQUIRED, "retired once its request was answered"),
        Field("date", Date(), REQUIRED, "when the lesson was learned"),
        Field("last_seen", Date(), REQUIRED, "when it last recurred: not before date, not future"),
        Field("occurrences", Int(min=1), REQUIRED, "how often it happened"),
        Field("trigger", Str(nonempty=True), REQUIRED, "when it applies: the index shows this"),
        Field(
            "citations",
            StrList(item=Str(nonempty=True)),
            (),
            "`path` or `path:line` in this repository; must resolve",
        ),
        Field("source", Str(), "", "where it was learned (a pull request, a commit, a run)"),
    ),
)


# NamedTuples, not dataclasses: a frozen dataclass costs about five times as much to define
# (~0.5 ms each on these machines), on every run of the commands that import this module.
class Place(NamedTuple):
    """Where a pill file sits under the pills root."""

    folder: str  # a role, or "shared"
    slug: str
    retired: bool  # under retired/

    @property
    def key(self) -> str:
        return f"{self.folder}/{self.slug}"

    @property
    def id(self) -> str:
        return f"{self.folder}-{self.slug}"

    def rel(self, root: str) -> str:
        """Return the repo-relative path of this place under the pills root `root`."""
        middle = f"{RETIRED}/" if self.retired else ""
        return f"{root}/{middle}{self.folder}/{self.slug}.md"


class Pill(NamedTuple):
    """One parsed pill."""

    path: Path  # absolute
    rel: str  # repo-relative, posix
    place: Place
    id: str
    applies_to: tuple[str, ...]
    severity: str
    status: str
    date: dt.date
    last_seen: dt.date
    occurrences: int
    trigger: str
    citations: tuple[str, ...]
    source: str
    body: str
    body_line: int
    lines: dict[str, int]  # field -> 1-based line

    @property
    def key(self) -> str:
        return self.place.key

    @property
    def active(self) -> bool:
        return self.status == "active"

    @property
    def roles(self) -> tuple[str, ...]:
        """The roles it applies to: its folder's role (unless shared) and `applies_to`."""
        own = () if self.place.folder == SHARED else (self.place.folder,)
        return tuple(dict.fromkeys((*own, *self.applies_to)))

    def applies(self, role: str) -> bool:
        return role in self.roles

    def line(self, key: str) -> int:
        return self.lines.get(key, 1)


def is_name(text: str) -> bool:
    """True for a usable role or slug: letters, digits, `_`, `.`, `-`, not starting with one."""
    return bool(_NAME.match(text))


def place_of(rel_to_root: Sequence[str]) -> Place | None:
    """Return the place of a file given its path parts under the pills root, or None."""
    parts = list(rel_to_root)
    retired = bool(parts) and parts[0] == RETIRED
    if retired:
        parts = parts[1:]
    if len(parts) != 2 or not parts[1].endswith(".md"):
        return None
    folder, slug = parts[0], parts[1][: -len(".md")]
    if folder == RETIRED or not is_name(folder) or not is_name(slug):
        return None
    return Place(folder=folder, slug=slug, retired=retired)


class Catalog(NamedTuple):
    """Every pill under the pills root, and every problem met reading them."""

    root: Path  # absolute pills root
    root_rel: str  # as configured, e.g. "pills"
    pills: tuple[Pill, ...]
    problems: tuple[Problem, ...]

    def find(self, given: str, *, top: Path, cwd: Path | None = None) -> Pill:
        """Resolve PILL as a path, a key (`role/slug`), an id, or a unique prefix of an id."""
        try:
            return resolve(self.pills, given, top=top, cwd=cwd)
        except UsageError:
            # The pill may exist but not parse: say why rather than that it does not exist.
            name = given.strip().removesuffix(".md").split("/")[-1]
            for problem in self.problems:
                if problem.severity == "error" and Path(problem.path).stem == name:
                    raise GfhError(f"{problem} (fix it, then run again)") from None
            raise

    def applying_to(self, role: str) -> list[Pill]:
        return [p for p in self.pills if p.applies(role)]


def pill_files(root: Path) -> dict[str, list[int]]:
    """{path under the pills root: stamp} of every `*.md` in it except a top-level README, in
    path order (folder by folder)."""
    if not root.is_dir():
        return {}
    found = markdown_stamps(root, depth=sys.maxsize, unlisted=PermissionError)
    found.pop("README.md", None)
    return {name: found[name] for name in sorted(found, key=lambda name: name.split("/"))}


def load_catalog(top: Path, root_rel: str) -> Catalog:
    """Parse every pill under `top/root_rel`; a file that cannot be used becomes problems.

    An unchanged file is not parsed again: what it gave is taken from the catalog cache."""
    root = layout_folder(top, root_rel, "paths.pills")
    stamps = pill_files(root)
    # (path, its name under the root, its place): each path taken apart once, not per use.
    found = [(root / name, name, place_of(name.split("/"))) for name in stamps]
    placed = {name: (path, place) for path, name, place in found if place}
    files = {name: stamps[name] for name in placed}
    parsed = cached(root, "catalog", CATALOG_VERSION, files, lambda name: _record(*placed[name]))
    prefix = root.relative_to(top).as_posix() if found else "."
    pills: list[Pill] = []
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    for path, name, place in found:
        rel = name if prefix == "." else f"{prefix}/{name}"
        if place is None:
            problems.append(
                Problem(
                    rel,
                    None,
                    "error",
                    f"not a pill's place: pills live at {root_rel}/<role>/<slug>.md, "
                    f"{root_rel}/{SHARED}/<slug>.md or under {root_rel}/{RETIRED}/ "
                    "(names: letters, digits, '_', '.', '-')",
                )
            )
            continue
        pill, more = _from_record(parsed[name], path, rel, place)
        problems.extend(more)
        if pill is None:
            continue
        if place.key in seen:
            problems.append(
                Problem(
                    rel,
                    None,
                    "error",
                    f"pill {place.key} also exists as {seen[place.key]}; keep one of them",
                )
            )
            continue
        seen[place.key] = rel
        pills.append(pill)
    return Catalog(root=root, root_rel=root_rel, pills=tuple(pills), problems=tuple(problems))


# The catalog cache's format; a new gfh may parse differently, so its version is part of it.
CATALOG_VERSION: Final = f"catalog-1-{__version__}"


def _record(path: Path, place: Place) -> dict[str, Any]:
    """Parse one pill file into what the catalog cache keeps: its fields (None when unusable)
    and its problems, both without the paths, which the caller knows."""
    pill, problems = parse_pill(path, "", place)
    fields = None
    if pill is not None:
        fields = {
            "id": pill.id,
            "applies_to": list(pill.applies_to),
            "severity": pill.severity,
            "status": pill.status,
            "date": pill.date.isoformat(),
            "last_seen": pill.last_seen.isoformat(),
            "occurrences": pill.occurrences,
            "trigger": pill.trigger,
            "citations": list(pill.citations),
            "source": pill.source,
            "body": pill.body,
            "body_line": pill.body_line,
            "lines": pill.lines,
        }
    return {"pill": fields, "problems": [[p.line, p.severity, p.message] for p in problems]}


def _from_record(
    record: dict[str, Any], path: Path, rel: str, place: Place
) -> tuple[Pill | None, list[Problem]]:
    problems = [
        Problem(rel, line, severity, message) for line, severity, message in record["problems"]
    ]
    fields = record["pill"]
    if fields is None:
        return None, problems
    pill = Pill(
        path=path,
        rel=rel,
        place=place,
        id=fields["id"],
        applies_to=tuple(fields["applies_to"]),
        severity=fields["severity"],
        status=fields["status"],
        date=dt.date.fromisoformat(fields["date"]),
        last_seen=dt.date.fromisoformat(fields["last_seen"]),
        occurrences=fields["occurrences"],
        trigger=fields["trigger"],
        citations=tuple(fields["citations"]),
        source=fields["source"],
        body=fields["body"],
        body_line=fields["body_line"],
        lines=fields["lines"],
    )
    return pill, problems


def parse_pill(path: Path, rel: str, place: Place) -> tuple[Pill | None, list[Problem]]:
    """Parse one pill file; return it (None when its fields are unusable) and its problems."""
    from gitflow_harness.store import documents

    try:
        doc = documents.read_document(path)
    except documents.DocumentError as exc:
        return None, [p._replace(path=rel) for p in exc.problems]
    values, problems = documents.check(doc, PILL_SCHEMA)
    problems = [p._replace(path=rel) for p in problems]
    if any(p.severity == "error" for p in problems):
        return None, problems
    pill = Pill(
        path=path,
        rel=rel,
        place=place,
        id=values["id"],
        applies_to=values["applies_to"],
        severity=values["severity"],
        status=values["status"],
        date=values["date"],
        last_seen=values["last_seen"],
        occurrences=values["occurrences"],
        trigger=values["trigger"],
        citations=values["citations"],
        source=values["source"],
        body=doc.body,
        body_line=doc.body_line,
        lines={k: s.line for k, s in doc.spans.items()},
    )
    return pill, problems


def check_rules(pill: Pill, *, today: dt.date, root_rel: str) -> list[Problem]:
    """Return the problems of a parsed pill beyond its field types (citations aside)."""
    out: list[Problem] = []

    def add(key: str | None, severity: str, message: str) -> None:
        out.append(Problem(pill.rel, pill.line(key) if key else 1, severity, message))

    place = pill.place
    from gitflow_harness.learning.request_names import name_problem

    too_long = name_problem(place.key)
    if too_long is not None:
        add(None, "error", too_long)
    if pill.id != place.id:
        add("id", "error", f"id {pill.id!r} does not match its place: expected {place.id!r}")
    if pill.date > today:
        add("date", "error", f"date {pill.date} is in the future (today is {today})")
    if pill.last_seen > today:
        add(
            "last_seen",
            "error",
            f"last_seen {pill.last_seen} is in the future (today is {today}): it would silence "
            "the capture detector for its roles until then; use a date up to today",
        )
    if pill.last_seen < pill.date:
        add(
            "last_seen",
            "error",
            f"last_seen {pill.last_seen} is before date {pill.date}: a lesson cannot recur "
            "before it was learned",
        )
    for role in pill.applies_to:
        if role in (SHARED, RETIRED) or not is_name(role):
            add("applies_to", "error", f"applies_to: {role!r} is not a role name")
    if place.folder != SHARED:
        if place.folder not in pill.applies_to:
            add(
                "applies_to",
                "error",
                f"it sits in {place.folder}'s folder but applies to "
                f"{', '.join(pill.applies_to)}: move it to {root_rel}/"
                f"{pill.applies_to[0] if len(pill.applies_to) == 1 else SHARED}/ "
                f"or add {place.folder!r} to applies_to",
            )
        elif len(pill.applies_to) > 1:
            add(
                "applies_to",
                "note",
                f"it applies to several roles: {root_rel}/{SHARED}/ is its home",
            )
    if pill.status == "retired" and not place.retired:
        add(
            "status",
            "note",
            f"retired but outside {root_rel}/{RETIRED}/: `gfh pills tidy` moves it there",
        )
    elif pill.status == "active" and place.retired:
        add(
            "status",
            "note",
            f"active but under {root_rel}/{RETIRED}/: `gfh pills tidy` moves it back",
        )
    out.extend(_empty_sections(pill))
    missing = [s for s in SECTIONS if not _has_section(pill.body, s)]
    if missing:
        out.append(
            Problem(
                pill.rel,
                pill.body_line,
                "note",
                "body lacks the section(s) " + ", ".join(f"'## {s}'" for s in missing),
            )
        )
    return out


_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.MULTILINE)


def _empty_sections(pill: Pill) -> list[Problem]:
    """An error for a pill with no text of its own (the template `gfh pills new` wrote, its
    `<!-- -->` prompts still the only content), a note naming each section left empty."""
    body = _COMMENT.sub("", pill.body)
    parts = _HEADING.split(body)  # [before, title1, text1, title2, text2, ...]
    texts = {parts[i].strip().lower(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
    if not parts[0].strip() and not any(texts.values()):
        return [
            Problem(
                pill.rel,
                pill.body_line,
                "error",
                "the lesson has no text yet: write each section (the <!-- --> comments say what "
                "goes there), or delete the file",
            )
        ]
    empty = [s for s in SECTIONS if s.lower() in texts and not texts[s.lower()]]
    if not empty:
        return []
    named = ", ".join(f"'## {s}'" for s in empty)
    return [Problem(pill.rel, pill.body_line, "note", f"section(s) {named} left empty")]


# A heading of each section a pill's body should have: compiled once, searched per pill.
_SECTION_HEADINGS: Final = {
    title: re.compile(rf"^#{{1,6}}\s+{re.escape(title)}\s*#*\s*$", re.IGNORECASE | re.MULTILINE)
    for title in SECTIONS
}


def _has_section(body: str, title: str) -> bool:
    return bool(_SECTION_HEADINGS[title].search(body))


def resolve(pills: Iterable[Pill], given: str, *, top: Path, cwd: Path | None = None) -> Pill:
    """Find the pill named by a path, a key, an id, or a unique id prefix."""
    pills = list(pills)
    text = given.strip().removesuffix("/")
    candidate = Path(text)
    for base in (cwd or Path.cwd(), top):
        path = candidate if candidate.is_absolute() else base / candidate
        for pill in pills:
            if path.exists() and pill.path.exists() and path.resolve() == pill.path.resolve():
                return pill
    key = text.removesuffix(".md")
    for pill in pills:
        if key in (pill.key, pill.id, f"{RETIRED}/{pill.key}"):
            return pill
    matches = [
        p
        for p in pills
        if p.id.startswith(key) or p.key.startswith(key) or p.place.slug.startswith(key)
    ]
    if len(matches) == 1:
        return matches[0]
    if matches:
        names = ", ".join(sorted(p.key for p in matches))
        raise UsageError(f"{given!r} names several pills: {names}; give more of the name")
    raise UsageError(
        f"no pill named {given!r}; `gfh pills check` lists them (give a path, "
        "`role/slug`, or an id)"
    )
