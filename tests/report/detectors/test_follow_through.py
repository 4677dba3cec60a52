from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from gitflow_harness.store.events import format_at
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
        update = {"via": "merge", "trunk": "main", "onto": "c" * 40, "head": "d" * 40}
        seed.event("git.update", update, surface="git")
    doc = report(gfh)
    assert family(doc, "branch-update") == {
        "fired": 3, "followed": 3, "not_followed": 0, "censored": 0,
    }  # fmt: skip
    [finding] = doc["findings"]
    assert finding["tone"] == "good"


def test_dirty_work_on_a_feature_branch_is_not_dirty_trunk_work(
    seed: Seeder, gfh: CliRunner
) -> None:
    """If the session works with uncommitted changes on a feature branch after the hint to
    start from the main worktree, that is not work on a dirty trunk: the episode waits, and the
    `start` that follows is followed."""
    first = ("ensure-main-worktree-first",)
    for n in range(3):
        who = f"claude:s{n}"
        seed.verb("ensure", first, who=who, branch="main")
        seed.verb("status", who=who, branch="feature/x", clean=False)
        seed.verb("start", who=who, branch="main")
    assert family(report(gfh), "main-worktree-first") == {
        "fired": 3, "followed": 3, "not_followed": 0, "censored": 0,
    }  # fmt: skip


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
    seed.verb("update", who=A, branch="HEAD")  # a detached HEAD is no branch: it settles nothing
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


def test_an_idle_sessions_episode_is_censored_at_the_horizon(seed: Seeder, gfh: CliRunner) -> None:
    """If a session shows no event for the horizon (24 h of log time), its history has ended:
    its open episode is censored then, and a late update from the same session id does not
    settle it. A session quiet for less than the horizon still settles its episode."""
    for n in range(3):
        seed.verb("status", BEHIND, who=A, branch=f"feature/{n}")
        seed.now += timedelta(hours=23)  # quiet, but within the horizon
        seed.verb("update", who=A, branch=f"feature/{n}")  # followed
    seed.verb("status", BEHIND, who=A, branch="feature/idle")
    for _ in range(5):  # the log goes on with other sessions' work
        seed.now += timedelta(hours=6)
        seed.verb("status", who=B, branch="feature/other")
    seed.verb("update", who=A, branch="feature/idle")  # 30 h later: that history had ended
    doc = report(gfh)
    assert family(doc, "branch-update") == {
        "fired": 4, "followed": 3, "not_followed": 0, "censored": 1,
    }  # fmt: skip
    notes = detector(doc, "hint-follow-through")["notes"]
    assert "branch-update: 1 episode(s) censored after their session went quiet for 24 h" in notes


def test_the_horizon_is_exact_between_sweeps(seed: Seeder, gfh: CliRunner) -> None:
    """If a session comes back 25 h after its last event, before the next periodic look for
    idle sessions (every 6 h of log time), its episode is still censored: quiet for more than
    the horizon is the rule, not "until someone looked"."""
    start = seed.now
    for n in range(3):
        seed.verb("status", BEHIND, who=A, branch=f"feature/{n}")
        seed.verb("update", who=A, branch=f"feature/{n}")
    seed.now = start + timedelta(hours=1)
    seed.verb("status", BEHIND, who=B, branch="feature/late")
    for hours in (6, 12, 18, 24):  # each event here is a look; the last sees B quiet for 23 h
        seed.now = start + timedelta(hours=hours)
        seed.verb("status", who=A, branch="feature/other")
    seed.now = start + timedelta(hours=26)  # 25 h after B's firing, 2 h after the last look
    seed.verb("update", who=B, branch="feature/late")
    assert family(report(gfh), "branch-update") == {
        "fired": 4, "followed": 3, "not_followed": 0, "censored": 1,
    }  # fmt: skip


