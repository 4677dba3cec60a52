"""Citations: a pill's `path` or `path:line` references, which must resolve in this repository.

Every citation of every pill is checked with one `git ls-files` (is it tracked?) and one history
walk (did it change after the pill's date?), side by side, whatever the number of pills and
citations.
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
    pure = PurePosixPath(path)
    if pure.is_absolute() or path.startswith("~") or "\\" in path:
        return Outside("give a path relative to the repository's top")
    if ".." in pure.parts:
        return Outside("must stay inside the repository")
    return pure.as_posix().removeprefix("./")


def check(pills: Sequence[Pill], repo: git.Repo, top: Path) -> list[Problem]:
    """Return the problems of every citation of `pills`: one ls-files, one history walk."""
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
        return problems
    cited = sorted({c.path for _, c in parsed})
    listed = git.start_tracked(repo, cited)  # runs while the history is walked
    with git.reaped(listed):
        changes = history.walk(repo, cited, min(p.date for p, _ in parsed))
    tracked = listed()
    tracked_dirs = {str(PurePosixPath(t).parent) for t in tracked}
    line_counts: dict[str, int] = {}
    base = os.fspath(top)
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
        changed = changes.changed_after(citation.path, pill.date)
        if changed is not None:
            problems.append(
                Problem(
                    pill.rel,
                    where,
                    "note",
                    f"citation {citation.text!r}: {citation.path} changed after the pill's date "
                    f"{pill.date} (last on {history.local_date(changed)}); check it still shows "
                    "what the lesson means",
                )
            )
    return problems


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


# What `Path.exists` takes for "not there" rather than a failure to report.
_ABSENT = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP})


def _mode(path: str) -> int | None:
    """The file mode of `path` (symlinks followed), None where `Path.exists` says False: one
    `stat` for what `exists` and `is_dir` asked with two."""
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
