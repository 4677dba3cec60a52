from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness.ritual.box import display_width
from gitflow_harness.ritual.task import set_task
from tests.helpers import CliRunner, commit, git, read_events, write
from tests.workflow.conftest import SESSION, verb_events

VERB_FIELDS = {
    "verb", "outcome", "hint_ids", "trunk", "clean", "head", "tree", "ahead", "behind",
    "duration_ms", "flags",
}  # fmt: skip


def test_status_prints_the_box_within_100_columns(feature: Path, gfh: CliRunner) -> None:
    result = gfh("status")
    assert result.code == 0
    lines = result.out.splitlines()
    assert lines[0].startswith("┌─ gfh · feature/x · worktree ─")
    box = lines[: next(i for i, ln in enumerate(lines) if ln.startswith("└")) + 1]
    assert all(display_width(ln) <= 100 for ln in box)
    assert [ln[2:11].strip() for ln in box[1:-1]] == ["branch", "tree", "gate", "task", "session"]
    assert "│ branch   feature/x · 0 behind main · 0 ahead" in result.out
    assert "│ tree     clean" in result.out
    assert gfh("status", "--json").json()["data"]["top"] == str(feature)


def test_status_behind_fires_branch_update_hint_and_records_it(
    repo: Path, feature: Path, gfh: CliRunner, session: str
) -> None:
    commit(feature, "work", {"a.txt": "a\n"})
    commit(repo, "trunk moves", {"t1.txt": "1\n"})
    commit(repo, "trunk moves again", {"t2.txt": "2\n"})
    result = gfh("status", "--json")
    assert result.code == 0
    envelope = result.json()
    assert set(envelope) == {"verb", "outcome", "data", "hints"}
    assert envelope["data"]["behind"] == 2
    assert envelope["data"]["ahead"] == 1
    assert [h["id"] for h in envelope["hints"]] == ["status-branch-behind"]
    assert "feature/x is 2 commits behind main" in envelope["hints"][0]["text"]
    [event] = verb_events(repo, "status")
    assert event["session"] == session
    assert event["branch"] == "feature/x"
    assert event["surface"] == "cli"
    assert set(event["data"]) == VERB_FIELDS
    assert event["data"]["hint_ids"] == ["status-branch-behind"]
    assert (event["data"]["behind"], event["data"]["ahead"]) == (2, 1)
    assert event["data"]["head"] == git(feature, "rev-parse", "HEAD").strip()
    assert event["data"]["tree"] == git(feature, "rev-parse", "HEAD^{tree}").strip()
    assert event["data"]["flags"] == ["--json"]


def test_plain_status_appends_only_its_verb_event(repo: Path, gfh: CliRunner) -> None:
    gfh("status")
    events = read_events(repo)
    assert [e["type"] for e in events] == ["verb"]
    assert events[0]["session"] is None
    assert events[0]["data"]["hint_ids"] == []


def test_end_turn_records_the_check_before_the_verb(
    repo: Path, gfh: CliRunner, session: str
) -> None:
    result = gfh("status", "--end-turn")
    assert result.code == 0
    assert result.out.startswith("┌─ gfh")
    events = read_events(repo)
    assert [e["type"] for e in events] == ["coord.status_observed", "verb"]
    assert events[0]["data"] == {"status": "end_turn_checked"}
    assert events[0]["session"] == session
    assert events[1]["data"]["flags"] == ["--end-turn"]


def test_end_turn_without_a_writable_log_prints_no_box_and_fails(
    repo: Path, gfh: CliRunner
) -> None:
    events_dir = repo / ".git" / "gitflow-harness" / "events"
    events_dir.parent.mkdir(parents=True)
    events_dir.write_text("not a directory\n")  # every append now fails
    result = gfh("status", "--end-turn")
    assert result.code == 1
    assert "┌─ gfh" not in result.out + result.err
    assert "retry `gfh status --end-turn`" in result.err
    assert events_dir.read_text() == "not a directory\n"


def test_end_turn_failure_under_json_carries_no_status(repo: Path, gfh: CliRunner) -> None:
    events_dir = repo / ".git" / "gitflow-harness" / "events"
    events_dir.parent.mkdir(parents=True)
    events_dir.write_text("")
    result = gfh("status", "--end-turn", "--json")
    assert result.code == 1
    envelope = result.json()
    assert envelope["outcome"] == "failed"
    assert envelope["data"]["reason"] == "end-turn-not-recorded"
    assert "branch" not in envelope["data"]


def test_dirty_trunk_in_main_checkout_fires_guardrail(repo: Path, gfh: CliRunner) -> None:
    write(repo, "scratch.py", "x = 1\n")
    result = gfh("status", "--json")
    data = result.json()["data"]
    assert data["location"] == "main"
    assert data["on_trunk"] is True
    assert data["clean"] is False
    assert data["changes"] == [{"xy": "??", "path": "scratch.py"}]
    assert [h["id"] for h in result.json()["hints"]] == ["status-trunk-dirty"]
    [event] = verb_events(repo)
    assert event["data"]["clean"] is False
    assert event["data"]["trunk"] == "main"