def test_what_the_detector_keeps_is_bounded_by_the_sessions_active_within_the_horizon(
    repo: Path,
) -> None:
    """If short sessions come and go for days, each leaving its last episode open, then the
    detector keeps only the sessions seen within the horizon, not every session of the log."""
    from gitflow_harness.report.detectors.follow_through import HintFollowThrough
    from gitflow_harness.report.model import ReportContext
    from gitflow_harness.store.events import ReadStats, make_event
    from gitflow_harness.workspace import open_workspace

    detector_ = HintFollowThrough(ReportContext(open_workspace(), ReadStats()))
    start = datetime(2026, 11, 2, tzinfo=UTC)
    hours = 24 * 10
    for i in range(hours * 4):  # a new session every 15 minutes, for ten days
        at = format_at(start + timedelta(minutes=15 * i))
        data = {"verb": "status", "hint_ids": ["status-branch-behind"], "head": f"{i:040x}"}
        detector_.observe(
            make_event("verb", data, surface="cli", session=f"claude:{i}", branch="main2", at=at)
        )
    open_now = sum(
        len(sessions)
        for by_scope in detector_._open.values()
        for by_surface in by_scope.values()
        for sessions in by_surface.values()
    )
    horizon_and_sweep = (24 + 6) * 4
    assert 24 * 4 <= open_now <= horizon_and_sweep
    assert len(detector_._present) == open_now
    tally = detector_._tally["branch-update"]
    # Another session on the same surface is skipped: every episode waits for its own session.
    assert (tally.fired, tally.resolved) == (hours * 4, 0)
    assert tally.censored == tally.by_horizon == hours * 4 - open_now


def test_a_refused_run_follows_no_advice(seed: Seeder, gfh: CliRunner) -> None:
    """If `gfh update` is refused (a dirty tree: nothing was integrated), it does not follow
    status-branch-behind; an update that failed on a conflict did act on the hint and does."""
    for _ in range(3):
        seed.verb("status", BEHIND)
        seed.verb("update", outcome="refused")
    for _ in range(2):
        seed.verb("status", BEHIND)
        seed.verb("update", outcome="failed")
    assert family(report(gfh), "branch-update") == {
        "fired": 5, "followed": 2, "not_followed": 3, "censored": 0,
    }  # fmt: skip


def test_a_refused_start_does_not_follow_but_a_refused_done_still_ends(
    seed: Seeder, gfh: CliRunner
) -> None:
    """If `gfh start` is refused (the branch exists), no worktree was made: the episode waits
    for dirty-trunk work, which ends it. A refused `done` (the same red tree again) is still
    the next `done`: the red gate's advice was not followed."""
    first = ("ensure-main-worktree-first",)
    for _ in range(3):
        seed.verb("ensure", first, branch="main")
        seed.verb("start", branch="main", outcome="refused")
        seed.verb("status", branch="main", clean=False)
    for _ in range(3):
        seed.verb("done", ("gate-failure-test",), gate="red")
        seed.verb("done", gate="red", outcome="refused")
    doc = report(gfh)
    assert family(doc, "main-worktree-first") == {
        "fired": 3, "followed": 0, "not_followed": 3, "censored": 0,
    }  # fmt: skip
    assert family(doc, "red-gate-remedy") == {
        "fired": 3, "followed": 0, "not_followed": 3, "censored": 0,
    }  # fmt: skip


def test_a_line_stamped_in_the_past_shows_its_session_present_when_it_was_written(
    repo: Path, gfh: CliRunner
) -> None:
    """If a session's line carries a time from the past (a clock set back), it still shows the
    session present when it was written, which the log's order says: the log's time then, not
    the line's. A later update within the horizon of that line is followed."""
    seed = Seeder(repo, start=datetime(2026, 11, 10, 9, 0, tzinfo=UTC))
    for n in range(3):
        seed.verb("status", BEHIND, who=A, branch=f"feature/{n}")
        for _ in range(3):  # other work moves the log's time on
            seed.now += timedelta(hours=5)
            seed.verb("status", who=B, branch="feature/other")
        written = seed.now
        seed.now -= timedelta(days=2)
        seed.event("turn.started", {"turn": 1, "stop_remediation": False}, surface="hook")
        seed.now = written
        for _ in range(3):
            seed.now += timedelta(hours=5)
            seed.verb("status", who=B, branch="feature/other")
        seed.verb("update", who=A, branch=f"feature/{n}")  # 30 h after the firing
    written = seed.now  # a session whose first line, a firing, is stamped two days back
    seed.now -= timedelta(days=2)
    seed.verb("status", BEHIND, who="claude:late", branch="feature/late")
    seed.now = written
    for _ in range(4):
        seed.now += timedelta(hours=5)
        seed.verb("status", who=B, branch="feature/other")
    seed.verb("update", who="claude:late", branch="feature/late")
    assert family(report(gfh), "branch-update") == {
        "fired": 4, "followed": 4, "not_followed": 0, "censored": 0,
    }  # fmt: skip


