"""The one gateway to git.

Hot paths use plain `subprocess` (one `git` call costs ~5 ms; importing GitPython ~130 ms).
Every failure of a git command becomes a `GitError` naming the command, its exit code and what
it printed. Odd repository states (not a repository, bare, unborn, detached, shallow, mid-rebase,
mid-merge) each have one clear message saying how to get out of them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from gitflow_harness.errors import GfhError, RepoStateError, UsageError


class GitError(GfhError):
    """A git command failed unexpectedly."""

    def __init__(self, args: Sequence[str], returncode: int, stdout: str, stderr: str) -> None:
        self.args_ = list(args)
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        first = next((ln.strip() for ln in stderr.splitlines() if ln.strip()), "no output")
        super().__init__(f"`git {' '.join(args)}` failed with exit code {returncode}: {first}")

    def details(self) -> str:
        """Return the command, exit code and both streams in full."""
        return (
            f"command: git {' '.join(self.args_)}\nexit code: {self.returncode}\n"
            f"stdout:\n{self.stdout}\nstderr:\n{self.stderr}"
        )


def run(
    args: Sequence[str],
    *,
    cwd: Path | str | None = None,
    check: bool = True,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `git ARGS` and return the completed process; raise GitError on failure if `check`."""
    full_env = None
    if env is not None:
        full_env = {**os.environ, **env}
    try:
        proc = subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=full_env,
            input=input,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="surrogateescape",
            stdin=None if input is not None else subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise UsageError("git is not installed or not on PATH; install git first") from None
    if check and proc.returncode != 0:
        raise GitError(args, proc.returncode, proc.stdout, proc.stderr)
    return proc


def split_z(output: str) -> list[str]:
    """Split NUL-separated output (`-z`), dropping the empty piece after the last NUL."""
    parts = output.split("\0")
    if parts and parts[-1] == "":
        parts.pop()
    return parts


# -- discovery -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Repo:
    """Where a repository lives, as seen from one working directory."""

    top: Path | None  # the working tree's root; None in a bare repository
    git_dir: Path  # this worktree's git dir
    common_dir: Path  # shared by all worktrees: the event log lives here
    bare: bool
    shallow: bool

    @property
    def linked(self) -> bool:
        """True in a linked worktree (`git worktree add`), False in the main checkout."""
        return self.git_dir != self.common_dir

    @property
    def name(self) -> str:
        """The repository's directory name (the main checkout's, also from a worktree)."""
        if self.common_dir.name == ".git":
            return self.common_dir.parent.name
        return self.common_dir.name.removesuffix(".git") or self.common_dir.name

    @property
    def main_top(self) -> Path | None:
        """The main checkout's working tree root, when it has one."""
        if self.common_dir.name == ".git":
            return self.common_dir.parent
        return None

    def worktree(self) -> Path:
        """Return the working tree root, or refuse in a bare repository."""
        if self.top is None:
            raise UsageError(
                f"{self.git_dir} is a bare repository: it has no working tree; "
                "run gfh in a clone or a worktree of it"
            )
        return self.top


class NotARepository(UsageError):
    """The directory is not inside a git repository."""


def discover(cwd: Path | str | None = None) -> Repo:
    """Find the repository containing `cwd` (default: the current directory)."""
    where = Path(cwd) if cwd is not None else Path.cwd()
    proc = run(
        [
            "rev-parse",
            "--path-format=absolute",
            "--git-dir",
            "--git-common-dir",
            "--is-bare-repository",
            "--is-shallow-repository",
            "--show-toplevel",  # last: it fails in a bare repository, after the rest printed
        ],
        cwd=where,
        check=False,
    )
    lines = proc.stdout.splitlines()
    if len(lines) < 4:
        if "not a git repository" in proc.stderr:
            raise NotARepository(
                f"not a git repository: {where} (run gfh inside a repository, or `git init` one)"
            )
        raise GitError(["rev-parse", "--git-dir"], proc.returncode, proc.stdout, proc.stderr)
    bare = lines[2] == "true"
    top = Path(lines[4]) if len(lines) > 4 and not bare else None
    if top is None and not bare:
        # Inside the git dir of a non-bare repository: its working tree is the parent.
        raise UsageError(
            f"{where} is inside a git directory, not a working tree; cd to the repository's files"
        )
    return Repo(
        top=top,
        git_dir=Path(lines[0]),
        common_dir=Path(lines[1]),
        bare=bare,
        shallow=lines[3] == "true",
    )


