"""`gfh init --git-hooks`, and gfh's git-stage checks under a plain git hook, driven by real git."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness import git as gitmod
from gitflow_harness.workflow.gate_index import write_gate
from tests.helpers import CliRunner, commit, git, read_events
from tests.precommit.conftest import run_git

AGENT = {"GFH_SESSION": "claude:91c0-session"}

pytestmark = pytest.mark.slow


pytestmark = pytest.mark.usefixtures("gfh_on_path")


def judged_red(repo: Path, branch: str) -> None:
    r = gitmod.discover(repo)
    write_gate(r, gitmod.tree_of(r, branch), "red", verb="done", branch=branch, head=None)


def red_branch(repo: Path) -> None:
    """Branch `red` whose tree the gate judged red; main stays checked out, judged by no one."""
    git(repo, "switch", "-q", "-c", "red")
    commit(repo, "red work", {"red.txt": "r\n"})
    judged_red(repo, "red")
    git(repo, "switch", "-q", "main")


def hook(repo: Path, name: str, body: str) -> Path:
    path = repo / ".git" / "hooks" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def test_gate_push_in_a_raw_pre_push_hook_judges_the_pushed_ref_not_head(
    repo: Path, remote: Path
) -> None:
    """If a hand-written pre-push hook (or husky, lefthook) runs `gfh git-hook gate-push` on
    main and `git push origin red` sends a red branch, then the push is refused: the hook reads
    git's ref lines from stdin rather than judging HEAD."""
    red_branch(repo)
    hook(repo, "pre-push", 'exec gfh git-hook gate-push "$@"')
    pushed = run_git(repo, "push", "-q", "origin", "red")
    assert pushed.returncode == 1, pushed.stderr
    assert "refusing to push red" in pushed.stderr
    assert "push allowed" not in pushed.stdout + pushed.stderr
    assert git(remote, "branch", "--list", "red") == ""


def test_every_pushed_ref_is_judged_and_a_deletion_is_skipped(repo: Path, remote: Path) -> None:
    hook(repo, "pre-push", 'exec gfh git-hook gate-push "$@"')
    git(repo, "switch", "-q", "-c", "green")
    commit(repo, "green work", {"g.txt": "g\n"})
    assert run_git(repo, "push", "-q", "origin", "green").returncode == 0
    red_branch(repo)
    both = run_git(repo, "push", "-q", "origin", "green", "red")
    assert both.returncode == 1
    assert "refusing to push red" in both.stderr
    deleted = run_git(repo, "push", "-q", "origin", ":green")
    assert deleted.returncode == 0, deleted.stderr


def test_init_git_hooks_chains_a_hook_that_was_there_and_is_idempotent(
    repo: Path, remote: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    seen = tmp_path / "seen"
    hook(repo, "pre-push", f'echo "$@" > {seen}; cat >> {seen}')
    assert gfh("init", "--git-hooks", "--adapter", "claude").code == 0
    hooks = repo / ".git" / "hooks"
    assert (hooks / "pre-push.gfh-chained").read_text().startswith("#!/bin/sh\necho")
    again = gfh("init", "--git-hooks", "--adapter", "claude", "--json").json()
    assert {f["action"] for f in again["files"]} == {"unchanged"}
    red_branch(repo)
    pushed = run_git(repo, "push", "-q", "origin", "red")
    assert pushed.returncode == 1
    lines = seen.read_text().splitlines()
    assert lines[0] == f"origin {remote}"  # the chained hook got git's arguments and stdin
    assert lines[1].startswith("refs/heads/red ")


def test_init_git_hooks_follows_core_hookspath(repo: Path, gfh: CliRunner) -> None:
    git(repo, "config", "core.hooksPath", "githooks")
    assert gfh("init", "--git-hooks", "--adapter", "claude").code == 0
    assert (repo / "githooks" / "pre-commit").is_file()
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()


def test_the_shims_refuse_an_agents_commit_on_the_trunk_and_no_verify_skips_them(
    repo: Path, gfh: CliRunner
) -> None:
    assert gfh("init", "--git-hooks", "--adapter", "claude").code == 0
    refused = run_git(repo, "commit", "-q", "--allow-empty", "-m", "on main", env=AGENT)
    assert refused.returncode == 1
    assert "refusing to commit on the trunk main" in refused.stderr
    person = run_git(repo, "commit", "-q", "--allow-empty", "-m", "by a person")
    assert person.returncode == 0
    assert "warning: a commit on the trunk main" in person.stderr
    # git's design: --no-verify runs no client hook; only the server can protect then.
    skipped = run_git(repo, "commit", "-q", "--no-verify", "--allow-empty", "-m", "x", env=AGENT)
    assert skipped.returncode == 0


def test_the_shims_refuse_an_agents_push_to_the_remote_trunk(
    repo: Path, remote: Path, gfh: CliRunner
) -> None:
    assert gfh("init", "--git-hooks", "--adapter", "claude").code == 0
    commit(repo, "a person's commit", {"p.txt": "p\n"})
    pushed = run_git(repo, "push", "-q", "origin", "main", env=AGENT)
    assert pushed.returncode == 1
    assert "refusing to push to the trunk main on origin" in pushed.stderr


def test_accept_still_lands_the_branch_with_the_shims_installed(
    repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the trunk is protected, then `gfh accept` in an agent session still fast-forwards it:
    it makes no commit, so no commit hook runs to refuse it."""
    assert gfh("init", "--git-hooks", "--adapter", "claude").code == 0
    git(repo, "add", "-A")
    assert run_git(repo, "commit", "-q", "-m", "set up gfh").returncode == 0
    monkeypatch.setenv("GFH_SESSION", AGENT["GFH_SESSION"])
    started = gfh("start", "feature/x", "--json").json()
    worktree = Path(started["data"]["path"])
    monkeypatch.chdir(worktree)
    committed = run_git(worktree, "commit", "-q", "--allow-empty", "-m", "the work")
    assert committed.returncode == 0, committed.stderr
    assert gfh("done").code == 0
    accepted = gfh("accept")
    assert accepted.code == 0, accepted.err
    assert git(repo, "log", "-1", "--format=%s", "main").strip() == "the work"


def test_post_merge_shim_records_the_trunk_coming_in(repo: Path, gfh: CliRunner) -> None:
    assert gfh("init", "--git-hooks", "--adapter", "claude").code == 0
    git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "set up gfh")
    git(repo, "switch", "-q", "-c", "feature")
    commit(repo, "feature", {"f.txt": "f\n"})
    git(repo, "switch", "-q", "main")
    commit(repo, "trunk", {"t.txt": "t\n"})
    git(repo, "switch", "-q", "feature")
    merged = run_git(repo, "merge", "-q", "--no-edit", "main", env=AGENT)
    assert merged.returncode == 0, merged.stderr
    [update] = [e for e in read_events(repo) if e["type"] == "git.update"]
    assert update["session"] == AGENT["GFH_SESSION"]
    assert update["data"]["via"] == "merge"
