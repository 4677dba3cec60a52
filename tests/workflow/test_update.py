from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitflow_harness.store.events import EventLog
from gitflow_harness.workflow.record import UPDATE_ENV, record_update
from tests.helpers import CliRunner, commit, git, read_events, write
from tests.workflow.conftest import verb_events


def behind(repo: Path, feature: Path) -> None:
    commit(feature, "feature work", {"feature.txt": "f\n"})
    commit(repo, "trunk work", {"trunk.txt": "t\n"})


def test_update_merges_the_trunk_and_records_the_update(
    repo: Path, feature: Path, gfh: CliRunner, session: str
) -> None:
    behind(repo, feature)
    onto = git(repo, "rev-parse", "main").strip()
    result = gfh("update", "--json")
    assert result.code == 0
    data = result.json()["data"]
    assert data["result"] == "merged"
    assert data["brought_in"] == 1
    git(feature, "merge-base", "--is-ancestor", "main", "HEAD")
    head = git(feature, "rev-parse", "HEAD").strip()
    events = read_events(repo)
    assert [e["type"] for e in events] == ["git.update", "verb"]
    assert events[0]["data"] == {"via": "merge", "trunk": "main", "onto": onto, "head": head}
    assert events[0]["session"] == session
    assert events[0]["branch"] == "feature/x"
    assert events[0]["surface"] == events[1]["surface"] == "cli"
    assert events[1]["data"]["behind"] == 0
    assert events[1]["data"]["head"] == head


def test_the_git_update_carries_the_surface_of_the_entry_point(repo: Path, feature: Path) -> None:
    """If another entry point (the `mcp` surface reserved for an MCP server) runs the update,
    its `git.update` says so."""
    from gitflow_harness.workflow.update import update
    from gitflow_harness.workspace import open_workspace

    behind(repo, feature)
    result = update(open_workspace(), surface="mcp")
    assert result.data.to_dict()["result"] == "merged"
    [event] = read_events(repo)
    assert (event["type"], event["surface"]) == ("git.update", "mcp")


def test_update_rebase(repo: Path, feature: Path, gfh: CliRunner) -> None:
    behind(repo, feature)
    result = gfh("update", "--rebase")
    assert result.code == 0
    assert git(feature, "rev-parse", "HEAD~1") == git(repo, "rev-parse", "main")
    [update] = [e for e in read_events(repo) if e["type"] == "git.update"]
    assert update["data"]["via"] == "rebase"
    assert verb_events(repo, "update")[0]["data"]["flags"] == ["--rebase"]


def test_update_when_not_behind_says_already(repo: Path, feature: Path, gfh: CliRunner) -> None:
    commit(feature, "ahead only", {"f.txt": "f\n"})
    before = git(feature, "rev-parse", "HEAD")
    result = gfh("update", "--json")
    assert result.code == 0
    assert result.json()["data"]["result"] == "already"
    assert git(feature, "rev-parse", "HEAD") == before
    assert [e["type"] for e in read_events(repo)] == ["verb"]


def test_update_refuses_a_dirty_tree(repo: Path, feature: Path, gfh: CliRunner) -> None:
    behind(repo, feature)
    write(feature, "wip.txt", "unsaved\n")
    before = git(feature, "rev-parse", "HEAD")
    result = gfh("update")
    assert result.code == 1
    assert "uncommitted changes" in result.err
    assert "[update-dirty-tree]" in result.out
    assert git(feature, "rev-parse", "HEAD") == before
    [event] = verb_events(repo, "update")
    assert event["data"]["outcome"] == "refused"
    assert event["data"]["clean"] is False


def test_update_refuses_on_the_trunk(repo: Path, gfh: CliRunner) -> None:
    result = gfh("update")
    assert result.code == 1
    assert "[verb-on-trunk]" in result.out


@pytest.mark.parametrize("flag", [[], ["--rebase"]], ids=["merge", "rebase"])
def test_update_conflict_aborts_lists_files_and_leaves_the_branch(
    repo: Path, feature: Path, gfh: CliRunner, flag: list[str]
) -> None:
    commit(feature, "ours", {"README.md": "ours\n", "other.txt": "ours\n"})
    commit(repo, "theirs", {"README.md": "theirs\n", "other.txt": "theirs\n"})
    before = git(feature, "rev-parse", "HEAD").strip()
    result = gfh("update", *flag, "--json")
    assert result.code == 1
    envelope = result.json()
    assert envelope["outcome"] == "failed"
    assert envelope["data"]["conflicts"] == ["README.md", "other.txt"]
    assert [h["id"] for h in envelope["hints"]] == ["update-conflict"]
    assert git(feature, "rev-parse", "HEAD").strip() == before
    assert git(feature, "symbolic-ref", "--short", "HEAD").strip() == "feature/x"
    assert git(feature, "status", "--porcelain") == ""
    git_dir = Path(git(feature, "rev-parse", "--absolute-git-dir").strip())
    assert not (git_dir / "MERGE_HEAD").exists()
    assert not (git_dir / "rebase-merge").exists()
    assert (feature / "README.md").read_text() == "ours\n"
    assert not [e for e in read_events(repo) if e["type"] == "git.update"]


