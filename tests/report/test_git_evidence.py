from __future__ import annotations

from pathlib import Path

import freezegun
import pytest

from tests.helpers import CliRunner, commit, git, write
from tests.report.conftest import detector, family, report


def fire(gfh: CliRunner) -> None:
    result = gfh("status", "--json")
    assert [h["id"] for h in result.json()["hints"]] == ["status-branch-behind"]


def trunk_moves(repo: Path, n: int) -> None:
    commit(repo, f"trunk {n}", {f"trunk{n}.txt": f"{n}\n"})


def test_a_real_rebase_between_firings_censors_the_first_episode(
    repo: Path, feature: Path, gfh: CliRunner, session: str
) -> None:
    """If the agent ran `git rebase main` itself (no event), the episode it falls in is
    censored rather than read as not followed."""
    commit(feature, "work", {"work.txt": "w\n"})
    trunk_moves(repo, 1)
    fire(gfh)
    git(feature, "rebase", "-q", "main")
    trunk_moves(repo, 2)
    for _ in range(4):
        fire(gfh)
    doc = report(gfh)
    assert family(doc, "branch-update") == {
        "fired": 5, "followed": 0, "not_followed": 3, "censored": 2,
    }  # fmt: skip
    notes = detector(doc, "hint-follow-through")["notes"]
    assert any(n.startswith("git history: 1 episode(s) censored") for n in notes)


def test_a_real_merge_of_the_trunk_counts_as_git_evidence(
    repo: Path, feature: Path, gfh: CliRunner, session: str
) -> None:
    commit(feature, "work", {"work.txt": "w\n"})
    for n in range(3):
        trunk_moves(repo, n)
        fire(gfh)
        git(feature, "merge", "-q", "--no-edit", "main")
    trunk_moves(repo, 9)
    for _ in range(4):
        fire(gfh)
    doc = report(gfh)
    assert family(doc, "branch-update") == {
        "fired": 7, "followed": 0, "not_followed": 3, "censored": 4,
    }  # fmt: skip
    notes = detector(doc, "hint-follow-through")["notes"]
    assert any(n.startswith("git history: 3 episode(s) censored") for n in notes)


def test_updates_recorded_by_events_are_not_counted_twice(
    repo: Path, feature: Path, gfh: CliRunner, session: str
) -> None:
    """An update `gfh update` recorded from another agent's session (same surface: skipped)
    is in the reflog too, but it is not unrecorded evidence."""
    commit(feature, "work", {"work.txt": "w\n"})
    for n in range(3):
        trunk_moves(repo, n)
        fire(gfh)
        assert gfh("update", env={"GFH_SESSION": "codex:another-agent"}).code == 0
    trunk_moves(repo, 9)
    fire(gfh)
    assert family(report(gfh), "branch-update") == {
        "fired": 4, "followed": 0, "not_followed": 3, "censored": 1,
    }  # fmt: skip


def test_a_rebase_onto_the_branchs_own_history_is_not_an_update(
    repo: Path, feature: Path, gfh: CliRunner, session: str
) -> None:
    commit(feature, "one", {"one.txt": "1\n"})
    commit(feature, "two", {"two.txt": "2\n"})
    trunk_moves(repo, 1)
    for _ in range(3):
        fire(gfh)
        git(feature, "rebase", "-q", "--force-rebase", "HEAD~1")
    fire(gfh)
    assert family(report(gfh), "branch-update") == {
        "fired": 4, "followed": 0, "not_followed": 3, "censored": 1,
    }  # fmt: skip


