"""`gitflow_harness.git.refs`: commits by name, branches and the trunk."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness import git
from gitflow_harness.errors import RepoStateError
from tests.helpers import commit, make_repo
from tests.helpers import git as run_git


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


def test_local_trunk_is_the_detected_trunk_when_its_branch_exists(
    tmp_path: Path, repo: Path
) -> None:
    r = git.discover(repo)
    assert git.local_trunk(r) == "main"
    assert git.local_trunk(r, "main") == "main"
    assert git.local_trunk(r, "develop") is None
    run_git(repo, "branch", "develop/x")  # a branch under the name is not the branch
    assert git.local_trunk(r, "develop") is None
    run_git(repo, "branch", "-m", "main", "trunk")
    assert git.local_trunk(r) is None
    origin = make_repo(tmp_path / "origin", branch="stable")
    run_git(tmp_path, "clone", "-q", str(origin), "clone")
    clone = git.discover(tmp_path / "clone")
    assert git.local_trunk(clone) == "stable"
    run_git(tmp_path / "clone", "switch", "-q", "--detach")
    run_git(tmp_path / "clone", "branch", "-q", "-D", "stable")
    assert git.detect_trunk(clone) == "stable"
    assert git.local_trunk(clone) is None


def test_commits_among_names_the_commits_git_has(repo: Path) -> None:
    """Full and abbreviated names of commits count; a tree, a missing object do not."""
    head = run_git(repo, "rev-parse", "HEAD").strip()
    tree = run_git(repo, "rev-parse", "HEAD^{tree}").strip()
    r = git.discover(repo)
    names = [head, head[:7], tree, "0" * 40]
    assert git.commits_among(r, names) == {head, head[:7]}
    assert git.commits_among(r, []) == set()


def test_merge_base_is_where_a_branch_left_the_trunk(repo: Path) -> None:
    r = git.discover(repo)
    left = run_git(repo, "rev-parse", "HEAD").strip()
    run_git(repo, "checkout", "-q", "-b", "topic")
    run_git(repo, "commit", "-q", "--allow-empty", "-m", "on topic")
    run_git(repo, "checkout", "-q", "main")
    run_git(repo, "commit", "-q", "--allow-empty", "-m", "on main")
    assert git.merge_base(r, "topic", "main") == left
    run_git(repo, "checkout", "-q", "--orphan", "island")
    run_git(repo, "commit", "-q", "--allow-empty", "-m", "alone")
    assert git.merge_base(r, "island", "main") is None


def test_the_local_trunk_read_with_its_commit(tmp_path: Path, repo: Path) -> None:
    r = git.discover(repo)
    main = run_git(repo, "rev-parse", "main").strip()
    for configured in ("", "main"):
        started = git.start_local_trunk(r, configured)
        assert git.read_local_trunk(r, configured, started) == git.LocalTrunk("main", main)
    started = git.start_local_trunk(r, "develop")
    assert git.read_local_trunk(r, "develop", started) == git.LocalTrunk(None, None)
    run_git(repo, "branch", "develop")
    commit(repo, "main moves", {"m.txt": "m\n"})
    started = git.start_local_trunk(r, "develop")
    assert git.read_local_trunk(r, "develop", started) == git.LocalTrunk("develop", main)
    # origin/HEAD naming a branch other than main or master: asked about on its own.
    origin = make_repo(tmp_path / "origin", branch="stable")
    run_git(tmp_path, "clone", "-q", str(origin), "clone")
    clone = git.discover(tmp_path / "clone")
    trunk = git.read_local_trunk(clone, "", git.start_local_trunk(clone))
    stable = run_git(tmp_path / "clone", "rev-parse", "stable").strip()
    assert trunk == git.LocalTrunk("stable", stable)


def test_the_local_trunk_git_reads_where_the_ref_files_cannot_tell(tmp_path: Path) -> None:
    origin = make_repo(tmp_path / "origin", branch="stable")
    run_git(tmp_path, "clone", "-q", str(origin), "clone")
    top = tmp_path / "clone"
    clone = git.discover(top)
    stable = run_git(top, "rev-parse", "stable").strip()
    run_git(top, "branch", "real", "stable")
    run_git(top, "symbolic-ref", "refs/heads/stable", "refs/heads/real")  # git's to resolve
    assert git.read_local_trunk(clone, "", git.start_local_trunk(clone)) == git.LocalTrunk(
        "stable", stable
    )
    (top / ".git" / "reftable").mkdir()  # another storage: every ref is git's
    assert git.read_local_trunk(clone, "", git.start_local_trunk(clone)) == git.LocalTrunk(
        "stable", stable
    )