def test_update_conflict_text_lists_files(repo: Path, feature: Path, gfh: CliRunner) -> None:
    commit(feature, "ours", {"README.md": "ours\n"})
    commit(repo, "theirs", {"README.md": "theirs\n"})
    result = gfh("update")
    assert "  conflict: README.md" in result.out
    assert "feature/x is unchanged" in result.out


def test_update_marks_its_own_git_commands(repo: Path, feature: Path, gfh: CliRunner) -> None:
    """If a post-merge hook runs inside `gfh update`, it sees the marker and records nothing."""
    seen = repo / "hook-saw.txt"
    hooks = Path(git(feature, "rev-parse", "--git-path", "hooks").strip())
    if not hooks.is_absolute():
        hooks = feature / hooks
    hooks.mkdir(parents=True, exist_ok=True)
    hook = hooks / "post-merge"
    hook.write_text(f'#!/bin/sh\necho "${{{UPDATE_ENV}:-unset}}" > "{seen}"\n')
    hook.chmod(0o755)
    behind(repo, feature)
    assert gfh("update").code == 0
    assert seen.read_text().strip() == "1"
    assert UPDATE_ENV not in os.environ


def test_record_update_stays_quiet_inside_gfh_update(tmp_path: Path) -> None:
    log = EventLog(tmp_path)
    kwargs = {"branch": "b", "via": "merge", "trunk": "main", "onto": "a" * 40, "head": "b" * 40}
    assert record_update(log, surface="git", env={UPDATE_ENV: "1"}, **kwargs) is None  # type: ignore[arg-type]
    assert list(log.read()) == []
    event = record_update(log, surface="git", env={}, session="codex:s", **kwargs)  # type: ignore[arg-type]
    assert event is not None
    assert event.type == "git.update"
    assert event.surface == "git"
    assert event.session == "codex:s"
    with pytest.raises(ValueError, match="unknown update kind"):
        record_update(log, surface="git", env={}, **{**kwargs, "via": "squash"})  # type: ignore[arg-type]


def test_update_in_the_middle_of_a_rebase_is_refused_and_recorded(
    repo: Path, feature: Path, gfh: CliRunner
) -> None:
    commit(feature, "ours", {"README.md": "ours\n"})
    commit(repo, "theirs", {"README.md": "theirs\n"})
    git(feature, "rebase", "main", check=False)
    result = gfh("update")
    assert result.code == 1
    assert "a rebase is in progress" in result.err
    assert "git rebase --abort" in result.err
    [event] = verb_events(repo, "update")
    assert event["data"]["outcome"] == "refused"


def test_a_refusal_by_error_under_json_still_prints_the_envelope(
    repo: Path, gfh: CliRunner
) -> None:
    """If `gfh update --json` is refused by the repository's state (a detached HEAD), stdout
    still carries one object, outcome refused with the reason; the exit code and the one line
    on stderr stay as without --json."""
    git(repo, "checkout", "-q", "--detach")
    result = gfh("update", "--json")
    assert result.code == 1
    envelope = result.json()
    assert envelope == {
        "verb": "update",
        "outcome": "refused",
        "data": {"error": envelope["data"]["error"]},
        "hints": [],
    }
    assert envelope["data"]["error"].startswith("HEAD is detached at ")
    assert result.err == f"gfh: {envelope['data']['error']}\n"


@pytest.mark.parametrize("args", [("update",), ("update", "--rebase"), ("done",), ("accept",)])
def test_a_shallow_clone_cut_before_the_merge_base_is_refused_with_the_fix(
    shallow_feature: Path, gfh: CliRunner, args: tuple[str, ...]
) -> None:
    """git would see unrelated histories (a raw merge error, or phantom rebase conflicts);
    the verbs say why and how to get the history instead."""
    before = git(shallow_feature, "rev-parse", "HEAD")
    result = gfh(*args)
    assert result.code == 1
    assert result.err == (
        "gfh: this shallow clone is cut before the merge base of feature/old and main; run "
        f"`git fetch --unshallow` (or `git fetch --deepen N`) before `gfh {args[0]}`\n"
    )
    assert git(shallow_feature, "rev-parse", "HEAD") == before
    assert git(shallow_feature, "status", "--porcelain") == ""
