from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import CliRunner, commit, git, write
from tests.workflow.conftest import verb_events


def test_start_creates_branch_in_a_worktree_and_prints_its_path(repo: Path, gfh: CliRunner) -> None:
    result = gfh("start", "feature/parser")
    assert result.code == 0
    expected = repo.parent / "repo.worktrees" / "feature-parser"
    assert result.out.splitlines()[0] == str(expected)
    assert git(expected, "symbolic-ref", "--short", "HEAD").strip() == "feature/parser"
    assert git(expected, "rev-parse", "HEAD") == git(repo, "rev-parse", "main")
    [event] = verb_events(repo, "start")
    assert event["data"]["outcome"] == "ok"
    assert event["data"]["hint_ids"] == ["start-created"]
    assert event["branch"] == "main"


def test_start_json_envelope(repo: Path, gfh: CliRunner) -> None:
    envelope = gfh("start", "topic", "--json").json()
    assert envelope["verb"] == "start"
    assert envelope["outcome"] == "ok"
    assert envelope["data"]["path"] == str(repo.parent / "repo.worktrees" / "topic")
    assert envelope["data"]["from"] == "main"


def test_start_from_a_ref(repo: Path, gfh: CliRunner) -> None:
    first = git(repo, "rev-parse", "HEAD").strip()
    commit(repo, "second", {"b.txt": "b\n"})
    result = gfh("start", "hotfix", "--from", first)
    assert result.code == 0
    path = Path(result.out.splitlines()[0])
    assert git(path, "rev-parse", "HEAD").strip() == first
    [event] = verb_events(repo, "start")
    assert event["data"]["flags"] == ["--from"]  # the name, never the value


def test_start_of_a_branch_with_a_worktree_prints_its_path_again(
    repo: Path, gfh: CliRunner
) -> None:
    first = gfh("start", "feature/parser")
    assert first.code == 0
    again = gfh("start", "feature/parser", "--json")
    assert again.code == 0
    envelope = again.json()
    assert envelope["outcome"] == "ok"
    assert envelope["data"]["path"] == first.out.splitlines()[0]
    assert envelope["data"]["existing"] is True
    assert [h["id"] for h in envelope["hints"]] == ["start-existing"]
    assert [e["data"]["outcome"] for e in verb_events(repo, "start")] == ["ok", "ok"]


def test_start_of_a_branch_that_predates_gfh_gives_it_a_worktree(
    repo: Path, gfh: CliRunner
) -> None:
    """If the branch was made before gfh (no worktree), then `gfh start` checks it out in a
    worktree of its own, rather than saying "continue it there" about a place that is not."""
    git(repo, "branch", "feature/old")
    commit(repo, "trunk moves on", {"t.txt": "t\n"})
    result = gfh("start", "feature/old", "--json")
    assert result.code == 0, result.err
    envelope = result.json()
    assert [h["id"] for h in envelope["hints"]] == ["start-adopted"]
    path = Path(envelope["data"]["path"])
    assert path == repo.parent / "repo.worktrees" / "feature-old"
    assert git(path, "branch", "--show-current").strip() == "feature/old"
    assert git(path, "rev-parse", "HEAD") == git(repo, "rev-parse", "feature/old")
    assert gfh("start", "feature/old", "--json").json()["hints"][0]["id"] == "start-existing"


def test_start_of_the_branch_checked_out_in_the_main_checkout_points_there(
    repo: Path, gfh: CliRunner
) -> None:
    git(repo, "switch", "-q", "-c", "feature/here")
    git(repo, "switch", "-q", "main")
    git(repo, "switch", "-q", "feature/here")
    result = gfh("start", "feature/here", "--json")
    assert result.code == 0
    assert result.json()["data"]["path"] == str(repo)


def test_start_of_a_branch_whose_worktree_was_deleted_says_to_prune(
    repo: Path, gfh: CliRunner
) -> None:
    import shutil

    assert gfh("start", "feature/parser").code == 0
    shutil.rmtree(repo.parent / "repo.worktrees" / "feature-parser")
    result = gfh("start", "feature/parser")
    assert result.code == 1
    assert "which no longer exists: run `git worktree prune`" in " ".join(result.out.split())


def test_start_refuses_a_taken_path(repo: Path, gfh: CliRunner) -> None:
    taken = repo.parent / "repo.worktrees" / "feature-parser"
    write(taken, "keep.txt", "someone's files\n")
    result = gfh("start", "feature/parser")
    assert result.code == 1
    assert "already exists" in result.err
    assert (taken / "keep.txt").read_text() == "someone's files\n"
    assert git(repo, "branch", "--list", "feature/parser") == ""


@pytest.mark.parametrize("name", ["bad..name", "-x", "HEAD", "a b"])
def test_start_rejects_invalid_names_as_usage_errors(repo: Path, gfh: CliRunner, name: str) -> None:
    result = gfh("start", "--", name) if name.startswith("-") else gfh("start", name)
    assert result.code == 2
    assert "not a valid branch name" in result.err


