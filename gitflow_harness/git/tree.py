"""The working tree and worktrees: changes, tree identity, what is tracked, integrating."""

from __future__ import annotations

import os

from gitflow_harness import early
from gitflow_harness.git.core import Completed, Pending, Repo, _cwd, run, split_z, start

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from pathlib import Path
    from typing import NamedTuple
else:
    from gitflow_harness.records import NamedTuple


# A NamedTuple, not a dataclass: every verb imports this module, and a frozen dataclass
# costs about five times as much to define (~0.5 ms each on these machines).
class Change(NamedTuple):
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
    return read_status(start_status(repo)).changes


class Status(NamedTuple):
    """What one `git status` said: the changes, and HEAD's commit when it was asked for."""

    changes: list[Change]
    head: str | None  # None on an unborn branch, or when not asked for


def start_status(repo: Repo, *, head: bool = False) -> Pending:
    """Start the `git status` of `changes`; with `head`, it says HEAD's commit as well
    (`# branch.oid`), so that no other git process has to. `read_status` reads it."""
    # One list with the question `gfh status` starts first (`early.STATUS`): the same words.
    args = list(early.STATUS if head else early.STATUS[: -len(early.HEAD_OPTIONS)])
    top = repo.worktree()
    started = early.take(args, top)  # `gfh status` asked it first thing (`early.py`)
    if started is not None:
        return Pending(args, started.pid, started.wait, check=True, cwd=top)
    return start(args, cwd=top)


def read_status(started: Pending) -> Status:
    """Wait for a `start_status` and read it; raise GitError when it failed."""
    out: list[Change] = []
    head = None
    for record in split_z(started.result().stdout):
        kind = record[:1]
        if kind == "?":
            out.append(Change("??", record[2:]))
        elif kind == "1":
            fields = record.split(" ", 8)
            out.append(Change(fields[1], fields[8]))
        elif kind == "u":
            fields = record.split(" ", 10)
            out.append(Change(fields[1], fields[10]))
        elif record.startswith("# branch.oid "):
            oid = record.removeprefix("# branch.oid ")
            head = None if oid == "(initial)" else oid
    return Status(out, head)


def tree_identity(repo: Repo) -> str:
    """Return the tree object the working tree would commit as: HEAD's tree plus every tracked
    and untracked-not-ignored change. An edit changes it; a rerun on the same files does not.

    Built in a temporary copy of the index beside the real one (owner-only, removed after; git
    writes its lock beside it), so the real index (and what is staged) is untouched. The copy is
    made without `tempfile` and `shutil` where it can be: their imports cost ~3 ms, and this
    runs on the first `status` after every edit.
    """
    top = repo.worktree()
    index = _index_copy(repo.git_dir)
    try:
        env = {"GIT_INDEX_FILE": index}
        run(["add", "-A", "--", "."], cwd=top, env=env)
        return run(["write-tree"], cwd=top, env=env).stdout.strip()
    finally:
        try:
            os.unlink(index)
        except FileNotFoundError:
            pass


def _index_copy(git_dir: str) -> str:
    """Copy the index of `git_dir` to a new owner-only file beside it (in the temporary
    directory where the git dir cannot be written) and return its name; with no index yet, the
    name of none (git starts from no index at all: an empty file is not one)."""
    from gitflow_harness.store.fsutil import create_temp

    try:
        fd, copy = create_temp(os.path.join(git_dir, "gfh-tree-index"))
    except OSError:  # a git dir this user cannot write to (or a read-only filesystem)
        import tempfile

        fd, copy = create_temp(os.path.join(tempfile.gettempdir(), "gfh-tree-index"))
    with os.fdopen(fd, "wb") as out:
        try:
            with open(os.path.join(git_dir, "index"), "rb") as real:
                while chunk := real.read(COPY_CHUNK):
                    out.write(chunk)
            return copy
        except FileNotFoundError:
            pass
    os.unlink(copy)
    return copy


COPY_CHUNK = 1 << 20


def tracked(repo: Repo, paths: Sequence[str] = ()) -> set[str]:
    """Return the tracked paths among `paths` (all tracked paths when empty), repo-relative."""
    return start_tracked(repo, paths)()


def start_tracked(repo: Repo, paths: Sequence[str] = ()) -> Callable[[], set[str]]:
    """Start `git ls-files` and return what waits for it and returns `tracked`."""
    pending = start(["ls-files", "-z", "--full-name", "--", *paths], cwd=repo.worktree())
    return lambda: set(split_z(pending.result().stdout))


def tracked_at_head(repo: Repo, path: str) -> bool:
    """True when `path` (repo-relative) is in HEAD's tree."""
    proc = run(["cat-file", "-e", f"HEAD:{path}"], cwd=repo.worktree(), check=False)
    return proc.returncode == 0


class Worktree(NamedTuple):
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
                        path=_path(record["worktree"]),
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


