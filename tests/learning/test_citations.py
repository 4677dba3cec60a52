from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gitflow_harness import git
from gitflow_harness.learning import citations
from gitflow_harness.learning.lint import check_pills
from gitflow_harness.store.config import default_config
from tests.helpers import commit, write
from tests.helpers import git as run_git

PutPill = Callable[..., Path]
TODAY = dt.date(2026, 11, 30)


def problems(repo: Path) -> list[str]:
    _, found = check_pills(git.discover(repo), default_config().paths.pills, today=TODAY)
    return [str(p) for p in found]


def backdate(repo: Path, when: str, message: str, files: dict[str, str]) -> None:
    """Commit `files` with author and committer dates set to `when` (local time)."""
    for rel, text in files.items():
        write(repo, rel, text)
    run_git(repo, "add", "-A")
    env = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    run_git(repo, "commit", "-q", "-m", message, env=env)


@pytest.mark.parametrize(
    ("citation", "message"),
    [
        ("src/app.py", None),
        ("src/app.py:3", None),
        ("src", None),
        ("src/app.py:4", "citation 'src/app.py:4': src/app.py has 3 line(s)"),
        ("src/app.py:0", "citation 'src/app.py:0': lines count from 1"),
        ("src/gone.py", "citation 'src/gone.py': no such file"),
        (f"{'a' * 300}/x.py:1", f"citation '{'a' * 300}/x.py:1': no such file"),
        ("src:2", "citation 'src:2': a directory has no lines"),
        ("../outside.py", "citation '../outside.py': must stay inside the repository"),
        ("/etc/passwd", "citation '/etc/passwd': give a path relative to the repository's top"),
        (
            "notes.txt",
            "citation 'notes.txt': notes.txt is not tracked by git, so nobody else has it; "
            "`git add` it or cite a tracked file",
        ),
    ],
)
def test_citations_must_resolve_to_a_tracked_file_and_line(
    repo: Path, put_pill: PutPill, citation: str, message: str | None
) -> None:
    commit(repo, "code", {"src/app.py": "a\nb\nc"})
    write(repo, "notes.txt", "untracked\n")
    put_pill(citations=f"['{citation}']", date="2026-11-29", last_seen="2026-11-29")
    found = [p for p in problems(repo) if ": note: " not in p]
    if message is None:
        assert found == []
    else:
        assert found == [f"pills/implementer/parser.md:10: error: {message}"]


def test_a_cited_file_changed_after_the_pills_date_is_a_note(repo: Path, put_pill: PutPill) -> None:
    backdate(repo, "2026-11-01T10:00:00", "old", {"src/app.py": "a\n", "src/lib.py": "x\n"})
    backdate(repo, "2026-11-20T10:00:00", "later", {"src/app.py": "a\nb\n"})
    put_pill(citations="[src/app.py:1, src/lib.py]", date="2026-11-10", last_seen="2026-11-10")
    assert problems(repo) == [
        "pills/implementer/parser.md:10: note: citation 'src/app.py:1': src/app.py changed after "
        "the pill's date 2026-11-10 (last on 2026-11-20); check it still shows what the lesson "
        "means"
    ]


def test_the_problems_of_one_pills_citations_keep_the_citations_order(
    repo: Path, put_pill: PutPill
) -> None:
    """A note the walk gives and an error the files give, on one line, in the order cited."""
    backdate(repo, "2026-11-01T10:00:00", "old", {"src/app.py": "a\n"})
    backdate(repo, "2026-11-20T10:00:00", "later", {"src/app.py": "a\nb\n"})
    put_pill(citations="[src/app.py, src/gone.py]", date="2026-11-10", last_seen="2026-11-10")
    found = problems(repo)
    assert [p.split(": ")[1] for p in found] == ["note", "error"]
    assert "src/gone.py': no such file" in found[1]


