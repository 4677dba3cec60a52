"""The one gateway to git.

Every call is a plain `git` process (about 5 ms; importing GitPython costs about 130 ms),
started by `gitflow_harness.spawn` without the `subprocess` module where the platform
allows.
Every failure of a git command becomes a `GitError` naming the command, its exit code and what
it printed. Odd repository states (not a repository, bare, unborn, detached, shallow, mid-rebase,
mid-merge) each have one clear message saying how to get out of them.

Callers use this package as one module (`from gitflow_harness import git; git.head(repo)`);
the submodules only keep each part short: `core` (running git, discovery, states), `refs`
(commits by name, branches, the trunk), `tree` (working tree, worktrees, integrating) and
`history` (reflogs, log walks).
"""

from gitflow_harness.git.core import (
    HOW_TO_FINISH,
    Completed,
    GitError,
    Head,
    NotARepository,
    Pending,
    Repo,
    discover,
    discover_head,
    failure,
    first_line,
    head,
    head_branch,
    operation_in_progress,
    reaped,
    repo_at,
    require,
    run,
    split_z,
    start,
)
from gitflow_harness.git.refs import (
    AheadBehind,
    LocalTrunk,
    TrunkRefs,
    ahead_behind,
    branch_exists,
    commits_among,
    delete_branch,
    detect_trunk,
    history_cut,
    is_ancestor,
    local_branches,
    local_trunk,
    merge_base,
    read_local_trunk,
    ref_exists,
    require_history,
    require_trunk,
    resolve,
    rev_parse,
    root_commit,
    start_local_trunk,
    tree_of,
    trunk_tips,
    update_branch,
    valid_branch_name,
)
from gitflow_harness.git.tree import (
    MODIFIED,
    UNTRACKED,
    Change,
    Status,
    Worktree,
    abort,
    blob_id,
    blobs_at_head,
    changes,
    committed,
    conflicted,
    fast_forward_checkout,
    ignored,
    integrate,
    move,
    read_status,
    start_status,
    start_tracked,
    switch,
    tracked,
    tracked_at_head,
    tree_identity,
    worktree_add,
    worktree_checkout,
    worktree_remove,
    worktrees,
)

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitflow_harness.git.history import (
        ReflogEntry,
        added_between,
        commit_time,
        commits_touching,
        last_commit_touching,
        reflog,
        short,
        tree_short,
    )
else:
    # `history` (reflogs, log walks) loads when one of its names is first asked for: neither
    # `gfh status` nor the hook asks (its module is 0.7M instructions to import).
    HISTORY = frozenset(
        {
            "ReflogEntry",
            "added_between",
            "commit_time",
            "commits_touching",
            "last_commit_touching",
            "reflog",
            "short",
            "tree_short",
        }
    )

    def __getattr__(name: str) -> object:
        if name not in HISTORY:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        from gitflow_harness.git import history

        value = getattr(history, name)
        globals()[name] = value
        return value


__all__ = [
    "HOW_TO_FINISH",
    "MODIFIED",
    "UNTRACKED",
    "AheadBehind",
    "Change",
    "Completed",
    "GitError",
    "Head",
    "LocalTrunk",
    "NotARepository",
    "Pending",
    "ReflogEntry",
    "Repo",
    "Status",
    "TrunkRefs",
    "Worktree",
    "abort",
    "added_between",
    "ahead_behind",
    "blob_id",
    "blobs_at_head",
    "branch_exists",
    "changes",
    "commit_time",
    "commits_among",
    "commits_touching",
    "committed",
    "conflicted",
    "delete_branch",
    "detect_trunk",
    "discover",
    "discover_head",
    "failure",
    "fast_forward_checkout",
    "first_line",
    "head",
    "head_branch",
    "history_cut",
    "ignored",
    "integrate",
    "is_ancestor",
    "last_commit_touching",
    "local_branches",
    "local_trunk",
    "merge_base",
    "move",
    "operation_in_progress",
    "read_local_trunk",
    "read_status",
    "reaped",
    "ref_exists",
    "reflog",
    "repo_at",
    "require",
    "require_history",
    "require_trunk",
    "resolve",
    "rev_parse",
    "root_commit",
    "run",
    "short",
    "split_z",
    "start",
    "start_local_trunk",
    "start_status",
    "start_tracked",
    "switch",
    "tracked",
    "tracked_at_head",
    "tree_identity",
    "tree_of",
    "tree_short",
    "trunk_tips",
    "update_branch",
    "valid_branch_name",
    "worktree_add",
    "worktree_checkout",
    "worktree_remove",
    "worktrees",
]
