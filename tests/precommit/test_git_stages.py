"""gfh-record-update and gfh-gate-push installed by `pre-commit install`, driven by real git."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import CliRunner, commit, git, read_events
from tests.precommit.conftest import install, pre_commit, run_git
from tests.precommit.store import BUILDS, Published

SESSION = "claude:4e0b7d2c-session"

pytestmark = [pytest.mark.slow, BUILDS]


@pytest.fixture
def recording(repo: Path, published: Published, tmp_path: Path) -> Path:
    """A clone of a bare remote with gfh-record-update installed; `feature` is checked out."""
    install(repo, published, ["gfh-record-update"], ["post-merge", "post-rewrite"])
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "fetch", "-q", "origin")
    git(repo, "switch", "-q", "-c", "feature")
    commit(repo, "feature work", {"feature.txt": "f\n"})
    return repo


def trunk_moves(repo: Path, name: str) -> str:
    """Commit `name` on main, return to feature, and return main's new commit."""
    git(repo, "switch", "-q", "main")
    sha = commit(repo, f"trunk: {name}", {f"{name}.txt": name + "\n"})
    git(repo, "switch", "-q", "feature")
    return sha


def updates(repo: Path) -> list[dict[str, Any]]:
    return [e for e in read_events(repo) if e["type"] == "git.update"]


def test_a_real_merge_and_a_real_rebase_of_the_trunk_each_append_one_update(
    recording: Path,
) -> None:
    onto = trunk_moves(recording, "one")
    merge = run_git(recording, "merge", "--no-edit", "main", env={"GFH_SESSION": SESSION})
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert "gfh record update" in merge.stdout + merge.stderr
    [first] = updates(recording)
    assert first["surface"] == "git"
    assert first["session"] == SESSION
    assert first["branch"] == "feature"
    head = git(recording, "rev-parse", "HEAD").strip()
    assert first["data"] == {"via": "merge", "trunk": "main", "onto": onto, "head": head}

    onto = trunk_moves(recording, "two")
    rebase = run_git(recording, "rebase", "main")
    assert rebase.returncode == 0, rebase.stdout + rebase.stderr
    second = updates(recording)[1]
    assert second["session"] is None  # no GFH_SESSION in this git command's environment
    assert second["data"]["via"] == "rebase"
    assert second["data"]["onto"] == onto
    assert second["data"]["head"] == git(recording, "rev-parse", "HEAD").strip()
    assert len(updates(recording)) == 2


def test_a_conflicted_merge_finished_with_git_commit_appends_one_update(recording: Path) -> None:
    """If `git merge main` stops on conflicts and the agent resolves them and runs `git commit`
    (what update-conflict prescribes), git runs post-commit, not post-merge: the hook records
    the update there. An ordinary commit and an amend afterwards record nothing."""
    installed = pre_commit(recording, "install", "-t", "post-commit")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    git(recording, "switch", "-q", "main")
    onto = commit(recording, "trunk edits the feature's file", {"feature.txt": "trunk\n"})
    git(recording, "switch", "-q", "feature")
    stopped = run_git(recording, "merge", "--no-edit", "main")
    assert stopped.returncode == 1, stopped.stdout + stopped.stderr
    assert updates(recording) == []
    (recording / "feature.txt").write_text("resolved\n")
    git(recording, "add", "feature.txt")
    finished = run_git(recording, "commit", "--no-edit", env={"GFH_SESSION": SESSION})
    assert finished.returncode == 0, finished.stdout + finished.stderr
    [update] = updates(recording)
    head = git(recording, "rev-parse", "HEAD").strip()
    assert update["session"] == SESSION
    assert update["data"] == {"via": "merge", "trunk": "main", "onto": onto, "head": head}

    commit(recording, "more feature work", {"more.txt": "m\n"})
    amend = run_git(recording, "commit", "--amend", "-m", "more feature work, reworded")
    assert amend.returncode == 0, amend.stdout + amend.stderr
    assert len(updates(recording)) == 1
    assert [e["type"] for e in read_events(recording)] == ["git.update"]


