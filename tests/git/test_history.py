"""`gitflow_harness.git.history`: reflogs."""

from __future__ import annotations

from pathlib import Path

from gitflow_harness import git
from tests.helpers import diverge
from tests.helpers import git as run_git


def test_reflog_records_merges_and_rebases(repo: Path) -> None:
    diverge(repo, "topic", {"t.txt": "t\n"}, {"m.txt": "m\n"})
    run_git(repo, "rebase", "-q", "main")
    r = git.discover(repo)
    entries = git.reflog(r, "refs/heads/topic")
    assert entries[0].message.startswith("rebase (finish): refs/heads/topic onto ")
    assert entries[-1].message == "branch: Created from HEAD"
    assert entries[0].when >= entries[-1].when
    assert git.reflog(r, "refs/heads/nope") == []


def test_a_whole_reflog_read_from_its_file_matches_git(repo: Path) -> None:
    """If the report reads a branch's reflog file in Python, it sees what `git reflog` shows."""
    diverge(repo, "topic", {"t.txt": "t\n"}, {"m.txt": "m\n"})
    run_git(repo, "merge", "-q", "--no-edit", "main")
    run_git(repo, "rebase", "-q", "main")
    r = git.discover(repo)
    from_file = git.reflog(r, "refs/heads/topic")
    from_git = git.reflog(r, "refs/heads/topic", limit=100)
    assert from_file == from_git
    assert len(from_file) >= 4
    assert git.reflog(r, "refs/heads/topic", limit=1) == from_file[:1]


def test_a_reflog_file_with_a_line_git_never_writes_is_read_through_git(repo: Path) -> None:
    """A line the file reader cannot take (no commit name, no time) sends the whole reflog to
    `git reflog`, which says what git makes of it, rather than a partial history."""
    run_git(repo, "branch", "topic")
    r = git.discover(repo)
    log = Path(r.common_dir) / "logs" / "refs" / "heads" / "topic"
    good = log.read_text(encoding="utf-8")
    for bad in ("not a reflog line\n", good.replace(" <", " ", 1).replace(">", "", 1)):
        log.write_text(good + bad, encoding="utf-8")
        assert git.reflog(r, "refs/heads/topic") == git.reflog(r, "refs/heads/topic", limit=100)


def test_a_reflog_entry_without_a_message_reads_as_an_empty_one(repo: Path) -> None:
    run_git(repo, "branch", "topic")
    r = git.discover(repo)
    log = Path(r.common_dir) / "logs" / "refs" / "heads" / "topic"
    log.write_text(log.read_text(encoding="utf-8").split("\t")[0] + "\n", encoding="utf-8")
    (entry,) = git.reflog(r, "refs/heads/topic")
    assert entry.message == ""
    assert entry == git.reflog(r, "refs/heads/topic", limit=1)[0]


def test_added_between_names_only_the_files_added_under_a_path(repo: Path) -> None:
    r = git.discover(repo)
    base = run_git(repo, "rev-parse", "HEAD").strip()
    for rel in ("requests/a b.md", "requests/old.md", "other/c.md"):
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text("x\n", encoding="utf-8")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "add")
    middle = run_git(repo, "rev-parse", "HEAD").strip()
    (repo / "requests" / "old.md").write_text("changed\n", encoding="utf-8")
    (repo / "requests" / "new.md").write_text("x\n", encoding="utf-8")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "change one, add one")
    assert git.added_between(r, base, "HEAD", "requests") == [
        "requests/a b.md", "requests/new.md", "requests/old.md",
    ]  # fmt: skip
    assert git.added_between(r, middle, "HEAD", "requests") == ["requests/new.md"]


def test_commit_time_is_the_committers(repo: Path) -> None:
    r = git.discover(repo)
    stamp = run_git(repo, "show", "-s", "--format=%ct", "HEAD").strip()
    assert git.commit_time(r, "HEAD").timestamp() == int(stamp)
    assert git.commit_time(r, "HEAD").tzinfo is not None
