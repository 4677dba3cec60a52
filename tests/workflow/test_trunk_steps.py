"""Whether one step of a branch brought the trunk in: by ancestry, on real repositories."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness import git
from gitflow_harness.workflow.trunk_steps import Step, trunk_came_in
from tests.helpers import commit, diverge, write
from tests.helpers import git as run_git


def last_step(repo: Path, branch: str) -> Step:
    """The branch's newest reflog entry as a step."""
    entries = git.reflog(git.discover(repo), f"refs/heads/{branch}", limit=2)
    return Step(entries[0].message, entries[1].sha, entries[0].sha)


def came_in(repo: Path, step: Step, *tips: str) -> str | None:
    r = git.discover(repo)
    return trunk_came_in(step, tips, lambda a, d: git.is_ancestor(r, a, d))


def sha(repo: Path, rev: str) -> str:
    return run_git(repo, "rev-parse", rev).strip()


@pytest.fixture
def behind(repo: Path) -> Path:
    """`feature` (checked out) with a commit to feature.txt; `main` one commit ahead."""
    diverge(repo, "feature", {"feature.txt": "f\n"}, {"trunk.txt": "t\n"})
    return repo


def test_a_merge_commit_finished_by_hand_brought_the_trunk_in(behind: Path) -> None:
    run_git(behind, "switch", "-q", "main")
    commit(behind, "trunk edits the same file", {"feature.txt": "trunk\n"})
    run_git(behind, "switch", "-q", "feature")
    run_git(behind, "merge", "main", check=False)
    write(behind, "feature.txt", "resolved\n")
    run_git(behind, "commit", "-q", "-a", "--no-edit")
    step = last_step(behind, "feature")
    assert step.action == "commit (merge)"
    assert (step.via, came_in(behind, step, sha(behind, "main"))) == ("merge", sha(behind, "main"))


def test_a_pull_that_names_no_branch_brought_the_remote_trunk_in(
    behind: Path, tmp_path: Path
) -> None:
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(behind), str(remote))
    run_git(behind, "remote", "add", "origin", str(remote))
    run_git(behind, "fetch", "-q", "origin")
    run_git(behind, "branch", "-q", "--set-upstream-to", "origin/main")
    run_git(behind, "pull", "-q", "--no-rebase", "--no-edit")
    step = last_step(behind, "feature")
    assert step.action == "pull -q --no-rebase --no-edit"
    assert step.via == "pull"
    assert came_in(behind, step, sha(behind, "origin/main")) == sha(behind, "origin/main")


def test_a_branch_named_like_the_trunk_brings_nothing_in(behind: Path) -> None:
    run_git(behind, "branch", "topic/main", "feature")
    run_git(behind, "switch", "-q", "topic/main")
    commit(behind, "topic work", {"topic.txt": "t\n"})
    run_git(behind, "switch", "-q", "feature")
    run_git(behind, "merge", "-q", "--no-edit", "topic/main")
    step = last_step(behind, "feature")
    assert step.action == "merge topic/main"
    assert came_in(behind, step, sha(behind, "main")) is None


def test_a_tip_already_in_the_branch_did_not_come_in(behind: Path) -> None:
    run_git(behind, "merge", "-q", "--no-edit", "main")
    step = Step("reset: moving to HEAD", sha(behind, "HEAD"), sha(behind, "HEAD~1"))
    assert came_in(behind, step, sha(behind, "main")) is None


def test_of_diverged_tips_the_first_is_kept_and_a_newer_one_wins(behind: Path) -> None:
    """If the local trunk and a remote's copy both came in, `onto` is the one the other leads
    to; when they diverged, the first given (the local trunk)."""
    old, new = sha(behind, "main~1"), sha(behind, "main")
    run_git(behind, "merge", "-q", "--no-edit", "main")
    step = last_step(behind, "feature")
    assert came_in(behind, step, old, new) == new
    assert came_in(behind, step, new, old) == new


@pytest.mark.parametrize(
    "message",
    [
        "commit: more work",
        "commit (amend): more work",
        "commit (initial): first",
        "cherry-pick: a fix",
        "revert: Revert a fix",
    ],
)
def test_steps_that_add_one_commit_are_not_examined(message: str) -> None:
    def never(ancestor: str, descendant: str) -> bool:
        raise AssertionError("a step that adds one commit needs no ancestry")

    assert trunk_came_in(Step(message, "a" * 40, "b" * 40), ["c" * 40], never) is None


@pytest.mark.parametrize(
    ("message", "via"),
    [
        ("merge main: Merge made by the 'ort' strategy.", "merge"),
        ("commit (merge): Merge branch 'main' into feature", "merge"),
        ("merge main: Fast-forward", "merge"),
        ("pull -q --no-edit: Merge made by the 'ort' strategy.", "pull"),
        ("pull --rebase (finish): refs/heads/feature onto 1234567", "pull"),
        ("rebase (finish): refs/heads/feature onto 1234567", "rebase"),
        ("reset: moving to main", "merge"),
    ],
)
def test_via_says_how_the_trunk_came_in(message: str, via: str) -> None:
    assert Step(message, None, "a" * 40).via == via


def test_an_unknown_before_decides_nothing() -> None:
    assert (
        trunk_came_in(Step("merge main: x", None, "a" * 40), ["a" * 40], lambda a, d: True) is None
    )