def test_gate_row_follows_the_exact_tree(feature: Path, gfh: CliRunner) -> None:
    assert gfh("test").code == 0
    assert "│ gate     green for this tree" in gfh("status").out
    write(feature, "new.txt", "changes the tree\n")
    assert "│ gate     not judged for this tree" in gfh("status").out


def test_the_trunk_right_after_accept_is_not_ready_for_accept(
    repo: Path, feature: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After `accept`, the main checkout's tree is the accepted one, receipt included; but it is
    the trunk, where `accept` is refused."""
    commit(feature, "work", {"w.txt": "w\n"})
    assert gfh("done").code == 0
    assert "│ gate     green for this tree · ready for gfh accept" in gfh("status").out
    assert gfh("accept").code == 0
    monkeypatch.chdir(repo)
    box = gfh("status").out
    assert "│ gate     green for this tree  " in box
    assert "ready for gfh accept" not in box


def test_task_row_shows_the_session_task(feature: Path, gfh: CliRunner, session: str) -> None:
    set_task(session, "fix the frontmatter parser")
    out = gfh("status").out
    assert "│ task     fix the frontmatter parser" in out
    assert "│ session  claude:7f3e…" in out
    assert SESSION not in out


def test_task_text_never_reaches_the_event_log(
    repo: Path, feature: Path, gfh: CliRunner, session: str
) -> None:
    canary = "CANARY-7d1f task text"
    set_task(session, canary)
    assert canary in gfh("status", "--end-turn", "--json").out
    log_dir = repo / ".git" / "gitflow-harness"
    assert all(canary not in p.read_text() for p in log_dir.rglob("*") if p.is_file())


def test_merge_in_progress_is_shown_with_how_to_finish(
    repo: Path, feature: Path, gfh: CliRunner
) -> None:
    commit(feature, "ours", {"README.md": "ours\n"})
    commit(repo, "theirs", {"README.md": "theirs\n"})
    git(feature, "merge", "main", check=False)
    result = gfh("status", "--json")
    assert result.code == 0
    assert result.json()["data"]["operation"] == "merge"
    assert result.json()["data"]["behind"] == 1  # the merge is not committed yet
    # Only the way out of the merge: `gfh update` is refused until it is finished.
    [h] = result.json()["hints"]
    assert h["id"] == "status-operation"
    assert "git merge --abort" in h["text"]


def test_an_operation_on_the_trunk_silences_the_dirty_trunk_guardrail(
    repo: Path, gfh: CliRunner
) -> None:
    """If a merge stopped on the trunk with conflicts, the one thing to do is finish or abort
    it: the dirty-trunk advice waits until then."""
    git(repo, "switch", "-q", "-c", "other")
    commit(repo, "theirs", {"README.md": "theirs\n"})
    git(repo, "switch", "-q", "main")
    commit(repo, "ours", {"README.md": "ours\n"})
    git(repo, "merge", "other", check=False)
    hints = gfh("status", "--json").json()["hints"]
    assert [h["id"] for h in hints] == ["status-operation"]


def test_detached_head_is_described(repo: Path, gfh: CliRunner) -> None:
    sha = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "--detach")
    result = gfh("status")
    assert result.code == 0
    assert f"HEAD detached at {sha[:7]}" in result.out
    assert verb_events(repo)[0]["branch"] == "HEAD"


def test_shallow_clone_reports_unknown_counts(shallow_feature: Path, gfh: CliRunner) -> None:
    data = gfh("status", "--json").json()["data"]
    assert data["shallow"] is True
    assert data["behind"] is None
    assert data["ahead"] is None
    assert "unknown (shallow clone" in " ".join(gfh("status").out.split())


def test_outside_a_repository_is_a_usage_error(tmp_path: Path, monkeypatch, gfh: CliRunner) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    result = gfh("status")
    assert result.code == 2
    assert "not a git repository" in result.err
    assert "Traceback" not in result.err


def test_outside_a_repository_json_still_prints_one_object(
    tmp_path: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = gfh("status", "--json")
    assert result.code == 2
    envelope = result.json()
    assert (envelope["verb"], envelope["outcome"]) == ("status", "refused")
    assert envelope["data"]["error"].startswith(f"not a git repository: {tmp_path}")
    assert result.err == f"gfh: {envelope['data']['error']}\n"


def test_a_cherry_pick_in_progress_is_explained_as_the_refusals_explain_it(
    repo: Path, feature: Path, gfh: CliRunner
) -> None:
    """If status's hint and a verb's refusal describe the same unfinished operation, they say
    the same thing (one text, owned by the git gateway)."""
    commit(feature, "ours", {"README.md": "ours\n"})
    theirs = commit(repo, "theirs", {"README.md": "theirs\n"})
    git(feature, "cherry-pick", theirs, check=False)
    [h] = [h for h in gfh("status", "--json").json()["hints"] if h["id"] == "status-operation"]
    refused = gfh("update")
    assert refused.code == 1
    how = h["text"].removeprefix("a cherry-pick is in progress here: ")
    assert how == "finish it (`git cherry-pick --continue`) or abort it (`git cherry-pick --abort`)"
    assert f"; {how} before `gfh update`" in refused.err
