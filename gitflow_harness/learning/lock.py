"""The one lock every writer of pills and requests holds, in the git common dir.

One lock for the whole learning area keeps it simple to reason about: a bump never loses a
count to a concurrent bump, a check never files twice, an answer never races a filing. It lives
in the common dir so every worktree of the repository (and every hook in them) shares it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from gitflow_harness import git

LOCK_NAME: Final = "learning.lock"


def lock_path(repo: git.Repo) -> Path:
    """Return the learning lock's path."""
    return Path(repo.common_dir, "gitflow-harness", LOCK_NAME)


@contextmanager
def held(repo: git.Repo) -> Iterator[None]:
    """Hold the learning lock for the block."""
    from gitflow_harness.store.fsutil import ensure_private_dir
    from gitflow_harness.store.locks import exclusive

    path = lock_path(repo)
    ensure_private_dir(path.parent)
    with exclusive(path):
        yield
