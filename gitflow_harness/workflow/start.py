"""`start NAME [--from REF]`: a new branch in its own worktree."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from gitflow_harness import git
from gitflow_harness.errors import RepoStateError, UsageError
from gitflow_harness.hints import hint
from gitflow_harness.workflow.facts import Facts, require_trunk
from gitflow_harness.workflow.result import INLINE, VerbData, VerbResult, key
from gitflow_harness.workspace import Workspace


@dataclass(frozen=True, slots=True)
class Created(VerbData):
    head: str


@dataclass(frozen=True, slots=True)
class Existing(VerbData):
    """The branch has its worktree already: pointed to."""

    head: str
    existing: bool = True


@dataclass(frozen=True, slots=True)
class Adopted(VerbData):
    """The branch had no worktree: given one."""

    head: str
    adopted: bool = True


@dataclass(frozen=True, slots=True)
class BranchElsewhere(VerbData):
    reason: str  # branch-exists
    checked_out_at: str


@dataclass(frozen=True, slots=True)
class PathTaken(VerbData):
    reason: str  # path-exists


StartDetail = Created | Existing | Adopted | BranchElsewhere | PathTaken


@dataclass(frozen=True, slots=True)
class StartData(VerbData):
    branch: str
    start_point: str | None = field(metadata=key("from"))  # None: the branch existed
    path: str  # the worktree's directory
    details: StartDetail | None = field(default=None, metadata=INLINE)


def worktree_path(ws: Workspace, branch: str) -> Path:
    """Return where `start` puts the worktree of `branch` (`repository.worktrees`)."""
    repo = ws.repo
    anchor = repo.main_top or os.path.dirname(repo.common_dir)
    root = Path(ws.config.repository.worktrees.replace("{repo}", repo.name)).expanduser()
    if not root.is_absolute():
        root = anchor / root
    # One directory per branch: "feature/parser" lives in "feature-parser".
    return Path(os.path.normpath(root)) / branch.replace("/", "-")


def start(ws: Workspace, name: str, *, base: str | None = None) -> VerbResult:
    """Create branch `name` from the trunk (or `base`) in a new worktree; an existing branch
    gets a worktree of its own if it has none, and one that has one is pointed to."""
    repo = ws.repo
    repo.worktree()  # a bare repository has no main checkout to anchor the worktrees on
    facts = Facts(ws)
    if not git.valid_branch_name(repo, name):
        raise UsageError(
            f"{name!r} is not a valid branch name (see `git check-ref-format --branch`); "
            "try something like feature/parser"
        )
    if base is None:
        head = facts.head
        configured = ws.config.repository.trunk
        if head.unborn and git.local_trunk(repo, configured) is None:
            # Not "no trunk": the trunk is there, it only has no commit to branch from yet.
            unborn = head.branch or "HEAD"
            if unborn == configured or (not configured and unborn in ("main", "master")):
                what = f"the trunk {unborn!r} has no commits yet; make a first commit on it"
            else:
                what = f"this repository has no commits yet (HEAD is the unborn {unborn!r}); "
                what += "make a first commit"
            raise RepoStateError(f"{what}, then run `gfh start {name}` again")
        start_point = require_trunk(ws)
    else:
        if not git.ref_exists(repo, base):
            raise UsageError(f"--from {base!r}: no such commit, branch or tag")
        start_point = base
    path = worktree_path(ws, name)
    data = StartData(name, start_point, str(path))
    if git.branch_exists(repo, name):
        return _existing(ws, facts, name, path, data)
    if path.exists():
        return _path_taken(facts, path, data)
    git.worktree_add(repo, path, name, start_point)
    from gitflow_harness.hookcall.settings import prune_cache
    from gitflow_harness.ways.index import prune_caches

    prune_caches()  # one more worktree, one more ways cache: the long unused ones go
    prune_cache()  # and the configurations no worktree has read for a month
    return VerbResult(
        "start",
        "ok",
        replace(data, details=Created(git.rev_parse(repo, name))),
        hints=(hint("start-created", path=path),),
        facts=facts.snapshot(),
        message=str(path),
    )


def _existing(ws: Workspace, facts: Facts, name: str, path: Path, data: StartData) -> VerbResult:
    """Branch `name` exists: print its worktree, or give it one (a branch made before gfh)."""
    repo = ws.repo
    where = next((w.path for w in git.worktrees(repo) if w.branch == name), None)
    data = replace(data, start_point=None)
    if where is not None and where.is_dir():
        return VerbResult(
            "start",
            "ok",
            replace(data, path=str(where), details=Existing(git.rev_parse(repo, name))),
            hints=(hint("start-existing", branch=name, path=where),),
            facts=facts.snapshot(),
            message=str(where),
        )
    if where is not None:
        return VerbResult(
            "start",
            "refused",
            replace(data, details=BranchElsewhere("branch-exists", str(where))),
            hints=(hint("start-branch-exists", branch=name, where=_where(where)),),
            facts=facts.snapshot(),
            message=f"branch {name} already exists",
        )
    if path.exists():
        return _path_taken(facts, path, data)
    git.worktree_checkout(repo, path, name)
    return VerbResult(
        "start",
        "ok",
        replace(data, details=Adopted(git.rev_parse(repo, name))),
        hints=(hint("start-adopted", branch=name, path=path),),
        facts=facts.snapshot(),
        message=str(path),
    )


def _where(path: Path | None) -> str:
    if path is None:
        return ""
    if not path.is_dir():
        # Deleted by hand: git still counts the branch as checked out there until pruned.
        return f" (checked out at {path}, which no longer exists: run `git worktree prune`)"
    return f" (checked out at {path})"


def _path_taken(facts: Facts, path: Path, data: StartData) -> VerbResult:
    """Refuse: the new worktree's directory is already there (never written over)."""
    return VerbResult(
        "start",
        "refused",
        replace(data, details=PathTaken("path-exists")),
        hints=(hint("start-path-exists", path=path),),
        facts=facts.snapshot(),
        message=f"{path} already exists",
    )
