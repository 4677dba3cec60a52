"""`gitflow_harness.git.history`: reflogs."""

from __future__ import annotations

from pathlib import Path

from gitflow_harness import git
from tests.helpers import diverge
from tests.helpers import git as run_git


def test_reflog_records_merges_and_rebases(repo: Path) -> None:
    diverge(repo, "topic", {"t.txt": "t\n"}, {"m.txt": "m\n"})
    run_git(repo, "rebase", "-q", "main")
    r = git.discover(repo)
    entries = git.reflog(r, "refs/heads/topic")
    assert entries[0].message.startswith("rebase (finish): refs/heads/topic onto ")
    assert entries[-1].message == "branch: Created from HEAD"
    assert entries[0].when >= entries[-1].when
    assert git.reflog(r, "refs/heads/nope") == []


def test_a_whole_reflog_read_from_its_file_matches_git(repo: Path) -> None:
    """If the report reads a branch's reflog file in Python, it sees what `git reflog` shows."""
    diverge(repo, "topic", {"t.txt": "t\n"}, {"m.txt": "m\n"})
    run_git(repo, "merge", "-q", "--no-edit", "main")
    run_git(repo, "rebase", "-q", "main")
    r = git.discover(repo)
    from_file = git.reflog(r, "refs/heads/topic")
    from_git = git.reflog(r, "refs/heads/topic", limit=100)
    assert from_file == from_git
    assert len(from_file) >= 4
    assert git.reflog(r, "refs/heads/topic", limit=1) == from_file[:1]
