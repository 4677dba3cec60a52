"""`gitflow_harness.git.core`: running git, discovering the repository and its odd states."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitflow_harness import git
from gitflow_harness.errors import RepoStateError, UsageError
from gitflow_harness.git.core import GONE
from tests.helpers import CliRunner, commit, diverge
from tests.helpers import git as run_git


def test_discover_main_checkout_and_linked_worktree(repo: Path) -> None:
    found = git.discover(repo)
    assert Path(found.top) == repo
    assert Path(found.common_dir) == repo / ".git"
    assert not found.linked
    assert found.name == "repo"
    run_git(repo, "worktree", "add", "-q", "-b", "feat", str(repo.parent / "wt"))
    linked = git.discover(repo.parent / "wt")
    assert Path(linked.top) == repo.parent / "wt"
    assert Path(linked.common_dir) == repo / ".git"
    assert linked.linked
    assert linked.name == "repo"
    assert linked.main_top == str(repo)
    assert [w.branch for w in git.worktrees(linked)] == ["main", "feat"]


def test_not_a_repository_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(git.NotARepository, match="not a git repository") as err:
        git.discover(tmp_path)
    assert err.value.exit_code == 2


def test_not_a_repository_through_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gfh: CliRunner
) -> None:
    monkeypatch.chdir(tmp_path)
    result = gfh("events", "tail")
    assert result.code == 2
    fix = "(run gfh inside a repository, or `git init` one)"
    assert result.err == f"gfh: not a git repository: {tmp_path} {fix}\n"


def test_a_vanished_current_directory_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the shell sits in a directory that was removed (the worktree `gfh accept` just
    removed), discovery says so and how to get out, instead of crashing."""
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    with pytest.raises(UsageError) as err:
        git.discover()
    assert err.value.exit_code == 2
    assert err.value.message == (
        "the current directory no longer exists (removed by `gfh accept`?): cd to the main checkout"
    )


def test_bare_repository_has_no_worktree(tmp_path: Path) -> None:
    run_git(tmp_path, "init", "-q", "--bare", "b.git")
    repo = git.discover(tmp_path / "b.git")
    assert repo.bare
    assert repo.top is None
    with pytest.raises(UsageError, match="is a bare repository: it has no working tree") as err:
        git.require(repo, "gfh status")
    assert err.value.exit_code == 2


def test_unborn_branch(tmp_path: Path) -> None:
    run_git(tmp_path, "init", "-q", "-b", "main")
    repo = git.discover(tmp_path)
    current = git.head(repo)
    assert current.unborn
    assert current.branch == "main"
    with pytest.raises(
        RepoStateError, match=r"branch 'main' has no commits yet; make a first commit"
    ) as err:
        git.require(repo, "gfh start x")
    assert err.value.exit_code == 1
    assert git.require(repo, "gfh status", commit=False).branch == "main"


def test_detached_head(repo: Path) -> None:
    sha = commit(repo, "second", {"a.txt": "a\n"})
    run_git(repo, "checkout", "-q", "--detach", "HEAD")
    r = git.discover(repo)
    current = git.head(r)
    assert current.detached
    assert current.label == "HEAD"
    assert current.sha == sha
    with pytest.raises(
        RepoStateError, match=rf"HEAD is detached at {sha[:10]}; switch to a branch"
    ):
        git.require(r, "gfh update")


def _conflict(repo: Path) -> None:
    diverge(repo, "topic", {"README.md": "topic\n"}, {"README.md": "main\n"})


def test_mid_rebase(repo: Path) -> None:
    _conflict(repo)
    run_git(repo, "rebase", "main", check=False)
    r = git.discover(repo)
    assert git.operation_in_progress(r) == "rebase"
    with pytest.raises(RepoStateError) as err:
        git.require(r, "gfh done")
    assert str(err.value) == (
        f"a rebase is in progress in {repo}; finish it (`git rebase --continue`) or abort it "
        "(`git rebase --abort`) before `gfh done`"
    )


