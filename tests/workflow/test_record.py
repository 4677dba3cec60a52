from __future__ import annotations

from pathlib import Path

from tests.helpers import CliRunner, commit, read_events
from tests.workflow.conftest import add_worktree

BASE = {
    "verb", "outcome", "hint_ids", "trunk", "clean", "head", "tree", "ahead", "behind",
    "duration_ms", "flags",
}  # fmt: skip


def test_every_verb_appends_one_event_with_the_documented_fields(
    repo: Path, gfh: CliRunner, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    assert gfh("ensure").code == 0
    assert gfh("start", "feature/a").code == 0
    feature = add_worktree(repo, "feature/b")
    monkeypatch.chdir(feature)
    commit(feature, "work", {"w.txt": "w\n"})
    for verb in ("status", "update", "prepare", "test", "done", "accept"):
        assert gfh(verb).code == 0, verb
    events = read_events(repo)
    assert [e["data"]["verb"] for e in events if e["type"] == "verb"] == [
        "ensure", "start", "status", "update", "prepare", "test", "done", "accept",
    ]  # fmt: skip
    for event in events:
        if event["type"] != "verb":
            continue
        data = event["data"]
        expected = set(BASE)
        if data["verb"] in ("test", "done"):
            expected.add("gate")
        if data["verb"] == "done":
            expected.add("probe")
        assert set(data) == expected, data["verb"]
        assert event["session"] is None
        assert event["surface"] == "cli"
        assert isinstance(data["duration_ms"], int)
        assert data["duration_ms"] >= 0
        assert data["hint_ids"] == [] or all(isinstance(h, str) for h in data["hint_ids"])
        assert data["trunk"] == "main"


def test_a_refusal_by_error_is_recorded_too(repo: Path, gfh: CliRunner) -> None:
    result = gfh("start", "bad..name")
    assert result.code == 2
    [event] = [e for e in read_events(repo) if e["type"] == "verb"]
    assert event["data"]["verb"] == "start"
    assert event["data"]["outcome"] == "refused"
    assert event["data"]["hint_ids"] == []