def test_a_change_on_the_pills_own_date_is_no_note(repo: Path, put_pill: PutPill) -> None:
    backdate(repo, "2026-11-10T09:00:00", "same day", {"src/app.py": "a\n"})
    put_pill(citations="[src/app.py]", date="2026-11-10", last_seen="2026-11-10")
    assert problems(repo) == []


def test_every_citation_of_every_pill_is_checked_with_one_history_walk(
    repo: Path, put_pill: PutPill, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the check ran `git log` per file, the walk would be called once per citation."""
    files = {f"src/m{i}.py": f"{i}\n" for i in range(6)}
    backdate(repo, "2026-11-01T10:00:00", "code", files)
    for i in range(3):
        put_pill(f"implementer/p{i}", citations=f"[src/m{2 * i}.py:1, src/m{2 * i + 1}.py]")
    calls: list[dt.datetime] = []
    real = git.commits_touching

    def counting(repo_: git.Repo, since: dt.datetime) -> Iterator[tuple[dt.datetime, list[str]]]:
        calls.append(since)
        return real(repo_, since)

    logs: list[list[str]] = []
    real_run = git.run

    def spy(args: list[str], **kwargs: object) -> object:
        if args and args[0] == "log":
            logs.append(list(args))
        return real_run(args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(git, "commits_touching", counting)
    monkeypatch.setattr(git, "run", spy)
    assert problems(repo) == []
    assert len(calls) == 1
    assert logs == []


def test_a_history_walk_that_fails_fails_the_check(repo: Path, put_pill: PutPill) -> None:
    """The walk runs beside the rest of the check: what stops it still reaches the caller."""
    backdate(repo, "2026-11-01T10:00:00", "old", {"src/app.py": "a\n"})
    backdate(repo, "2026-11-20T10:00:00", "later", {"src/app.py": "a\nb\n"})
    tree = run_git(repo, "rev-parse", "HEAD~1^{tree}").strip()
    (repo / ".git" / "objects" / tree[:2] / tree[2:]).unlink()  # git log cannot diff it now
    put_pill(citations="[src/app.py:1]", date="2026-11-10", last_seen="2026-11-10")
    with pytest.raises(git.GitError) as failed:
        problems(repo)
    assert failed.value.args_[0] == "log"


def test_the_walk_of_an_unborn_branch_is_empty(tmp_path: Path) -> None:
    run_git(tmp_path, "init", "-q", "-b", "main")
    repo = git.discover(tmp_path)
    since = dt.datetime(2020, 1, 1, tzinfo=dt.UTC)
    assert list(git.commits_touching(repo, since)) == []


def test_the_walk_reports_each_commit_with_its_time_and_paths(tmp_path: Path) -> None:
    run_git(tmp_path, "init", "-q", "-b", "main")
    backdate(tmp_path, "2026-11-01T10:00:00Z", "one", {"a.txt": "1\n", "dir/b.txt": "2\n"})
    env = {"GIT_AUTHOR_DATE": "2026-11-02T10:00:00Z", "GIT_COMMITTER_DATE": "2026-11-02T10:00:00Z"}
    run_git(tmp_path, "commit", "-q", "--allow-empty", "-m", "empty", env=env)
    backdate(tmp_path, "2026-11-03T10:00:00Z", "two", {"a.txt": "3\n"})
    since = dt.datetime(2026, 11, 2, tzinfo=dt.UTC)
    walked = list(git.commits_touching(git.discover(tmp_path), since))
    assert walked == [
        (dt.datetime(2026, 11, 3, 10, tzinfo=dt.UTC), ["a.txt"]),
        (dt.datetime(2026, 11, 2, 10, tzinfo=dt.UTC), []),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a/b.py:12", ("a/b.py", 12)),
        ("./a/b.py", ("a/b.py", None)),
        ("weird:name.py", ("weird:name.py", None)),
    ],
)
def test_parse(text: str, expected: tuple[str, int | None]) -> None:
    found = citations.parse(text)
    assert isinstance(found, citations.Citation)
    assert (found.path, found.line) == expected
