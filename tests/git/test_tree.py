"""`gitflow_harness.git.tree`: the working tree: its changes and its identity."""

from __future__ import annotations

from pathlib import Path

from gitflow_harness import git
from tests.helpers import git as run_git
from tests.helpers import write


def test_tree_identity_follows_the_working_tree(repo: Path) -> None:
    r = git.discover(repo)
    head_tree = run_git(repo, "rev-parse", "HEAD^{tree}").strip()
    assert git.tree_identity(r) == head_tree
    assert git.tree_identity(r) == head_tree  # a rerun on the same files: same identity
    write(repo, "new.txt", "untracked\n")
    with_untracked = git.tree_identity(r)
    assert with_untracked != head_tree
    write(repo, ".gitignore", "ignored.txt\n")
    ignore_only = git.tree_identity(r)
    write(repo, "ignored.txt", "ignored\n")
    assert git.tree_identity(r) == ignore_only
    run_git(repo, "add", "new.txt")  # staging does not change what the tree is
    assert git.tree_identity(r) == ignore_only
    write(repo, "README.md", "edited\n")
    assert git.tree_identity(r) != ignore_only
    assert run_git(repo, "diff", "--cached", "--name-only").split() == [
        "new.txt"
    ]  # index untouched


def test_changes_lists_tracked_and_untracked(repo: Path) -> None:
    write(repo, "README.md", "changed\n")
    write(repo, "dir/new file.txt", "x\n")
    r = git.discover(repo)
    assert {(c.xy, c.path) for c in git.changes(r)} == {
        (".M", "README.md"),
        ("??", "dir/new file.txt"),
    }
    assert git.tracked(r, ["README.md", "dir/new file.txt"]) == {"README.md"}
    assert git.tracked_at_head(r, "README.md")
    assert not git.tracked_at_head(r, "dir/new file.txt")


def test_status_says_the_changes_and_heads_commit(repo: Path, tmp_path: Path) -> None:
    write(repo, "README.md", "changed\n")
    r = git.discover(repo)
    status = git.read_status(git.start_status(r, head=True))
    assert status == git.Status(git.changes(r), run_git(repo, "rev-parse", "HEAD").strip())
    assert git.read_status(git.start_status(r)).head is None  # not asked for
    unborn = tmp_path / "unborn"
    run_git(tmp_path, "init", "-q", str(unborn))
    write(unborn, "a.txt", "a\n")
    fresh = git.discover(unborn)
    assert git.read_status(git.start_status(fresh, head=True)) == git.Status(
        [git.Change("??", "a.txt")], None
    )


def test_started_tracked_is_tracked(repo: Path) -> None:
    write(repo, "new.txt", "new\n")
    r = git.discover(repo)
    asked = ["README.md", "new.txt", "absent.txt"]
    assert git.start_tracked(r, asked)() == git.tracked(r, asked) == {"README.md"}