def test_a_line_stamped_days_ahead_does_not_end_the_sessions_at_work(
    seed: Seeder, gfh: CliRunner
) -> None:
    """If writers' clocks run days ahead, their lines (a burst of them, a line with no session,
    lines of two sessions with a line at the log's time between them) do not move the log's
    time: the sessions at work keep their episodes, and their updates are followed."""

    def ahead(who: str | None) -> None:
        now = seed.now
        seed.now += timedelta(days=3)
        seed.event("turn.started", {"turn": 1, "stop_remediation": False}, who=who)
        seed.now = now

    for n in range(3):
        seed.verb("status", BEHIND, who=A, branch=f"feature/{n}")
        for who in (B, B, B, None):
            ahead(who)
        seed.verb("status", who=A, branch=f"feature/{n}")
        ahead("claude:c")
        seed.verb("update", who=A, branch=f"feature/{n}")
    assert family(report(gfh), "branch-update") == {
        "fired": 3, "followed": 3, "not_followed": 0, "censored": 0,
    }  # fmt: skip


def _idle_then(later: list[tuple[str, float]], repo: Path) -> dict[str, str]:
    """A fires, the log is idle for three days, then sessions write lines `(who, hours)` after
    the gap; return the sessions the detector still holds as present."""
    from gitflow_harness.report.detectors.follow_through import HintFollowThrough
    from gitflow_harness.report.model import ReportContext
    from gitflow_harness.store.events import ReadStats, make_event
    from gitflow_harness.workspace import open_workspace

    found = HintFollowThrough(ReportContext(open_workspace(), ReadStats()))
    start = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
    fire = {"verb": "status", "hint_ids": list(BEHIND), "trunk": "main", "head": "a" * 40}
    found.observe(
        make_event("verb", fire, surface="cli", session=A, branch="x", at=format_at(start))
    )
    for who, hours in later:
        at = format_at(start + timedelta(days=3, hours=hours))
        data = {"turn": 1, "stop_remediation": False}
        found.observe(
            make_event("turn.started", data, surface="hook", session=who, branch=None, at=at)
        )
    return found._present


def test_a_leap_of_the_logs_time_is_believed_once_another_session_agrees(repo: Path) -> None:
    """If the log resumes after days, one session's lines alone do not end the sessions from
    before the gap; a second session's line after the gap does (they were quiet for days)."""
    assert A in _idle_then([(B, 0), (B, 1)], repo)
    assert A not in _idle_then([(B, 0), (B, 1), ("claude:c", 2)], repo)


def test_a_leap_of_the_logs_time_is_believed_once_one_writer_kept_it_for_the_horizon(
    repo: Path,
) -> None:
    """If only one session writes after days of silence, its lines are believed once they span
    the horizon with no line at the old time between them."""
    assert A in _idle_then([(B, 0), (B, 23)], repo)
    assert A not in _idle_then([(B, 0), (B, 23), (B, 25)], repo)


def test_a_session_back_alone_after_days_of_silence_has_ended(seed: Seeder, gfh: CliRunner) -> None:
    """If the log falls silent for days and the first line after it is the session's own, no
    other line has moved the log's time yet: the session's own lines say it was quiet for
    longer than the horizon, so its episode is censored, not followed."""
    for n in range(3):
        seed.verb("status", BEHIND, who=A, branch=f"feature/{n}")
        seed.verb("update", who=A, branch=f"feature/{n}")
    seed.verb("status", BEHIND, who=A, branch="feature/idle")
    seed.now += timedelta(days=3)
    seed.verb("update", who=A, branch="feature/idle")
    assert family(report(gfh), "branch-update") == {
        "fired": 4, "followed": 3, "not_followed": 0, "censored": 1,
    }  # fmt: skip


