"""Where the hook runs: the repository, its common dir and branch, read from git's own files.

Every other git question goes through `gitflow_harness.git`. This one does not, on purpose: the
hook runs on every tool call, and `git rev-parse` (~5 ms) plus importing the gateway (~10 ms)
would double its cost to learn three facts git keeps in plain files — the `.git` entry (a directory,
or a `gitdir:` file in linked worktrees and submodules), the `commondir` file, and `HEAD`.
Anything unusual (`$GIT_DIR` set, a reftable HEAD) is handed to the `git` gateway. The same
reading finds which worktree of the repository holds a file the agent touched. Its paths are
`str`, as `os.path` gives them: `pathlib` and the `re` it imports would cost a hook call as much
again as the rest of its imports.
"""

from __future__ import annotations

import os

# Not `typing.TYPE_CHECKING`: the hook path does not import typing (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any


class RepoInfo:
    """The working tree root, the git dirs and the branch label of a repository."""

    __slots__ = ("branch", "common_dir", "git_dir", "top")

    def __init__(self, top: str, git_dir: str, common_dir: str, branch: str | None) -> None:
        self.top = top
        self.git_dir = git_dir
        self.common_dir = common_dir
        self.branch = branch  # the envelope's `branch`: a name, "HEAD" when detached

    def __repr__(self) -> str:
        return f"RepoInfo(top={self.top}, branch={self.branch})"


# Where the hosts say the project is, for when the hook's own directory is gone.
PROJECT_DIR_VARIABLES = ("CLAUDE_PROJECT_DIR", "CURSOR_PROJECT_DIR")


def start_dir(cwd: str | None) -> str | None:
    """The directory a hook call starts from: the payload's `cwd` when it exists, else the
    process's; when that was removed too (`gfh accept` deletes the worktree an agent works in),
    the project directory the host names, else None."""
    if cwd and os.path.isabs(cwd) and os.path.isdir(cwd):
        return cwd
    try:
        return os.getcwd()
    except FileNotFoundError:
        pass
    for name in PROJECT_DIR_VARIABLES:
        value = os.environ.get(name)
        if value and os.path.isabs(value) and os.path.isdir(value):
            return value
    return None


def append_hook_event(
    repo: RepoInfo | None, type: str, data: dict[str, Any], *, session: str | None = None
) -> tuple[dict[str, Any], int] | None:
    """Append one event of a hook call to `repo`'s log (nothing outside a repository); return
    its envelope and the offset of its line in its monthly file."""
    if repo is None:
        return None
    from gitflow_harness.store.eventwrite import append_event_at

    return append_event_at(
        repo.common_dir, type, data, surface="hook", session=session, branch=repo.branch
    )


def locate(start: str | os.PathLike[str] | None) -> RepoInfo | None:
    """Return the repository containing `start`, or None outside any repository (or when there
    is no directory to start from)."""
    if start is None:
        return None
    if os.environ.get("GIT_DIR") or os.environ.get("GIT_WORK_TREE"):
        return _ask_git(start)
    try:
        here = os.path.abspath(start)
    except (OSError, ValueError):
        return None
    ceilings = _ceilings()
    for directory in upwards(here):
        git_dir = _git_dir(os.path.join(directory, ".git"))
        if git_dir is not None:
            common = _common_dir(git_dir)
            branch = _branch(git_dir)
            if branch is _ASK:
                return _ask_git(directory)
            assert branch is None or isinstance(branch, str)
            return RepoInfo(directory, git_dir, common, branch)
        if directory in ceilings:
            return None
    return None


def worktree_top(path: str, common_dir: str) -> str | None:
    """Return the top of the worktree that holds the file `path` when it belongs to the
    repository whose common dir (a real path) is `common_dir`, else None.

    The nearest `.git` entry above the file decides, as it does for git: a linked worktree of
    the same repository shares its common dir; a nested or neighbouring repository does not.
    """
    ceilings = _ceilings()
    for directory in upwards(os.path.dirname(path)):
        git_dir = _git_dir(os.path.join(directory, ".git"))
        if git_dir is not None:
            if os.path.realpath(_common_dir(git_dir)) == common_dir:
                return directory
            return None
        if directory in ceilings:
            return None
    return None


_ASK = object()


def upwards(directory: str) -> Iterator[str]:
    """`directory` and each directory above it, up to the root."""
    while True:
        yield directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return
        directory = parent


def _git_dir(dot_git: str) -> str | None:
    try:
        if os.path.isdir(dot_git):
            return dot_git if os.path.isfile(os.path.join(dot_git, "HEAD")) else None
        if os.path.isfile(dot_git):
            text = _read(dot_git, "replace").strip()
            if text.startswith("gitdir:"):
                target = os.path.join(
                    os.path.dirname(dot_git), text.removeprefix("gitdir:").strip()
                )
                target = os.path.normpath(target)
                return target if os.path.isfile(os.path.join(target, "HEAD")) else None
    except OSError:
        return None
    return None


def _common_dir(git_dir: str) -> str:
    try:
        text = _read(os.path.join(git_dir, "commondir"), "strict").strip()
    except OSError:
        return git_dir
    return os.path.normpath(os.path.join(git_dir, text))


def _branch(git_dir: str) -> str | object | None:
    try:
        # A branch name is bytes to git: one that is not UTF-8 reads as the gateway's `git`
        # output does (surrogate escapes), and the event log writes those as U+FFFD.
        head = _read(os.path.join(git_dir, "HEAD"), "surrogateescape").strip()
    except OSError:
        return _ASK
    if head.startswith("ref: refs/heads/") and not head.endswith("/.invalid"):
        return head.removeprefix("ref: refs/heads/")
    if head and not head.startswith("ref:"):
        return "HEAD"  # detached
    return _ASK


def _read(path: str, errors: str) -> str:
    with open(path, encoding="utf-8", errors=errors) as file:
        return file.read()


def _ceilings() -> set[str]:
    value = os.environ.get("GIT_CEILING_DIRECTORIES", "")
    return {os.path.abspath(p) for p in value.split(os.pathsep) if p}


def _ask_git(start: str | os.PathLike[str]) -> RepoInfo | None:
    from gitflow_harness import git
    from gitflow_harness.errors import GfhError

    try:
        repo = git.discover(os.fspath(start))
        if repo.top is None:
            return None
        label = git.head(repo).label
        return RepoInfo(str(repo.top), str(repo.git_dir), str(repo.common_dir), label)
    except GfhError:
        return None
