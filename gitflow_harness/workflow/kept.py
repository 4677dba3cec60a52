"""Answers of git kept between commands while what they are made of is unchanged.

Each kind is one small owner-only JSON object of `key: answer` strings in the repository's git
dir, the newest last, at most `KEEP` of them. A file that cannot be read is an empty one; an
answer that cannot be kept costs the next command its computation, nothing else.
"""

from __future__ import annotations

import os

from gitflow_harness import git, jsonio
from gitflow_harness.store.fsutil import read_bytes

# Not `typing.TYPE_CHECKING`: `gfh status` does not import typing (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

KEEP: Final = 16  # the newest answers kept: a tree and the few states it moves between
COUNTS: Final = ("gitflow-harness", "ahead-behind.json")


def read(path: str) -> dict[str, str]:
    """Return the answers kept in `path`, {} when there are none or the file is damaged."""
    try:
        data = jsonio.loads(read_bytes(path))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


def keep(path: str, known: dict[str, str], key: str, answer: str) -> None:
    """Write `known` (as `read` returned it) back to `path` with `answer` under `key`, newest."""
    from gitflow_harness.store.fsutil import write_private

    known.pop(key, None)
    known[key] = answer
    try:
        write_private(path, jsonio.dumps(dict(list(known.items())[-KEEP:])))
    except OSError:
        pass


def ahead_behind(repo: git.Repo, head: str, trunk: str, trunk_sha: str) -> git.AheadBehind | None:
    """`git.ahead_behind` of commit `head` against `trunk` at `trunk_sha`, kept by the pair.

    Commits never change, so the counts between two of them do not either, in every worktree:
    they are kept in the common dir. Not in a shallow clone (a deepening fetch changes what
    history is known) nor where replace refs or grafts can rewrite it.
    """
    if repo.shallow or _history_rewritable(repo.common_dir):
        return git.ahead_behind(repo, head, trunk)
    path = os.path.join(repo.common_dir, *COUNTS)
    known = read(path)
    key = f"{head} {trunk_sha}"
    answer = known.get(key, "").split()
    if len(answer) == 2 and all(n.isdigit() for n in answer):
        return git.AheadBehind(ahead=int(answer[0]), behind=int(answer[1]))
    counts = git.ahead_behind(repo, head, trunk_sha)
    if counts is not None:
        keep(path, known, key, f"{counts.ahead} {counts.behind}")
    return counts


def _history_rewritable(common_dir: str) -> bool:
    if os.path.exists(os.path.join(common_dir, "info", "grafts")):
        return True
    try:
        with os.scandir(os.path.join(common_dir, "refs", "replace")) as entries:
            if any(entries):
                return True
    except OSError:
        pass
    try:
        packed = read_bytes(os.path.join(common_dir, "packed-refs"))
    except OSError:
        return False
    return b" refs/replace/" in packed
