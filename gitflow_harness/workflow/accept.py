"""`accept`: fast-forward the trunk to a branch with a green receipt, then tidy up."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitflow_harness import git
from gitflow_harness.errors import RepoStateError
from gitflow_harness.hints import ACCEPT_DIRTY_REMEDIES, Hint, hint
from gitflow_harness.workflow.facts import Facts, require_trunk
from gitflow_harness.workflow.gate_index import read_gate
from gitflow_harness.workflow.result import INLINE, Outcome, VerbData, VerbResult
from gitflow_harness.workspace import Workspace


@dataclass(frozen=True, slots=True)
class AcceptRefusal(VerbData):
    reason: str  # on-trunk, trunk-not-merged, trunk-checkout-dirty


@dataclass(frozen=True, slots=True)
class NoReceipt(VerbData):
    reason: str
    tree: str | None
    gate: str | None  # the tree's judgement when it has one: red


@dataclass(frozen=True, slots=True)
class DirtyTree(VerbData):
    reason: str
    changed: int
    remedy: str  # a key of ACCEPT_DIRTY_REMEDIES


@dataclass(frozen=True, slots=True)
class FastForwardFailed(VerbData):
    reason: str
    error: str


@dataclass(frozen=True, slots=True)
class Accepted(VerbData):
    trunk_from: str
    trunk_to: str
    removed_worktree: str | None
    removed_ignored: list[str]
    deleted_branch: bool
    main_checkout: str
    left: list[str]  # what stayed, each with how to finish it


AcceptDetail = AcceptRefusal | NoReceipt | DirtyTree | FastForwardFailed | Accepted


@dataclass(frozen=True, slots=True)
class AcceptData(VerbData):
    branch: str
    trunk: str
    head: str
    details: AcceptDetail = field(metadata=INLINE)


@dataclass(frozen=True, slots=True)
class Candidate:
    """The branch asked to be accepted."""

    ws: Workspace
    facts: Facts
    branch: str
    trunk: str
    head: str

    def data(self, details: AcceptDetail) -> AcceptData:
        return AcceptData(self.branch, self.trunk, self.head, details)


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a branch is not accepted: the envelope's reason, the hint, the one line."""

    details: AcceptDetail
    hint: Hint
    message: str


def on_a_branch(c: Candidate) -> Refusal | None:
    if c.branch != c.trunk:
        return None
    h = hint("verb-on-trunk", verb="accept", trunk=c.trunk)
    return Refusal(AcceptRefusal("on-trunk"), h, f"{c.trunk} is the trunk")


def shares_history(c: Candidate) -> Refusal | None:
    """The branch and the trunk have a merge base (a shallow clone may not know it): raises."""
    git.require_history(c.ws.repo, c.branch, c.trunk, "gfh accept")
    return None


def committed(c: Candidate) -> Refusal | None:
    """Refuse a dirty tree, saying what committing would do: when the changes themselves were
    judged green by `done`, committing exactly them reproduces the judged tree."""
    changes = c.facts.changes
    if not changes:
        return None
    count = len(changes)
    kind = "untracked" if all(ch.untracked for ch in changes) else "changed"
    record = read_gate(c.ws, c.facts.tree)
    if record is not None and record.gate == "green" and record.receipt:
        remedy = "judged"
        message = f"{count} uncommitted change(s): commit them as they are, the receipt covers them"
    else:
        remedy = kind
        message = f"{count} uncommitted change(s): a receipt covers committed work only"
    h = hint("accept-dirty-tree", count=count, kind=kind, remedy=ACCEPT_DIRTY_REMEDIES[remedy])
    return Refusal(DirtyTree("dirty", count, remedy), h, message)


def green_receipt(c: Candidate) -> Refusal | None:
    record = read_gate(c.ws, c.facts.tree)
    if record is not None and record.gate == "green" and record.receipt:
        return None
    return Refusal(
        NoReceipt("no-receipt", c.facts.tree, record.gate if record else None),
        hint("accept-needs-green"),
        "no green receipt from `gfh done` for this tree",
    )


def contains_trunk(c: Candidate) -> Refusal | None:
    if git.is_ancestor(c.ws.repo, c.trunk, c.head):
        return None
    return Refusal(
        AcceptRefusal("trunk-not-merged"),
        hint("gate-failure-merge", branch=c.branch, trunk=c.trunk),
        f"{c.trunk} has moved on: {c.branch} no longer contains it",
    )


