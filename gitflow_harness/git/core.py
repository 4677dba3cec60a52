"""Running git, finding the repository, and its states (HEAD, operations in progress)."""

from __future__ import annotations

import os

from gitflow_harness import MappingProxyType, spawn
from gitflow_harness.errors import GfhError, RepoStateError, UsageError
from gitflow_harness.store.fsutil import read_bytes

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from types import TracebackType
    from typing import Final, NamedTuple

    from gitflow_harness.store.fsutil import StrPath
else:
    from gitflow_harness.records import NamedTuple


class GitError(GfhError):
    """A git command failed unexpectedly."""

    def __init__(self, args: Sequence[str], returncode: int, stdout: str, stderr: str) -> None:
        self.args_ = list(args)
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        first = first_line(stderr)
        super().__init__(f"`git {' '.join(args)}` failed with exit code {returncode}: {first}")

    def details(self) -> str:
        """Return the command, exit code and both streams in full (`gfh -v`, crash reports)."""
        return (
            f"command: git {' '.join(self.args_)}\nexit code: {self.returncode}\n"
            f"stdout:\n{self.stdout}\nstderr:\n{self.stderr}"
        )


def run(
    args: Sequence[str],
    *,
    cwd: StrPath | None = None,
    check: bool = True,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
) -> Completed:
    """Run `git ARGS` and return the completed process; raise GitError on failure if `check`."""
    return start(args, cwd=cwd, check=check, env=env, input=input).result()


class Completed(NamedTuple):
    """A finished git command, with the fields of `subprocess.CompletedProcess`."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str


class Pending:
    """A git command started by `start`, running while the caller does something else."""

    __slots__ = ("_args", "_check", "_cwd", "_wait", "pid")

    def __init__(
        self,
        args: Sequence[str],
        pid: int,
        wait: Callable[[], tuple[int, bytes, bytes]],
        *,
        check: bool,
        cwd: StrPath | None,
    ) -> None:
        self.pid = pid  # the git process's: reaped once `result` returned or raised
        self._args = list(args)
        self._wait = wait
        self._check = check
        self._cwd = cwd

    def result(self) -> Completed:
        """Wait for the command and return it as `run` does; raise GitError on failure if
        it was started with `check`."""
        returncode, out, err = self._wait()
        stdout, stderr = _text(out), _text(err)
        if returncode == 128 and self._directory_missing(stderr):
            raise _no_directory(self._cwd)
        if self._check and returncode != 0:
            raise failure(self._args, returncode, stdout, stderr)
        return Completed(["git", *self._args], returncode, stdout, stderr)

    def _directory_missing(self, stderr: str) -> bool:
        """True when git could not start in its directory (`-C`): it is gone or never was.
        Removed while git ran, git says so its own way, and `failure` words that."""
        cwd = self._cwd
        return cwd is not None and not os.path.isdir(cwd) and not _vanished_while_running(stderr)


class reaped:  # lower case: used as a function: `with git.reaped(started.result):`
    """Run the block; if it fails, wait for the started command `waiting` reads (ignoring how
    that one ended) before the failure goes on, so a long-lived caller (`gfh mcp`) keeps no
    process or pipe of it. (A class, not `contextlib.contextmanager`: every verb imports this
    module, and `gfh status` no `contextlib`.)"""

    __slots__ = ("_waiting",)

    def __init__(self, waiting: Callable[[], object]) -> None:
        self._waiting = waiting

    def __enter__(self) -> None:
        pass

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc is None:
            return
        try:
            self._waiting()
        except Exception:  # how that one ended is not this failure's story
            pass


def start(
    args: Sequence[str],
    *,
    cwd: StrPath | None = None,
    check: bool = True,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
) -> Pending:
    """Start `git ARGS` and return it running: commands that do not depend on each other run
    at the same time, and a caller pays for the slowest instead of their sum.

    Started by `spawn` (`git -C CWD`, which git treats as being started in CWD), or by
    `subprocess` where that cannot be used.
    """
    full_env = None if env is None else {**os.environ, **env}
    data = None if input is None else input.encode("utf-8", "surrogateescape")
    where = () if cwd is None else ("-C", os.fspath(cwd))
    try:
        spawned = spawn.spawn(["git", *where, *args], env=full_env, input=data)
        pid, wait = (spawned.pid, spawned.wait) if spawned else _popen(args, cwd, full_env, data)
    except (FileNotFoundError, NotADirectoryError):
        if cwd is not None and not os.path.isdir(cwd):
            raise _no_directory(cwd) from None
        raise UsageError(NO_GIT) from None
    return Pending(args, pid, wait, check=check, cwd=cwd)


def _popen(
    args: Sequence[str],
    cwd: StrPath | None,
    env: Mapping[str, str] | None,
    data: bytes | None,
) -> tuple[int, Callable[[], tuple[int, bytes, bytes]]]:
    """Start `git ARGS` with `subprocess` (see `start`); return its pid and what waits for
    it."""
    import subprocess

    process = subprocess.Popen(
        ["git", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE if data is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )

    def wait() -> tuple[int, bytes, bytes]:
        try:
            out, err = process.communicate(data)
        except BaseException:
            # Interrupted (^C): leave no git behind, as `subprocess.run` does.
            process.kill()
            process.wait()
            raise
        return process.returncode, out, err

    return process.pid, wait


def _text(data: bytes) -> str:
    """A git stream as text: UTF-8 with surrogate escapes, newlines as `subprocess`'s text
    mode gives them (CRLF and CR read as LF)."""
    text = data.decode("utf-8", "surrogateescape")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _no_directory(cwd: StrPath | None) -> GfhError:
    """The error of a git command whose directory is gone: gfh's one line for its own current
    directory removed under it (a concurrent `gfh accept` removing the worktree), else the
    directory named."""
    try:
        os.getcwd()
    except FileNotFoundError:
        return UsageError(GONE)
    return RepoStateError(
        f"{cwd}: the directory no longer exists; if it was a worktree, run `git worktree prune`"
    )


NO_GIT = "git is not installed or not on PATH; install git first"

# What git says when the directory it was started in is removed while it runs (a concurrent
# `gfh accept` removing the worktree): gfh's own line for that state, not git's.
# git words it two ways ("Unable to read …" at set-up, "unable to get …" later).
_NO_CWD = ("unable to read current working directory", "unable to get current working directory")
GONE = "the current directory no longer exists (removed by `gfh accept`?): cd to the main checkout"


def failure(args: Sequence[str], returncode: int, stdout: str, stderr: str) -> GfhError:
    """The error of a git command that failed: gfh's one line when its directory vanished
    under it (a concurrent `gfh accept` removed the worktree), else the `GitError`."""
    if _vanished_while_running(stderr):
        return UsageError(GONE)
    return GitError(args, returncode, stdout, stderr)


def _vanished_while_running(stderr: str) -> bool:
    said = stderr.lower()
    return any(words in said for words in _NO_CWD)


def first_line(text: str, default: str = "no output") -> str:
    """Return the first non-blank line of a command's output (stripped), or `default`."""
    return next((line.strip() for line in text.splitlines() if line.strip()), default)


