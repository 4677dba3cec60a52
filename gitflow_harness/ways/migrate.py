"""`gfh ways migrate`: give every way a curve, by line surgery.

`redisclose: N` (the retired re-disclosure interval) becomes
`curve: {type: Exponential, half_life: N*2000}` on the same line, keeping any comment after it;
a way with neither gets `curve: {type: Exponential, half_life: <ways.default_half_life>}` after
its description. Every other byte stays; running it again finds nothing to do.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gitflow_harness.errors import GfhError
from gitflow_harness.store import documents
from gitflow_harness.store.documents import Document, DocumentError
from gitflow_harness.store.schema import Problem
from gitflow_harness.ways.parse import nested_lines, nested_redisclose, without_redisclose

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
        """Return the change as a unified diff, marking a last line without a newline as git
        and patch do."""
        name = label or str(self.path)
        lines = difflib.unified_diff(
            self.before.splitlines(keepends=True),
            self.after.splitlines(keepends=True),
            fromfile=f"a/{name}",
            tofile=f"b/{name}",
        )
        return "".join(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
            for line in lines
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
            problems.append(Problem(str(path), _redisclose_line(doc), "error", exc.message))
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
    nested = nested_redisclose(doc.meta)
    if nested:
        return _migrate_nested(doc, nested, default_half_life)
    has_curve = "curve" in doc.meta
    if "redisclose" in doc.meta:
        span = doc.spans["redisclose"]
        if has_curve:
            return (
                documents.remove_field(doc, "redisclose"),
                "removed redisclose (the way already declares a curve)",
            )
        value = doc.meta["redisclose"]
        line = _curve_line(_half_life(value, "redisclose"))
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


_NESTED_LINE = re.compile(r"^[ \t]+(?:- )?redisclose[ \t]*:[^{}\[\],]*$")
_FLOW = (
    re.compile(r"[ \t]*,[ \t]*redisclose[ \t]*:[^,{}\[\]]*?(?=[ \t]*[,}])"),  # `, redisclose: N`
    re.compile(r"redisclose[ \t]*:[^,{}\[\]]*?,[ \t]*"),  # `redisclose: N, `
    re.compile(r"[ \t]*redisclose[ \t]*:[^,{}\[\]]*?(?=[ \t]*})"),  # its mapping's only key
)


def _migrate_nested(doc: Document, keys: list[str], default_half_life: int) -> tuple[str, str]:
    """Remove every `redisclose` inside a block (a line of its own, or an entry of a flow
    mapping); a way left without a curve gets one from the value, as a top-level one would."""
    lines = doc.text.split("\n")
    close = doc.body_line - 2  # the closing fence
    values = [v for v in _nested_values(doc.meta) if not isinstance(v, bool)]
    kept: list[str] = []
    for i, line in enumerate(lines):
        if 0 < i < close and not line.startswith("redisclose"):
            if _NESTED_LINE.match(line.rstrip("\r").split(" #")[0]):
                continue
            for pattern in _FLOW:
                line, removed = pattern.subn("", line, count=1)
                if removed:
                    break
        kept.append(line)
    where = ", ".join(f"`{k}:`" for k in keys)
    try:
        after = documents.parse_document("\n".join(kept), doc.path, bom=doc.bom)
    except DocumentError:
        after = None
    expected = {k: without_redisclose(v) if k in keys else v for k, v in doc.meta.items()}
    if after is None or _emptied(after.meta) != _emptied(expected):
        raise _CannotMigrate(
            f"redisclose inside {where}: cannot be removed safely; delete it by hand and give "
            "the way a curve (see docs/ways.md)"
        )
    change = f"removed redisclose from inside {where}"
    emptied = "curve" in after.meta and not after.meta["curve"]  # `curve: {}` or `curve:`
    if not emptied and ("curve" in after.meta or "redisclose" in after.meta):
        rest = _migrate(after, default_half_life)  # as if it had never been nested
        return (rest[0], f"{change}; {rest[1]}") if rest else (after.text, change)
    value = after.meta.get("redisclose", next(iter(values), None))
    line = _curve_line(_half_life(value, f"redisclose inside {where}"))
    if not emptied:
        text = documents.insert_lines(after, [line], after="description")
        return text, f"{change}; redisclose: {value} -> {line}"
    text = documents.replace_block(after, "curve", [line])
    if "redisclose" in after.meta:
        text = documents.remove_field(documents.parse_document(text, doc.path), "redisclose")
    return text, f"{change}; redisclose: {value} -> {line}"


def _redisclose_line(doc: Document) -> int:
    """The line of the top-level `redisclose`, else of the first nested one (or its block)."""
    if "redisclose" in doc.spans:
        return doc.line_of("redisclose")
    key = next(iter(nested_redisclose(doc.meta)), None)
    if key is None:
        return doc.frontmatter_line
    return nested_lines(doc, key).get("redisclose", doc.line_of(key))


def _emptied(value: Any) -> Any:
    """`value` with empty mappings read as null: removing a block's only line leaves `key:`."""
    if isinstance(value, dict):
        return {k: _emptied(v) for k, v in value.items()} or None
    if isinstance(value, list):
        return [_emptied(v) for v in value]
    return value


def _nested_values(meta: dict[str, Any]) -> list[Any]:
    out: list[Any] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if k == "redisclose":
                    out.append(v)
                else:
                    walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for key, value in meta.items():
        if not str(key).startswith("x-"):
            walk(value)
    return out


def _half_life(value: object, what: str) -> int:
    """The half-life a `redisclose: N` stands for, or why it cannot be migrated."""
    from gitflow_harness.firing.curves import MAX_HALF_LIFE

    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise _CannotMigrate(
            f"{what}: expected a positive number, got {value!r}; replace it with a curve by "
            "hand (see docs/ways.md)"
        )
    if value * REDISCLOSE_TICKS > MAX_HALF_LIFE:
        raise _CannotMigrate(
            f"{what}: {value!r} would be a half-life over {MAX_HALF_LIFE}, more than a curve "
            "takes; replace it with a curve by hand (see docs/ways.md)"
        )
    return max(1, round(value * REDISCLOSE_TICKS))
