"""`gfh git-hook protect-trunk`: commits on the trunk and pushes to it, per protect_trunk."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import CliRunner, git, write

AGENT = {"GFH_SESSION": "claude:5d1e-session"}


def push_line(repo: Path, local: str, remote: str) -> str:
    sha = git(repo, "rev-parse", local).strip()
    return f"refs/heads/{local} {sha} refs/heads/{remote} {'0' * 40}\n"


def test_a_commit_on_the_trunk_is_refused_in_an_agent_session_with_the_way_out(
    repo: Path, gfh: CliRunner
) -> None:
    result = gfh("git-hook", "protect-trunk", env=AGENT)
    assert result.code == 1
    assert result.err.count("\n") == 1
    assert result.err.startswith("gfh: refusing to commit on the trunk main: an agent session")
    assert "`gfh start NAME`" in result.err
    assert "`gfh accept`" in result.err


@pytest.mark.parametrize(
    "marker", ["CLAUDE_CODE_SESSION_ID", "CLAUDECODE", "CODEX_CI", "CURSOR_AGENT"]
)
def test_a_hosts_own_variable_marks_an_agent_session(
    repo: Path, gfh: CliRunner, marker: str
) -> None:
    assert gfh("git-hook", "protect-trunk", env={marker: "1"}).code == 1


def test_a_person_is_warned_and_the_commit_goes(repo: Path, gfh: CliRunner) -> None:
    result = gfh("git-hook", "protect-trunk")
    assert result.code == 0
    assert result.err.startswith("gfh: warning: a commit on the trunk main")


def test_off_the_trunk_there_is_nothing_to_say(repo: Path, gfh: CliRunner) -> None:
    git(repo, "switch", "-q", "-c", "feature")
    result = gfh("git-hook", "protect-trunk", env=AGENT)
    assert (result.code, result.out, result.err) == (0, "", "")


@pytest.mark.parametrize(
    ("policy", "agent_code", "person_code", "person_says"),
    [("all", 1, 1, True), ("warn", 0, 0, True), ("off", 0, 0, False)],
)
def test_the_policy_decides(
    repo: Path, gfh: CliRunner, policy: str, agent_code: int, person_code: int, person_says: bool
) -> None:
    write(repo, ".gitflow-harness.toml", f'[repository]\nprotect_trunk = "{policy}"\n')
    assert gfh("git-hook", "protect-trunk", env=AGENT).code == agent_code
    person = gfh("git-hook", "protect-trunk", "--json")
    assert person.code == person_code
    assert bool(person.json()["message"]) is person_says


def test_a_push_that_updates_the_remote_trunk_is_refused_for_an_agent(
    repo: Path, gfh: CliRunner
) -> None:
    git(repo, "switch", "-q", "-c", "feature")
    args = ("git-hook", "protect-trunk", "origin", "/srv/remote.git")
    to_trunk = gfh(*args, stdin=push_line(repo, "feature", "main"), env=AGENT)
    assert to_trunk.code == 1
    assert "refusing to push to the trunk main on origin" in to_trunk.err
    assert gfh(*args, stdin=push_line(repo, "feature", "feature"), env=AGENT).code == 0


def test_under_pre_commit_the_pushed_ref_comes_from_its_variables(
    repo: Path, gfh: CliRunner
) -> None:
    env = {
        **AGENT,
        "PRE_COMMIT_REMOTE_NAME": "origin",
        "PRE_COMMIT_LOCAL_BRANCH": "refs/heads/main",
        "PRE_COMMIT_REMOTE_BRANCH": "refs/heads/main",
        "PRE_COMMIT_TO_REF": git(repo, "rev-parse", "HEAD").strip(),
    }
    assert gfh("git-hook", "protect-trunk", env=env).code == 1


def test_a_bad_policy_is_a_configuration_error(repo: Path, gfh: CliRunner) -> None:
    write(repo, ".gitflow-harness.toml", '[repository]\nprotect_trunk = "sometimes"\n')
    result = gfh("git-hook", "protect-trunk")
    assert result.code == 2
    assert ".gitflow-harness.toml:2" in result.err