def test_a_leap_confirmed_by_two_sessions_goes_to_the_earlier_of_their_times(
    seed: Seeder, gfh: CliRunner
) -> None:
    """If two sessions' lines after a silence disagree about the time by days, the log's time
    leaps to the earlier: the sessions from before the silence have ended, but the session
    whose line came first is not taken for quiet by the other's clock."""
    seed.verb("status", BEHIND, who=A, branch="feature/before")
    seed.now += timedelta(days=3)
    seed.verb("status", BEHIND, who=B, branch="feature/after")
    far = seed.now
    seed.now += timedelta(days=2)
    seed.event("turn.started", {"turn": 1, "stop_remediation": False}, who="claude:c")
    seed.now = far + timedelta(hours=1)
    seed.verb("update", who=B, branch="feature/after")
    notes = detector(report(gfh), "hint-follow-through")["notes"]
    assert "branch-update: 1 resolved of 2 fired (3 needed to report)" in notes
    assert "branch-update: 1 episode(s) censored after their session went quiet for 24 h" in notes


def test_the_breakdown_says_why_each_censored_episode_was(seed: Seeder, gfh: CliRunner) -> None:
    """If episodes are censored for different reasons, then the breakdown counts each reason
    apart, and the reasons add up to the censored total, for every family that fired — one
    below the reporting threshold too."""
    for _ in range(4):
        seed.verb("status", BEHIND, who=A)
    seed.verb("update", who=B, surface="mcp")  # unknown correlation: the fourth is censored
    seed.verb("status", BEHIND, who=None, branch="feature/y")  # no session: censored at once
    seed.verb("status", BEHIND, who=A, branch="feature/idle")
    seed.now += timedelta(hours=30)
    seed.verb("status", who=B, branch="feature/other")  # A was quiet for the horizon
    seed.verb("status", BEHIND, who=A, branch="feature/last")  # still open when the log ends
    seed.verb("done", ("gate-failure-test",), gate="red", who=B, branch="feature/other")
    doc = detector(report(gfh), "hint-follow-through")
    families = doc["breakdown"]["families"]
    update = families["branch-update"]
    assert {k: v for k, v in update.items() if k.startswith("censored_")} == {
        "censored_unknown_correlation": 2,
        "censored_git_history": 0,
        "censored_unreadable_history": 0,
        "censored_branch_accepted": 0,
        "censored_session_quiet": 1,
        "censored_log_ended": 1,
    }
    assert (update["fired"], update["censored"], update["resolved"]) == (7, 4, 3)
    assert families["red-gate-remedy"]["fired"] == 1  # below the threshold, still drawn
    assert doc["breakdown"]["threshold"] == 3
    assert "main-worktree-first" not in families  # it never fired


def test_a_chunk_of_events_is_judged_as_the_same_events_one_by_one(repo: Path) -> None:
    """If the report hands the detector its events a chunk at a time, the verdict is the one
    the same events give one at a time: sweeps, a leap of the log's time, a session back after
    the horizon and ahead lines fall inside one chunk."""
    from gitflow_harness.report.detectors.follow_through import HintFollowThrough
    from gitflow_harness.report.model import ReportContext
    from gitflow_harness.store.events import ReadStats, make_event
    from gitflow_harness.workspace import open_workspace

    start = datetime(2026, 11, 2, tzinfo=UTC)
    events = []
    for i in range(400):
        who = f"claude:{i % 7}" if i % 11 else None
        hours = i * 1.5 + (72 if i % 37 == 0 else 0)  # now and then a line days ahead
        at = format_at(start + timedelta(hours=hours))
        if i % 3 == 0:
            data = {"verb": "status", "hint_ids": list(BEHIND), "head": f"{i:040x}"}
        elif i % 3 == 1:
            data = {"verb": "update", "hint_ids": [], "outcome": "ok", "head": f"{i:040x}"}
        else:
            kind = "turn.started"
            turn = {"turn": i}
            events.append(make_event(kind, turn, surface="hook", session=who, branch=None, at=at))
            continue
        branch = f"feature/{i % 5}"
        events.append(make_event("verb", data, surface="cli", session=who, branch=branch, at=at))
    ctx = ReportContext(open_workspace(), ReadStats())
    one_by_one, chunked = HintFollowThrough(ctx), HintFollowThrough(ctx)
    for event in events:
        one_by_one.observe(event)
    for first in range(0, len(events), 64):
        chunked.observe_chunk(events[first : first + 64])
    assert chunked._present == one_by_one._present
    expected = one_by_one.finish(ctx)
    assert expected.considered > 0
    assert chunked.finish(ctx) == expected