def test_merging_an_unrelated_branch_appends_nothing(recording: Path) -> None:
    git(recording, "switch", "-q", "-c", "side", "HEAD~1")
    commit(recording, "side work", {"side.txt": "s\n"})
    git(recording, "switch", "-q", "feature")
    merge = run_git(recording, "merge", "--no-edit", "side")
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert updates(recording) == []
    # ...and amending afterwards (post-rewrite "amend") appends nothing either.
    amend = run_git(recording, "commit", "--amend", "--no-edit")
    assert amend.returncode == 0, amend.stdout + amend.stderr
    assert read_events(recording) == []


def test_a_pull_of_the_remote_trunk_appends_one_update(recording: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(other))
    pushed = commit(other, "someone else's trunk work", {"remote.txt": "r\n"})
    git(other, "push", "-q", "origin", "main")
    pull = run_git(recording, "pull", "--no-rebase", "--no-edit", "origin", "main")
    assert pull.returncode == 0, pull.stdout + pull.stderr
    [update] = updates(recording)
    assert (update["data"]["via"], update["data"]["onto"]) == ("pull", pushed)


def test_gfh_update_records_its_update_once(recording: Path, gfh: CliRunner) -> None:
    """If `gfh update` runs the merge, then the hook stays quiet: one update, not two."""
    trunk_moves(recording, "one")
    result = gfh("update")
    assert result.code == 0, result.err
    assert [e["surface"] for e in updates(recording)] == ["cli"]


def test_a_failing_hook_never_blocks_the_git_command(recording: Path) -> None:
    """If gfh cannot record (a broken configuration, a log it cannot write), then the merge and
    the rebase still succeed, the hook still reads Passed, and what failed is said once."""
    commit(recording, "break the config", {".gitflow-harness.toml": "[gate]\npush = 3\n"})
    trunk_moves(recording, "one")
    merge = run_git(recording, "merge", "--no-edit", "main")
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert git(recording, "rev-parse", "HEAD^2") == git(recording, "rev-parse", "main")
    assert "gfh record update...." in merge.stderr  # git shows hook output on stderr
    assert "Passed" in merge.stderr
    [error] = read_events(recording)
    assert error["type"] == "hook.error"
    assert error["data"]["error"].startswith("ConfigError: ")

    git(recording, "rm", "-q", ".gitflow-harness.toml")
    git(recording, "commit", "-q", "-m", "fix the config")
    log = recording / ".git" / "gitflow-harness"
    shutil.rmtree(log)
    log.write_text("a file where the log's directory belongs\n")
    trunk_moves(recording, "two")
    rebase = run_git(recording, "rebase", "main")
    assert rebase.returncode == 0, rebase.stdout + rebase.stderr
    git(recording, "merge-base", "--is-ancestor", "main", "HEAD")
    assert "Passed" in rebase.stderr


# -- follow-through: an agent that updates with git itself ----------------------------------


