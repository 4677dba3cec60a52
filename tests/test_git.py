from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness import git
from gitflow_harness.errors import RepoStateError, UsageError
from tests.helpers import CliRunner, commit, make_repo, write
from tests.helpers import git as run_git


def test_discover_main_checkout_and_linked_worktree(repo: Path) -> None:
    found = git.discover(repo)
    assert found.top == repo
    assert found.common_dir == repo / ".git"
    assert not found.linked
    assert found.name == "repo"
    run_git(repo, "worktree", "add", "-q", "-b", "feat", str(repo.parent / "wt"))
    linked = git.discover(repo.parent / "wt")
    assert linked.top == repo.parent / "wt"
    assert linked.common_dir == repo / ".git"
    assert linked.linked
    assert linked.name == "repo"
    assert linked.main_top == repo
    assert [w.branch for w in git.worktrees(linked)] == ["main", "feat"]


def test_not_a_repository_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(git.NotARepository, match="not a git repository") as err:
        git.discover(tmp_path)
    assert err.value.exit_code == 2


def test_not_a_repository_through_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gfh: CliRunner
) -> None:
    monkeypatch.chdir(tmp_path)
    result = gfh("events", "tail")
    assert result.code == 2
    fix = "(run gfh inside a repository, or `git init` one)"
    assert result.err == f"gfh: not a git repository: {tmp_path} {fix}\n"