# What a branch must be before the trunk moves to it, in the order it is checked.
PRECHECKS: tuple[Callable[[Candidate], Refusal | None], ...] = (
    on_a_branch,
    shares_history,
    committed,
    green_receipt,
    contains_trunk,
)


def accept(ws: Workspace) -> VerbResult:
    """Fast-forward the trunk to this branch (green receipt required), remove its worktree,
    delete the branch."""
    repo = ws.repo
    head = git.require(repo, "gfh accept")
    trunk = require_trunk(ws)
    assert head.branch is not None
    assert head.sha is not None
    c = Candidate(ws, Facts(ws), head.branch, trunk, head.sha)
    refusal = next((r for check in PRECHECKS if (r := check(c)) is not None), None)
    if refusal is not None:
        return _refused(c, refusal)
    snapshot = c.facts.snapshot()  # the state accepted; the worktree is gone afterwards
    trees = git.worktrees(repo)
    old_trunk = git.rev_parse(repo, trunk)
    stopped = _fast_forward(c, trees, old_trunk, snapshot)
    if stopped is not None:
        return stopped
    tidy = _tidy(c, trees)
    main_path = trees[0].path
    outcome: Outcome = "ok" if not tidy.left else "partial"
    done = Accepted(
        trunk_from=old_trunk,
        trunk_to=c.head,
        removed_worktree=tidy.removed,
        removed_ignored=tidy.dropped,
        deleted_branch=tidy.deleted,
        main_checkout=str(main_path),
        left=tidy.left,
    )
    return VerbResult(
        "accept",
        outcome,
        c.data(done),
        hints=(hint("accept-merged", trunk=trunk, short=c.head[:7], path=main_path),),
        facts=snapshot,
        message=f"{trunk} fast-forwarded {old_trunk[:7]}..{c.head[:7]}"
        + _dropped_note(tidy.dropped)
        + ("" if not tidy.left else "; " + "; ".join(tidy.left)),
    )


def _refused(c: Candidate, refusal: Refusal) -> VerbResult:
    return VerbResult(
        "accept",
        "refused",
        c.data(refusal.details),
        hints=(refusal.hint,),
        facts=c.facts.snapshot(),
        message=refusal.message,
    )


def _fast_forward(
    c: Candidate, trees: Sequence[git.Worktree], old_trunk: str, snapshot: dict[str, Any]
) -> VerbResult | None:
    """Move the trunk to the branch, in the checkout that has it; the result when it could not."""
    # A checkout deleted by hand (git calls it prunable) has nothing to fast-forward: move the
    # ref as when no checkout has the trunk.
    trunk_tree = next((w for w in trees if w.branch == c.trunk and w.path.is_dir()), None)
    if trunk_tree is None:
        message = f"gfh accept: fast-forward to {c.branch}"
        git.update_branch(c.ws.repo, c.trunk, c.head, old_trunk, message)
        return None
    checkout = git.discover(trunk_tree.path)
    if any(not ch.untracked for ch in git.changes(checkout)):
        return _refused(
            c,
            Refusal(
                AcceptRefusal("trunk-checkout-dirty"),
                hint("accept-trunk-busy", trunk=c.trunk, path=trunk_tree.path),
                f"the {c.trunk} checkout at {trunk_tree.path} has uncommitted changes",
            ),
        )
    proc = git.fast_forward_checkout(trunk_tree.path, c.head)
    if proc.returncode == 0:
        return None
    first = git.first_line(proc.stderr + proc.stdout)
    return VerbResult(
        "accept",
        "failed",
        c.data(FastForwardFailed("fast-forward-failed", first)),
        facts=snapshot,
        message=f"could not fast-forward {c.trunk} in {trunk_tree.path}: {first}",
    )


@dataclass(slots=True)
class Tidy:
    """What tidying up after the fast-forward did, and what it left."""

    removed: str | None = None  # the branch's worktree, removed
    dropped: list[str] = field(default_factory=list)  # its ignored files, gone with it
    deleted: bool = False  # the branch, deleted
    left: list[str] = field(default_factory=list)  # what stays, each with how to finish it


