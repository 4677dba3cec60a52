"""`update [--rebase]`: bring the local trunk into this branch, or leave it exactly as it was."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from gitflow_harness import git
from gitflow_harness.errors import GfhError
from gitflow_harness.hints import Hint, hint
from gitflow_harness.workflow.facts import Facts, require_trunk
from gitflow_harness.workflow.record import UPDATE_ENV, record_update
from gitflow_harness.workflow.result import INLINE, VerbData, VerbResult
from gitflow_harness.workspace import Workspace


@dataclass(frozen=True, slots=True)
class UpdateRefusal(VerbData):
    reason: str  # on-trunk


@dataclass(frozen=True, slots=True)
class DirtyTree(VerbData):
    reason: str  # dirty
    changed: int


@dataclass(frozen=True, slots=True)
class Already(VerbData):
    result: str  # already
    head: str
    onto: str


@dataclass(frozen=True, slots=True)
class Integrated(VerbData):
    result: str  # merged | rebased
    head: str
    onto: str
    brought_in: int | None  # the trunk's commits it brought in, when counted


@dataclass(frozen=True, slots=True)
class Conflict(VerbData):
    """The merge or rebase conflicted and was undone."""

    result: str  # conflict
    conflicts: list[str]
    head: str


@dataclass(frozen=True, slots=True)
class GitFailure(VerbData):
    result: str  # error
    error: str
    head: str


UpdateDetail = UpdateRefusal | DirtyTree | Already | Integrated | Conflict | GitFailure


@dataclass(frozen=True, slots=True)
class UpdateData(VerbData):
    branch: str
    trunk: str
    via: str  # merge | rebase
    details: UpdateDetail | None = field(default=None, metadata=INLINE)


def conflict_of(data: VerbData) -> Conflict | None:
    """The conflict an update undid, when `data` is of one."""
    if isinstance(data, UpdateData) and isinstance(data.details, Conflict):
        return data.details
    return None


def update(ws: Workspace, *, surface: str, rebase: bool = False) -> VerbResult:
    """Merge (or rebase onto) the local trunk; refuse a dirty tree; undo a conflict.

    `surface` is the entry point's channel (`cli`, `mcp`): the `git.update` this records
    carries it, as the entry point's `verb` event does.
    """
    repo = ws.repo
    head = git.require(repo, "gfh update")
    trunk = require_trunk(ws)
    facts = Facts(ws)
    via = "rebase" if rebase else "merge"
    assert head.branch is not None
    assert head.sha is not None
    data = UpdateData(head.branch, trunk, via)
    if head.branch == trunk:
        return _refused(
            facts,
            replace(data, details=UpdateRefusal("on-trunk")),
            hint("verb-on-trunk", verb="update", trunk=trunk),
            f"{trunk} is the trunk",
        )
    if facts.changes:
        return _refused(
            facts,
            replace(data, details=DirtyTree("dirty", len(facts.changes))),
            hint("update-dirty-tree", count=len(facts.changes)),
            "the working tree has uncommitted changes",
        )
    git.require_history(repo, head.branch, trunk, "gfh update")
    onto = git.rev_parse(repo, trunk)
    if git.is_ancestor(repo, onto, head.sha):
        return VerbResult(
            "update",
            "ok",
            replace(data, details=Already("already", head.sha, onto)),
            facts=facts.snapshot(),
            message=f"{head.branch} already contains {trunk}",
        )
    counts = facts.ahead_behind
    proc = git.integrate(repo, via, trunk, env={UPDATE_ENV: "1"})
    if proc.returncode != 0:
        return _undo(ws, facts, data, head.sha, via, proc)
    after = git.rev_parse(repo, "HEAD")
    record_update(
        ws.log,
        branch=head.branch,
        via=via,
        trunk=trunk,
        onto=onto,
        head=after,
        surface=surface,
        env={},
    )
    fresh = facts.refresh()
    return VerbResult(
        "update",
        "ok",
        replace(
            data,
            details=Integrated(
                "merged" if via == "merge" else "rebased",
                after,
                onto,
                counts.behind if counts is not None else None,
            ),
        ),
        hints=(hint("update-integrated", branch=head.branch, trunk=trunk),),
        facts=fresh.snapshot(),
        message=f"{head.branch}: {'merged' if via == 'merge' else 'rebased onto'} {trunk}",
    )


def _undo(
    ws: Workspace,
    facts: Facts,
    data: UpdateData,
    before: str,
    via: str,
    proc: Any,
) -> VerbResult:
    """Abort a failed merge or rebase, check the branch is back where it was, and report."""
    repo = ws.repo
    operation = git.operation_in_progress(repo)
    files = git.conflicted(repo) if operation is not None else []
    if operation is not None:
        git.abort(repo, operation)
    after = git.rev_parse(repo, "HEAD")
    if after != before or git.operation_in_progress(repo) is not None:
        raise GfhError(
            f"`git {via}` failed and could not be undone cleanly: HEAD is at {after[:10]}, was "
            f"{before[:10]}; inspect with `git status` (the branch's reflog has {before[:10]})"
        )
    trunk = data.trunk
    if files:
        how = (
            f"`git merge {trunk}`, resolve the files, then `git commit`"
            if via == "merge"
            else f"`git rebase {trunk}`, resolve each step, then `git rebase --continue`"
        )
        return VerbResult(
            "update",
            "failed",
            replace(data, details=Conflict("conflict", files, before)),
            hints=(hint("update-conflict", trunk=trunk, count=len(files), how=how),),
            facts=facts.refresh().snapshot(),
            message=f"{via} of {trunk} conflicts; undone",
        )
    first = git.first_line(proc.stderr + proc.stdout)
    return VerbResult(
        "update",
        "failed",
        replace(data, details=GitFailure("error", first, before)),
        facts=facts.refresh().snapshot(),
        message=f"`git {via} {trunk}` failed: {first}",
    )


def _refused(facts: Facts, data: UpdateData, h: Hint, message: str) -> VerbResult:
    return VerbResult(
        "update", "refused", data, hints=(h,), facts=facts.snapshot(), message=message
    )
