"""`gitflow_harness.git.tree`: the working tree: its changes and its identity."""

from __future__ import annotations

from pathlib import Path

import pytest

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


def test_tree_identity_leaves_no_copy_of_the_index_behind(repo: Path) -> None:
    r = git.discover(repo)
    before = sorted(p.name for p in Path(r.git_dir).iterdir())
    write(repo, "README.md", "edited\n")
    assert git.tree_identity(r) != run_git(repo, "rev-parse", "HEAD^{tree}").strip()
    assert sorted(p.name for p in Path(r.git_dir).iterdir()) == before


def test_tree_identity_of_a_repository_with_no_index_yet(tmp_path: Path) -> None:
    top = tmp_path / "fresh"
    run_git(tmp_path, "init", "-q", str(top))
    write(top, "a.txt", "a\n")
    r = git.discover(top)
    assert not (Path(r.git_dir) / "index").exists()
    run_git(top, "add", "a.txt")
    expected = run_git(top, "write-tree").strip()
    (Path(r.git_dir) / "index").unlink()  # as before anything was added
    assert git.tree_identity(r) == expected
    assert not (Path(r.git_dir) / "index").exists()
    assert not [p for p in Path(r.git_dir).iterdir() if "gfh-tree-index" in p.name]


def test_tree_identity_where_the_git_dir_cannot_be_written(
    repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    r = git.discover(repo)
    write(repo, "README.md", "edited\n")
    expected = git.tree_identity(r)
    from gitflow_harness.store import fsutil

    create = fsutil.create_temp
    made: list[str] = []

    def refuse_the_git_dir(path: str) -> tuple[int, str]:
        if Path(path).parent == Path(r.git_dir):
            raise PermissionError(13, "Permission denied", str(Path(path).parent))
        fd, name = create(path)
        made.append(name)
        return fd, name

    monkeypatch.setattr(fsutil, "create_temp", refuse_the_git_dir)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    assert git.tree_identity(r) == expected
    assert [Path(m).parent for m in made] == [tmp_path]
    assert not Path(made[0]).exists()