def behind_then(recording: Path, gfh: CliRunner, how: list[str], session: str | None) -> None:
    """The agent sees `status-branch-behind`, then runs `git <how>` itself."""
    trunk_moves(recording, how[0] + str(len(read_events(recording))))
    status = gfh("status", "--json", env={"GFH_SESSION": SESSION})
    assert status.code == 0, status.err
    assert "status-branch-behind" in [h["id"] for h in status.json()["hints"]]
    env = {"GFH_SESSION": session} if session is not None else {}
    proc = run_git(recording, *how, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def branch_update(gfh: CliRunner) -> dict[str, Any]:
    result = gfh("report", "--json")
    assert result.code == 0, result.err
    return result.json()  # type: ignore[no-any-return]


def test_an_agents_own_git_merge_and_rebase_are_followed_through(
    recording: Path, gfh: CliRunner
) -> None:
    for how in (["merge", "--no-edit", "main"], ["rebase", "main"], ["merge", "main"]):
        behind_then(recording, gfh, how, SESSION)
    doc = branch_update(gfh)
    [finding] = [f for f in doc["findings"] if f["subject"] == "branch-update"]
    assert finding["evidence"] == {"fired": 3, "followed": 3, "not_followed": 0, "censored": 0}
    assert finding["tone"] == "good"


def test_without_a_session_the_git_update_leaves_the_episode_censored(
    recording: Path, gfh: CliRunner
) -> None:
    """If the git command ran outside the agent's session, then the update it recorded cannot
    be tied to the hint: neither followed nor not followed."""
    for how in (["merge", "--no-edit", "main"], ["rebase", "main"], ["merge", "main"]):
        behind_then(recording, gfh, how, None)
    assert [u["session"] for u in updates(recording)] == [None, None, None]
    doc = branch_update(gfh)
    assert [f for f in doc["findings"] if f["subject"] == "branch-update"] == []
    [detector] = [d for d in doc["detectors"] if d["id"] == "hint-follow-through"]
    assert "branch-update: 0 resolved of 3 fired (3 needed to report)" in detector["notes"]


# -- pre-push ------------------------------------------------------------------------------


@pytest.fixture
def pushing(repo: Path, published: Published, tmp_path: Path) -> Path:
    """A repository with a bare `origin` and gfh-gate-push installed; `feature` checked out.

    The gate's test passes when ok.txt exists.
    """
    commit(repo, "gate", {".gitflow-harness.toml": '[gate]\ntest = ["test -f ok.txt"]\n'})
    install(repo, published, ["gfh-gate-push"], ["pre-push"])
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "switch", "-q", "-c", "feature")
    return repo


def test_a_red_tree_is_refused_with_the_remedy_and_a_green_one_is_pushed(
    pushing: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    remote = tmp_path / "remote.git"
    # A push that reaches the root commit: pre-commit names no commit, only the branch.
    git(pushing, "switch", "-q", "main")
    assert gfh("test").code == 1  # red: no ok.txt
    root = run_git(pushing, "push", "origin", "main")
    assert root.returncode != 0
    assert "gfh: refusing to push main: its tree " in root.stdout + root.stderr
    skipped = run_git(pushing, "push", "origin", "main", env={"SKIP": "gfh-gate-push"})
    assert skipped.returncode == 0, skipped.stdout + skipped.stderr

    # A push with something in the remote already: pre-commit names the pushed commit.
    git(pushing, "switch", "-q", "feature")
    commit(pushing, "work without ok.txt", {"work.txt": "w\n"})
    assert gfh("test").code == 1
    refused = run_git(pushing, "push", "origin", "feature")
    output = refused.stdout + refused.stderr
    assert refused.returncode != 0
    assert "gfh: refusing to push feature: its tree " in output
    assert "was judged red by `gfh test`" in output
    assert "run `gfh test` (or `gfh done`)" in output
    assert git(remote, "branch", "--list", "feature") == ""

    commit(pushing, "add ok.txt", {"ok.txt": "ok\n"})
    assert gfh("test").code == 0  # green
    pushed = run_git(pushing, "push", "origin", "feature")
    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    assert "gfh gate push" in pushed.stdout + pushed.stderr
    assert git(remote, "rev-parse", "feature") == git(pushing, "rev-parse", "HEAD")


def test_require_green_refuses_an_unjudged_tree_and_off_allows_red(
    pushing: Path, gfh: CliRunner
) -> None:
    commit(pushing, "policy", {".gitflow-harness.toml": '[gate]\npush = "require-green"\n'})
    refused = run_git(pushing, "push", "origin", "feature")
    assert refused.returncode != 0
    assert "no gate has judged its tree" in refused.stdout + refused.stderr

    commit(
        pushing,
        "policy",
        {".gitflow-harness.toml": '[gate]\npush = "off"\ntest = ["false"]\n'},
    )
    assert gfh("test").code == 1
    allowed = run_git(pushing, "push", "origin", "feature")
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
