"""What the git-stage pre-commit hooks decide, from git's own facts.

`gfh-record-update` (post-merge, post-rewrite, post-commit): did the step that just finished
(a merge, a rebase, a merge commit finished by hand) bring the trunk into the current branch?
Then the branch took in the trunk without `gfh update`, and a `git.update` event says so.
`gfh-gate-push` (pre-push): was the tree about to be pushed judged red?

Both read only git (the branch's reflog, the trunk's tips, ancestry, the pushed commit's tree)
and what pre-commit passes in the environment; neither trusts a message an agent wrote.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from gitflow_harness import git
from gitflow_harness.errors import UsageError
from gitflow_harness.store.events import Event
from gitflow_harness.store.session_env import session_from_env
from gitflow_harness.workflow.gate_index import read_gate
from gitflow_harness.workflow.hook_input import PushedRef
from gitflow_harness.workflow.record import record_update
from gitflow_harness.workflow.trunk_steps import ADDS_ONE_COMMIT, Step, trunk_came_in
from gitflow_harness.workspace import Workspace

if TYPE_CHECKING:
    from gitflow_harness.workflow.gate_index import Gate

# What pre-commit exports to the hooks of each stage.
REWRITE_ENV: Final = "PRE_COMMIT_REWRITE_COMMAND"  # post-rewrite: "amend" | "rebase"
SQUASH_ENV: Final = "PRE_COMMIT_IS_SQUASH_MERGE"  # post-merge: "0" | "1"


# -- post-merge / post-rewrite -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TrunkUpdate:
    """The trunk came into `branch` by `via`: `onto` is the trunk commit, `head` the result."""

    branch: str
    via: str  # merge | rebase | pull
    trunk: str
    onto: str
    head: str


@dataclass(frozen=True, slots=True)
class UpdateCheck:
    """What the hook found: an update (and the event recording it), or why there is none."""

    update: TrunkUpdate | None
    reason: str
    event: Event | None = None

    def to_dict(self) -> dict[str, Any]:
        u = self.update
        return {
            "recorded": self.event is not None,
            "reason": self.reason,
            "update": None if u is None else dataclasses.asdict(u),
            "event": self.event.id if self.event is not None else None,
        }


def find_trunk_update(
    repo: git.Repo,
    configured_trunk: str = "",
    *,
    rewrite_command: str | None = None,
    squash: bool = False,
    stage: str | None = None,
) -> UpdateCheck:
    """Decide whether the step that just finished brought the trunk into HEAD's branch.

    The step is the branch's newest reflog entry (a merge, a pull, a rebase, a merge commit
    finished by hand, ...); it brought the trunk in when a tip of the trunk (local, or a
    remote's copy) is in the branch now and was not before it (`trunk_steps`). Merging an
    unrelated branch, an ordinary commit, amending, a squash merge (nothing is committed yet)
    and work on the trunk itself are not updates. `stage` is the git hook that asks
    (`post-merge`, `post-rewrite`, `post-commit`; None by hand): without a reflog, only the
    first two say what the step was.
    """
    if rewrite_command is not None and rewrite_command != "rebase":
        return UpdateCheck(None, f"`{rewrite_command}` rewrote commits; it brings nothing in")
    if squash:
        return UpdateCheck(None, "a squash merge only stages changes; nothing was merged")
    head = git.head(repo)
    if head.branch is None or head.sha is None:
        return UpdateCheck(None, "HEAD is not on a branch with commits")
    trunk = git.detect_trunk(repo, configured_trunk)
    if trunk is None:
        return UpdateCheck(None, "no trunk found (set [repository] trunk in .gitflow-harness.toml)")
    if head.branch == trunk:
        return UpdateCheck(None, f"{trunk} is the trunk")
    step = _last_step(repo, head.branch, head.sha, stage=stage)
    if step is None:
        return UpdateCheck(None, f"cannot tell what the last step of {head.branch} was")
    if step.before is None and step.action not in ADDS_ONE_COMMIT:
        return UpdateCheck(
            None, f"cannot tell where {head.branch} was before its last step ({step.verb})"
        )
    tips = [sha for _ref, sha in git.trunk_tips(repo, trunk)]
    onto = trunk_came_in(step, tips, lambda a, d: git.is_ancestor(repo, a, d))
    if onto is None:
        return UpdateCheck(
            None, f"the {step.verb} brought no new commits of {trunk} into {head.branch}"
        )
    update = TrunkUpdate(head.branch, step.via, trunk, onto, head.sha)
    return UpdateCheck(update, f"{head.branch} took in {trunk} at {git.short(onto)} by {step.via}")


def record_trunk_update(ws: Workspace, env: Mapping[str, str]) -> UpdateCheck:
    """Append a `git.update` when the merge or rebase that just finished brought the trunk in.

    `env` is the hook's environment: the stage's `PRE_COMMIT_*` variables, the session's
    (`GFH_SESSION`, or the host's own: `session_env.session_from_env`), and
    `GFH_UPDATE_RUNNING` when `gfh update` ran the git command (it records that update itself).
    """
    found = find_trunk_update(
        ws.repo,
        ws.config.repository.trunk,
        rewrite_command=env.get(REWRITE_ENV) or None,
        squash=env.get(SQUASH_ENV) == "1",
        stage=stage_of(env),
    )
    update = found.update
    if update is None:
        return found
    event = record_update(
        ws.log,
        branch=update.branch,
        via=update.via,
        trunk=update.trunk,
        onto=update.onto,
        head=update.head,
        surface="git",
        session=session_from_env(env),
        env=env,
    )
    if event is None:
        return UpdateCheck(update, "`gfh update` ran this git command and records it itself")
    return UpdateCheck(update, f"recorded: {found.reason}", event)


def stage_of(env: Mapping[str, str]) -> str | None:
    """Return `post-rewrite` or `post-merge` from what pre-commit exports to them, else None
    (post-commit exports nothing, and neither does a run by hand)."""
    if env.get(REWRITE_ENV):
        return "post-rewrite"
    if env.get(SQUASH_ENV):
        return "post-merge"
    return None


def _last_step(repo: git.Repo, branch: str, head: str, *, stage: str | None) -> Step | None:
    """Return the step that left `branch` at `head`: its newest reflog entry, or None."""
    entries = git.reflog(repo, f"refs/heads/{branch}", limit=2)
    if entries and entries[0].sha == head:
        if len(entries) > 1:
            before = entries[1].sha
        elif entries[0].message.startswith("branch: Created"):
            before = None  # the branch began here: there was no "before"
        else:  # the older entries expired: merges and rebases leave it in ORIG_HEAD
            before = git.resolve(repo, "ORIG_HEAD")
        return Step(entries[0].message, before, head)
    # No reflog for the branch (core.logAllRefUpdates off, or expired): a post-merge or
    # post-rewrite stage says what ran, and git leaves the branch's previous commit in
    # ORIG_HEAD for merges and rebases. After a commit ORIG_HEAD is stale: nothing to say.
    if entries or stage not in ("post-merge", "post-rewrite"):
        return None
    action = "rebase (finish)" if stage == "post-rewrite" else "merge"
    return Step(f"{action}: (no reflog)", git.resolve(repo, "ORIG_HEAD"), head)


# -- pre-push ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PushVerdict:
    """Whether a push may go ahead, and the one line that says why."""

    allowed: bool
    policy: str
    ref: str  # what is pushed: a branch name, a tag ref, or a commit
    commit: str | None
    tree: str | None
    gate: Gate | None
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "allowed": self.allowed,
            "policy": self.policy,
            "ref": self.ref,
            "commit": self.commit,
            "tree": self.tree,
            "gate": self.gate,
            "message": self.message,
        }


def judge_push(ws: Workspace, *, commit: str | None, local_ref: str | None) -> PushVerdict:
    """Decide whether the commit a push sends may go, from the latest gate of its tree.

    `commit` is what is pushed (pre-commit's `PRE_COMMIT_TO_REF`, which it leaves unset for a
    push that includes the root commit); without it, `local_ref` (`PRE_COMMIT_LOCAL_BRANCH`);
    without either, HEAD. Under `gate.push = "block-red"` a red tree is refused;
    `"require-green"` also refuses a tree no gate judged; `"off"` allows everything. Tags are
    not gated.
    """
    policy = ws.config.gate.push
    repo = ws.repo
    name = _display_ref(local_ref) if local_ref else None
    if policy == "off":
        return PushVerdict(True, policy, name or "HEAD", commit, None, None, "gate.push is off")
    if local_ref is not None and local_ref.startswith("refs/tags/"):
        return PushVerdict(True, policy, local_ref, commit, None, None, "tags are not gated")
    rev = commit or local_ref or "HEAD"
    sha = git.resolve(repo, rev)
    if sha is None:
        raise UsageError(f"{rev!r} names no commit in {repo.top or repo.git_dir}")
    if name is None and commit is None:
        name = git.head(repo).branch  # judging HEAD: name its branch
    label = name or git.short(sha)
    tree = git.tree_of(repo, sha)
    record = read_gate(repo, tree)
    gate = record.gate if record is not None else None
    if gate == "red":
        assert record is not None
        message = (
            f"refusing to push {label}: its tree {git.short(tree)} (of commit {git.short(sha)}) "
            f"was judged red by `gfh {record.verb}` at {record.at}; fix the failure, commit, "
            "and run `gfh test` (or `gfh done`) on that commit with a clean tree until it is "
            "green, then push again"
        )
        return PushVerdict(False, policy, label, sha, tree, gate, message)
    if gate is None and policy == "require-green":
        message = (
            f"refusing to push {label}: no gate has judged its tree {git.short(tree)} "
            f"(of commit {git.short(sha)}) and gate.push is require-green; run `gfh test` (or "
            "`gfh done`) on that commit with a clean tree, then push again"
        )
        return PushVerdict(False, policy, label, sha, tree, gate, message)
    said = "green" if gate == "green" else "not judged yet"
    message = f"{label}: the gate of tree {git.short(tree)} is {said} ({policy}): push allowed"
    return PushVerdict(True, policy, label, sha, tree, gate, message)


def _display_ref(ref: str) -> str:
    return ref.removeprefix("refs/heads/")


def judge_refs(ws: Workspace, refs: Sequence[PushedRef] | None) -> list[PushVerdict]:
    """Judge every ref a push sends (deletions send nothing and are skipped); None: HEAD."""
    if refs is None:
        return [judge_push(ws, commit=None, local_ref=None)]
    return [
        judge_push(ws, commit=r.local_sha, local_ref=r.local_ref or None)
        for r in refs
        if not r.deletion
    ]
