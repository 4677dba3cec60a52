from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import freezegun
import pytest

from gitflow_harness.report import git_evidence
from tests.helpers import CliRunner, commit, git, write
from tests.report.conftest import Seeder, detector, family, report

BEHIND = ("status-branch-behind",)


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


def accept(gfh: CliRunner, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`gfh done` and `gfh accept` the branch here (which deletes it), then go to the trunk."""
    assert gfh("done").code == 0
    assert gfh("accept").code == 0
    monkeypatch.chdir(repo)
    assert git(repo, "branch", "--list", "feature/x") == ""


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[int], None]]:
    """Set the time of git's reflogs and of the events to `second`s after a start an hour or
    two from now (after what the fixtures made), so that steps fall in distinct seconds."""
    start = (int(time.time()) // 3600 + 2) * 3600
    with freezegun.freeze_time(datetime.fromtimestamp(start, UTC)) as frozen:

        def at(second: int) -> None:
            monkeypatch.setenv("GIT_COMMITTER_DATE", f"@{start + second} +0000")
            frozen.move_to(datetime.fromtimestamp(start + second, UTC) + timedelta(seconds=0.1))

        at(0)
        yield at


def test_a_hand_merge_reads_the_same_before_and_after_accept_deletes_the_branch(
    repo: Path, feature: Path, gfh: CliRunner, session: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If a person merged the trunk by hand (no hook) inside an episode, the episode is censored
    by git history whether the report runs before `gfh accept` deletes the branch and its
    reflog, after it, or once a branch of the same name is started again: the commits the
    events recorded outlive the branch."""
    commit(feature, "work", {"work.txt": "w\n"})
    trunk_moves(repo, 1)
    fire(gfh)
    git(feature, "merge", "-q", "--no-edit", "main")
    trunk_moves(repo, 2)
    fire(gfh)  # settles the first episode
    assert gfh("update").code == 0  # the second one: followed
    before = detector(report(gfh), "hint-follow-through")
    assert "branch-update: 1 resolved of 2 fired (3 needed to report)" in before["notes"]
    assert any(n.startswith("git history: 1 episode(s) censored") for n in before["notes"])
    accept(gfh, repo, monkeypatch)
    assert detector(report(gfh), "hint-follow-through") == before
    assert gfh("start", "feature/x").code == 0  # a new reflog, begun after the episode
    assert detector(report(gfh), "hint-follow-through") == before


def test_episodes_not_followed_stay_not_followed_after_accept(
    repo: Path, feature: Path, gfh: CliRunner, session: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the agent went on committing while the trunk moved (nothing came in) and updated only
    at the third hint, the first two episodes read as not followed before `gfh accept` and
    after it: ancestry shows no trunk commit came in, so the deleted reflog censors nothing."""
    for n in range(3):
        commit(feature, f"work {n}", {f"work{n}.txt": "w\n"})
        trunk_moves(repo, n)
        fire(gfh)
    assert gfh("update").code == 0
    before = family(report(gfh), "branch-update")
    assert before == {"fired": 3, "followed": 1, "not_followed": 2, "censored": 0}
    accept(gfh, repo, monkeypatch)
    assert family(report(gfh), "branch-update") == before


def test_with_the_trunk_standing_still_the_readings_of_behind_tell_what_came_in(
    repo: Path,
    feature: Path,
    gfh: CliRunner,
    session: str,
    monkeypatch: pytest.MonkeyPatch,
    clock: Callable[[int], None],
) -> None:
    """If the trunk did not move during the episodes, how far behind each event found the
    branch says whether the trunk came in: after commits it is still behind (not followed,
    before and after accept), after a hand merge an "already" update finds it in (censored by
    git history, before and after accept)."""
    trunk_moves(repo, 1)
    for n in range(4):
        clock(10 + 10 * n)
        commit(feature, f"work {n}", {f"work{n}.txt": "w\n"})
        fire(gfh)
    clock(60)
    git(feature, "merge", "-q", "--no-edit", "main")  # by hand, no hook
    clock(70)
    result = gfh("update", "--json")
    assert result.json()["data"]["result"] == "already"
    before = family(report(gfh), "branch-update")
    assert before == {"fired": 4, "followed": 0, "not_followed": 3, "censored": 1}
    clock(80)
    accept(gfh, repo, monkeypatch)
    assert family(report(gfh), "branch-update") == before


def test_an_episode_open_when_accept_deletes_its_branch_is_censored(
    repo: Path, feature: Path, gfh: CliRunner, session: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If another agent (same surface: its update says nothing of this one) brings the trunk in
    and accepts the branch, the history of the agent's episode ends with the branch: a hint on
    a branch of the same name started later is another branch's, so the episode is censored
    when `gfh accept` deletes the branch, not read as not followed."""
    commit(feature, "work", {"work.txt": "w\n"})
    trunk_moves(repo, 1)
    fire(gfh)
    other = {"GFH_SESSION": "claude:another-agent"}
    assert gfh("update", env=other).code == 0
    assert gfh("done", env=other).code == 0
    assert gfh("accept", env=other).code == 0
    monkeypatch.chdir(repo)
    started = gfh("start", "feature/x")
    assert started.code == 0
    trunk_moves(repo, 2)
    monkeypatch.chdir(started.out.splitlines()[0])
    fire(gfh)
    notes = detector(report(gfh), "hint-follow-through")["notes"]
    assert "branch-update: 0 resolved of 2 fired (3 needed to report)" in notes
    assert "branch-update: 1 episode(s) censored when `gfh accept` deleted their branch" in notes


def test_an_episode_whose_commits_git_does_not_have_is_censored(
    seed: Seeder, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If a branch's reflog is gone and git has none of the commits the events recorded (a
    branch deleted and its commits collected long ago), its history cannot be read: the
    episodes are censored, whether their questions were put to git while the log was read
    (three at a time here) or at its end."""
    monkeypatch.setattr(git_evidence, "WAITING_KEPT", 3)
    for n in range(5):
        seed.verb("status", BEHIND, branch="feature/gone", head=f"{n + 1:040x}")
    notes = detector(report(gfh), "hint-follow-through")["notes"]
    assert "branch-update: 0 resolved of 5 fired (3 needed to report)" in notes
    assert (
        "git history: 4 episode(s) censored because their branch's history could no longer "
        "be read (no reflog back to the firing, and git lacks the events' commits)"
    ) in notes


def test_the_trunk_taking_the_branch_in_the_same_second_brings_nothing_in(
    repo: Path,
    feature: Path,
    gfh: CliRunner,
    session: str,
    monkeypatch: pytest.MonkeyPatch,
    clock: Callable[[int], None],
) -> None:
    """If another agent's update brings the trunk in, the agent commits, runs `gfh update`
    ("already": followed) and accepts within the same second, the trunk's fast-forward to the
    branch in that second is the branch going into the trunk, not the trunk into the branch:
    the episode reads as followed after the accept as before it."""
    commit(feature, "work", {"work.txt": "w\n"})
    trunk_moves(repo, 1)
    clock(10)
    fire(gfh)
    assert gfh("update", env={"GFH_SESSION": "claude:another-agent"}).code == 0
    commit(feature, "more work", {"more.txt": "m\n"})
    assert gfh("update", "--json").json()["data"]["result"] == "already"
    before = detector(report(gfh), "hint-follow-through")
    assert "branch-update: 1 resolved of 1 fired (3 needed to report)" in before["notes"]
    accept(gfh, repo, monkeypatch)
    assert detector(report(gfh), "hint-follow-through") == before


def test_what_waits_for_git_is_bounded(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """If many episodes of deleted branches settle, the questions for ancestry are put to git
    as soon as a batch is full: what waits never grows with the log."""
    from gitflow_harness.report.detectors.follow_through import HintFollowThrough
    from gitflow_harness.report.model import ReportContext
    from gitflow_harness.store.events import ReadStats, make_event
    from gitflow_harness.workspace import open_workspace

    monkeypatch.setattr(git_evidence, "WAITING_KEPT", 3)
    found = HintFollowThrough(ReportContext(open_workspace(), ReadStats()))
    for i in range(20):
        data = {"verb": "status", "hint_ids": list(BEHIND), "trunk": "main", "head": f"{i:040x}"}
        found.observe(make_event("verb", data, surface="cli", session="claude:a", branch="gone"))
        assert len(found._git._waiting) < 3
    tally = found._tally["branch-update"]
    assert (tally.censored, tally.by_unreadable) == (18, 18)  # the last few still wait


def test_one_rev_list_per_step_judges_as_trunk_came_in_does(repo: Path, remote: Path) -> None:
    """A step's trunk tips are judged from one `git rev-list AFTER ^BEFORE`: for every step of
    a real branch's reflog (commits, merges of the trunk and of another branch, a rebase, a
    reset onto the trunk, a pull of the remote's copy) and every tip the repository has, the
    answer is `trunk_came_in`'s with a `git merge-base --is-ancestor` per question; where git
    cannot list (a commit it lacks), each tip is asked on its own, as before."""
    from gitflow_harness.errors import GfhError
    from gitflow_harness.git import discover, is_ancestor, reflog
    from gitflow_harness.workflow.trunk_steps import Step, trunk_came_in

    git(repo, "branch", "topic")
    git(repo, "branch", "side")
    git(repo, "switch", "-q", "side")
    commit(repo, "side", {"side.txt": "s\n"})
    git(repo, "switch", "-q", "topic")
    commit(repo, "work", {"work.txt": "w\n"})
    git(repo, "switch", "-q", "main")
    trunk_moves(repo, 1)
    git(repo, "switch", "-q", "topic")
    git(repo, "merge", "-q", "--no-edit", "main")
    git(repo, "merge", "-q", "--no-edit", "side")
    commit(repo, "more", {"more.txt": "m\n"})
    git(repo, "switch", "-q", "main")
    trunk_moves(repo, 2)
    git(repo, "switch", "-q", "topic")
    git(repo, "rebase", "-q", "main")
    git(repo, "push", "-q", "origin", "main")
    clone = repo.parent / "clone"
    git(repo.parent, "clone", "-q", str(remote), str(clone))
    git(clone, "config", "user.email", "t@example.invalid")
    git(clone, "config", "user.name", "T")
    trunk_moves(clone, 3)
    git(clone, "push", "-q", "origin", "main")
    git(repo, "fetch", "-q", "origin")
    git(repo, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    git(repo, "reset", "-q", "--hard", "main")
    repository = discover(repo)
    evidence: git_evidence.GitEvidence[int] = git_evidence.GitEvidence(repository)
    entries = reflog(repository, "refs/heads/topic")
    steps = [
        Step(entry.message, entries[i + 1].sha if i + 1 < len(entries) else None, entry.sha)
        for i, entry in enumerate(entries)
    ]
    steps.append(Step("merge main: Merge made by the 'ort' strategy.", "0" * 40, steps[0].after))
    commits = git(repo, "rev-list", "--all").split()

    asked: dict[tuple[str, str], bool] = {}

    def reaches(ancestor: str, descendant: str) -> bool:  # as the report asked before
        if (ancestor, descendant) not in asked:
            try:
                asked[ancestor, descendant] = is_ancestor(repository, ancestor, descendant)
            except GfhError:
                asked[ancestor, descendant] = False
        return asked[ancestor, descendant]

    brought = 0
    for step in steps:
        for tips in [[tip] for tip in commits] + [commits, []]:
            expected = trunk_came_in(step, tips, reaches) is not None
            assert evidence._came_in(step, tips) is expected, (step, tips)
            brought += expected
    assert brought > len(steps)  # (tips did come in, in several steps)
