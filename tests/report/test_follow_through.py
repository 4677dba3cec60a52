from __future__ import annotations

from pathlib import Path

from tests.helpers import CliRunner
from tests.report.conftest import A, B, Seeder, detector, family, report

BEHIND = ("status-branch-behind",)


def test_branch_update_worked_reference(seed: Seeder, gfh: CliRunner) -> None:
    """Four firings in one session, then an update from another session on another surface:
    three episodes end at the next firing (not followed), the last is censored."""
    for _ in range(4):
        seed.verb("status", BEHIND, who=A)
    seed.verb("update", who=B, surface="mcp")
    doc = report(gfh)
    assert family(doc, "branch-update") == {
        "fired": 4, "followed": 0, "not_followed": 3, "censored": 1,
    }  # fmt: skip
    [finding] = [f for f in doc["findings"] if f["subject"] == "branch-update"]
    assert finding["tone"] == "attention"
    assert "gfh update" in finding["next_step"]


def test_red_gate_remedy_worked_reference(seed: Seeder, gfh: CliRunner) -> None:
    seed.verb("done", ("gate-failure-test",), gate="red")
    seed.verb("prepare")  # followed
    seed.verb("done", ("done-unchanged-tree-red",), gate="red")
    seed.verb("done", ("gate-failure-merge",))  # the next done came first: not followed
    seed.verb("test", ("gate-failure-test",), gate="red")
    seed.verb("test", gate="green")  # followed
    seed.verb("done", ("gate-failure-prepare",), gate="red")  # trailing: censored
    assert family(report(gfh), "red-gate-remedy") == {
        "fired": 4, "followed": 2, "not_followed": 1, "censored": 1,
    }  # fmt: skip


def test_main_worktree_first_worked_reference(seed: Seeder, gfh: CliRunner) -> None:
    first = ("ensure-main-worktree-first",)
    seed.verb("ensure", first, who="claude:s1", branch="main")
    seed.verb("start", who="claude:s1", branch="main")  # followed
    seed.verb("ensure", first, who="claude:s2", branch="main")
    seed.verb("status", who="claude:s2", branch="main", clean=False)  # dirty trunk: not
    seed.verb("ensure", first, who="claude:s3", branch="main")
    seed.verb("start", who="claude:s3", branch="main")  # followed
    seed.verb("ensure", first, who="claude:s4", branch="main", surface="hook")
    seed.verb("start", who="claude:s5", branch="main", surface="cli")  # unknown: censored
    assert family(report(gfh), "main-worktree-first") == {
        "fired": 4, "followed": 2, "not_followed": 1, "censored": 1,
    }  # fmt: skip


def test_update_in_the_same_session_on_another_surface_is_followed(
    seed: Seeder, gfh: CliRunner
) -> None:
    for _ in range(3):
        seed.verb("status", BEHIND, who=A, surface="cli")
        seed.event("git.update", {"via": "merge", "trunk": "main", "onto": "c" * 40}, surface="git")
    doc = report(gfh)
    assert family(doc, "branch-update") == {
        "fired": 3, "followed": 3, "not_followed": 0, "censored": 0,
    }  # fmt: skip
    [finding] = doc["findings"]
    assert finding["tone"] == "good"


def test_another_session_on_the_same_surface_is_skipped(seed: Seeder, gfh: CliRunner) -> None:
    """If another agent updates the branch through the same channel, that says nothing about
    this agent: the episode waits for its own session's evidence."""
    for _ in range(3):
        seed.verb("status", BEHIND, who=A)
        seed.verb("update", who=B)
        seed.verb("update", who=A)
    assert family(report(gfh), "branch-update") == {
        "fired": 3, "followed": 3, "not_followed": 0, "censored": 0,
    }  # fmt: skip


def test_fewer_than_three_resolved_is_insufficient_evidence(seed: Seeder, gfh: CliRunner) -> None:
    seed.verb("status", BEHIND)
    seed.verb("update")
    seed.verb("status", BEHIND)
    seed.verb("update")
    doc = report(gfh)
    found = detector(doc, "hint-follow-through")
    assert found["status"] == "insufficient-evidence"
    assert found["considered"] == 2
    assert doc["findings"] == []
    assert any("branch-update: 2 resolved of 2 fired" in n for n in found["notes"])


