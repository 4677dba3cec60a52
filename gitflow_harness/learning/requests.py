"""Graduation requests: a pill that recurred enough, proposed as a rule, and what became of it.

A request is `requests/<YYYY-MM-DD>-<name>.md` (name = the pill's key with `/` as `__`, and
`-again`, `-again-2`, … when that name is taken). Its id is the file name without `.md`.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from gitflow_harness.errors import UsageError
from gitflow_harness.learning.folders import layout_folder
from gitflow_harness.learning.request_names import file_name, request_id
from gitflow_harness.store.schema import (
    REQUIRED,
    Choice,
    Date,
    Field,
    Int,
    Invalid,
    Mapping_,
    Problem,
    Schema,
    Str,
)

# Not `typing.TYPE_CHECKING`: `gfh pills check` does not import typing (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final, NamedTuple
else:
    from gitflow_harness.records import NamedTuple

KIND: Final = "harness-request"
STATUSES: Final = ("open", "closed", "declined")
COMMIT_ID = re.compile(r"[0-9a-f]{4,64}")
DATED = re.compile(r"^(?P<date>\d{4}-\d{2}-\d{2})-(?P<rest>.+)$")
_AGAIN = re.compile(r"^-again(?:-(?P<n>[2-9]|[1-9]\d+))?$")


class Core(Mapping_):
    description = "a mapping {gfh: VERSION, ways: TREE or null}"

    def __call__(self, value: Any) -> dict[str, Any]:
        mapping = super().__call__(value)
        if not isinstance(mapping.get("gfh"), str) or not mapping["gfh"]:
            raise Invalid("expected core.gfh: the gfh version it was filed with")
        if (
            "ways" in mapping
            and mapping["ways"] is not None
            and not isinstance(mapping["ways"], str)
        ):
            raise Invalid("expected core.ways: the ways tree id, or null")
        return mapping


REQUEST_SCHEMA: Final = Schema(
    "request",
    (
        Field("kind", Choice(KIND), REQUIRED, f"always {KIND!r}"),
        Field("status", Choice(*STATUSES), REQUIRED, "open until answered or declined"),
        Field("date", Date(), REQUIRED, "when it was filed"),
        Field("core", Core(), REQUIRED, "the gfh version and ways tree it was filed against"),
        Field("target", Str(nonempty=True, one_line=True), REQUIRED, "the proposed rule's home"),
        Field("pill", Str(nonempty=True, one_line=True), REQUIRED, "the pill's key, `role/slug`"),
        Field("occurrences", Int(min=1), REQUIRED, "the pill's occurrences when filed"),
        Field("rule_in", Str(nonempty=True, one_line=True), None, "closed: the rule's file"),
        Field("answered_in", Str(nonempty=True, one_line=True), None, "closed: its commit"),
        Field("declined", Str(nonempty=True), None, "declined: why"),
        Field(
            "reopens", Str(nonempty=True, one_line=True), None, "a reopening: the file it reopens"
        ),
    ),
)


# NamedTuples, not dataclasses: `gfh pills check` runs on every commit that touches a pill.
class Request(NamedTuple):
    """One parsed request."""

    path: Path
    rel: str
    id: str  # the file name without .md
    status: str
    date: dt.date
    core: dict[str, Any]
    target: str
    pill: str
    occurrences: int
    rule_in: str | None
    answered_in: str | None
    declined: str | None
    reopens: str | None
    lines: dict[str, int]

    @property
    def order(self) -> tuple[dt.date, int, str]:
        """Sort key: filed date, then the `-again` count, then the name."""
        return (self.date, again_of(self.id, self.pill) or 0, self.id)

    def line(self, key: str) -> int:
        return self.lines.get(key, 1)


def again_of(request: str, pill_key: str) -> int | None:
    """Return the `-again` count of a request id filed for `pill_key`; None if it is not one.

    The pill is needed: a slug may itself end in `-again`, so the name alone cannot tell.
    """
    match = DATED.match(request)
    if match is None:
        return None
    name = file_name(pill_key)
    rest = match["rest"]
    if rest == name:
        return 0
    suffix = _AGAIN.match(rest.removeprefix(name)) if rest.startswith(name) else None
    if suffix is None:
        return None
    again = int(suffix["n"]) if suffix["n"] else 1
    # Filing names files with request_id: accept exactly the names it can make.
    return again if request_id(match["date"], pill_key, again) == request else None


def candidates(day: dt.date, pill_key: str) -> Iterable[str]:
    """Yield the file names to try for a new request, in order: plain, -again, -again-2, …"""
    again = 0
    while True:
        yield f"{request_id(day, pill_key, again)}.md"
        again += 1


class Ledger(NamedTuple):
    """Every request in the requests folder, and every problem met reading them."""

    root: Path
    root_rel: str
    requests: tuple[Request, ...]
    problems: tuple[Problem, ...]

    def for_pill(self, key: str) -> list[Request]:
        """Return the requests naming pill `key`, oldest first."""
        return sorted((r for r in self.requests if r.pill == key), key=lambda r: r.order)

    def latest(self, key: str) -> Request | None:
        found = self.for_pill(key)
        return found[-1] if found else None

    def find(self, given: str) -> Request:
        return resolve(self.requests, given)


def load_ledger(top: Path, root_rel: str) -> Ledger:
    """Parse every request file under `top/root_rel`."""
    root = layout_folder(top, root_rel, "paths.requests")
    requests: list[Request] = []
    problems: list[Problem] = []
    files = sorted(p for p in root.glob("*.md") if p.is_file()) if root.is_dir() else []
    for path in files:
        if path.name == "README.md":
            continue
        # YAML is imported only when there is a request to read (~15 ms).
        from gitflow_harness.store import documents

        rel = path.relative_to(top).as_posix()
        try:
            doc = documents.read_document(path)
        except documents.DocumentError as exc:
            problems.extend(p._replace(path=rel) for p in exc.problems)
            continue
        values, found = documents.check(doc, REQUEST_SCHEMA)
        found = [p._replace(path=rel) for p in found]
        problems.extend(found)
        if any(p.severity == "error" for p in found):
            continue
        requests.append(
            Request(
                path=path,
                rel=rel,
                id=path.stem,
                status=values["status"],
                date=values["date"],
                core=values["core"],
                target=values["target"],
                pill=values["pill"],
                occurrences=values["occurrences"],
                rule_in=values["rule_in"],
                answered_in=values["answered_in"],
                declined=values["declined"],
                reopens=values["reopens"],
                lines={k: s.line for k, s in doc.spans.items()},
            )
        )
    return Ledger(root=root, root_rel=root_rel, requests=tuple(requests), problems=tuple(problems))


def resolve(requests: Sequence[Request], given: str) -> Request:
    """Find a request by its id (file name without .md), a path to it, or a unique id prefix."""
    text = Path(given.strip()).name.removesuffix(".md")
    for req in requests:
        if req.id == text:
            return req
    matches = [r for r in requests if r.id.startswith(text)] if text else []
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise UsageError(
            f"{given!r} matches several requests: "
            + ", ".join(sorted(r.id for r in matches))
            + "; give more of the id"
        )
    raise UsageError(f"no request {given!r}; `gfh requests list` shows them")
