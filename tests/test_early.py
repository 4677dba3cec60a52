"""`gitflow_harness.early`: `gfh status`'s `git status`, started before its modules load."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gitflow_harness import early, git
from tests.helpers import CliRunner, commit


@pytest.fixture
def fresh() -> Iterator[None]:
    """No question left started by another test; none left behind by this one."""
    early._started = None
    yield
    left = early._started
    early._started = None
    if left is not None:
        left[2].wait()


def _edited(repo: Path) -> Path:
    commit(repo, "a file in a subdirectory", {"sub/kept.txt": "one\n"})
    (repo / "sub" / "kept.txt").write_text("two\n")
    (repo / "sub" / "new.txt").write_text("new\n")
    (repo / "README.md").unlink(missing_ok=True)
    return repo / "sub"


def test_the_status_started_from_a_subdirectory_answers_as_the_command_would(
    repo: Path, fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If `gfh status` started its `git status` in a subdirectory, then `start_status` takes
    that process (once), and it reads exactly as one started at the worktree's top."""
    sub = _edited(repo)
    found = git.discover(repo)
    expected = git.read_status(git.start_status(found, head=True))
    monkeypatch.chdir(sub)
    early.start()
    assert early._started is not None
    pid = early._started[2].pid
    taken = git.start_status(found, head=True)
    assert taken.pid == pid
    assert git.read_status(taken) == expected
    assert early._started is None
    assert git.start_status(found, head=True).pid != pid  # taken once: the next is its own


def test_another_question_or_another_worktree_does_not_take_it(
    repo: Path, tmp_path: Path, fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the command asks about a worktree the started one was not asked in, or another
    question, then it starts its own and the started one stays untaken."""
    found = git.discover(repo)
    other = tmp_path / "other"
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    commit(other, "first", {"a.txt": "a\n"})
    monkeypatch.chdir(other)
    early.start()
    assert git.read_status(git.start_status(found, head=True)).head == git.head(found).sha
    monkeypatch.chdir(repo)
    assert early.take(early.STATUS, repo) is None
    assert early.take([*early.STATUS, "--ignored"], other) is None
    assert early._started is not None  # still there: the fixture reaps it


def test_the_question_without_head_takes_the_one_that_says_it_too(
    repo: Path, fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command that knew HEAD asks `git status` without `--branch`: the started one answers
    it too, its branch lines skipped by the reader."""
    _edited(repo)
    found = git.discover(repo)
    expected = git.read_status(git.start_status(found)).changes
    monkeypatch.chdir(repo)
    early.start()
    taken = git.start_status(found)
    assert early._started is None
    assert git.read_status(taken).changes == expected


def test_a_sibling_directory_sharing_a_prefix_is_not_inside(
    tmp_path: Path, fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "repo-two").mkdir()
    monkeypatch.chdir(tmp_path / "repo-two")
    early.start()
    assert early.take(early.STATUS, tmp_path / "repo") is None
    assert early.take(early.STATUS, tmp_path / "repo-two") is not None


def test_where_git_cannot_start_nothing_is_started(
    tmp_path: Path, fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    early.start()
    assert early._started is None


def test_status_as_its_own_process_says_what_it_says_in_process(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`gfh status --json` run as its own process (its `git status` started first, from a
    subdirectory) gives the data an in-process run gives."""
    sub = _edited(repo)
    env = {**os.environ, "GFH_STATE_HOME": str(tmp_path / "state")}
    proc = subprocess.run(
        [sys.executable, "-m", "gitflow_harness", "status", "--json"],
        cwd=sub,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    own = json.loads(proc.stdout)
    monkeypatch.chdir(sub)
    inside = CliRunner()("status", "--json", env={"GFH_STATE_HOME": str(tmp_path / "state")})
    assert inside.code == 0
    expected = json.loads(inside.out)
    for answer in (own, expected):
        answer.pop("duration_ms", None)
    assert own["data"]["changes"] == expected["data"]["changes"] != []
    assert own == expected