def test_a_vanished_current_directory_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the shell sits in a directory that was removed (the worktree `gfh accept` just
    removed), discovery says so and how to get out, instead of crashing."""
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    with pytest.raises(UsageError) as err:
        git.discover()
    assert err.value.exit_code == 2
    assert err.value.message == (
        "the current directory no longer exists (removed by `gfh accept`?): cd to the main checkout"
    )


def test_bare_repository_has_no_worktree(tmp_path: Path) -> None:
    run_git(tmp_path, "init", "-q", "--bare", "b.git")
    repo = git.discover(tmp_path / "b.git")
    assert repo.bare
    assert repo.top is None
    with pytest.raises(UsageError, match="is a bare repository: it has no working tree") as err:
        git.require(repo, "gfh status")
    assert err.value.exit_code == 2


def test_unborn_branch(tmp_path: Path) -> None:
    run_git(tmp_path, "init", "-q", "-b", "main")
    repo = git.discover(tmp_path)
    current = git.head(repo)
    assert current.unborn
    assert current.branch == "main"
    with pytest.raises(
        RepoStateError, match=r"branch 'main' has no commits yet; make a first commit"
    ) as err:
        git.require(repo, "gfh start x")
    assert err.value.exit_code == 1
    assert git.require(repo, "gfh status", commit=False).branch == "main"


def test_detached_head(repo: Path) -> None:
    sha = commit(repo, "second", {"a.txt": "a\n"})
    run_git(repo, "checkout", "-q", "--detach", "HEAD")
    r = git.discover(repo)
    current = git.head(r)
    assert current.detached
    assert current.label == "HEAD"
    assert current.sha == sha
    with pytest.raises(
        RepoStateError, match=rf"HEAD is detached at {sha[:10]}; switch to a branch"
    ):
        git.require(r, "gfh update")


def _conflict(repo: Path) -> None:
    run_git(repo, "switch", "-q", "-c", "topic")
    commit(repo, "topic change", {"README.md": "topic\n"})
    run_git(repo, "switch", "-q", "main")
    commit(repo, "main change", {"README.md": "main\n"})
    run_git(repo, "switch", "-q", "topic")


def test_mid_rebase(repo: Path) -> None:
    _conflict(repo)
    run_git(repo, "rebase", "main", check=False)
    r = git.discover(repo)
    assert git.operation_in_progress(r) == "rebase"
    with pytest.raises(RepoStateError) as err:
        git.require(r, "gfh done")
    assert str(err.value) == (
        f"a rebase is in progress in {repo}; finish it (`git rebase --continue`) or abort it "
        "(`git rebase --abort`) before `gfh done`"
    )


def test_mid_merge(repo: Path) -> None:
    _conflict(repo)
    run_git(repo, "merge", "main", check=False)
    r = git.discover(repo)
    assert git.operation_in_progress(r) == "merge"
    with pytest.raises(RepoStateError, match=r"a merge is in progress .* \(`git merge --abort`\)"):
        git.require(r, "gfh update")
    assert [c.path for c in git.changes(r) if c.conflicted] == ["README.md"]


def test_shallow_clone_cut_before_merge_base_is_unknown(tmp_path: Path) -> None:
    origin = make_repo(tmp_path / "origin")
    run_git(origin, "switch", "-q", "-c", "feature")
    commit(origin, "f1", {"f.txt": "1\n"})
    run_git(origin, "switch", "-q", "main")
    for i in range(3):
        commit(origin, f"m{i}", {"m.txt": f"{i}\n"})
    run_git(
        tmp_path, "clone", "-q", "--depth=1", "--no-single-branch", f"file://{origin}", "shallow"
    )
    clone = tmp_path / "shallow"
    run_git(clone, "branch", "-q", "feature", "origin/feature")
    repo = git.discover(clone)
    assert repo.shallow
    assert git.ahead_behind(repo, "feature", "main") is None
    full = git.discover(origin)
    assert git.ahead_behind(full, "feature", "main") == git.AheadBehind(ahead=1, behind=3)


def test_trunk_detection(repo: Path) -> None:
    r = git.discover(repo)
    assert git.detect_trunk(r) == "main"
    assert git.detect_trunk(r, "develop") == "develop"
    run_git(repo, "branch", "-m", "main", "master")
    assert git.detect_trunk(r) == "master"
    run_git(repo, "branch", "-m", "master", "trunk")
    assert git.detect_trunk(r) is None
    with pytest.raises(RepoStateError, match="cannot find the trunk"):
        git.require_trunk(r)
    with pytest.raises(RepoStateError, match="the trunk 'develop' has no local branch"):
        git.require_trunk(r, "develop")


def test_trunk_from_origin_head(tmp_path: Path) -> None:
    origin = make_repo(tmp_path / "origin", branch="trunk")
    run_git(tmp_path, "clone", "-q", str(origin), "clone")
    assert git.detect_trunk(git.discover(tmp_path / "clone")) == "trunk"


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


def test_reflog_records_merges_and_rebases(repo: Path) -> None:
    run_git(repo, "switch", "-q", "-c", "topic")
    commit(repo, "t", {"t.txt": "t\n"})
    run_git(repo, "switch", "-q", "main")
    commit(repo, "m", {"m.txt": "m\n"})
    run_git(repo, "switch", "-q", "topic")
    run_git(repo, "rebase", "-q", "main")
    r = git.discover(repo)
    entries = git.reflog(r, "refs/heads/topic")
    assert entries[0].message.startswith("rebase (finish): refs/heads/topic onto ")
    assert entries[-1].message == "branch: Created from HEAD"
    assert entries[0].when >= entries[-1].when
    assert git.reflog(r, "refs/heads/nope") == []


def test_git_error_names_command_exit_and_stderr(repo: Path) -> None:
    with pytest.raises(git.GitError) as err:
        git.run(["rev-parse", "--verify", "no-such-ref"], cwd=repo)
    assert str(err.value).startswith(
        "`git rev-parse --verify no-such-ref` failed with exit code 128: fatal:"
    )
    assert "exit code: 128" in err.value.details()


def test_first_line_is_the_first_non_blank_line_stripped() -> None:
    assert git.first_line("\n   \n  fatal: bad thing  \nhint: more\n") == "fatal: bad thing"
    assert git.first_line(" \n\n") == "no output"
    assert git.first_line("", "no message") == "no message"


def test_a_whole_reflog_read_from_its_file_matches_git(repo: Path) -> None:
    """If the report reads a branch's reflog file in Python, it sees what `git reflog` shows."""
    run_git(repo, "switch", "-q", "-c", "topic")
    commit(repo, "t", {"t.txt": "t\n"})
    run_git(repo, "switch", "-q", "main")
    commit(repo, "m", {"m.txt": "m\n"})
    run_git(repo, "switch", "-q", "topic")
    run_git(repo, "merge", "-q", "--no-edit", "main")
    run_git(repo, "rebase", "-q", "main")
    r = git.discover(repo)
    from_file = git.reflog(r, "refs/heads/topic")
    from_git = git.reflog(r, "refs/heads/topic", limit=100)
    assert from_file == from_git
    assert len(from_file) >= 4
    assert git.reflog(r, "refs/heads/topic", limit=1) == from_file[:1]
