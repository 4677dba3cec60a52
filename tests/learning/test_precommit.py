"""The published pre-commit hooks, run by the real pre-commit framework."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import ROOT
from tests.helpers import git as run_git

PutPill = Callable[..., Path]


def try_repo(repo: Path, hook: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), hook, "--all-files"],
        cwd=repo,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.slow
def test_gfh_graduate_files_once_and_then_passes(repo: Path, put_pill: PutPill) -> None:
    put_pill(occurrences="3")
    run_git(repo, "add", "-A")
    first = try_repo(repo, "gfh-graduate")
    assert first.returncode == 1, first.stdout + first.stderr
    assert "filed requests/" in first.stdout
    [filed] = (repo / "requests").glob("*.md")
    assert filed.name.endswith("-implementer__parser.md")
    run_git(repo, "add", "-A")
    second = try_repo(repo, "gfh-graduate")
    assert second.returncode == 0, second.stdout + second.stderr


@pytest.mark.slow
def test_gfh_pills_check_fails_on_a_bad_pill(repo: Path, put_pill: PutPill) -> None:
    put_pill(occurrences="0")
    run_git(repo, "add", "-A")
    result = try_repo(repo, "gfh-pills-check")
    assert result.returncode == 1
    assert "pills/implementer/parser.md:8: error: occurrences" in result.stdout