def test_mid_merge(repo: Path) -> None:
    _conflict(repo)
    run_git(repo, "merge", "main", check=False)
    r = git.discover(repo)
    assert git.operation_in_progress(r) == "merge"
    with pytest.raises(RepoStateError, match=r"a merge is in progress .* \(`git merge --abort`\)"):
        git.require(r, "gfh update")
    assert [c.path for c in git.changes(r) if c.conflicted] == ["README.md"]


def test_git_error_names_command_exit_and_stderr(repo: Path) -> None:
    with pytest.raises(git.GitError) as err:
        git.run(["rev-parse", "--verify", "no-such-ref"], cwd=repo)
    assert str(err.value).startswith(
        "`git rev-parse --verify no-such-ref` failed with exit code 128: fatal:"
    )
    assert "exit code: 128" in err.value.details()


def test_first_line_is_the_first_non_blank_line_stripped() -> None:
    assert git.first_line("\n   \n  fatal: bad thing  \nhint: more\n") == "fatal: bad thing"
    assert git.first_line(" \n\n") == "no output"
    assert git.first_line("", "no message") == "no message"


def test_a_vanished_directory_is_named_not_blamed_on_git(tmp_path: Path) -> None:
    gone = tmp_path / "worktree"
    with pytest.raises(RepoStateError) as err:
        git.run(["status"], cwd=gone)
    assert str(err.value) == (
        f"{gone}: the directory no longer exists; if it was a worktree, run `git worktree prune`"
    )


@pytest.mark.parametrize("spawned", [True, False], ids=["posix_spawn", "subprocess"])
def test_a_vanished_current_directory_is_gfhs_one_line_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spawned: bool
) -> None:
    """If the directory git is to start in was our own current one (a concurrent `gfh accept`
    removed the worktree we run in), then the error is gfh's line for that state."""
    from gitflow_harness import spawn

    monkeypatch.setattr(spawn, "AVAILABLE", spawned)
    here = tmp_path / "worktree"
    here.mkdir()
    monkeypatch.chdir(here)
    here.rmdir()
    with pytest.raises(UsageError, match=r"^the current directory no longer exists"):
        git.run(["status"], cwd=here)


def test_a_directory_removed_under_a_running_git_is_gfhs_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the directory a git command runs in is removed (a concurrent `gfh accept` removing
    its worktree), then git's `fatal: Unable to read current working directory` becomes gfh's
    one line for that state."""
    from gitflow_harness.git import core

    gone = tmp_path / "worktree"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    with pytest.raises(UsageError) as raised:
        core.run(["status"])
    assert raised.value.message == core.GONE
    with pytest.raises(UsageError):
        core.discover(None)


def test_a_worktree_removed_while_discovery_ran_is_gfhs_one_line(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the worktree is removed while discovery's `git rev-parse` runs (a concurrent `gfh
    accept`), then git prints the git dirs and fails at the working tree's top, as seen with
    git 2.39: that is gfh's line for a vanished directory, not "inside a git directory"."""
    from gitflow_harness.git import core

    git_dir = str(repo / ".git")
    printed = f"{git_dir}\n{git_dir}\nfalse\nfalse\n"
    said = "fatal: unable to get current working directory: No such file or directory\n"

    def removed_meanwhile(args: list[str], **_: object) -> core.Completed:
        return core.Completed(["git", *args], 128, printed, said)

    monkeypatch.setattr(core, "run", removed_meanwhile)
    with pytest.raises(UsageError) as raised:
        core.discover_head(repo)
    assert raised.value.message == core.GONE