def split_z(output: str) -> list[str]:
    """Split NUL-separated output (`-z`), dropping the empty piece after the last NUL."""
    parts = output.split("\0")
    if parts and parts[-1] == "":
        parts.pop()
    return parts


# A NamedTuple, not a dataclass: every verb imports this module, and a frozen dataclass
# costs about five times as much to define (~0.5 ms each on these machines).
class Repo(NamedTuple):
    """Where a repository lives, as seen from one working directory."""

    # Paths as `str` (`os.path` joins them): `gfh status` and the SessionStart hook import no
    # `pathlib`, which brings `re` and `enum` (43M instructions) into an installed interpreter.
    top: str | None  # the working tree's root; None in a bare repository
    git_dir: str  # this worktree's git dir
    common_dir: str  # shared by all worktrees: the event log lives here
    bare: bool
    shallow: bool

    @property
    def linked(self) -> bool:
        """True in a linked worktree (`git worktree add`), False in the main checkout."""
        return self.git_dir != self.common_dir

    @property
    def name(self) -> str:
        """The repository's directory name (the main checkout's, also from a worktree)."""
        parent, name = os.path.split(self.common_dir)
        if name == ".git":
            return os.path.basename(parent)
        return name.removesuffix(".git") or name

    @property
    def main_top(self) -> str | None:
        """The main checkout's working tree root, when it has one."""
        parent, name = os.path.split(self.common_dir)
        return parent if name == ".git" else None

    def worktree(self) -> str:
        """Return the working tree root, or refuse in a bare repository."""
        if self.top is None:
            raise UsageError(
                f"{self.git_dir} is a bare repository: it has no working tree; "
                "run gfh in a clone or a worktree of it"
            )
        return self.top


class NotARepository(UsageError):
    """The directory is not inside a git repository."""


def discover(cwd: StrPath | None = None) -> Repo:
    """Find the repository containing `cwd` (default: the current directory)."""
    return discover_head(cwd)[0]


