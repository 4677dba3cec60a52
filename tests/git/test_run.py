from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness import git
from gitflow_harness.errors import RepoStateError


def test_a_vanished_directory_is_named_not_blamed_on_git(tmp_path: Path) -> None:
    gone = tmp_path / "worktree"
    with pytest.raises(RepoStateError) as err:
        git.run(["status"], cwd=gone)
    assert str(err.value) == (
        f"{gone}: the directory no longer exists; if it was a worktree, run `git worktree prune`"
    )
