"""Refs: commits by name, branches, the trunk, ahead/behind."""

from __future__ import annotations

from gitflow_harness.errors import RepoStateError
from gitflow_harness.git.core import Completed, Pending, Repo, _cwd, failure, run, start
from gitflow_harness.git.ref_files import refs_from_files

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import NamedTuple
else:
    from gitflow_harness.records import NamedTuple


def resolve(repo: Repo, rev: str) -> str | None:
    """Return the full sha of commit `rev`, or None when it names no commit."""
    proc = run(["rev-parse", "-q", "--verify", f"{rev}^{{commit}}"], cwd=_cwd(repo), check=False)
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def ref_exists(repo: Repo, ref: str) -> bool:
    """True when `ref` names an existing commit."""
    return resolve(repo, ref) is not None


def rev_parse(repo: Repo, rev: str) -> str:
    """Return the full sha of commit `rev`; raise GitError when it names none."""
    return run(["rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=_cwd(repo)).stdout.strip()


def root_commit(repo: Repo, rev: str) -> str | None:
    """Return the root commit of `rev`'s history (the least sha, should it have several), or
    None when `rev` names no commit: the same in every clone, so it names the project."""
    proc = run(["rev-list", "--max-parents=0", rev, "--"], cwd=_cwd(repo), check=False)
    roots = proc.stdout.split()
    return min(roots) if proc.returncode == 0 and roots else None


def branch_exists(repo: Repo, name: str) -> bool:
    """True when a local branch `name` exists."""
    proc = run(["show-ref", "--verify", "-q", f"refs/heads/{name}"], cwd=_cwd(repo), check=False)
    return proc.returncode == 0


def local_branches(repo: Repo) -> set[str]:
    """Return the names of every local branch."""
    proc = run(["for-each-ref", "--format=%(refname)", "refs/heads/"], cwd=_cwd(repo))
    return {line.removeprefix("refs/heads/") for line in proc.stdout.splitlines() if line}


def valid_branch_name(repo: Repo, name: str) -> bool:
    """True when `name` is acceptable as a new branch name (`git check-ref-format --branch`)."""
    if name.startswith("-") or name == "HEAD":
        return False
    proc = run(["check-ref-format", "--branch", name], cwd=_cwd(repo), check=False)
    return proc.returncode == 0


# Where the trunk is looked for when none is configured, in this order after origin/HEAD.
_TRUNK_NAMES = ("main", "master")


def detect_trunk(repo: Repo, configured: str = "") -> str | None:
    """Return the trunk's local branch name: configured, else origin/HEAD, main, master."""
    if configured:
        return configured
    return _pick_trunk(_read_trunk_refs(_start_trunk_refs(repo, ())))


# {ref: (symref target or "", commit)} of the trunk's refs, as far as they exist.
TrunkRefs = dict[str, tuple[str, str]]

# The one ref read as a symbolic ref: which branch the remote's HEAD names.
_ORIGIN_HEAD = "refs/remotes/origin/HEAD"


def _start_trunk_refs(repo: Repo, also: Sequence[str]) -> Pending | TrunkRefs:
    """The refs of origin/HEAD, main, master and `also`: read from the ref files when they
    tell it as git would (`refs_from_files`), else the `git for-each-ref` started for them."""
    names = [_ORIGIN_HEAD, *(f"refs/heads/{name}" for name in _TRUNK_NAMES), *also]
    read = refs_from_files(repo, names)
    if read is not None:
        return read
    return start(
        ["for-each-ref", "--format=%(refname)%00%(symref)%00%(objectname)", *names],
        cwd=_cwd(repo),
        check=False,
    )


def _read_trunk_refs(started: Pending | TrunkRefs) -> TrunkRefs:
    """{ref: (symref target or "", commit)} of the refs `_start_trunk_refs` asked about, as far
    as they exist."""
    if isinstance(started, dict):
        return started
    refs: TrunkRefs = {}
    for line in started.result().stdout.splitlines():
        name, _, rest = line.partition("\0")
        target, _, sha = rest.partition("\0")
        refs[name] = (target, sha)
    return refs


def _pick_trunk(refs: dict[str, tuple[str, str]]) -> str | None:
    origin = refs.get("refs/remotes/origin/HEAD", ("", ""))[0]
    if origin.startswith("refs/remotes/origin/"):
        return origin.removeprefix("refs/remotes/origin/")
    return next((name for name in _TRUNK_NAMES if f"refs/heads/{name}" in refs), None)


def require_trunk(repo: Repo, configured: str = "") -> str:
    """Return the trunk, or refuse saying how to name one."""
    trunk = detect_trunk(repo, configured)
    if trunk is None:
        raise RepoStateError(
            "cannot find the trunk: no origin/HEAD, no `main`, no `master`; "
            'set [repository] trunk = "NAME" in .gitflow-harness.toml'
        )
    if not branch_exists(repo, trunk):
        raise RepoStateError(
            f"the trunk {trunk!r} has no local branch; create it (`git branch {trunk} "
            f"origin/{trunk}`) or set [repository] trunk in .gitflow-harness.toml"
        )
    return trunk


def local_trunk(repo: Repo, configured: str = "") -> str | None:
    """Return the trunk when it exists as a local branch, else None (see `require_trunk`)."""
    return read_local_trunk(repo, configured, start_local_trunk(repo, configured)).name


class LocalTrunk(NamedTuple):
    """The trunk's local branch and its commit; both None when there is none."""

    name: str | None
    sha: str | None


def start_local_trunk(repo: Repo, configured: str = "") -> Pending | TrunkRefs:
    """The trunk's refs `read_local_trunk` reads: from the ref files, or the one
    `git for-each-ref` started for them."""
    return _start_trunk_refs(repo, [f"refs/heads/{configured}"] if configured else [])


def read_local_trunk(repo: Repo, configured: str, started: Pending | TrunkRefs) -> LocalTrunk:
    """The trunk, from a `start_local_trunk` of the same `configured`.

    One reading finds the trunk, whether its branch exists and its commit, unless origin/HEAD
    names a branch other than main or master: that one is asked about on its own."""
    refs = _read_trunk_refs(started)
    name = configured or _pick_trunk(refs)
    if name is None:
        return LocalTrunk(None, None)
    ref = f"refs/heads/{name}"
    if ref in refs:
        return LocalTrunk(name, refs[ref][1] or None)
    if configured or name in _TRUNK_NAMES:
        return LocalTrunk(None, None)
    sha = _resolve_branch(repo, ref)
    return LocalTrunk(name, sha) if sha is not None else LocalTrunk(None, None)


def _resolve_branch(repo: Repo, ref: str) -> str | None:
    """The commit of branch `ref`, from its ref file when that tells it, else from git."""
    read = refs_from_files(repo, [ref])
    if read is None:
        return resolve(repo, ref)
    return read[ref][1] if ref in read else None


def trunk_tips(repo: Repo, trunk: str) -> list[tuple[str, str]]:
    """Return (ref, sha) of the local trunk and of every remote's copy of it, the local first.

    `git pull` merges the remote's trunk, which the local trunk may not have caught up with.
    """
    proc = run(
        [
            "for-each-ref",
            "--format=%(refname)%00%(objectname)",
            f"refs/heads/{trunk}",
            f"refs/remotes/*/{trunk}",
        ],
        cwd=_cwd(repo),
        check=False,
    )
    tips: list[tuple[str, str]] = []
    for line in proc.stdout.splitlines():
        ref, _, sha = line.partition("\0")
        if sha:
            tips.append((ref, sha))
    tips.sort(key=lambda tip: not tip[0].startswith("refs/heads/"))
    return tips


# A NamedTuple, not a dataclass: every verb imports this module, and a frozen dataclass
# costs about five times as much to define (~0.5 ms each on these machines).
class AheadBehind(NamedTuple):
    ahead: int
    behind: int


def ahead_behind(repo: Repo, ref: str, trunk: str) -> AheadBehind | None:
    """Count commits of `ref` not in `trunk` (ahead) and of `trunk` not in `ref` (behind).

    None means unknown: a shallow clone cut before the merge base undercounts, so no number is
    better than a wrong one (`git fetch --unshallow` makes it known).
    """
    if history_cut(repo, ref, trunk):
        return None
    proc = run(["rev-list", "--left-right", "--count", f"{ref}...{trunk}"], cwd=_cwd(repo))
    left, right = proc.stdout.split()
    return AheadBehind(ahead=int(left), behind=int(right))


def history_cut(repo: Repo, ref: str, trunk: str) -> bool:
    """True when a shallow clone is cut before the merge base of `ref` and `trunk`: git then
    sees unrelated histories, and nothing that compares the two can be trusted."""
    if not repo.shallow:
        return False
    return run(["merge-base", ref, trunk], cwd=_cwd(repo), check=False).returncode != 0


def merge_base(repo: Repo, ref: str, trunk: str) -> str | None:
    """Return the commit where `ref` left `trunk` (their best common ancestor), or None when
    they share no history."""
    proc = run(["merge-base", ref, trunk], cwd=_cwd(repo), check=False)
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def require_history(repo: Repo, ref: str, trunk: str, verb: str) -> None:
    """Refuse `verb` where the history it compares is cut off (see `history_cut`)."""
    if history_cut(repo, ref, trunk):
        raise RepoStateError(
            f"this shallow clone is cut before the merge base of {ref} and {trunk}; run "
            f"`git fetch --unshallow` (or `git fetch --deepen N`) before `{verb}`"
        )


def commits_among(repo: Repo, names: Iterable[str]) -> set[str]:
    """The names among `names` (full or abbreviated object names) that name a commit this
    repository has: one `git cat-file` for them all. Names must be plain hex."""
    named = sorted(set(names))
    if not named:
        return set()
    proc = run(
        ["cat-file", "--batch-check=%(objecttype)"],
        cwd=_cwd(repo),
        input="\n".join(named) + "\n",
        check=False,
    )
    if proc.returncode != 0:
        return set()
    # One line per name, in order: the type, or `<name> missing` / `<name> ambiguous`.
    lines = proc.stdout.splitlines()
    return {name for name, line in zip(named, lines, strict=False) if line == "commit"}


def is_ancestor(repo: Repo, ancestor: str, descendant: str) -> bool:
    """True when `ancestor` is reachable from `descendant`."""
    proc = run(["merge-base", "--is-ancestor", ancestor, descendant], cwd=_cwd(repo), check=False)
    if proc.returncode not in (0, 1):
        raise failure(
            ["merge-base", "--is-ancestor", ancestor, descendant],
            proc.returncode,
            proc.stdout,
            proc.stderr,
        )
    return proc.returncode == 0


def tree_of(repo: Repo, rev: str = "HEAD") -> str:
    """Return the tree object of commit `rev`."""
    return run(["rev-parse", "--verify", f"{rev}^{{tree}}"], cwd=_cwd(repo)).stdout.strip()


def update_branch(repo: Repo, branch: str, new: str, old: str, reason: str) -> None:
    """Move `refs/heads/BRANCH` from `old` to `new`, refusing if it moved meanwhile."""
    run(["update-ref", "-m", reason, f"refs/heads/{branch}", new, old], cwd=_cwd(repo))


def delete_branch(repo: Repo, branch: str) -> Completed:
    """Delete `branch` (the caller has checked it is merged); the caller reads the result."""
    return run(["branch", "-D", branch], cwd=_cwd(repo), check=False)
