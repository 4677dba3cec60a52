"""`gitflow_harness.workflow.kept`: git's answers kept while what they are made of holds."""

from __future__ import annotations

import json
from pathlib import Path

from gitflow_harness import git
from gitflow_harness.workflow import kept
from tests.helpers import commit, diverge
from tests.helpers import git as run_git


def counts_file(repo: Path) -> Path:
    return repo / ".git" / "gitflow-harness" / "ahead-behind.json"


def ask(repo: Path) -> git.AheadBehind | None:
    r = git.discover(repo)
    head = run_git(repo, "rev-parse", "HEAD").strip()
    trunk = git.read_local_trunk(r, "", git.start_local_trunk(r))
    assert trunk.name is not None
    assert trunk.sha is not None
    return kept.ahead_behind(r, head, trunk.name, trunk.sha)


def test_counts_are_kept_by_the_two_commits(repo: Path) -> None:
    diverge(repo, "feature/x", {"a.txt": "a\n"}, {"t.txt": "t\n"})
    assert ask(repo) == (1, 1)
    [key] = json.loads(counts_file(repo).read_text())
    assert key.split() == [run_git(repo, "rev-parse", ref).strip() for ref in ("HEAD", "main")]
    # A kept answer is the one given, without asking git: here it says what no git would.
    counts_file(repo).write_text(json.dumps({key: "7 9"}))
    assert ask(repo) == (7, 9)
    commit(repo, "one more", {"b.txt": "b\n"})
    assert ask(repo) == (2, 1)
    assert len(json.loads(counts_file(repo).read_text())) == 2


def test_a_damaged_file_or_answer_is_asked_again(repo: Path) -> None:
    diverge(repo, "feature/x", {"a.txt": "a\n"}, {"t.txt": "t\n"})
    counts_file(repo).parent.mkdir(parents=True, exist_ok=True)
    for damaged in ("{not json", "[1, 2]", json.dumps({"x": 1})):
        counts_file(repo).write_text(damaged)
        assert ask(repo) == (1, 1)
    [key] = json.loads(counts_file(repo).read_text())
    counts_file(repo).write_text(json.dumps({key: "one two"}))
    assert ask(repo) == (1, 1)
    assert json.loads(counts_file(repo).read_text()) == {key: "1 1"}


def test_only_the_newest_answers_are_kept(repo: Path) -> None:
    run_git(repo, "switch", "-q", "-c", "feature/x")
    for n in range(kept.KEEP + 2):
        commit(repo, f"work {n}", {"a.txt": f"{n}\n"})
        assert ask(repo) == (n + 1, 0)
    answers = json.loads(counts_file(repo).read_text())
    assert len(answers) == kept.KEEP
    assert list(answers.values())[-1] == f"{kept.KEEP + 2} 0"


def test_nothing_is_kept_where_history_can_be_rewritten(repo: Path) -> None:
    """If replace refs (loose or packed) or grafts can change the history git walks, then the
    counts are asked every time."""
    diverge(repo, "feature/x", {"a.txt": "a\n"}, {"t.txt": "t\n"})
    work = run_git(repo, "rev-parse", "HEAD").strip()
    trunk = run_git(repo, "rev-parse", "main").strip()
    run_git(repo, "replace", work, trunk)  # the branch's commit now reads as the trunk's
    assert ask(repo) == git.ahead_behind(git.discover(repo), work, "main")
    run_git(repo, "pack-refs", "--all")
    assert ask(repo) is not None
    run_git(repo, "replace", "-d", work)
    grafts = repo / ".git" / "info" / "grafts"
    grafts.parent.mkdir(exist_ok=True)
    grafts.write_text(f"{work}\n")
    assert ask(repo) is not None
    assert not counts_file(repo).exists()


def test_a_shallow_clone_asks_every_time(tmp_path: Path, repo: Path) -> None:
    commit(repo, "second", {"s.txt": "s\n"})
    clone = tmp_path / "clone"
    run_git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(clone))
    assert ask(clone) == (0, 0)
    assert not counts_file(clone).exists()