def test_a_worktree_gone_by_the_time_discovery_answers_is_gfhs_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If git found no repository because the worktree was being removed around it, and the
    directory is gone by the time it answers, then the error says the directory is gone (gfh's
    own line when it was the current one), not that it is no repository."""
    from gitflow_harness.git import core

    here = tmp_path / "worktree"
    here.mkdir()
    monkeypatch.chdir(here)
    said = "fatal: not a git repository (or any of the parent directories): .git\n"

    def removed_meanwhile(args: list[str], **_: object) -> core.Completed:
        here.rmdir()
        return core.Completed(["git", *args], 128, "", said)

    monkeypatch.setattr(core, "run", removed_meanwhile)
    with pytest.raises(UsageError) as raised:
        core.discover_head(here)
    assert raised.value.message == core.GONE


def test_discover_head_tells_the_head_as_head_does(tmp_path: Path, repo: Path) -> None:
    """If the one rev-parse of discovery read HEAD differently from `head`, a verb would
    record another branch or commit than it ran on."""
    found, at = git.discover_head(repo)
    assert at == git.head(found)
    assert at is not None
    assert at.sha == run_git(repo, "rev-parse", "HEAD").strip()
    run_git(repo, "switch", "-q", "--detach")
    assert git.discover_head(repo)[1] == git.Head(branch=None, sha=at.sha)
    run_git(repo, "switch", "-q", "--orphan", "fresh")
    assert git.discover_head(repo)[1] == git.Head(branch="fresh", sha=None)
    run_git(tmp_path, "init", "-q", "--bare", "bare.git")
    bare, unknown = git.discover_head(tmp_path / "bare.git")
    assert bare.bare
    assert unknown is None


def test_started_commands_run_side_by_side_and_fail_as_run_fails(repo: Path) -> None:
    """If two git commands are started, then each result is what `run` gives, and a failure
    is the same GitError."""
    head = git.start(["rev-parse", "HEAD"], cwd=repo)
    fed = git.start(["hash-object", "--stdin"], cwd=repo, input="fed\n")
    bad = git.start(["rev-parse", "--verify", "no-such-ref"], cwd=repo)
    unchecked = git.start(["rev-parse", "--verify", "no-such-ref"], cwd=repo, check=False)
    assert head.result().stdout == git.run(["rev-parse", "HEAD"], cwd=repo).stdout
    (repo / "fed.txt").write_text("fed\n")
    assert fed.result().stdout == run_git(repo, "hash-object", "fed.txt")
    with pytest.raises(git.GitError) as raised:
        bad.result()
    assert str(raised.value).startswith("`git rev-parse --verify no-such-ref` failed with exit")
    assert unchecked.result().returncode == raised.value.returncode


def test_a_failed_block_waits_for_the_command_it_started(repo: Path) -> None:
    """If the work done while a command runs fails, then the command is waited for (its own
    failure ignored) and the block's failure is the one raised."""
    pending = git.start(["rev-parse", "--verify", "no-such-ref"], cwd=repo)
    with pytest.raises(ValueError, match="the block failed"), git.reaped(pending.result):
        raise ValueError("the block failed")
    with pytest.raises(ChildProcessError):  # reaped: no zombie of it is left
        os.waitpid(pending.pid, os.WNOHANG)
    fine = git.start(["rev-parse", "HEAD"], cwd=repo)
    with git.reaped(fine.result):
        pass
    assert fine.result().stdout.strip() == run_git(repo, "rev-parse", "HEAD").strip()


def test_repo_at_is_what_discovery_finds_from_the_git_dirs(repo: Path, tmp_path: Path) -> None:
    found = git.discover(repo)
    assert git.repo_at(str(repo), str(repo / ".git"), str(repo / ".git")) == found
    run_git(tmp_path, "clone", "-q", "--depth=1", f"file://{repo}", "shallow")
    shallow = tmp_path / "shallow"
    assert git.repo_at(shallow, shallow / ".git", shallow / ".git").shallow
    assert git.discover(shallow).shallow


def test_head_branch_reads_the_head_file(repo: Path) -> None:
    r = git.discover(repo)
    assert git.head_branch(r) == "main"
    run_git(repo, "switch", "-q", "--detach")
    assert git.head_branch(r) is None


@pytest.mark.parametrize(
    "stderr",
    [
        "fatal: Unable to read current working directory: No such file or directory\n",
        "fatal: unable to get current working directory: No such file or directory\n",
    ],
)
def test_a_command_whose_directory_vanished_fails_in_gfhs_words(stderr: str) -> None:
    """If git says either of its words for a removed working directory, then the failure is
    gfh's one line (exit 2), never git's; any other failure stays the GitError."""
    gone = git.failure(["merge-base", "--is-ancestor", "a", "b"], 128, "", stderr)
    assert isinstance(gone, UsageError)
    assert str(gone) == GONE
    other = git.failure(["rev-parse", "x"], 128, "", "fatal: bad revision 'x'\n")
    assert isinstance(other, git.GitError)