def discover_head(cwd: StrPath | None = None) -> tuple[Repo, Head | None]:
    """Find the repository containing `cwd`, and where its HEAD is, in one `git rev-parse`.

    The HEAD is None where that call cannot tell it (a bare repository): ask `head` then.
    """
    where = os.fspath(cwd) if cwd is not None else current_directory()
    proc = run(
        [
            "rev-parse",
            "--path-format=absolute",
            "--git-dir",
            "--git-common-dir",
            "--is-bare-repository",
            "--is-shallow-repository",
            "--show-toplevel",  # it fails in a bare repository, after the rest printed
            # Last: HEAD's commit, or nothing (exit 1) on an unborn branch.
            "--verify",
            "-q",
            "HEAD^{commit}",
        ],
        cwd=where,
        check=False,
    )
    lines = proc.stdout.splitlines()
    if len(lines) < 4:
        if "not a git repository" in proc.stderr and not os.path.isdir(where):
            raise _no_directory(where)  # removed while git looked for its `.git`
        if "not a git repository" in proc.stderr:
            raise NotARepository(
                f"not a git repository: {where} (run gfh inside a repository, or `git init` one)"
            )
        raise failure(["rev-parse", "--git-dir"], proc.returncode, proc.stdout, proc.stderr)
    bare = lines[2] == "true"
    top = lines[4] if len(lines) > 4 and not bare else None
    if top is None and not bare and _vanished_while_running(proc.stderr):
        # Removed while git ran (a concurrent `gfh accept`): the git dirs were printed, and
        # the working tree's top could not be found any more.
        raise UsageError(GONE)
    if top is None and not bare:
        # Inside the git dir of a non-bare repository: its working tree is the parent.
        raise UsageError(
            f"{where} is inside a git directory, not a working tree; cd to the repository's files"
        )
    repo = Repo(
        top=top,
        git_dir=lines[0],
        common_dir=lines[1],
        bare=bare,
        shallow=lines[3] == "true",
    )
    if top is None:
        return repo, None
    sha = lines[5] if len(lines) > 5 else None
    return repo, Head(branch=head_branch(repo), sha=sha)


def repo_at(top: StrPath, git_dir: StrPath, common_dir: StrPath) -> Repo:
    """The repository of the worktree at `top`, whose git dirs were read from git's own files
    (`agent/repo.py`), without a git process: shallow when its common dir holds a `shallow`
    file, which is how git tells."""
    common = os.fspath(common_dir)
    shallow = os.path.exists(os.path.join(common, "shallow"))
    return Repo(os.fspath(top), os.fspath(git_dir), common, bare=False, shallow=shallow)


def current_directory() -> str:
    """Return the current directory, or refuse when it was removed under the shell.

    `gfh accept` removes the worktree it is run from, so the next command typed in that shell
    starts in a directory that no longer exists.
    """
    try:
        return os.getcwd()
    except FileNotFoundError:
        raise UsageError(GONE) from None


class Head(NamedTuple):
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
    branch = head_branch(repo)
    proc = run(["rev-parse", "-q", "--verify", "HEAD^{commit}"], cwd=_cwd(repo), check=False)
    sha = proc.stdout.strip() or None if proc.returncode == 0 else None
    return Head(branch=branch, sha=sha)


def head_branch(repo: Repo) -> str | None:
    """Return the branch HEAD points at, None when detached (read from the HEAD file)."""
    try:
        # A branch name is bytes to git: decode it as every git output is (surrogate escapes).
        raw = read_bytes(os.path.join(repo.git_dir, "HEAD"))
        content = raw.decode("utf-8", errors="surrogateescape").strip()
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
        if os.path.exists(os.path.join(repo.git_dir, name)):
            return operation
    return None


# How to get out of each operation `operation_in_progress` names: the refusals here and the
# status hint say the same thing.
HOW_TO_FINISH: Final[Mapping[str, str]] = MappingProxyType(
    {
        "rebase": "finish it (`git rebase --continue`) or abort it (`git rebase --abort`)",
        "merge": "commit it or abort it (`git merge --abort`)",
        "cherry-pick": (
            "finish it (`git cherry-pick --continue`) or abort it (`git cherry-pick --abort`)"
        ),
        "revert": "finish it (`git revert --continue`) or abort it (`git revert --abort`)",
        "bisect": "end it (`git bisect reset`)",
    }
)


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
                f"a {operation} is in progress in {repo.top}; {HOW_TO_FINISH[operation]} "
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


def _cwd(repo: Repo) -> str:
    return repo.top if repo.top is not None else repo.git_dir
