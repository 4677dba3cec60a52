"""`gitflow_harness.workflow.tree_identity`: the tree identity, remembered while it holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitflow_harness import git
from gitflow_harness.workflow import tree_identity as identity
from gitflow_harness.workflow.kept import KEEP
from tests.helpers import commit, write
from tests.helpers import git as run_git


def fresh(repo: Path) -> str:
    """The identity as computed without any cache: what a cached one must equal."""
    r = git.discover(repo)
    if not git.changes(r):
        return run_git(repo, "rev-parse", "HEAD^{tree}").strip()
    return git.tree_identity(r)


def cached(repo: Path) -> str:
    r, head = git.discover_head(repo)
    assert head is not None
    return identity.tree_identity(r, head.sha, git.changes(r))


def cache_file(repo: Path) -> Path:
    return repo / ".git" / "gitflow-harness" / "tree-identity.json"


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Treat every file as settled: the tests cannot age a file's ctime by two seconds."""
    monkeypatch.setattr(identity, "SETTLED_NS", -(10**12))


def no_compute(*args: object, **kwargs: object) -> str:
    raise AssertionError("computed the identity again")


def test_a_kept_identity_is_taken_until_a_file_changes(
    repo: Path, settled: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(repo, "a.txt", "one\n")
    write(repo, "new.txt", "untracked\n")
    first = cached(repo)
    assert first == fresh(repo)
    with monkeypatch.context() as patch:
        patch.setattr(identity, "_compute", no_compute)
        assert cached(repo) == first
    write(repo, "a.txt", "two\n")  # the same size: only the stamp tells it apart
    assert cached(repo) == fresh(repo) != first
    (repo / "new.txt").unlink()
    run_git(repo, "rm", "-q", "--cached", "README.md")
    assert cached(repo) == fresh(repo)


def test_a_clean_tree_is_its_heads_tree(
    repo: Path, settled: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cached(repo) == fresh(repo)
    with monkeypatch.context() as patch:
        patch.setattr(identity, "_compute", no_compute)
        assert cached(repo) == fresh(repo)
    commit(repo, "more", {"b.txt": "b\n"})
    assert cached(repo) == fresh(repo)


def test_a_change_touched_just_now_is_not_kept(repo: Path) -> None:
    """If an identity were kept for a file written this instant, a second write within the
    filesystem clock's resolution would keep its stamp, and its stale identity."""
    write(repo, "a.txt", "one\n")
    assert cached(repo) == fresh(repo)
    assert not cache_file(repo).exists()


def test_a_nested_repository_is_never_kept(repo: Path, settled: None) -> None:
    nested = repo / "vendor"
    run_git(repo, "init", "-q", str(nested))
    commit(nested, "inside", {"x.txt": "x\n"})
    assert any(c.path.startswith("vendor") for c in git.changes(git.discover(repo)))
    assert cached(repo) == fresh(repo)
    assert not cache_file(repo).exists()


def test_only_the_newest_results_are_kept_and_a_damaged_file_is_computed_over(
    repo: Path, settled: None
) -> None:
    for n in range(KEEP + 3):
        write(repo, "a.txt", f"version {n}\n")
        assert cached(repo) == fresh(repo)
    kept = json.loads(cache_file(repo).read_text(encoding="utf-8"))
    assert len(kept) == KEEP
    assert cached(repo) in kept.values()
    cache_file(repo).write_text("{not json", encoding="utf-8")
    assert cached(repo) == fresh(repo)
    cache_file(repo).write_text("[1, 2]", encoding="utf-8")
    assert cached(repo) == fresh(repo)


def test_a_change_that_cannot_be_stamped_is_computed_and_not_kept(
    repo: Path, settled: None
) -> None:
    write(repo, "d/x.txt", "x\n")
    r, head = git.discover_head(repo)
    assert head is not None
    listed = git.changes(r)
    (repo / "d" / "x.txt").unlink()
    (repo / "d").rmdir()
    write(repo, "d", "now a file\n")  # d/x.txt: not a directory
    assert identity.tree_identity(r, head.sha, listed) == fresh(repo)
    assert not cache_file(repo).exists()
