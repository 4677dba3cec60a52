"""Citations: a pill's `path` or `path:line` references, which must resolve in this repository.

Every citation of every pill is checked with one `git ls-files` (is it tracked?) and one history
walk (did it change after the pill's date?), side by side, whatever the number of pills and
citations; both run while the rest of the check goes on.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from gitflow_harness import git
from gitflow_harness.learning import history
from gitflow_harness.learning.pills import Pill
from gitflow_harness.store.schema import Problem

# Not `typing.TYPE_CHECKING`: `gfh pills check` does not import typing (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Callable
    from typing import NamedTuple
else:
    from gitflow_harness.records import NamedTuple

_WITH_LINE = re.compile(r"^(?P<path>.+):(?P<line>\d+)$")


class Citation(NamedTuple):
    """One parsed citation."""

    text: str
    path: str  # repo-relative, posix
    line: int | None


def parse(text: str) -> Citation | str:
    """Parse `path` or `path:line`; return the Citation, or what is wrong with it."""
    match = _WITH_LINE.match(text.strip())
    path, line = (match["path"], int(match["line"])) if match else (text.strip(), None)
    if line is not None and line < 1:
        return f"citation {text!r}: lines count from 1"
    found = repo_path(path)
    if isinstance(found, Outside):
        return f"citation {text!r}: {found.reason}"
    return Citation(text=text, path=found, line=line)


class Outside(NamedTuple):
    """Why a path written in a file does not name a place inside the repository."""

    reason: str


def repo_path(path: str) -> str | Outside:
    """Return `path` as a normal repo-relative POSIX path, or why it is not one."""
    if path.startswith(("/", "~")) or "\\" in path:
        return Outside("give a path relative to the repository's top")
    if path and not (path.startswith(".") or path.endswith("/") or "/." in path or "//" in path):
        return path  # no empty, `.` or `..` part: normal as it is
    pure = PurePosixPath(path)
    if ".." in pure.parts:
        return Outside("must stay inside the repository")
    return pure.as_posix().removeprefix("./")


def start(pills: Sequence[Pill], repo: git.Repo, top: Path) -> Callable[[], list[Problem]]:
    """Start checking every citation of `pills` and return what finishes it.

    One ls-files and one history walk run while the caller goes on with other work (the walk
    in a thread that waits on git's output). The function returned looks at the cited files
    once ls-files is done, while git may still walk, then waits for the walk and returns the
    problems of every citation.
    """
    problems: list[Problem] = []
    parsed: list[tuple[Pill, Citation]] = []
    for pill in pills:
        for text in pill.citations:
            found = parse(text)
            if isinstance(found, str):
                problems.append(Problem(pill.rel, pill.line("citations"), "error", found))
            else:
                parsed.append((pill, found))
    if not parsed:
        return lambda: problems
    cited = sorted({c.path for _, c in parsed})
    changes = _walk_beside(repo, cited, min(p.date for p, _ in parsed))  # the longest: first
    listed = git.start_tracked(repo, cited)

    def finish() -> list[Problem]:
        # ls-files ends long before the walk: judge what it and the files tell meanwhile.
        judged = _judge(parsed, os.fspath(top), listed())
        changed = changes()
        for slot in judged:
            found = slot if isinstance(slot, Problem) else _changed(*slot, changed)
            if found is not None:
                problems.append(found)
        return problems

    return finish


def _walk_beside(
    repo: git.Repo, paths: list[str], since: dt.date
) -> Callable[[], history.ChangeTimes]:
    """Walk the history in a thread, which mostly waits for git's output, and return what
    joins it and returns the walk (or raises what the walk raised)."""
    import threading

    done: list[history.ChangeTimes] = []
    failed: list[BaseException] = []

    def work() -> None:
        try:
            done.append(history.walk(repo, paths, since))
        except BaseException as exc:  # re-raised where the walk is asked for
            failed.append(exc)

    thread = threading.Thread(target=work, name="gfh-history-walk")
    thread.start()

    def result() -> history.ChangeTimes:
        thread.join()
        if failed:
            raise failed[0]
        return done[0]

    return result


def _judge(
    parsed: list[tuple[Pill, Citation]],
    base: str,
    tracked: set[str],
) -> list[Problem | tuple[Pill, Citation]]:
    """The problem of each parsed citation that ls-files and the files show, in order, and in
    its place each citation that resolves, for the walk to tell whether it changed since."""
    problems: list[Problem | tuple[Pill, Citation]] = []
    tracked_dirs = {t.rpartition("/")[0] or "." for t in tracked}  # git's paths are normal
    line_counts: dict[str, int] = {}
    for pill, citation in parsed:
        where = pill.line("citations")
        target = os.path.join(base, citation.path)
        mode = _mode(target)
        if mode is None:
            problems.append(
                Problem(pill.rel, where, "error", f"citation {citation.text!r}: no such file")
            )
            continue
        if stat.S_ISDIR(mode):
            if citation.line is not None:
                problems.append(
                    Problem(
                        pill.rel,
                        where,
                        "error",
                        f"citation {citation.text!r}: a directory has no lines",
                    )
                )
            elif not _dir_tracked(citation.path, tracked_dirs):
                problems.append(_untracked(pill, where, citation))
            continue
        if citation.path not in tracked:
            problems.append(_untracked(pill, where, citation))
            continue
        if citation.line is not None:
            count = line_counts.get(citation.path)
            if count is None:
                count = line_counts[citation.path] = _count_lines(target)
            if citation.line > count:
                problems.append(
                    Problem(
                        pill.rel,
                        where,
                        "error",
                        f"citation {citation.text!r}: {citation.path} has {count} line(s)",
                    )
                )
                continue
        problems.append((pill, citation))
    return problems


def _changed(pill: Pill, citation: Citation, changes: history.ChangeTimes) -> Problem | None:
    """A note when the cited file changed after the pill's date."""
    changed = changes.changed_after(citation.path, pill.date)
    if changed is None:
        return None
    return Problem(
        pill.rel,
        pill.line("citations"),
        "note",
        f"citation {citation.text!r}: {citation.path} changed after the pill's date "
        f"{pill.date} (last on {history.local_date(changed)}); check it still shows "
        "what the lesson means",
    )


def _untracked(pill: Pill, where: int, citation: Citation) -> Problem:
    return Problem(
        pill.rel,
        where,
        "error",
        f"citation {citation.text!r}: {citation.path} is not tracked by git, so nobody else "
        "has it; `git add` it or cite a tracked file",
    )


def _dir_tracked(path: str, tracked_dirs: set[str]) -> bool:
    prefix = path.rstrip("/")
    return any(d == prefix or d.startswith(prefix + "/") for d in tracked_dirs) or prefix in (
        "",
        ".",
    )


# What `Path.exists` takes for "not there" rather than a failure to report, and a name too
# long for any file to have it.
_ABSENT = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP, errno.ENAMETOOLONG})


def _mode(path: str) -> int | None:
    """The file mode of `path` (symlinks followed), None where `Path.exists` says False or the
    name is too long to exist: one `stat` for what `exists` and `is_dir` asked with two."""
    try:
        return os.stat(path).st_mode
    except OSError as exc:
        if exc.errno in _ABSENT:
            return None
        raise
    except ValueError:
        return None


def _count_lines(path: str) -> int:
    with open(path, "rb") as fh:
        data = fh.read()
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