# -- HEAD and repository states ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Head:
    """What HEAD points at."""

    branch: str | None  # None when detached
    sha: str | None  # None on an unborn branch

    @property
    def detached(self) -> bool:
        return self.branch is None

    @property
    def unborn(self) -> bool:
        return self.sha is None

    @property
    def label(self) -> str:
        """The branch as the event envelope records it: its name, or "HEAD" when detached."""
        return self.branch if self.branch is not None else "HEAD"


def head(repo: Repo) -> Head:
    """Return the branch HEAD points at (None if detached) and its commit (None if unborn)."""
    branch = _head_branch(repo)
    proc = run(["rev-parse", "-q", "--verify", "HEAD^{commit}"], cwd=_cwd(repo), check=False)
    sha = proc.stdout.strip() or None if proc.returncode == 0 else None
    return Head(branch=branch, sha=sha)


def _head_branch(repo: Repo) -> str | None:
    try:
        content = (repo.git_dir / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        content = ""
    if content.startswith("ref: refs/heads/") and not content.endswith("/.invalid"):
        return content.removeprefix("ref: refs/heads/")
    if content and not content.startswith("ref:"):
        return None  # a detached sha
    # Unusual storage (reftable, a symlinked HEAD): ask git.
    proc = run(["symbolic-ref", "-q", "HEAD"], cwd=_cwd(repo), check=False)
    ref = proc.stdout.strip()
    return ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None


def operation_in_progress(repo: Repo) -> str | None:
    """Return the operation a previous git command left unfinished, if any."""
    markers = (
        ("rebase-merge", "rebase"),
        ("rebase-apply", "rebase"),
        ("MERGE_HEAD", "merge"),
        ("CHERRY_PICK_HEAD", "cherry-pick"),
        ("REVERT_HEAD", "revert"),
        ("BISECT_LOG", "bisect"),
    )
    for name, operation in markers:
        if (repo.git_dir / name).exists():
            return operation
    return None


_HOW_TO_FINISH = {
    "rebase": "finish it (`git rebase --continue`) or abort it (`git rebase --abort`)",
    "merge": "commit it or abort it (`git merge --abort`)",
    "cherry-pick": (
        "finish it (`git cherry-pick --continue`) or abort it (`git cherry-pick --abort`)"
    ),
    "revert": "finish it (`git revert --continue`) or abort it (`git revert --abort`)",
    "bisect": "end it (`git bisect reset`)",
}


def require(
    repo: Repo,
    what: str,
    *,
    commit: bool = True,
    branch: bool = True,
    idle: bool = True,
) -> Head:
    """Refuse, with how to fix it, unless the repository is in a state `what` can work in.

    `commit`: HEAD must have a commit; `branch`: HEAD must be on a branch; `idle`: no rebase,
    merge, cherry-pick, revert or bisect may be in progress.
    """
    repo.worktree()
    if idle:
        operation = operation_in_progress(repo)
        if operation is not None:
            raise RepoStateError(
                f"a {operation} is in progress in {repo.top}; {_HOW_TO_FINISH[operation]} "
                f"before `{what}`"
            )
    current = head(repo)
    if commit and current.unborn:
        raise RepoStateError(
            f"branch {current.branch or 'HEAD'!r} has no commits yet; make a first commit "
            f"before `{what}`"
        )
    if branch and current.detached:
        at = f" at {current.sha[:10]}" if current.sha else ""
        raise RepoStateError(
            f"HEAD is detached{at}; switch to a branch (`git switch NAME`) before `{what}`"
        )
    return current


def _cwd(repo: Repo) -> Path:
    return repo.top if repo.top is not None else repo.git_dir


# -- refs, trunk, ahead/behind -------------------------------------------------------------


def ref_exists(repo: Repo, ref: str) -> bool:
    """True when `ref` names an existing commit."""
    proc = run(["rev-parse", "-q", "--verify", f"{ref}^{{commit}}"], cwd=_cwd(repo), check=False)
    return proc.returncode == 0


def rev_parse(repo: Repo, rev: str) -> str:
    """Return the full sha of `rev`."""
    return run(["rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=_cwd(repo)).stdout.strip()


def branch_exists(repo: Repo, name: str) -> bool:
    """True when a local branch `name` exists."""
    proc = run(["show-ref", "--verify", "-q", f"refs/heads/{name}"], cwd=_cwd(repo), check=False)
    return proc.returncode == 0


def detect_trunk(repo: Repo, configured: str = "") -> str | None:
    """Return the trunk's local branch name: configured, else origin/HEAD, main, master."""
    if configured:
        return configured
    proc = run(
        [
            "for-each-ref",
            "--format=%(refname)%00%(symref)",
            "refs/remotes/origin/HEAD",
            "refs/heads/main",
            "refs/heads/master",
        ],
        cwd=_cwd(repo),
        check=False,
    )
    refs: dict[str, str] = {}
    for line in proc.stdout.splitlines():
        name, _, target = line.partition("\0")
        refs[name] = target
    origin = refs.get("refs/remotes/origin/HEAD", "")
    if origin.startswith("refs/remotes/origin/"):
        return origin.removeprefix("refs/remotes/origin/")
    for name in ("main", "master"):
        if f"refs/heads/{name}" in refs:
            return name
    return None


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


@dataclass(frozen=True, slots=True)
class AheadBehind:
    ahead: int
    behind: int


def ahead_behind(repo: Repo, ref: str, trunk: str) -> AheadBehind | None:
    """Count commits of `ref` not in `trunk` (ahead) and of `trunk` not in `ref` (behind).

    None means unknown: a shallow clone cut before the merge base undercounts, so no number is
    better than a wrong one (`git fetch --unshallow` makes it known).
    """
    cwd = _cwd(repo)
    if repo.shallow:
        base = run(["merge-base", ref, trunk], cwd=cwd, check=False)
        if base.returncode != 0:
            return None
    proc = run(["rev-list", "--left-right", "--count", f"{ref}...{trunk}"], cwd=cwd)
    left, right = proc.stdout.split()
    return AheadBehind(ahead=int(left), behind=int(right))


def is_ancestor(repo: Repo, ancestor: str, descendant: str) -> bool:
    """True when `ancestor` is reachable from `descendant`."""
    proc = run(["merge-base", "--is-ancestor", ancestor, descendant], cwd=_cwd(repo), check=False)
    if proc.returncode not in (0, 1):
        raise GitError(
            ["merge-base", "--is-ancestor", ancestor, descendant],
            proc.returncode,
            proc.stdout,
            proc.stderr,
        )
    return proc.returncode == 0


# -- working tree --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Change:
    """One changed path from `git status`: XY codes as porcelain v2 gives them."""

    xy: str  # e.g. ".M", "A.", "??", "UU"
    path: str

    @property
    def untracked(self) -> bool:
        return self.xy == "??"

    @property
    def conflicted(self) -> bool:
        return self.xy in {"DD", "AU", "UD", "UA", "DU", "AA", "UU"}


def changes(repo: Repo) -> list[Change]:
    """Return tracked changes and untracked-not-ignored files of the working tree."""
    proc = run(
        ["status", "--porcelain=v2", "-z", "--untracked-files=all", "--no-renames"],
        cwd=repo.worktree(),
    )
    out: list[Change] = []
    for record in split_z(proc.stdout):
        kind = record[:1]
        if kind == "?":
            out.append(Change("??", record[2:]))
        elif kind == "1":
            fields = record.split(" ", 8)
            out.append(Change(fields[1], fields[8]))
        elif kind == "u":
            fields = record.split(" ", 10)
            out.append(Change(fields[1], fields[10]))
    return out


def tree_identity(repo: Repo) -> str:
    """Return the tree object the working tree would commit as: HEAD's tree plus every tracked
    and untracked-not-ignored change. An edit changes it; a rerun on the same files does not.

    Built in a temporary copy of the index, so the real index (and what is staged) is untouched.
    """
    top = repo.worktree()
    with tempfile.TemporaryDirectory(prefix="gfh-tree-") as tmp:
        index = Path(tmp) / "index"
        real_index = repo.git_dir / "index"
        if real_index.exists():
            shutil.copyfile(real_index, index)
        env = {"GIT_INDEX_FILE": str(index)}
        run(["add", "-A", "--", "."], cwd=top, env=env)
        return run(["write-tree"], cwd=top, env=env).stdout.strip()


def tracked(repo: Repo, paths: Sequence[str] = ()) -> set[str]:
    """Return the tracked paths among `paths` (all tracked paths when empty), repo-relative."""
    proc = run(["ls-files", "-z", "--full-name", "--", *paths], cwd=repo.worktree())
    return set(split_z(proc.stdout))


def tracked_at_head(repo: Repo, path: str) -> bool:
    """True when `path` (repo-relative) is in HEAD's tree."""
    proc = run(["cat-file", "-e", f"HEAD:{path}"], cwd=repo.worktree(), check=False)
    return proc.returncode == 0


# -- history -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReflogEntry:
    """One reflog line: the commit the ref moved to, when, and git's message for it."""

    sha: str
    when: datetime
    message: str  # e.g. "rebase (finish): refs/heads/topic onto <sha>", "merge main: Fast-forward"


def reflog(repo: Repo, ref: str) -> list[ReflogEntry]:
    """Return the reflog of `ref` (e.g. `refs/heads/topic`), newest first; [] when none."""
    proc = run(
        ["reflog", "show", "--date=unix", "--format=%H%x1f%gd%x1f%gs", ref, "--"],
        cwd=_cwd(repo),
        check=False,
    )
    if proc.returncode != 0:
        return []
    entries = []
    for line in proc.stdout.splitlines():
        sha, selector, message = ([*line.split("\x1f", 2), "", ""])[:3]
        stamp = selector[selector.rfind("{") + 1 : selector.rfind("}")]
        try:
            when = datetime.fromtimestamp(int(stamp), UTC)
        except ValueError:
            continue
        entries.append(ReflogEntry(sha=sha, when=when, message=message))
    return entries


@dataclass(frozen=True, slots=True)
class Worktree:
    path: Path
    head: str | None
    branch: str | None  # None when detached or bare
    bare: bool = False


def worktrees(repo: Repo) -> list[Worktree]:
    """Return every worktree of the repository, the main one first."""
    proc = run(["worktree", "list", "--porcelain", "-z"], cwd=_cwd(repo))
    out: list[Worktree] = []
    record: dict[str, str] = {}
    for item in [*split_z(proc.stdout), ""]:
        if item == "":
            if record:
                branch = record.get("branch")
                out.append(
                    Worktree(
                        path=Path(record["worktree"]),
                        head=record.get("HEAD"),
                        branch=branch.removeprefix("refs/heads/") if branch else None,
                        bare="bare" in record,
                    )
                )
            record = {}
            continue
        key, _, value = item.partition(" ")
        record[key] = value
    return out


def short(sha: str) -> str:
    """Return the conventional 7-character abbreviation of a full sha."""
    return sha[:7]


# -- learning --


def commits_touching(repo: Repo, since: datetime) -> Iterator[tuple[datetime, list[str]]]:
    """Yield (commit time, paths it changed) for every commit since `since`, newest first.

    One `git log --name-only` stream serves every question a caller has about many files (which
    cited file changed after a date, when a pill was committed), instead of one `git log` per
    file. An unborn branch has no history: nothing is yielded.
    """
    args = [
        "log",
        "-z",
        "--no-renames",
        "--format=%x1e%ct",
        "--name-only",
        f"--since={int(since.timestamp())}",
    ]
    try:
        proc = subprocess.Popen(
            ["git", *args],
            cwd=_cwd(repo),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise UsageError("git is not installed or not on PATH; install git first") from None
    assert proc.stdout is not None
    assert proc.stderr is not None
    when: datetime | None = None
    paths: list[str] = []
    pending = b""
    try:
        while chunk := proc.stdout.read(1 << 16):
            *tokens, pending = (pending + chunk).split(b"\0")
            for token in tokens:
                if token.startswith(b"\n"):
                    token = token[1:]  # the separator between a commit line and its paths
                if token.startswith(b"\x1e"):
                    if when is not None:
                        yield when, paths
                    when = datetime.fromtimestamp(int(token[1:]), UTC)
                    paths = []
                elif token:
                    paths.append(os.fsdecode(token))
    finally:
        proc.stdout.close()
        stderr = proc.stderr.read().decode("utf-8", "replace")
        proc.stderr.close()
        code = proc.wait()
    if code != 0:
        if head(repo).unborn:
            return
        raise GitError(args, code, "", stderr)
    if when is not None:
        yield when, paths


def last_commit_touching(repo: Repo, path: str) -> str | None:
    """Return the abbreviated sha (`%h`) of the last commit that touched `path`, or None."""
    proc = run(["log", "-1", "--format=%h", "--", path], cwd=repo.worktree(), check=False)
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def tree_short(repo: Repo, path: str) -> str | None:
    """Return `git rev-parse --short HEAD:<path>`, or None when HEAD has no such path."""
    proc = run(
        ["rev-parse", "--short", "-q", "--verify", f"HEAD:{path.rstrip('/')}"],
        cwd=repo.worktree(),
        check=False,
    )
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def move(repo: Repo, source: str, destination: str) -> None:
    """`git mv` a tracked file (repo-relative paths); the destination's folder must exist."""
    run(["mv", "--", source, destination], cwd=repo.worktree())


# -- workflow ------------------------------------------------------------------------------


def tree_of(repo: Repo, rev: str = "HEAD") -> str:
    """Return the tree object of commit `rev`."""
    return run(["rev-parse", "--verify", f"{rev}^{{tree}}"], cwd=_cwd(repo)).stdout.strip()


def valid_branch_name(repo: Repo, name: str) -> bool:
    """True when `name` is acceptable as a new branch name (`git check-ref-format --branch`)."""
    if name.startswith("-") or name == "HEAD":
        return False
    proc = run(["check-ref-format", "--branch", name], cwd=_cwd(repo), check=False)
    return proc.returncode == 0


def worktree_add(repo: Repo, path: Path, branch: str, base: str) -> None:
    """Create branch `branch` at `base` checked out in a new worktree at `path`."""
    run(["worktree", "add", "-q", "-b", branch, str(path), base], cwd=_cwd(repo))


def worktree_remove(repo: Repo, path: Path) -> subprocess.CompletedProcess[str]:
    """Remove the (clean) worktree at `path`; the caller reads the result."""
    return run(["worktree", "remove", str(path)], cwd=_cwd(repo), check=False)


def integrate(
    repo: Repo, how: str, rev: str, env: Mapping[str, str]
) -> subprocess.CompletedProcess[str]:
    """Run `git merge --no-edit REV` or `git rebase REV` (`how`); the caller reads the result."""
    if how == "merge":
        args = ["merge", "--no-edit", "--no-stat", rev]
    elif how == "rebase":
        args = ["rebase", "--no-stat", rev]
    else:
        raise ValueError(f"unknown integration {how!r}")
    return run(args, cwd=repo.worktree(), check=False, env=env)


def conflicted(repo: Repo) -> list[str]:
    """Return the paths with unresolved conflicts, repo-relative and sorted."""
    proc = run(["diff", "--name-only", "--diff-filter=U", "-z"], cwd=repo.worktree())
    return sorted(set(split_z(proc.stdout)))


def abort(repo: Repo, operation: str) -> None:
    """Abort the merge or rebase in progress, restoring the branch as it was."""
    run([operation, "--abort"], cwd=repo.worktree())


def fast_forward_checkout(top: Path, rev: str) -> subprocess.CompletedProcess[str]:
    """Fast-forward the branch checked out at `top` to `rev` (`git merge --ff-only`)."""
    return run(["merge", "--ff-only", "-q", rev], cwd=top, check=False)


def update_branch(repo: Repo, branch: str, new: str, old: str, reason: str) -> None:
    """Move `refs/heads/BRANCH` from `old` to `new`, refusing if it moved meanwhile."""
    run(["update-ref", "-m", reason, f"refs/heads/{branch}", new, old], cwd=_cwd(repo))


def switch(top: Path, branch: str) -> subprocess.CompletedProcess[str]:
    """Switch the checkout at `top` to `branch`; the caller reads the result."""
    return run(["switch", "-q", branch], cwd=top, check=False)


def delete_branch(repo: Repo, branch: str) -> subprocess.CompletedProcess[str]:
    """Delete `branch` (the caller has checked it is merged); the caller reads the result."""
    return run(["branch", "-D", branch], cwd=_cwd(repo), check=False)


def local_trunk(repo: Repo, configured: str = "") -> str | None:
    """Return the trunk when it exists as a local branch, else None (see `require_trunk`)."""
    name = detect_trunk(repo, configured)
    return name if name is not None and branch_exists(repo, name) else None


def local_branches(repo: Repo) -> set[str]:
    """Return the names of every local branch."""
    proc = run(["for-each-ref", "--format=%(refname)", "refs/heads/"], cwd=_cwd(repo))
    return {line.removeprefix("refs/heads/") for line in proc.stdout.splitlines() if line}


# -- agent hooks ---------------------------------------------------------------------------


def tracked_at_head_many(cwd: Path, paths: Sequence[str]) -> set[str]:
    """Return which of `paths` (repo-relative, POSIX) are in HEAD's tree; one git call.

    `cwd` is any directory of the working tree. An unborn HEAD tracks nothing.
    """
    if not paths:
        return set()
    proc = run(
        ["ls-tree", "-z", "--name-only", "--full-tree", "HEAD", "--", *paths],
        cwd=cwd,
        check=False,
    )
    if proc.returncode != 0:
        return set()
    return set(split_z(proc.stdout)) & set(paths)


# -- git-stage hooks -----------------------------------------------------------------------


def recent_reflog(repo: Repo, ref: str, count: int) -> list[ReflogEntry]:
    """Return the newest `count` reflog entries of `ref`, newest first; [] when none.

    A hook that runs after every merge or rebase needs the last step or two, not the whole
    history `reflog` reads.
    """
    proc = run(
        ["reflog", "show", f"-n{count}", "--date=unix", "--format=%H%x1f%gd%x1f%gs", ref, "--"],
        cwd=_cwd(repo),
        check=False,
    )
    if proc.returncode != 0:
        return []
    entries = []
    for line in proc.stdout.splitlines():
        sha, selector, message = ([*line.split("\x1f", 2), "", ""])[:3]
        stamp = selector[selector.rfind("{") + 1 : selector.rfind("}")]
        try:
            when = datetime.fromtimestamp(int(stamp), UTC)
        except ValueError:
            continue
        entries.append(ReflogEntry(sha=sha, when=when, message=message))
    return entries


def resolve(repo: Repo, rev: str) -> str | None:
    """Return the full sha of commit `rev`, or None when it names no commit."""
    proc = run(["rev-parse", "-q", "--verify", f"{rev}^{{commit}}"], cwd=_cwd(repo), check=False)
    return proc.stdout.strip() or None if proc.returncode == 0 else None


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
