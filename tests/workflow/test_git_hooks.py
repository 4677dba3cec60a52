"""The git-stage hooks' decisions, on real repositories after real merges, rebases and pulls."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gitflow_harness import git
from gitflow_harness.errors import UsageError
from gitflow_harness.workflow.gate_index import write_gate
from gitflow_harness.workflow.git_hooks import (
    find_trunk_update,
    judge_push,
    record_trunk_update,
)
from gitflow_harness.workflow.record import UPDATE_ENV
from gitflow_harness.workspace import open_workspace
from tests.helpers import commit, diverge, read_events, write
from tests.helpers import git as run_git

SESSION = "claude:9c1d-session"


@pytest.fixture
def behind(repo: Path) -> Path:
    """`feature` with one commit of its own, checked out; `main` one commit ahead of it."""
    diverge(repo, "feature", {"feature.txt": "f\n"}, {"trunk.txt": "t\n"})
    return repo


def sha(repo: Path, rev: str) -> str:
    return run_git(repo, "rev-parse", rev).strip()


def check(repo: Path, **kwargs: object):  # type: ignore[no-untyped-def]
    return find_trunk_update(git.discover(repo), **kwargs)  # type: ignore[arg-type]


# -- find_trunk_update ---------------------------------------------------------------------


def test_a_merge_of_the_trunk_is_an_update(behind: Path) -> None:
    onto = sha(behind, "main")
    run_git(behind, "merge", "-q", "--no-edit", "main")
    found = check(behind, squash=False).update
    assert found is not None
    assert (found.branch, found.via, found.trunk, found.onto) == ("feature", "merge", "main", onto)
    assert found.head == sha(behind, "HEAD")


def test_a_fast_forward_merge_of_the_trunk_is_an_update(repo: Path) -> None:
    run_git(repo, "branch", "feature")
    commit(repo, "trunk work", {"trunk.txt": "t\n"})
    run_git(repo, "switch", "-q", "feature")
    run_git(repo, "merge", "-q", "main")
    found = check(repo).update
    assert found is not None
    assert (found.via, found.onto, found.head) == ("merge", sha(repo, "main"), sha(repo, "main"))


def test_a_rebase_onto_the_trunk_is_an_update(behind: Path) -> None:
    run_git(behind, "rebase", "-q", "main")
    result = check(behind, rewrite_command="rebase")
    assert result.update is not None
    assert (result.update.via, result.update.onto) == ("rebase", sha(behind, "main"))
    assert result.reason == f"feature took in main at {sha(behind, 'main')[:7]} by rebase"


def test_a_pull_of_the_remote_trunk_is_an_update_onto_the_remote_tip(
    behind: Path, tmp_path: Path
) -> None:
    """If the remote's trunk moved past the local trunk, then a pull integrates the remote's
    commit: that is what `onto` names."""
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(behind), str(remote))
    other = tmp_path / "other"
    run_git(tmp_path, "clone", "-q", str(remote), str(other))
    run_git(other, "switch", "-q", "main")
    commit(other, "pushed by someone else", {"remote.txt": "r\n"})
    run_git(other, "push", "-q", "origin", "main")
    run_git(behind, "remote", "add", "origin", str(remote))
    run_git(behind, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    found = check(behind).update
    assert found is not None
    assert found.via == "pull"
    assert found.onto == sha(behind, "origin/main") != sha(behind, "main")


def test_a_conflicted_merge_finished_with_commit_is_an_update(behind: Path) -> None:
    """If `git merge main` stops on conflicts and is finished with `git commit`, post-commit
    (which sets no PRE_COMMIT_* variable) sees `commit (merge)`: the trunk came in."""
    run_git(behind, "switch", "-q", "main")
    onto = commit(behind, "trunk edits the same file", {"feature.txt": "trunk\n"})
    run_git(behind, "switch", "-q", "feature")
    run_git(behind, "merge", "--no-edit", "main", check=False)
    write(behind, "feature.txt", "resolved\n")
    run_git(behind, "commit", "-q", "-a", "--no-edit")
    found = check(behind).update
    assert found is not None
    assert (found.via, found.onto, found.head) == ("merge", onto, sha(behind, "HEAD"))


def test_an_amend_after_a_merge_is_not_an_update_at_post_commit(behind: Path) -> None:
    run_git(behind, "merge", "-q", "--no-edit", "main")
    run_git(behind, "commit", "-q", "--amend", "-m", "merge the trunk")
    assert "commit (amend)" in run_git(behind, "reflog", "-n1", "--format=%gs", "feature")
    assert check(behind).reason == "the commit brought no new commits of main into feature"


def test_merging_a_branch_named_like_the_trunk_is_not_an_update(behind: Path) -> None:
    run_git(behind, "branch", "topic/main", "HEAD")
    run_git(behind, "switch", "-q", "topic/main")
    commit(behind, "topic work", {"topic.txt": "t\n"})
    run_git(behind, "switch", "-q", "feature")
    run_git(behind, "merge", "-q", "--no-edit", "topic/main")
    assert check(behind).update is None


def test_merging_an_unrelated_branch_is_not_an_update(behind: Path) -> None:
    run_git(behind, "branch", "side", "HEAD~1")
    run_git(behind, "switch", "-q", "side")
    commit(behind, "side work", {"side.txt": "s\n"})
    run_git(behind, "switch", "-q", "feature")
    run_git(behind, "merge", "-q", "--no-edit", "side")
    result = check(behind)
    assert result.update is None
    assert result.reason == "the merge brought no new commits of main into feature"


def test_merging_the_trunk_again_when_it_is_already_in_is_not_an_update(behind: Path) -> None:
    run_git(behind, "merge", "-q", "--no-edit", "main")
    run_git(behind, "branch", "side")
    run_git(behind, "switch", "-q", "side")
    commit(behind, "side work", {"side.txt": "s\n"})
    run_git(behind, "switch", "-q", "feature")
    run_git(behind, "merge", "-q", "--no-edit", "side")
    assert check(behind).update is None


def test_an_interactive_style_rebase_of_the_branch_itself_is_not_an_update(behind: Path) -> None:
    commit(behind, "second", {"feature.txt": "f2\n"})
    # A new committer date makes new commits, as an interactive rebase's edits would.
    run_git(
        behind,
        "rebase",
        "-q",
        "--force-rebase",
        "HEAD~2",
        env={"GIT_COMMITTER_DATE": "@2000000000 +0000"},
    )
    assert "rebase (finish)" in run_git(behind, "reflog", "-n1", "--format=%gs", "feature")
    result = check(behind, rewrite_command="rebase")
    assert result.update is None
    assert "no new commits of main" in result.reason


def test_amend_and_squash_are_not_updates(behind: Path) -> None:
    assert check(behind, rewrite_command="amend").reason.startswith("`amend` rewrote commits")
    run_git(behind, "merge", "-q", "--squash", "main")
    assert check(behind, squash=True).update is None


def test_work_on_the_trunk_is_not_an_update(repo: Path) -> None:
    assert check(repo).reason == "main is the trunk"


def test_a_detached_head_is_not_an_update(behind: Path) -> None:
    run_git(behind, "switch", "-q", "--detach", "main")
    assert check(behind).reason == "HEAD is not on a branch with commits"


def test_without_a_trunk_nothing_is_decided(tmp_path: Path) -> None:
    from tests.helpers import make_repo

    path = make_repo(tmp_path / "r", branch="trunkless")
    run_git(path, "switch", "-q", "-c", "feature")
    assert "no trunk found" in check(path).reason
    assert check(path, configured_trunk="trunkless").reason == (
        "cannot tell where feature was before its last step (branch)"
    )


def test_a_commit_after_the_merge_is_not_an_update(behind: Path) -> None:
    """If the hook is run by hand after more work, then the branch's last step is a commit,
    not the merge, and nothing is decided from an older step."""
    run_git(behind, "merge", "-q", "--no-edit", "main")
    commit(behind, "more", {"more.txt": "m\n"})
    assert check(behind).reason == "the commit brought no new commits of main into feature"


def test_without_a_reflog_orig_head_says_where_the_branch_was(behind: Path) -> None:
    run_git(behind, "config", "core.logAllRefUpdates", "false")
    shutil.rmtree(behind / ".git" / "logs")  # git then keeps no reflog at all
    onto = sha(behind, "main")
    run_git(behind, "merge", "-q", "--no-edit", "main")
    assert run_git(behind, "reflog", "show", "refs/heads/feature") == ""
    assert check(behind).update is None  # after a commit ORIG_HEAD is stale: no stage, no guess
    found = check(behind, stage="post-merge").update
    assert found is not None
    assert (found.via, found.onto) == ("merge", onto)
    (behind / ".git" / "ORIG_HEAD").unlink()
    assert check(behind, stage="post-merge").reason == (
        "cannot tell where feature was before its last step (merge)"
    )


def test_a_configured_trunk_is_used(behind: Path) -> None:
    run_git(behind, "branch", "develop", "main")
    run_git(behind, "merge", "-q", "--no-edit", "develop")
    found = check(behind, configured_trunk="develop").update
    assert found is not None
    assert found.trunk == "develop"


# -- record_trunk_update -------------------------------------------------------------------


def test_record_appends_one_git_update_with_the_session(behind: Path) -> None:
    run_git(behind, "merge", "-q", "--no-edit", "main")
    result = record_trunk_update(
        open_workspace(), {"PRE_COMMIT_IS_SQUASH_MERGE": "0", "GFH_SESSION": SESSION}
    )
    assert result.event is not None
    [event] = read_events(behind)
    assert event["type"] == "git.update"
    assert event["surface"] == "git"
    assert event["session"] == SESSION
    assert event["branch"] == "feature"
    assert event["data"] == {
        "via": "merge",
        "trunk": "main",
        "onto": sha(behind, "main"),
        "head": sha(behind, "HEAD"),
    }
    assert result.to_dict()["event"] == event["id"]


def test_record_without_a_session_records_a_null_session(behind: Path) -> None:
    run_git(behind, "rebase", "-q", "main")
    record_trunk_update(open_workspace(), {"PRE_COMMIT_REWRITE_COMMAND": "rebase"})
    [event] = read_events(behind)
    assert event["session"] is None
    assert event["data"]["via"] == "rebase"


def test_record_stays_quiet_while_gfh_update_runs_the_git_command(behind: Path) -> None:
    run_git(behind, "merge", "-q", "--no-edit", "main")
    result = record_trunk_update(open_workspace(), {UPDATE_ENV: "1"})
    assert result.event is None
    assert "`gfh update`" in result.reason
    assert read_events(behind) == []


def test_record_of_no_update_appends_nothing(behind: Path) -> None:
    result = record_trunk_update(open_workspace(), {"PRE_COMMIT_REWRITE_COMMAND": "amend"})
    assert (result.event, result.to_dict()["recorded"]) == (None, False)
    assert read_events(behind) == []


# -- judge_push ----------------------------------------------------------------------------


def judge(repo: Path, policy: str | None = None, **kwargs: str | None):  # type: ignore[no-untyped-def]
    if policy is not None:
        commit(repo, "policy", {".gitflow-harness.toml": f'[gate]\npush = "{policy}"\n'})
    return judge_push(open_workspace(), commit=kwargs.get("commit"), local_ref=kwargs.get("ref"))


def judged(repo: Path, gate: str, rev: str = "HEAD") -> None:
    r = git.discover(repo)
    write_gate(r, git.tree_of(r, rev), gate, verb="test", branch="feature", head=None)  # type: ignore[arg-type]


def test_a_red_tree_is_refused_with_the_remedy(behind: Path) -> None:
    judged(behind, "red")
    verdict = judge(behind, ref="refs/heads/feature")
    assert not verdict.allowed
    assert verdict.gate == "red"
    assert verdict.message.startswith("refusing to push feature: its tree ")
    assert "judged red by `gfh test`" in verdict.message
    assert "run `gfh test` (or `gfh done`)" in verdict.message


def test_a_green_tree_is_allowed(behind: Path) -> None:
    judged(behind, "green")
    verdict = judge(behind, ref="refs/heads/feature")
    assert (verdict.allowed, verdict.gate) == (True, "green")
    assert verdict.tree == sha(behind, "HEAD^{tree}")


def test_an_unjudged_tree_under_require_green_names_tree_and_commit(behind: Path) -> None:
    verdict = judge(behind, "require-green", ref="refs/heads/feature")
    tree, head = sha(behind, "HEAD^{tree}"), sha(behind, "HEAD")
    assert not verdict.allowed
    assert f"no gate has judged its tree {tree[:7]} (of commit {head[:7]}) and " in (
        verdict.message
    )


def test_the_pushed_commit_decides_not_head(behind: Path) -> None:
    """If pre-commit names the pushed commit, then its tree is judged, whatever HEAD is."""
    judged(behind, "red", "main")
    verdict = judge(behind, commit=sha(behind, "main"), ref="refs/heads/main")
    assert not verdict.allowed
    assert judge(behind).allowed  # HEAD (feature) was never judged


def test_an_unjudged_tree_is_allowed_by_block_red_and_refused_by_require_green(
    behind: Path,
) -> None:
    assert judge(behind).allowed
    verdict = judge(behind, "require-green")
    assert not verdict.allowed
    assert "no gate has judged its tree" in verdict.message
    assert "require-green" in verdict.message


def test_require_green_still_allows_green(behind: Path) -> None:
    commit(behind, "policy", {".gitflow-harness.toml": '[gate]\npush = "require-green"\n'})
    judged(behind, "green")
    assert judge(behind).allowed


def test_off_allows_even_red(behind: Path) -> None:
    commit(behind, "policy", {".gitflow-harness.toml": '[gate]\npush = "off"\n'})
    judged(behind, "red")
    verdict = judge(behind)
    assert verdict.allowed
    assert verdict.message == "gate.push is off"


def test_tags_are_not_gated(behind: Path) -> None:
    judged(behind, "red")
    run_git(behind, "tag", "v1")
    assert judge(behind, commit=sha(behind, "v1"), ref="refs/tags/v1").allowed


def test_a_ref_that_names_no_commit_is_a_usage_error(behind: Path) -> None:
    with pytest.raises(UsageError, match="'nope' names no commit"):
        judge(behind, ref="nope")


def test_an_untracked_change_does_not_change_the_pushed_tree(behind: Path) -> None:
    """The gate of the committed tree decides: a stray file in the working tree is not pushed."""
    judged(behind, "red")
    write(behind, "stray.txt", "not committed\n")
    assert not judge(behind).allowed
