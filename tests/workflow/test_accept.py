from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness.workflow.accept import (
    PRECHECKS,
    Candidate,
    Refusal,
    committed,
    contains_trunk,
    green_receipt,
    on_a_branch,
    shares_history,
)
from tests.helpers import CliRunner, commit, git, write
from tests.workflow.conftest import configure, verb_events


def green(feature: Path, gfh: CliRunner) -> str:
    commit(feature, "the work", {"work.txt": "done\n"})
    assert gfh("done").code == 0
    return git(feature, "rev-parse", "HEAD").strip()


def test_accept_fast_forwards_the_trunk_and_tidies_up(
    repo: Path, feature: Path, gfh: CliRunner, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    head = green(feature, gfh)
    before = git(repo, "rev-parse", "main").strip()
    result = gfh("accept", "--json")
    assert result.code == 0
    envelope = result.json()
    assert envelope["outcome"] == "ok"
    assert envelope["data"]["trunk_from"] == before
    assert envelope["data"]["trunk_to"] == head
    assert [h["id"] for h in envelope["hints"]] == ["accept-merged"]
    monkeypatch.chdir(repo)
    assert git(repo, "rev-parse", "main").strip() == head
    assert (repo / "work.txt").read_text() == "done\n"  # the main checkout moved with it
    assert not feature.exists()
    assert git(repo, "branch", "--list", "feature/x") == ""
    [event] = verb_events(repo, "accept")
    assert event["branch"] == "feature/x"
    assert event["data"]["head"] == head
    assert event["data"]["outcome"] == "ok"


def test_accept_removes_the_ways_cache_of_the_worktree_it_removes(
    repo: Path, feature: Path, gfh: CliRunner
) -> None:
    from gitflow_harness.ways import ways_root
    from gitflow_harness.ways.index import default_cache_file

    cache = Path(default_cache_file(ways_root(feature, "hooks/ways")))
    main = Path(default_cache_file(ways_root(repo, "hooks/ways")))
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_bytes(b"x")
    main.write_bytes(b"x")
    green(feature, gfh)
    assert gfh("accept").code == 0
    assert not cache.exists()
    assert main.exists()


def test_commands_run_from_the_worktree_accept_removed_say_where_to_go(
    repo: Path, feature: Path, gfh: CliRunner, session: str
) -> None:
    """If the shell stays in the worktree `accept` removed, the next command says the directory
    is gone and where to go (exit 2), with no internal error and no crash report."""
    import os

    green(feature, gfh)
    assert gfh("accept").code == 0
    assert not feature.exists()
    gone = "gfh: the current directory no longer exists (removed by `gfh accept`?): "
    for args in (("status", "--end-turn"), ("task", "set", "x"), ("events", "tail")):
        result = gfh(*args)
        assert result.code == 2, args
        assert result.err == gone + "cd to the main checkout\n", args
    assert not (Path(os.environ["GFH_STATE_HOME"]) / "crash").exists()


def test_accept_names_the_ignored_files_removed_with_the_worktree(
    repo: Path, feature: Path, gfh: CliRunner
) -> None:
    """`git worktree remove` deletes ignored files without a word; accept says which."""
    commit(feature, "ignore logs and caches", {".gitignore": "*.log\ncache/\n"})
    green(feature, gfh)
    write(feature, "debug.log", "x\n")
    write(feature, "cache/a/b.bin", "x\n")
    result = gfh("accept", "--json")
    assert result.code == 0, result.err
    envelope = result.json()
    assert envelope["data"]["removed_ignored"] == ["cache/", "debug.log"]
    assert not feature.exists()


def test_accept_says_in_words_which_ignored_files_went(
    repo: Path, feature: Path, gfh: CliRunner
) -> None:
    commit(feature, "ignore logs", {".gitignore": "*.log\n"})
    green(feature, gfh)
    write(feature, "debug.log", "x\n")
    result = gfh("accept")
    assert result.code == 0, result.err
    assert "the worktree's ignored files went with it: debug.log" in result.out + result.err


def test_accept_without_ignored_files_reports_none(
    repo: Path, feature: Path, gfh: CliRunner
) -> None:
    green(feature, gfh)
    result = gfh("accept", "--json")
    assert result.json()["data"]["removed_ignored"] == []
    assert "ignored files" not in result.out


def test_accept_without_a_receipt_is_refused(repo: Path, feature: Path, gfh: CliRunner) -> None:
    commit(feature, "the work", {"work.txt": "x\n"})
    assert gfh("test").code == 0  # green, but only `done` writes a receipt
    before = git(repo, "rev-parse", "main")
    result = gfh("accept")
    assert result.code == 1
    assert "[accept-needs-green]" in result.out
    assert git(repo, "rev-parse", "main") == before
    assert feature.exists()


def test_accept_after_red_is_refused(repo: Path, feature: Path, gfh: CliRunner) -> None:
    configure(feature, test=["false"])
    assert gfh("done").code == 1
    result = gfh("accept", "--json")
    assert result.code == 1
    assert result.json()["data"]["gate"] == "red"


def test_accept_refuses_uncommitted_work(repo: Path, feature: Path, gfh: CliRunner) -> None:
    green(feature, gfh)
    write(feature, "more.txt", "not committed\n")
    result = gfh("accept")
    assert result.code == 1
    assert "[accept-dirty-tree]" in result.out
    assert (feature / "more.txt").exists()


def test_accept_of_only_untracked_files_offers_gitignore(
    repo: Path, feature: Path, gfh: CliRunner
) -> None:
    """If the only changes are untracked files (often what a tool wrote), they may belong in
    .gitignore rather than in a commit."""
    green(feature, gfh)
    write(feature, "cache/a.bin", "x")
    result = gfh("accept", "--json")
    assert result.code == 1
    assert result.json()["data"]["remedy"] == "untracked"
    assert result.json()["hints"] == [
        {
            "id": "accept-dirty-tree",
            "text": "1 untracked file(s) here: commit them or add them to .gitignore, then "
            "`gfh done` and `gfh accept`",
        }
    ]


def test_accept_of_changed_files_asks_for_a_commit_and_a_new_done(
    repo: Path, feature: Path, gfh: CliRunner
) -> None:
    green(feature, gfh)
    write(feature, "work.txt", "edited after done\n")
    write(feature, "new.txt", "new\n")
    [h] = gfh("accept", "--json").json()["hints"]
    assert h["text"] == "2 changed file(s) here: commit them, then `gfh done` and `gfh accept`"


def test_accept_of_changes_done_judged_needs_only_a_commit(
    repo: Path, feature: Path, gfh: CliRunner
) -> None:
    """If `done` judged these very uncommitted changes green, committing exactly them gives HEAD
    the judged tree: the refusal says so instead of asking for another `done`."""
    commit(feature, "the work", {"work.txt": "done\n"})
    write(feature, "work.txt", "better\n")
    assert gfh("done").code == 0
    result = gfh("accept", "--json")
    assert result.code == 1
    assert result.json()["data"]["remedy"] == "judged"
    [h] = result.json()["hints"]
    assert h["text"] == (
        "1 changed file(s) here: the receipt covers exactly this tree, so commit exactly these "
        "and run `gfh accept` (any other change needs `gfh done` again)"
    )
    assert "gfh done` and" not in h["text"]
    git(feature, "commit", "-q", "-am", "better")
    assert gfh("accept").code == 0


def test_accept_refuses_when_the_trunk_moved(repo: Path, feature: Path, gfh: CliRunner) -> None:
    green(feature, gfh)
    moved = commit(repo, "trunk moves", {"t.txt": "t\n"})
    result = gfh("accept")
    assert result.code == 1
    assert "[gate-failure-merge]" in result.out
    assert git(repo, "rev-parse", "main").strip() == moved


def test_accept_refuses_a_dirty_trunk_checkout(repo: Path, feature: Path, gfh: CliRunner) -> None:
    green(feature, gfh)
    write(repo, "README.md", "edited in the main checkout\n")
    before = git(repo, "rev-parse", "main")
    result = gfh("accept")
    assert result.code == 1
    assert "[accept-trunk-busy]" in result.out
    assert git(repo, "rev-parse", "main") == before
    assert (repo / "README.md").read_text() == "edited in the main checkout\n"


def test_accept_a_branch_checked_out_in_the_main_checkout(repo: Path, gfh: CliRunner) -> None:
    git(repo, "switch", "-q", "-c", "topic")
    head = commit(repo, "topic work", {"topic.txt": "t\n"})
    assert gfh("done").code == 0
    result = gfh("accept")
    assert result.code == 0
    assert git(repo, "rev-parse", "main").strip() == head
    assert git(repo, "symbolic-ref", "--short", "HEAD").strip() == "main"
    assert git(repo, "branch", "--list", "topic") == ""
    reflog = git(repo, "reflog", "show", "--format=%gs", "refs/heads/main")
    assert "gfh accept: fast-forward to topic" in reflog


def test_accept_when_the_trunk_checkout_was_deleted_by_hand(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    """A trunk worktree removed with `rm -rf` (git: prunable) is not a checkout to fast-forward,
    and git's complaint is not mistaken for git being missing."""
    import shutil

    git(repo, "switch", "-q", "-c", "topic")
    gone = tmp_path / "trunk-checkout"
    git(repo, "worktree", "add", "-q", str(gone), "main")
    shutil.rmtree(gone)
    head = commit(repo, "topic work", {"topic.txt": "t\n"})
    assert gfh("done").code == 0
    result = gfh("accept", "--json")
    assert "not installed" not in result.err
    assert git(repo, "rev-parse", "main").strip() == head
    envelope = result.json()
    assert envelope["outcome"] == "partial"
    assert any("git worktree prune" in item for item in envelope["data"]["left"]), envelope


def test_accept_on_the_trunk_is_refused(repo: Path, gfh: CliRunner) -> None:
    result = gfh("accept")
    assert result.code == 1
    assert "[verb-on-trunk]" in result.out


def test_accept_that_cannot_remove_the_worktree_is_partial(
    repo: Path, feature: Path, gfh: CliRunner
) -> None:
    """If the worktree is locked, the trunk still moves, and the result says what is left."""
    head = green(feature, gfh)
    git(repo, "worktree", "lock", str(feature))
    result = gfh("accept", "--json")
    assert result.code == 1
    envelope = result.json()
    assert envelope["outcome"] == "partial"
    assert git(repo, "rev-parse", "main").strip() == head
    assert feature.exists()
    assert any("git worktree remove" in item for item in envelope["data"]["left"])
    assert git(repo, "branch", "--list", "feature/x").strip() == "+ feature/x"
    [event] = verb_events(repo, "accept")
    assert event["data"]["outcome"] == "partial"


def test_concurrent_accepts_of_one_branch_let_one_win_and_tell_the_others(
    repo: Path, feature: Path, gfh: CliRunner
) -> None:
    """If six `gfh accept` run at once in the branch's worktree, then one fast-forwards and
    tidies up, and each other one says in gfh's one line that another run accepted it — never
    git's own words."""
    import subprocess
    import sys

    head = green(feature, gfh)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "gitflow_harness", "accept"],
            cwd=feature,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    results = [(p.wait(), *p.communicate()) for p in procs]
    winners = [r for r in results if r[0] == 0]
    losers = [r for r in results if r[0] != 0]
    assert len(winners) == 1
    assert "deleted branch feature/x" in winners[0][1]
    gone = "gfh: the current directory no longer exists (removed by `gfh accept`?): "
    for code, _out, err in losers:
        assert code in (1, 2)
        assert "fatal:" not in err
        [line] = err.splitlines()
        assert line.startswith(
            ("gfh: already accepted by another run: feature/x was accepted while this one", gone)
        ), line
    assert git(repo, "rev-parse", "main").strip() == head
    assert git(repo, "branch", "--list", "feature/x") == ""
    assert not feature.exists()


# One precheck at a time, on a real feature worktree.


def candidate(path: Path) -> Candidate:
    from gitflow_harness.workflow.facts import Facts
    from gitflow_harness.workspace import open_workspace

    ws = open_workspace(path)
    head = ws.head()
    assert head.branch is not None
    assert head.sha is not None
    return Candidate(ws, Facts(ws), head.branch, "main", head.sha)


def reason(refusal: Refusal | None) -> str | None:
    return None if refusal is None else refusal.details.to_dict()["reason"]


def test_the_prechecks_run_in_their_declared_order() -> None:
    assert (on_a_branch, shares_history, committed, green_receipt, contains_trunk) == PRECHECKS


def test_on_a_branch(repo: Path, feature: Path) -> None:
    assert reason(on_a_branch(candidate(feature))) is None
    refusal = on_a_branch(candidate(repo))
    assert reason(refusal) == "on-trunk"
    assert refusal is not None
    assert refusal.message == "main is the trunk"


def test_committed(feature: Path, gfh: CliRunner) -> None:
    assert committed(candidate(feature)) is None
    write(feature, "new.txt", "x\n")
    refusal = committed(candidate(feature))
    assert refusal is not None
    assert refusal.details.to_dict() == {"reason": "dirty", "changed": 1, "remedy": "untracked"}
    assert gfh("done").code == 0  # the changes themselves judged green
    refusal = committed(candidate(feature))
    assert refusal is not None
    assert refusal.details.to_dict()["remedy"] == "judged"


def test_green_receipt(feature: Path, gfh: CliRunner) -> None:
    commit(feature, "the work", {"work.txt": "done\n"})
    refusal = green_receipt(candidate(feature))
    assert refusal is not None
    assert refusal.details.to_dict()["gate"] is None
    assert refusal.message == "no green receipt from `gfh done` for this tree"
    assert gfh("done").code == 0
    assert green_receipt(candidate(feature)) is None


def test_contains_trunk(repo: Path, feature: Path) -> None:
    assert shares_history(candidate(feature)) is None
    assert contains_trunk(candidate(feature)) is None
    commit(repo, "trunk moves", {"t.txt": "t\n"})
    refusal = contains_trunk(candidate(feature))
    assert reason(refusal) == "trunk-not-merged"
    assert refusal is not None
    assert refusal.message == "main has moved on: feature/x no longer contains it"


def test_shares_history_refuses_by_raising(shallow_feature: Path) -> None:
    from gitflow_harness.errors import GfhError

    with pytest.raises(GfhError):
        shares_history(candidate(shallow_feature))
