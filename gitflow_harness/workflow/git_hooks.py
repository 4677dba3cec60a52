"""What the git-stage pre-commit hooks decide, from git's own facts.

`gfh-record-update` (post-merge, post-rewrite): was the trunk just merged or rebased into the
current branch? Then the branch took in the trunk without `gfh update`, and a `git.update`
event says so. `gfh-gate-push` (pre-push): was the tree about to be pushed judged red?

Both read only git (the branch's reflog, the trunk's tips, ancestry, the pushed commit's tree)
and what pre-commit passes in the environment; neither trusts a message an agent wrote.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from gitflow_harness import git
from gitflow_harness.errors import UsageError
from gitflow_harness.store.events import Event
from gitflow_harness.workflow.gate_index import Gate, read_gate
from gitflow_harness.workflow.record import record_update
from gitflow_harness.workspace import Workspace

# What pre-commit exports to the hooks of each stage (PROTOCOLS.md §4).
REWRITE_ENV: Final = "PRE_COMMIT_REWRITE_COMMAND"  # post-rewrite: "amend" | "rebase"
SQUASH_ENV: Final = "PRE_COMMIT_IS_SQUASH_MERGE"  # post-merge: "0" | "1"
TO_REF_ENV: Final = "PRE_COMMIT_TO_REF"  # pre-push: the local commit being pushed
LOCAL_BRANCH_ENV: Final = "PRE_COMMIT_LOCAL_BRANCH"  # pre-push: e.g. refs/heads/feature

PUSH_POLICIES: Final = ("block-red", "require-green", "off")


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
) -> UpdateCheck:
    """Decide whether the merge or rebase that just finished brought the trunk into HEAD's branch.

    It did when the branch's last step is a merge, pull or rebase (its reflog says which) and
    a tip of the trunk (local, or a remote's copy) is in the branch now but was not before
    that step. Merging an unrelated branch, amending, a squash merge (nothing is committed
    yet) and work on the trunk itself are not updates.
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
    step = _last_step(repo, head.branch, head.sha, rewrite_command=rewrite_command)
    if step is None:
        return UpdateCheck(None, f"the last step of {head.branch} was not a merge, pull or rebase")
    via, before = step
    if before is None:
        return UpdateCheck(None, f"cannot tell where {head.branch} was before the {via}")
    came_in = [
        (ref, sha)
        for ref, sha in git.trunk_tips(repo, trunk)
        if git.is_ancestor(repo, sha, head.sha) and not git.is_ancestor(repo, sha, before)
    ]
    if not came_in:
        return UpdateCheck(None, f"the {via} brought no new commits of {trunk} into {head.branch}")
    onto = _newest(repo, came_in)
    update = TrunkUpdate(head.branch, via, trunk, onto, head.sha)
    return UpdateCheck(update, f"{head.branch} took in {trunk} at {git.short(onto)} by {via}")


def record_trunk_update(ws: Workspace, env: Mapping[str, str]) -> UpdateCheck:
    """Append a `git.update` when the merge or rebase that just finished brought the trunk in.

    `env` is the hook's environment: the stage's `PRE_COMMIT_*` variables, `GFH_SESSION`, and
    `GFH_UPDATE_RUNNING` when `gfh update` ran the git command (it records that update itself).
    """
    found = find_trunk_update(
        ws.repo,
        ws.config.repository.trunk,
        rewrite_command=env.get(REWRITE_ENV) or None,
        squash=env.get(SQUASH_ENV) == "1",
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
        session=env.get("GFH_SESSION") or None,
        env=env,
    )
    if event is None:
        return UpdateCheck(update, "`gfh update` ran this git command and records it itself")
    return UpdateCheck(update, f"recorded: {found.reason}", event)


def _last_step(
    repo: git.Repo, branch: str, head: str, *, rewrite_command: str | None
) -> tuple[str, str | None] | None:
    """Return (via, the branch's commit before) of the step that left `branch` at `head`."""
    entries = git.reflog(repo, f"refs/heads/{branch}", limit=2)
    if entries and entries[0].sha == head:
        via = _via(entries[0].message)
        if via is None:
            return None
        before = entries[1].sha if len(entries) > 1 else git.resolve(repo, "ORIG_HEAD")
        return via, before
    # No reflog for the branch (core.logAllRefUpdates off, or expired): the stage says what
    # ran, and git leaves the branch's previous commit in ORIG_HEAD for merges and rebases.
    if entries:
        return None
    via = "rebase" if rewrite_command == "rebase" else "merge"
    return via, git.resolve(repo, "ORIG_HEAD")


def _via(message: str) -> str | None:
    """Classify a reflog message: "merge main: …", "pull --rebase (finish): …", "rebase …"."""
    action = message.partition(":")[0].split()
    if not action:
        return None
    if action[0] == "pull":
        return "pull"
    if action[0] == "merge":
        return "merge"
    if action[0] == "rebase" and "(finish)" in action:
        return "rebase"
    return None


def _newest(repo: git.Repo, tips: list[tuple[str, str]]) -> str:
    """Return the tip the others lead to (the local trunk when they diverged): what came in."""
    newest = tips[0][1]
    for _ref, sha in tips[1:]:
        if sha != newest and git.is_ancestor(repo, newest, sha):
            newest = sha
    return newest


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
            f"refusing to push {label}: its tree {git.short(tree)} ({git.short(sha)}) was judged "
            f"red by `gfh {record.verb}` at {record.at}; fix the failure, commit, and run "
            "`gfh test` (or `gfh done`) on that commit with a clean tree until it is green, "
            "then push again"
        )
        return PushVerdict(False, policy, label, sha, tree, gate, message)
    if gate is None and policy == "require-green":
        message = (
            f"refusing to push {label}: no gate has judged its tree {git.short(tree)} "
            f"({git.short(sha)}) and gate.push is require-green; run `gfh test` (or "
            "`gfh done`) on that commit with a clean tree, then push again"
        )
        return PushVerdict(False, policy, label, sha, tree, gate, message)
    said = "green" if gate == "green" else "not judged yet"
    message = f"{label}: the gate of tree {git.short(tree)} is {said} ({policy}): push allowed"
    return PushVerdict(True, policy, label, sha, tree, gate, message)


def _display_ref(ref: str) -> str:
    return ref.removeprefix("refs/heads/")