def _tidy(c: Candidate, trees: Sequence[git.Worktree]) -> Tidy:
    """Free the branch (remove its worktree, or switch the main checkout off it), delete it."""
    main_path = trees[0].path
    main = git.discover(main_path)
    tidy = Tidy()
    branch_tree = next((w for w in trees if w.branch == c.branch), None)
    if branch_tree is not None and branch_tree.path != main_path:
        _remove_worktree(main, branch_tree.path, tidy)
        if tidy.removed is not None:  # its ways cache goes with it
            from gitflow_harness.ways import ways_root
            from gitflow_harness.ways.index import forget_cache

            forget_cache(ways_root(branch_tree.path, c.ws.config.paths.ways))
    elif branch_tree is not None:
        _switch_main(c, trees, tidy)
    if tidy.left:
        tidy.left.append(
            f"branch {c.branch} stays; delete it with `git branch -d {c.branch}` once free"
        )
        return tidy
    proc = git.delete_branch(main, c.branch)
    tidy.deleted = proc.returncode == 0
    if not tidy.deleted:
        tidy.left.append(f"branch {c.branch} stays: {git.first_line(proc.stderr)}")
    return tidy


def _remove_worktree(main: git.Repo, path: Path, tidy: Tidy) -> None:
    # git removes ignored files with the worktree and says nothing: say which they were.
    ignored = git.ignored(path)
    proc = git.worktree_remove(main, path)
    if proc.returncode == 0:
        tidy.removed = str(path)
        tidy.dropped = ignored
    else:
        tidy.left.append(
            f"the worktree {path} stays: {git.first_line(proc.stderr)}; "
            f"remove it with `git worktree remove {path}`"
        )


def _switch_main(c: Candidate, trees: Sequence[git.Worktree], tidy: Tidy) -> None:
    """The branch is checked out in the main checkout: switch that to the trunk."""
    proc = git.switch(trees[0].path, c.trunk)
    if proc.returncode == 0:
        return
    stale = next((w for w in trees if w.branch == c.trunk and not w.path.is_dir()), None)
    if stale is not None:
        tidy.left.append(
            f"the main checkout stays on {c.branch}: git still counts {c.trunk} as checked out "
            f"at {stale.path}, which no longer exists; run `git worktree prune`, then "
            f"`git switch {c.trunk}`"
        )
    else:
        tidy.left.append(f"the main checkout stays on {c.branch}: {git.first_line(proc.stderr)}")


LOCK_NAME = "accept.lock"


@contextmanager
def accepting(cwd: Path | None = None) -> Iterator[None]:
    """Hold the repository's accept lock (in the git common dir) around one `gfh accept`.

    Two accepts at once would both fast-forward the trunk and remove the same worktree; the
    second would then run git in a directory that is gone. Under the lock the second finds
    what the first left: a worktree that was removed while it waited is refused in one line.
    """
    from gitflow_harness.store.fsutil import ensure_private_dir
    from gitflow_harness.store.locks import exclusive

    repo = git.discover(cwd)
    branch = _branch_file(repo)
    directory = Path(repo.common_dir, "gitflow-harness")
    ensure_private_dir(directory, root=repo.common_dir)
    with exclusive(directory / LOCK_NAME):
        gone = repo.top is not None and not (
            os.path.isdir(repo.top) and os.path.isdir(repo.git_dir)
        )
        if gone:
            what = f"{branch} was" if branch else "this branch was"
            main = f" ({repo.main_top})" if repo.main_top is not None else ""
            raise RepoStateError(
                f"already accepted by another run: {what} accepted while this one waited, and "
                f"its worktree {repo.top} is gone; cd to the main checkout{main}"
            )
        yield


def _branch_file(repo: git.Repo) -> str | None:
    """The branch HEAD names, read from the file (no git: the worktree may be going away)."""
    try:
        content = Path(repo.git_dir, "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return content.removeprefix("ref: refs/heads/") if content.startswith("ref: ") else None


def _dropped_note(dropped: list[str]) -> str:
    if not dropped:
        return ""
    shown = ", ".join(dropped[:5]) + (f" and {len(dropped) - 5} more" if len(dropped) > 5 else "")
    return f"; the worktree's ignored files went with it: {shown}"
