"""`accept`: fast-forward the trunk to a branch with a green receipt, then tidy up."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from gitflow_harness import git
from gitflow_harness.errors import RepoStateError
from gitflow_harness.hints import ACCEPT_DIRTY_REMEDIES, Hint, hint
from gitflow_harness.workflow.facts import Facts, require_trunk
from gitflow_harness.workflow.gate_index import read_gate
from gitflow_harness.workflow.result import Outcome, VerbResult
from gitflow_harness.workspace import Workspace


def accept(ws: Workspace) -> VerbResult:
    """Fast-forward the trunk to this branch (green receipt required), remove its worktree,
    delete the branch."""
    repo = ws.repo
    head = git.require(repo, "gfh accept")
    trunk = require_trunk(ws)
    assert head.branch is not None
    assert head.sha is not None
    branch = head.branch
    facts = Facts(ws)
    data: dict[str, Any] = {"branch": branch, "trunk": trunk, "head": head.sha}

    def refuse(reason: str, h: Hint, message: str, **extra: Any) -> VerbResult:
        return VerbResult(
            "accept",
            "refused",
            {**data, "reason": reason, **extra},
            hints=(h,),
            facts=facts.snapshot(),
            message=message,
        )

    if branch == trunk:
        return refuse(
            "on-trunk", hint("verb-on-trunk", verb="accept", trunk=trunk), f"{trunk} is the trunk"
        )
    git.require_history(repo, branch, trunk, "gfh accept")
    if facts.changes:
        return _refuse_dirty(ws, facts, refuse)
    record = read_gate(ws, facts.tree)
    if record is None or record.gate != "green" or not record.receipt:
        return refuse(
            "no-receipt",
            hint("accept-needs-green"),
            "no green receipt from `gfh done` for this tree",
            tree=facts.tree,
            gate=record.gate if record else None,
        )
    if not git.is_ancestor(repo, trunk, head.sha):
        return refuse(
            "trunk-not-merged",
            hint("gate-failure-merge", branch=branch, trunk=trunk),
            f"{trunk} has moved on: {branch} no longer contains it",
        )
    snapshot = facts.snapshot()  # the state accepted; the worktree is gone afterwards
    trees = git.worktrees(repo)
    main_path = trees[0].path
    main = git.discover(main_path)
    # A checkout deleted by hand (git calls it prunable) has nothing to fast-forward: move the
    # ref as when no checkout has the trunk.
    trunk_tree = next((w for w in trees if w.branch == trunk and w.path.is_dir()), None)
    branch_tree = next((w for w in trees if w.branch == branch), None)
    old_trunk = git.rev_parse(repo, trunk)

    if trunk_tree is not None:
        checkout = git.discover(trunk_tree.path)
        busy = [c for c in git.changes(checkout) if not c.untracked]
        if busy:
            return refuse(
                "trunk-checkout-dirty",
                hint("accept-trunk-busy", trunk=trunk, path=trunk_tree.path),
                f"the {trunk} checkout at {trunk_tree.path} has uncommitted changes",
            )
        proc = git.fast_forward_checkout(trunk_tree.path, head.sha)
        if proc.returncode != 0:
            first = git.first_line(proc.stderr + proc.stdout)
            return VerbResult(
                "accept",
                "failed",
                {**data, "reason": "fast-forward-failed", "error": first},
                facts=snapshot,
                message=f"could not fast-forward {trunk} in {trunk_tree.path}: {first}",
            )
    else:
        git.update_branch(repo, trunk, head.sha, old_trunk, f"gfh accept: fast-forward to {branch}")

    left: list[str] = []
    removed = None
    dropped: list[str] = []
    if branch_tree is not None and branch_tree.path != main_path:
        # git removes ignored files with the worktree and says nothing: say which they were.
        ignored = git.ignored(branch_tree.path)
        proc = git.worktree_remove(main, branch_tree.path)
        if proc.returncode == 0:
            removed = str(branch_tree.path)
            dropped = ignored
        else:
            left.append(
                f"the worktree {branch_tree.path} stays: {git.first_line(proc.stderr)}; "
                f"remove it with `git worktree remove {branch_tree.path}`"
            )
    elif branch_tree is not None:
        proc = git.switch(main_path, trunk)
        stale = next((w for w in trees if w.branch == trunk and not w.path.is_dir()), None)
        if proc.returncode != 0 and stale is not None:
            left.append(
                f"the main checkout stays on {branch}: git still counts {trunk} as checked out "
                f"at {stale.path}, which no longer exists; run `git worktree prune`, then "
                f"`git switch {trunk}`"
            )
        elif proc.returncode != 0:
            left.append(f"the main checkout stays on {branch}: {git.first_line(proc.stderr)}")
    deleted = False
    if not left:
        proc = git.delete_branch(main, branch)
        deleted = proc.returncode == 0
        if not deleted:
            left.append(f"branch {branch} stays: {git.first_line(proc.stderr)}")
    else:
        left.append(f"branch {branch} stays; delete it with `git branch -d {branch}` once free")
    outcome: Outcome = "ok" if not left else "partial"
    return VerbResult(
        "accept",
        outcome,
        {
            **data,
            "trunk_from": old_trunk,
            "trunk_to": head.sha,
            "removed_worktree": removed,
            "removed_ignored": dropped,
            "deleted_branch": deleted,
            "main_checkout": str(main_path),
            "left": left,
        },
        hints=(hint("accept-merged", trunk=trunk, short=head.sha[:7], path=main_path),),
        facts=snapshot,
        message=f"{trunk} fast-forwarded {old_trunk[:7]}..{head.sha[:7]}"
        + _dropped_note(dropped)
        + ("" if not left else "; " + "; ".join(left)),
    )


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
    directory = repo.common_dir / "gitflow-harness"
    ensure_private_dir(directory, root=repo.common_dir)
    with exclusive(directory / LOCK_NAME):
        gone = repo.top is not None and not (repo.top.is_dir() and repo.git_dir.is_dir())
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
        content = (repo.git_dir / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return content.removeprefix("ref: refs/heads/") if content.startswith("ref: ") else None


def _refuse_dirty(ws: Workspace, facts: Facts, refuse: Callable[..., VerbResult]) -> VerbResult:
    """Refuse a dirty tree, saying what committing would do: when the changes themselves were
    judged green by `done`, committing exactly them reproduces the judged tree."""
    count = len(facts.changes)
    kind = "untracked" if all(c.untracked for c in facts.changes) else "changed"
    record = read_gate(ws, facts.tree)
    if record is not None and record.gate == "green" and record.receipt:
        remedy = "judged"
        message = f"{count} uncommitted change(s): commit them as they are, the receipt covers them"
    else:
        remedy = kind
        message = f"{count} uncommitted change(s): a receipt covers committed work only"
    return refuse(
        "dirty",
        hint("accept-dirty-tree", count=count, kind=kind, remedy=ACCEPT_DIRTY_REMEDIES[remedy]),
        message,
        changed=count,
        remedy=remedy,
    )


def _dropped_note(dropped: list[str]) -> str:
    if not dropped:
        return ""
    shown = ", ".join(dropped[:5]) + (f" and {len(dropped) - 5} more" if len(dropped) > 5 else "")
    return f"; the worktree's ignored files went with it: {shown}"