def test_start_from_unknown_ref_is_a_usage_error(repo: Path, gfh: CliRunner) -> None:
    result = gfh("start", "x", "--from", "nope")
    assert result.code == 2
    assert "--from 'nope'" in result.err


def test_worktrees_location_comes_from_configuration(repo: Path, gfh: CliRunner) -> None:
    commit(repo, "config", {".gitflow-harness.toml": '[repository]\nworktrees = "wt/{repo}"\n'})
    result = gfh("start", "feature/x")
    assert Path(result.out.splitlines()[0]) == repo / "wt" / "repo" / "feature-x"


def test_start_from_a_worktree_anchors_at_the_main_checkout(
    repo: Path, feature: Path, gfh: CliRunner
) -> None:
    result = gfh("start", "second")
    assert Path(result.out.splitlines()[0]) == repo.parent / "repo.worktrees" / "second"


def test_a_usage_refusal_under_json_prints_the_envelope_and_exits_2(
    repo: Path, gfh: CliRunner
) -> None:
    result = gfh("start", "--json", "a..b")
    assert result.code == 2
    envelope = result.json()
    assert (envelope["verb"], envelope["outcome"], envelope["hints"]) == ("start", "refused", [])
    assert envelope["data"]["error"].startswith("'a..b' is not a valid branch name")
    assert result.err.splitlines() == [f"gfh: {envelope['data']['error']}"]


def test_start_in_a_repository_without_commits_says_so(
    tmp_path: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If `main` exists but has no commit yet, the trunk is not missing: the message says the
    repository has no commits, not that there is no `main`."""
    repo = tmp_path / "new"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    monkeypatch.chdir(repo)
    result = gfh("start", "feature/x")
    assert result.code == 1
    assert result.err == (
        "gfh: the trunk 'main' has no commits yet; make a first commit on it, then run "
        "`gfh start feature/x` again\n"
    )
    assert not (tmp_path / "new.worktrees").exists()
    git(repo, "switch", "-q", "--orphan", "scratch")
    assert gfh("start", "x").err == (
        "gfh: this repository has no commits yet (HEAD is the unborn 'scratch'); make a first "
        "commit, then run `gfh start x` again\n"
    )


MISSING_TRUNK = (
    "gfh: the trunk 'nope' (from .gitflow-harness.toml:3) has no local branch: create it "
    "(`git branch nope origin/nope`) or change [repository] trunk there\n"
)


def configure_missing_trunk(root: Path) -> None:
    write(root, ".gitflow-harness.toml", '# the trunk\n[repository]\ntrunk = "nope"\n')


def test_a_configured_trunk_without_a_branch_is_a_configuration_error(
    repo: Path, gfh: CliRunner
) -> None:
    """If [repository] trunk names no local branch, start says which file and line set it and
    exits 2 (the fix is in the configuration), and the box says the same thing."""
    configure_missing_trunk(repo)
    result = gfh("start", "feature/x")
    assert result.code == 2
    assert result.err == MISSING_TRUNK
    assert git(repo, "branch", "--list", "feature/x") == ""
    status = gfh("status", "--json").json()
    assert status["data"]["trunk"] is None
    assert status["data"]["trunk_missing"] == {
        "name": "nope", "source": ".gitflow-harness.toml:3",
    }  # fmt: skip
    box = gfh("status").out
    assert "main · trunk 'nope' (from .gitflow-harness.toml:3) has no local branch" in " ".join(
        line.strip("│ ") for line in box.splitlines()
    )
    assert "set [repository] trunk" not in box


@pytest.mark.parametrize("verb", ["update", "done", "accept"])
def test_every_verb_needing_the_trunk_names_the_missing_trunk_key(
    repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch, verb: str
) -> None:
    path = repo.parent / "repo.worktrees" / "feature-x"
    git(repo, "worktree", "add", "-q", "-b", "feature/x", str(path), "main")
    configure_missing_trunk(path)
    monkeypatch.chdir(path)
    result = gfh(verb)
    assert result.code == 2
    assert result.err == MISSING_TRUNK
    [event] = verb_events(repo, verb)
    assert event["data"]["outcome"] == "refused"


def test_start_removes_the_ways_caches_unwritten_for_a_month(repo: Path, gfh: CliRunner) -> None:
    """Each worktree has its own ways cache; `start`, making one more, removes those not
    written for `KEEP_CACHE_S` (their worktrees gone by hand, or only ever rebuilt) and keeps
    the rest."""
    import os

    from gitflow_harness.ways.index import KEEP_CACHE_S, default_cache_file

    old, recent = Path(default_cache_file(repo / "gone")), Path(default_cache_file(repo / "kept"))
    old.parent.mkdir(parents=True, exist_ok=True)
    old.write_bytes(b"x")
    recent.write_bytes(b"x")
    (old.parent / "notes.txt").write_text("not a cache\n")
    long_ago = old.stat().st_mtime - KEEP_CACHE_S - 60
    os.utime(old, (long_ago, long_ago))
    os.utime(old.parent / "notes.txt", (long_ago, long_ago))
    assert gfh("start", "feature/parser").code == 0
    assert not old.exists()
    assert recent.exists()
    assert (old.parent / "notes.txt").exists()
