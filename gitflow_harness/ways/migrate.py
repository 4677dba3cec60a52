"""`gfh ways migrate`: give every way a curve, by line surgery.

`redisclose: N` (the retired re-disclosure interval) becomes
`curve: {type: Exponential, half_life: N*2000}` on the same line, keeping any comment after it;
a way with neither gets `curve: {type: Exponential, half_life: <ways.default_half_life>}` after
its description. Every other byte stays; running it again finds nothing to do.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from gitflow_harness.errors import GfhError
from gitflow_harness.store import documents
from gitflow_harness.store.documents import Document, DocumentError
from gitflow_harness.store.schema import Problem

REDISCLOSE_TICKS = 2000  # one re-disclosure unit, in tokens


@dataclass(frozen=True)
class Migration:
    """One way file's planned rewrite."""

    path: Path
    before: str
    after: str
    bom: bool
    change: str  # one line saying what changes

    def diff(self, label: str | None = None) -> str:
        """Return the change as a unified diff."""
        name = label or str(self.path)
        return "".join(
            difflib.unified_diff(
                self.before.splitlines(keepends=True),
                self.after.splitlines(keepends=True),
                fromfile=f"a/{name}",
                tofile=f"b/{name}",
            )
        )


def plan(files: Iterable[Path], default_half_life: int) -> tuple[list[Migration], list[Problem]]:
    """Return the rewrites the way files need, and the files that cannot be migrated."""
    migrations: list[Migration] = []
    problems: list[Problem] = []
    for path in files:
        try:
            doc = documents.read_document(path)
        except DocumentError as exc:
            problems.extend(exc.problems)
            continue
        try:
            found = _migrate(doc, default_half_life)
        except _CannotMigrate as exc:
            problems.append(Problem(str(path), doc.line_of("redisclose"), "error", exc.message))
            continue
        if found is not None:
            after, change = found
            migrations.append(Migration(path, doc.text, after, doc.bom, change))
    return migrations, problems


def apply(migration: Migration) -> None:
    """Write one migration atomically, unless the file changed since it was planned."""
    current, _ = documents.read_text(migration.path)
    if current != migration.before:
        raise GfhError(f"{migration.path}: changed since it was read; run `gfh ways migrate` again")
    documents.write_text(migration.path, migration.after, bom=migration.bom)


class _CannotMigrate(GfhError):
    pass


def _curve_line(half_life: int) -> str:
    return f"curve: {{type: Exponential, half_life: {half_life}}}"


def _migrate(doc: Document, default_half_life: int) -> tuple[str, str] | None:
    has_curve = "curve" in doc.meta
    if "redisclose" in doc.meta:
        span = doc.spans["redisclose"]
        if has_curve:
            return (
                documents.remove_field(doc, "redisclose"),
                "removed redisclose (the way already declares a curve)",
            )
        value = doc.meta["redisclose"]
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise _CannotMigrate(
                f"redisclose: expected a positive number, got {value!r}; "
                "replace it with a curve by hand (see docs/ways.md)"
            )
        half_life = max(1, round(value * REDISCLOSE_TICKS))
        line = _curve_line(half_life)
        if span.one_line:
            # Keep whatever follows the value on its line (a comment, the newline).
            text = doc.text[: span.block_start] + line + doc.text[span.value_end :]
        else:
            text = documents.replace_block(doc, "redisclose", [line])
        return text, f"redisclose: {value} -> {line}"
    if has_curve:
        return None
    line = _curve_line(default_half_life)
    return (
        documents.insert_lines(doc, [line], after="description"),
        f"added {line} (ways.default_half_life)",
    )
