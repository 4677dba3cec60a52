"""`gfh git-hook record-update` and `gfh git-hook gate-push` with pre-commit's environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness import git
from gitflow_harness.workflow.gate_index import write_gate
from tests.helpers import CliRunner, diverge, read_events, run_gfh, write
from tests.helpers import git as run_git


@pytest.fixture
def merged(repo: Path) -> Path:
    """`feature` has just merged a newer `main`."""
    diverge(repo, "feature", {"feature.txt": "f\n"}, {"trunk.txt": "t\n"})
    run_git(repo, "merge", "-q", "--no-edit", "main")
    return repo


def test_record_update_records_and_says_so(merged: Path, gfh: CliRunner) -> None:
    result = gfh("git-hook", "record-update", env={"PRE_COMMIT_IS_SQUASH_MERGE": "0"})
    assert result.code == 0
    main = run_git(merged, "rev-parse", "--short=7", "main").strip()
    assert result.out == f"gfh git.update: recorded: feature took in main at {main} by merge\n"
    assert [e["type"] for e in read_events(merged)] == ["git.update"]


def test_record_update_takes_the_hosts_session_when_gfh_has_none(
    merged: Path, gfh: CliRunner
) -> None:
    """If the agent's `git merge` runs with only Claude Code's own session variable, then the
    `git.update` still carries the agent's session."""
    assert gfh("git-hook", "record-update", env={"CLAUDE_CODE_SESSION_ID": "s-9"}).code == 0
    [event] = read_events(merged)
    assert event["session"] == "claude:s-9"


def test_record_update_json(merged: Path, gfh: CliRunner) -> None:
    doc = gfh("git-hook", "record-update", "--json").json()
    [event] = read_events(merged)
    assert doc["recorded"] is True
    assert doc["event"] == event["id"]
    assert doc["update"]["via"] == "merge"
    assert doc["update"]["head"] == event["data"]["head"]


def test_record_update_of_an_amend_records_nothing(merged: Path, gfh: CliRunner) -> None:
    result = gfh("git-hook", "record-update", env={"PRE_COMMIT_REWRITE_COMMAND": "amend"})
    assert (result.code, result.err) == (0, "")
    assert "brings nothing in" in result.out
    assert read_events(merged) == []


def test_record_update_never_fails_on_a_broken_config(merged: Path, gfh: CliRunner) -> None:
    """If the configuration is malformed, then the git command must still look successful: exit
    0, one line saying why nothing was recorded, and a `hook.error` event so it is not silent."""
    write(merged, ".gitflow-harness.toml", "[gate]\npush = 3\n")
    result = gfh("git-hook", "record-update")
    assert result.code == 0
    assert result.out == ""
    assert result.err.startswith("gfh: git.update not recorded: ConfigError: ")
    assert ".gitflow-harness.toml:2" in result.err
    assert result.err.count("\n") == 1
    [event] = read_events(merged)
    assert event["type"] == "hook.error"
    assert event["data"]["adapter"] == "git"
    assert event["data"]["event"] == "record-update"
    assert event["data"]["error"].startswith("ConfigError: ")


def test_record_update_never_fails_when_the_log_cannot_be_written(
    merged: Path, gfh: CliRunner
) -> None:
    (merged / ".git" / "gitflow-harness").write_text("not a directory\n")
    result = gfh("git-hook", "record-update")
    assert result.code == 0
    assert result.err.startswith("gfh: git.update not recorded: ")
    assert result.err.count("\n") == 1


def test_record_update_outside_a_repository_exits_0(tmp_path: Path) -> None:
    proc = run_gfh("git-hook", "record-update", cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stderr.startswith("gfh: git.update not recorded: NotARepository: ")
    assert "Traceback" not in proc.stderr


def red(repo: Path, rev: str = "HEAD") -> str:
    r = git.discover(repo)
    tree = git.tree_of(r, rev)
    write_gate(r, tree, "red", verb="done", branch="feature", head=None)
    return tree


def test_gate_push_refuses_red_on_stderr_with_exit_1(merged: Path, gfh: CliRunner) -> None:
    tree = red(merged)
    head = run_git(merged, "rev-parse", "HEAD").strip()
    result = gfh(
        "git-hook",
        "gate-push",
        env={"PRE_COMMIT_TO_REF": head, "PRE_COMMIT_LOCAL_BRANCH": "refs/heads/feature"},
    )
    assert result.code == 1
    assert result.out == ""
    # Two short shas, each labelled: which is the tree judged and which the commit pushed.
    assert result.err.startswith(
        f"gfh: refusing to push feature: its tree {tree[:7]} (of commit {head[:7]}) was judged "
    )
    assert "`gfh done`" in result.err


def test_gate_push_allows_an_unjudged_tree(merged: Path, gfh: CliRunner) -> None:
    result = gfh("git-hook", "gate-push")
    assert result.code == 0
    assert result.out.endswith("is not judged yet (block-red): push allowed\n")


def test_gate_push_ref_option_judges_that_ref(merged: Path, gfh: CliRunner) -> None:
    red(merged, "main")
    assert gfh("git-hook", "gate-push").code == 0
    result = gfh("git-hook", "gate-push", "--ref", "main", "--json")
    assert result.code == 1
    doc = result.json()
    assert doc["allowed"] is False
    assert doc["ref"] == "main"
    assert doc["gate"] == "red"
    assert doc["commit"] == run_git(merged, "rev-parse", "main").strip()


def test_gate_push_bad_config_is_a_usage_error(merged: Path, gfh: CliRunner) -> None:
    write(merged, ".gitflow-harness.toml", '[gate]\npush = "sometimes"\n')
    result = gfh("git-hook", "gate-push")
    assert result.code == 2
    assert ".gitflow-harness.toml:2" in result.err