def test_considered_is_the_largest_familys_resolved_count(seed: Seeder, gfh: CliRunner) -> None:
    for _ in range(5):
        seed.verb("status", BEHIND)
        seed.verb("update")
    seed.verb("done", ("gate-failure-test",), gate="red")
    seed.verb("test", gate="green")
    doc = report(gfh)
    assert detector(doc, "hint-follow-through") == {
        **detector(doc, "hint-follow-through"),
        "status": "fired",
        "considered": 5,
    }
    assert [f["subject"] for f in doc["findings"]] == ["branch-update"]


def test_unknown_sessions_censor(seed: Seeder, gfh: CliRunner) -> None:
    seed.verb("status", BEHIND, who=None)  # fired with no session: censored at once
    seed.verb("status", BEHIND, who=A)
    seed.verb("update", who=None)  # a candidate with no session: censored
    seed.verb("status", BEHIND, who=A, branch=None)  # no branch: censored
    seed.verb("status", BEHIND, who=A, branch="HEAD")  # detached: censored
    for _ in range(3):
        seed.verb("status", BEHIND, who=A, branch="other")
        seed.verb("update", who=A, branch="other")
    assert family(report(gfh), "branch-update") == {
        "fired": 7, "followed": 3, "not_followed": 0, "censored": 4,
    }  # fmt: skip


def test_candidates_on_other_branches_do_not_count(seed: Seeder, gfh: CliRunner) -> None:
    for _ in range(3):
        seed.verb("status", BEHIND, branch="feature/x")
        seed.verb("update", branch="feature/y")
    seed.verb("update", branch="feature/x")
    assert family(report(gfh), "branch-update") == {
        "fired": 3, "followed": 1, "not_followed": 2, "censored": 0,
    }  # fmt: skip


def test_malformed_event_data_is_tolerated(seed: Seeder, gfh: CliRunner, repo: Path) -> None:
    seed.event("verb", {"verb": 3, "hint_ids": "status-branch-behind"})
    seed.event("verb", {"verb": "status", "hint_ids": [{"x": 1}, None, "status-branch-behind"]})
    seed.event("verb", {"verb": "status", "hint_ids": "not-a-list"})
    seed.event("git.update", {"head": ["not", "a", "sha"]})
    doc = report(gfh)
    assert detector(doc, "hint-follow-through")["status"] == "insufficient-evidence"


def test_another_session_on_another_surface_censors_even_if_followed_later(
    seed: Seeder, gfh: CliRunner
) -> None:
    """If another session's update arrives over another surface first, nobody can say whose
    update it was: the episode is censored, and the later update from its own session is too
    late to count."""
    for _ in range(3):
        seed.verb("status", BEHIND, who=A, surface="cli")
        seed.verb("update", who=B, surface="mcp")
        seed.verb("update", who=A, surface="cli")
    seed.verb("status", BEHIND, who=A)
    seed.verb("update", who=A)
    seed.verb("status", BEHIND, who=A)
    seed.verb("update", who=A)
    seed.verb("status", BEHIND, who=A)
    seed.verb("status", BEHIND, who=A)
    assert family(report(gfh), "branch-update") == {
        "fired": 7, "followed": 2, "not_followed": 1, "censored": 4,
    }  # fmt: skip


def test_settled_episodes_leave_no_state_behind(repo: Path) -> None:
    """If every episode settles, the detector keeps nothing per event: memory does not grow
    with the log."""
    from gitflow_harness.report.detectors.follow_through import HintFollowThrough
    from gitflow_harness.report.model import ReportContext
    from gitflow_harness.store.events import ReadStats, make_event
    from gitflow_harness.workspace import open_workspace

    detector_ = HintFollowThrough(ReportContext(open_workspace(), ReadStats()))
    for i in range(2000):
        branch = f"feature/{i % 50}"
        fire = {"verb": "status", "hint_ids": ["status-branch-behind"], "head": f"{i:040x}"}
        update = {"verb": "update", "hint_ids": [], "head": f"{i + 1:040x}"}
        for data in (fire, {"via": "merge", "head": f"{i + 1:040x}"}, update):
            kind = "git.update" if "via" in data else "verb"
            detector_.observe(make_event(kind, data, surface="cli", session=A, branch=branch))
    assert all(not opened for opened in detector_._open.values())
    assert detector_._recorded == {}
    assert detector_._tally["branch-update"].followed == 2000
