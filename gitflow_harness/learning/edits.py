"""Changing pills: bump a recurrence, write a new one, put retired ones where they belong.

Edits are line surgery through `store.documents`: a bump changes the two values it must and
leaves every other byte of the file (comments, quoting, newline style, BOM) as it was.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from gitflow_harness import git
from gitflow_harness.errors import GfhError, UsageError
from gitflow_harness.learning.folders import require_folder
from gitflow_harness.learning.lock import held
from gitflow_harness.learning.pills import (
    PILL_SCHEMA,
    RETIRED,
    SECTIONS,
    SEVERITIES,
    SHARED,
    Catalog,
    Pill,
    Place,
    is_name,
)


@dataclass(frozen=True, slots=True)
class Bumped:
    pill: Pill
    occurrences: int
    last_seen: dt.date
    was: int  # the count read under the lock, so concurrent bumps each report their own step


def bump(repo: git.Repo, pill: Pill, *, on: dt.date, today: dt.date) -> Bumped:
    """Count one more occurrence of `pill` seen `on` a date; `last_seen` never moves back.

    The file is read again under the learning lock, so concurrent bumps each count.
    """
    from gitflow_harness.store import documents

    if on > today:
        raise UsageError(f"--date {on} is in the future (today is {today})")
    with held(repo):
        doc = documents.read_document(pill.path)
        values, problems = documents.check(doc, PILL_SCHEMA)
        errors = [p._replace(path=pill.rel) for p in problems if p.severity == "error"]
        if errors:
            raise documents.DocumentError(errors)
        if on < values["date"]:
            raise UsageError(
                f"--date {on} is before the pill's date {values['date']}: a lesson cannot "
                "recur before it was learned"
            )
        occurrences = values["occurrences"] + 1
        last_seen = max(values["last_seen"], on)
        text = documents.set_field(doc, "occurrences", occurrences)
        if last_seen != values["last_seen"]:
            # Re-parse: the first edit moved every offset after it.
            doc = documents.parse_document(text, doc.path, bom=doc.bom)
            text = documents.set_field(doc, "last_seen", last_seen)
        documents.save(doc, text)
    return Bumped(
        pill=pill, occurrences=occurrences, last_seen=last_seen, was=values["occurrences"]
    )


def new_pill(
    catalog: Catalog,
    top: Path,
    role: str,
    slug: str,
    *,
    trigger: str,
    applies_to: tuple[str, ...] = (),
    severity: str = "medium",
    source: str = "",
    today: dt.date,
) -> Path:
    """Write `pills/ROLE/SLUG.md` (or `pills/shared/SLUG.md`), never over an existing file."""
    from gitflow_harness.store import documents

    if role == RETIRED or not is_name(role):
        raise UsageError(
            f"{role!r} is not a role name (letters, digits, '_', '.', '-'; not {RETIRED!r})"
        )
    if not is_name(slug):
        raise UsageError(f"{slug!r} is not a slug (letters, digits, '_', '.', '-')")
    from gitflow_harness.learning.request_names import name_problem

    too_long = name_problem(f"{role}/{slug}")
    if too_long is not None:
        raise UsageError(f"pill {role}/{slug}: {too_long}")
    if severity not in SEVERITIES:
        raise UsageError(f"severity must be one of {', '.join(SEVERITIES)}")
    if not trigger.strip():
        raise UsageError("--trigger must say when the lesson applies")
    roles = tuple(dict.fromkeys(applies_to)) or ((role,) if role != SHARED else ())
    if role == SHARED and not roles:
        raise UsageError("a shared pill needs the roles it applies to: --applies-to ROLE ...")
    if role != SHARED and role not in roles:
        roles = (role, *roles)
    for name in roles:
        if name in (SHARED, RETIRED) or not is_name(name):
            raise UsageError(f"--applies-to {name!r} is not a role name")
    place = Place(folder=role, slug=slug, retired=False)
    for pill in catalog.pills:
        if pill.key == place.key:
            raise GfhError(
                f"{pill.rel} already holds pill {pill.key}; "
                f"`gfh pills bump {pill.key}` counts another occurrence"
            )
    path = top / place.rel(catalog.root_rel)
    folder = path.parent.relative_to(top).as_posix()
    require_folder(top, folder, f"{role}'s pills go in a folder there: move the file away")
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "id": place.id,
        "applies_to": list(roles),
        "severity": severity,
        "status": "active",
        # Two equal but distinct objects: the YAML dumper would write one as an alias of the other.
        "date": dt.date(today.year, today.month, today.day),
        "last_seen": dt.date(today.year, today.month, today.day),
        "occurrences": 1,
        "trigger": " ".join(trigger.split()),
        "citations": [],
        "source": source,
    }
    hints = {
        "What went wrong": "What happened, concretely: the command, the file, the symptom.",
        "Rule": "The rule that would have prevented it, in one or two sentences.",
        "Why": "Why the rule holds: the mechanism, not the anecdote.",
        "How to apply": "What to check or run, and when.",
    }
    body = "\n".join(f"## {s}\n\n<!-- {hints[s]} -->\n" for s in SECTIONS)
    documents.create(path, meta, body)
    return path


@dataclass(frozen=True, slots=True)
class Move:
    pill: Pill
    source: str  # repo-relative
    destination: str
    with_git: bool


def tidy_plan(catalog: Catalog) -> list[Move]:
    """Return the moves that put every pill where its status says: retired ones under retired/."""
    moves = []
    for pill in catalog.pills:
        retire = pill.status == "retired"
        if retire == pill.place.retired:
            continue
        place = Place(folder=pill.place.folder, slug=pill.place.slug, retired=retire)
        moves.append(Move(pill, pill.rel, place.rel(catalog.root_rel), with_git=False))
    return moves


def tidy(repo: git.Repo, root_rel: str, *, dry_run: bool = False) -> list[Move]:
    """Put every pill where its status says, under the learning lock; return the moves."""
    from gitflow_harness.learning.pills import load_catalog

    top = Path(repo.worktree())
    with held(repo):
        plan = tidy_plan(load_catalog(top, root_rel))
        return plan if dry_run else apply_moves(repo, top, plan)


def apply_moves(repo: git.Repo, top: Path, moves: list[Move]) -> list[Move]:
    """Carry out `moves`: `git mv` for tracked files, a rename otherwise; never over a file.

    The caller holds the learning lock.
    """
    if not moves:
        return []
    tracked = git.tracked(repo, [m.source for m in moves])
    done = []
    for move in moves:
        target = top / move.destination
        if target.exists():
            raise GfhError(
                f"cannot move {move.source}: {move.destination} already exists; "
                "merge the two pills by hand"
            )
        folder = target.parent.relative_to(top).as_posix()
        require_folder(top, folder, "the pill moves into a folder there: move the file away")
        target.parent.mkdir(parents=True, exist_ok=True)
        if move.source in tracked:
            git.move(repo, move.source, move.destination)
        else:
            (top / move.source).rename(target)
        done.append(Move(move.pill, move.source, move.destination, with_git=move.source in tracked))
        _prune_empty(top / move.source)
    return done


def retire_in_place(pill: Pill) -> bool:
    """Set `status: retired` by line surgery; return False when it already was."""
    from gitflow_harness.store import documents

    if pill.status == "retired":
        return False
    doc = documents.read_document(pill.path)
    documents.save(doc, documents.set_field(doc, "status", "retired"))
    return True


def _prune_empty(moved_from: Path) -> None:
    """Remove the folder a pill left if it is now empty (git does not keep empty folders)."""
    folder = moved_from.parent
    try:
        if folder.name != RETIRED and not any(folder.iterdir()):
            folder.rmdir()
    except OSError:
        pass
