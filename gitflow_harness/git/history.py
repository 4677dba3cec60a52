"""History: reflogs and one-pass walks of the log."""

from __future__ import annotations

import os
from collections.abc import Iterator

from gitflow_harness.errors import UsageError
from gitflow_harness.git.core import NO_GIT, Repo, _cwd, failure, head, run, split_z

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime
    from typing import NamedTuple
else:
    from gitflow_harness.records import NamedTuple


# A NamedTuple, not a dataclass: every verb imports this module, and a frozen dataclass
# costs about five times as much to define (~0.5 ms each on these machines).
class ReflogEntry(NamedTuple):
    """One reflog line: the commit the ref moved to, when, and git's message for it."""

    sha: str
    when: datetime
    message: str  # e.g. "rebase (finish): refs/heads/topic onto <sha>", "merge main: Fast-forward"


def reflog(repo: Repo, ref: str, *, limit: int | None = None) -> list[ReflogEntry]:
    """Return the reflog of `ref` (e.g. `refs/heads/topic`), newest first; [] when none.

    `limit` reads only the newest entries, through `git reflog`: a hook that runs after every
    merge or rebase needs the last step or two, not the whole history. A whole reflog is read
    from its file (see `_reflog_file`), falling back to `git reflog` where refs are not files.
    """
    if limit is None:
        whole = _reflog_file(repo, ref)
        if whole is not None:
            return whole
    count = [f"-n{limit}"] if limit is not None else []
    proc = run(
        ["reflog", "show", *count, "--date=unix", "--format=%H%x1f%gd%x1f%gs", ref, "--"],
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
            when = _at(int(stamp))
        except ValueError:
            continue
        entries.append(ReflogEntry(sha=sha, when=when, message=message))
    return entries


def _reflog_file(repo: Repo, ref: str) -> list[ReflogEntry] | None:
    """Read a ref's whole reflog from its file, newest first.

    `gfh report` reads the reflog of every branch an episode touched and of every copy of the
    trunk: reading the file replaces a `git` process per ref. None where reflogs are not plain
    files (the reftable backend) or a line is not one git writes: the caller asks git instead.
    """
    if not ref.startswith("refs/") or os.path.exists(os.path.join(repo.common_dir, "reftable")):
        return None
    path = os.path.join(repo.common_dir, "logs", ref)
    if not os.path.isfile(path):
        return [] if not os.path.exists(path) else None
    try:
        with open(path, "rb") as fh:
            lines = fh.read().decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    entries = []
    for line in reversed(lines):
        entry = _reflog_line(line)
        if entry is None:
            return None
        entries.append(entry)
    return entries


def _reflog_line(line: str) -> ReflogEntry | None:
    """One line of a reflog file, `OLD NEW NAME <EMAIL> TIME ZONE<TAB>MESSAGE`; None when it
    is not such a line."""
    info, _tab, message = line.partition("\t")
    _old, _space, rest = info.partition(" ")
    new, _space, who = rest.partition(" ")
    email_end = who.find("> ")
    if email_end == -1 or len(new) not in (40, 64):
        return None
    try:
        stamp = int(who[email_end + 2 :].split(" ", 1)[0])
    except ValueError:
        return None
    return ReflogEntry(sha=new, when=_at(stamp), message=message)


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
    # Imported here: every other git command starts through `git.core` without it.
    import subprocess

    try:
        proc = subprocess.Popen(
            ["git", *args],
            cwd=_cwd(repo),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise UsageError(NO_GIT) from None
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
                    when = _at(int(token[1:]))
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
        raise failure(args, code, "", stderr)
    if when is not None:
        yield when, paths


def commit_time(repo: Repo, rev: str) -> datetime:
    """Return the committer time of `rev`."""
    proc = run(["show", "-s", "--format=%ct", f"{rev}^{{commit}}"], cwd=_cwd(repo))
    return _at(int(proc.stdout.strip()))


def _at(stamp: int) -> datetime:
    """The moment of a unix time stamp, in UTC."""
    # Imported here: the hook's verbs load this module and never read a date.
    from datetime import UTC, datetime

    return datetime.fromtimestamp(stamp, UTC)


def added_between(repo: Repo, base: str, rev: str, path: str) -> list[str]:
    """Return the files under `path` that `rev` has and `base` had not, as repository paths."""
    proc = run(
        ["diff", "--no-ext-diff", "--no-renames", "--name-only", "--diff-filter=A", "-z",
         base, rev, "--", path],
        cwd=_cwd(repo),
    )  # fmt: skip
    return split_z(proc.stdout)


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


def short(sha: str) -> str:
    """Return the conventional 7-character abbreviation of a full sha."""
    return sha[:7]
