"""Each odd repository state, through the real command line: one line, the documented exit code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import CliRunner, commit, diverge, git, make_repo


def _diverge(repo: Path) -> None:
    diverge(repo, "topic", {"README.md": "topic\n"}, {"README.md": "main\n"})


def _one_line(result: object, code: int, fragment: str) -> None:
    assert result.code == code, result.err  # type: ignore[attr-defined]
    assert result.err.count("\n") == 1, result.err  # type: ignore[attr-defined]
    assert result.err.startswith("gfh: ")  # type: ignore[attr-defined]
    assert fragment in result.err  # type: ignore[attr-defined]
    assert "Traceback" not in result.err  # type: ignore[attr-defined]


def test_detached_head_refuses_update(repo: Path, gfh: CliRunner) -> None:
    git(repo, "checkout", "-q", "--detach")
    _one_line(gfh("update"), 1, "HEAD is detached")


def test_mid_rebase_refuses_done(repo: Path, gfh: CliRunner) -> None:
    _diverge(repo)
    git(repo, "rebase", "main", check=False)
    _one_line(gfh("done"), 1, "a rebase is in progress")


def test_mid_merge_refuses_update(repo: Path, gfh: CliRunner) -> None:
    _diverge(repo)
    git(repo, "merge", "main", check=False)
    _one_line(gfh("update"), 1, "a merge is in progress")


def test_unborn_branch_refuses_start(
    tmp_path: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    monkeypatch.chdir(tmp_path)
    _one_line(gfh("start", "feature"), 1, "no commits")


def test_bare_repository_is_a_usage_error(
    tmp_path: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(tmp_path, "init", "-q", "--bare", "b.git")
    monkeypatch.chdir(tmp_path / "b.git")
    _one_line(gfh("status"), 2, "bare repository")


def test_not_a_repository_is_a_usage_error(
    tmp_path: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _one_line(gfh("status"), 2, "not a git repository")


def test_shallow_clone_reports_ahead_behind_unknown(
    tmp_path: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    origin = make_repo(tmp_path / "origin")
    git(origin, "switch", "-q", "-c", "feature")
    commit(origin, "f", {"f.txt": "f\n"})
    git(origin, "switch", "-q", "main")
    for i in range(3):
        commit(origin, f"m{i}", {"m.txt": f"{i}\n"})
    git(tmp_path, "clone", "-q", "--depth=1", "--no-single-branch", f"file://{origin}", "clone")
    clone = tmp_path / "clone"
    git(clone, "switch", "-q", "feature")
    monkeypatch.chdir(clone)
    result = gfh("status")
    assert result.code == 0, result.err
    assert "unknown" in result.out.splitlines()[1]