def test_recorded_updates_in_one_second_across_a_rebase_are_all_followed(
    repo: Path, feature: Path, gfh: CliRunner, session: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If a merge, a rebase and a merge of the trunk, each recorded, fall in one second, then
    the rebase (which drops the first merge commit from the branch's history) does not make
    the first merge look like an unrecorded update inside the third episode."""
    monkeypatch.setenv("GIT_COMMITTER_DATE", "@1795000000 +0000")  # every reflog entry: one second
    commit(feature, "work", {"work.txt": "w\n"})
    with freezegun.freeze_time("2026-11-18T11:06:40.100Z") as clock:
        for n, flags in enumerate(((), ("--rebase",), ())):
            trunk_moves(repo, n)
            fire(gfh)
            if n == 2:
                clock.tick(1.0)  # the last update is recorded in the next second
            assert gfh("update", *flags).code == 0
    assert family(report(gfh), "branch-update") == {
        "fired": 3, "followed": 3, "not_followed": 0, "censored": 0,
    }  # fmt: skip


def test_a_conflicted_merge_finished_with_commit_counts_as_git_evidence(
    repo: Path, feature: Path, gfh: CliRunner, session: str
) -> None:
    """If `git merge main` stops on conflicts and the agent finishes it with `git commit` (the
    manual path update-conflict prescribes), the reflog says `commit (merge)`: the trunk came in
    all the same, so the episode is censored, not read as not followed."""
    commit(feature, "work", {"c.txt": "feature\n"})
    commit(repo, "trunk edits the same file", {"c.txt": "trunk\n"})
    fire(gfh)
    assert git(feature, "merge", "main", check=False) != ""
    write(feature, "c.txt", "resolved\n")
    git(feature, "commit", "-q", "-a", "--no-edit")
    assert git(feature, "reflog", "-n1", "--format=%gs", "feature/x").startswith("commit (merge)")
    for n in range(3):
        trunk_moves(repo, n)
        fire(gfh)
        git(feature, "merge", "-q", "--no-edit", "main")
    trunk_moves(repo, 9)
    fire(gfh)
    notes = detector(report(gfh), "hint-follow-through")["notes"]
    assert "branch-update: 0 resolved of 5 fired (3 needed to report)" in notes
    assert any(n.startswith("git history: 4 episode(s) censored") for n in notes)


def test_a_pull_of_the_upstream_trunk_counts_as_git_evidence(
    repo: Path, feature: Path, gfh: CliRunner, session: str, tmp_path: Path
) -> None:
    """If the branch tracks the remote's trunk, `git pull` logs `pull -q --no-edit: Merge made
    by ...`, naming no trunk: what it merged decides, as for the hook."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "fetch", "-q", "origin")
    git(feature, "branch", "-q", "--set-upstream-to", "origin/main")
    commit(feature, "work", {"work.txt": "w\n"})
    for n in range(3):
        trunk_moves(repo, n)
        git(repo, "push", "-q", "origin", "main")
        fire(gfh)
        git(feature, "pull", "-q", "--no-rebase", "--no-edit")
    assert git(feature, "reflog", "-n1", "--format=%gs", "feature/x").startswith("pull ")
    trunk_moves(repo, 9)
    fire(gfh)
    notes = detector(report(gfh), "hint-follow-through")["notes"]
    assert "branch-update: 0 resolved of 4 fired (3 needed to report)" in notes
    assert any(n.startswith("git history: 3 episode(s) censored") for n in notes)


def test_merging_a_branch_whose_name_ends_like_the_trunk_is_not_an_update(
    repo: Path, feature: Path, gfh: CliRunner, session: str
) -> None:
    """If the agent merges `topic/main`, a branch that brings in no trunk commit, the name says
    nothing: the episode reads as not followed."""
    commit(feature, "work", {"work.txt": "w\n"})
    git(repo, "branch", "topic/main", "feature/x")
    trunk_moves(repo, 1)
    for n in range(3):
        git(repo, "switch", "-q", "topic/main")
        commit(repo, f"topic {n}", {f"topic{n}.txt": "t\n"})
        git(repo, "switch", "-q", "main")
        fire(gfh)
        git(feature, "merge", "-q", "--no-edit", "topic/main")
    fire(gfh)
    assert family(report(gfh), "branch-update") == {
        "fired": 4, "followed": 0, "not_followed": 3, "censored": 1,
    }  # fmt: skip


def test_an_update_that_finds_the_trunk_already_merged_by_hand_is_not_the_merge(
    repo: Path, feature: Path, gfh: CliRunner, session: str
) -> None:
    """If a person merges the trunk by hand (no hook, no session) after the hint and the agent
    then runs `gfh update`, which finds nothing to do ("already"), the integration was the
    unrecorded merge: the episode is censored by git history, not read as followed."""
    commit(feature, "work", {"work.txt": "w\n"})
    trunk_moves(repo, 1)
    fire(gfh)
    git(feature, "merge", "-q", "--no-edit", "main", env={"GFH_SESSION": ""})
    result = gfh("update", "--json")
    assert (result.json()["outcome"], result.json()["data"]["result"]) == ("ok", "already")
    notes = detector(report(gfh), "hint-follow-through")["notes"]
    assert "branch-update: 0 resolved of 1 fired (3 needed to report)" in notes
    assert any(n.startswith("git history: 1 episode(s) censored") for n in notes)


def test_an_update_that_merges_is_recorded_by_its_own_git_update(
    repo: Path, feature: Path, gfh: CliRunner, session: str
) -> None:
    """`gfh update` records the merge it makes as a `git.update` (before its `verb` event): that
    record alone keeps the merge from reading as unrecorded, so the episode is followed."""
    from tests.helpers import read_events

    commit(feature, "work", {"work.txt": "w\n"})
    for n in range(3):
        trunk_moves(repo, n)
        fire(gfh)
        assert gfh("update").code == 0
    kinds = [e["type"] for e in read_events(repo)[-2:]]
    assert kinds == ["git.update", "verb"]
    assert family(report(gfh), "branch-update") == {
        "fired": 3, "followed": 3, "not_followed": 0, "censored": 0,
    }  # fmt: skip
