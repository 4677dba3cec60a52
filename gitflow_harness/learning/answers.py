"""Answering a request with a committed rule, or declining it.

An answer closes the request (`rule_in`, `answered_in` = the abbreviated sha of the last commit
that touched the rule file) and retires the pill, moving it under `retired/`. A decline leaves
the pill as it is: active, or retired for a reopening. Both bring the request's `occurrences` up
to the pill's count at that moment: a relapse, or growth after a decline, is measured from the
decision, so recurrences while the request was in review are not taken for a comeback. Both are
line surgery: every other byte of both files stays as it was.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gitflow_harness import git
from gitflow_harness.errors import GfhError, UsageError
from gitflow_harness.learning.edits import Move, apply_moves, retire_in_place
from gitflow_harness.learning.lock import held
from gitflow_harness.learning.pills import Pill, Place, load_catalog
from gitflow_harness.learning.requests import Request, load_ledger
from gitflow_harness.store.config import Config


@dataclass(frozen=True, slots=True)
class Answered:
    request: Request
    rule_in: str
    answered_in: str
    pill: Pill
    retired: bool  # its status changed
    moved: Move | None


@dataclass(frozen=True, slots=True)
class Declined:
    request: Request
    why: str
    pill_status: str | None  # the pill's status, unchanged; None when it cannot be read


def answer(repo: git.Repo, config: Config, given: str, rule: str, *, cwd: Path) -> Answered:
    """Close request `given` with the rule committed at `rule`, and retire its pill."""
    with held(repo):
        return _answer(repo, config, given, rule, cwd=cwd)


def _answer(repo: git.Repo, config: Config, given: str, rule: str, *, cwd: Path) -> Answered:
    top = Path(repo.worktree())
    ledger = load_ledger(top, config.paths.requests)
    request = ledger.find(given)
    _require_open(request)
    rule_in = _repo_path(top, rule, cwd)
    target = top / rule_in
    if not target.exists():
        raise GfhError(f"{rule_in}: no such file; write and commit the rule first")
    if not target.is_file():
        raise UsageError(f"{rule_in} is a directory; give the rule's file (its way's .md)")
    if rule_in not in git.tracked(repo, [rule_in]):
        raise GfhError(
            f"{rule_in} is not tracked by git; commit it (`git add {rule_in} && git commit`) "
            "and answer again"
        )
    answered_in = git.last_commit_touching(repo, rule_in)
    if answered_in is None:
        raise GfhError(f"{rule_in} is staged but has no commit yet; commit it and answer again")
    catalog = load_catalog(top, config.paths.pills)
    pill = next((p for p in catalog.pills if p.key == request.pill), None)
    if pill is None:
        raise GfhError(
            f"{request.rel} names pill {request.pill}, which is not under {config.paths.pills}/ "
            "(or does not parse: `gfh pills check`); nothing was changed"
        )
    retired_place = Place(pill.place.folder, pill.place.slug, retired=True)
    destination = retired_place.rel(config.paths.pills)
    move = None
    if not pill.place.retired:
        if (top / destination).exists():
            raise GfhError(
                f"cannot retire {pill.rel}: {destination} already exists; "
                "merge the two pills by hand, then answer again"
            )
        move = Move(pill, pill.rel, destination, with_git=False)
    _set_fields(
        request.path,
        {
            "status": "closed",
            "rule_in": rule_in,
            "answered_in": answered_in,
            **_count_now(request, pill),
        },
    )
    retired = retire_in_place(pill)
    moved = apply_moves(repo, top, [move])[0] if move is not None else None
    return Answered(request, rule_in, answered_in, pill, retired, moved)


def decline(repo: git.Repo, config: Config, given: str, why: str) -> Declined:
    """Decline request `given`, saying why; its pill stays as it is."""
    reason = " ".join(why.split())
    if not reason:
        raise UsageError("--why must say why the request is declined")
    top = Path(repo.worktree())
    with held(repo):
        ledger = load_ledger(top, config.paths.requests)
        request = ledger.find(given)
        _require_open(request)
        pill = next(
            (p for p in load_catalog(top, config.paths.pills).pills if p.key == request.pill), None
        )
        fields = {"status": "declined", "declined": reason}
        _set_fields(request.path, {**fields, **(_count_now(request, pill) if pill else {})})
    return Declined(request, reason, pill.status if pill else None)


def _count_now(request: Request, pill: Pill) -> dict[str, Any]:
    """The request's `occurrences` brought up to the pill's count, when it grew in review."""
    return {"occurrences": pill.occurrences} if pill.occurrences > request.occurrences else {}


def _require_open(request: Request) -> None:
    if request.status == "closed":
        raise GfhError(
            f"{request.id} is already closed: answered in {request.answered_in} by "
            f"{request.rule_in}; nothing to do (when the lesson comes back, "
            "`gfh learn --check` files a reopening)"
        )
    if request.status == "declined":
        raise GfhError(
            f"{request.id} was declined ({request.declined}); a decision stands: when the lesson "
            "keeps recurring, `gfh learn --check` files a new request"
        )


def _repo_path(top: Path, given: str, cwd: Path) -> str:
    path = Path(given)
    absolute = path if path.is_absolute() else cwd / path
    try:
        rel = Path(_normalise(absolute)).relative_to(_normalise(top))
    except ValueError:
        raise UsageError(f"{given} is outside the repository {top}") from None
    if not rel.parts:
        raise UsageError(f"{given} is the repository itself; give the rule's file")
    return rel.as_posix()


def _normalise(path: Path) -> str:
    # realpath: a temp dir reached through a symlink must still count as inside the repository.
    return os.path.realpath(path)


def _set_fields(path: Path, values: dict[str, Any]) -> None:
    """Set several fields by line surgery, then write the file once."""
    from gitflow_harness.store import documents

    doc = documents.read_document(path)
    text = doc.text
    for key, value in values.items():
        doc = documents.parse_document(text, path, bom=doc.bom)
        text = documents.set_field(doc, key, value)
    documents.save(doc, text)