def _path(text: str) -> Path:
    from pathlib import Path  # here: `gfh status` imports this module, and no `pathlib`

    return Path(text)


def worktree_add(repo: Repo, path: Path, branch: str, base: str) -> None:
    """Create branch `branch` at `base` checked out in a new worktree at `path`."""
    run(["worktree", "add", "-q", "-b", branch, str(path), base], cwd=_cwd(repo))


def worktree_checkout(repo: Repo, path: Path, branch: str) -> None:
    """Check the existing branch `branch` out in a new worktree at `path`."""
    run(["worktree", "add", "-q", str(path), branch], cwd=_cwd(repo))


def ignored(top: Path) -> list[str]:
    """Return the ignored files of the worktree at `top`, a wholly ignored folder as one entry
    (`.venv/`): what `git worktree remove` deletes without a word."""
    proc = run(
        ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"],
        cwd=top,
        check=False,
    )
    return split_z(proc.stdout) if proc.returncode == 0 else []


def worktree_remove(repo: Repo, path: Path) -> Completed:
    """Remove the (clean) worktree at `path`; the caller reads the result."""
    return run(["worktree", "remove", str(path)], cwd=_cwd(repo), check=False)


def integrate(repo: Repo, how: str, rev: str, env: Mapping[str, str]) -> Completed:
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


def fast_forward_checkout(top: Path, rev: str) -> Completed:
    """Fast-forward the branch checked out at `top` to `rev` (`git merge --ff-only`)."""
    return run(["merge", "--ff-only", "-q", rev], cwd=top, check=False)


def switch(top: Path, branch: str) -> Completed:
    """Switch the checkout at `top` to `branch`; the caller reads the result."""
    return run(["switch", "-q", branch], cwd=top, check=False)


def move(repo: Repo, source: str, destination: str) -> None:
    """`git mv` a tracked file (repo-relative paths); the destination's folder must exist."""
    run(["mv", "--", source, destination], cwd=repo.worktree())


# -- ways scripts --


def blobs_at_head(cwd: Path, paths: Sequence[str]) -> dict[str, tuple[str, str]]:
    """Return `path -> (mode, blob id)` for those of `paths` that are files in HEAD's tree.

    One git call. `cwd` is any directory of the working tree; `paths` are repo-relative
    (POSIX). An unborn HEAD holds none.
    """
    if not paths:
        return {}
    proc = run(["ls-tree", "-z", "--full-tree", "HEAD", "--", *paths], cwd=cwd, check=False)
    if proc.returncode != 0:
        return {}
    wanted = set(paths)
    found: dict[str, tuple[str, str]] = {}
    for record in split_z(proc.stdout):
        meta, _, path = record.partition("\t")
        fields = meta.split(" ")
        if path in wanted and len(fields) == 3 and fields[1] == "blob":
            found[path] = (fields[0], fields[2])
    return found


# What may run of a script a way ships (see `committed`).
UNTRACKED = "untracked"  # not a regular file in HEAD's tree: never run
MODIFIED = "modified"  # differs from the blob committed at HEAD: never run
_FILE_MODES = ("100644", "100755")  # a regular file in a tree; not a symlink, not a submodule


def committed(top: Path, paths: Sequence[str]) -> dict[str, str | bytes]:
    """Return path -> its content when it is exactly the blob HEAD holds, else why not
    (`UNTRACKED`, `MODIFIED`).

    One `git ls-tree` for all `paths`, then each working file is read (never through a symlink
    or a FIFO) and hashed as git hashes a blob, with no clean filter or line-ending conversion:
    the bytes that would run are the bytes HEAD holds. The hook runs only such scripts, and
    `gfh ways lint` warns about every other one by the same test.
    """
    blobs = blobs_at_head(top, paths)
    verdicts: dict[str, str | bytes] = {}
    for path in paths:
        blob = blobs.get(path)
        if blob is None or blob[0] not in _FILE_MODES:
            verdicts[path] = UNTRACKED
            continue
        content = _read_regular(top / path)
        if content is None or blob_id(content, len(blob[1])) != blob[1]:
            verdicts[path] = MODIFIED
        else:
            verdicts[path] = content
    return verdicts


def blob_id(content: bytes, width: int = 40) -> str:
    """Return the id git gives `content` as a blob: SHA-1, or SHA-256 for 64-digit ids."""
    import hashlib

    digest = hashlib.sha256() if width == 64 else hashlib.sha1()  # git names blobs by SHA-1
    digest.update(b"blob %d\0" % len(content))
    digest.update(content)
    return digest.hexdigest()


def _read_regular(path: Path | bytes) -> bytes | None:
    """Return the content of a regular file, never through a symlink or a FIFO; else None."""
    import stat

    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    with open(fd, "rb") as fh:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            return fh.read()
        except OSError:
            return None
