"""The published pre-commit hooks, run by the real pre-commit framework."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import git as run_git
from tests.precommit.conftest import run_hook
from tests.precommit.store import BUILDS, Published

PutPill = Callable[..., Path]


@pytest.mark.slow
@BUILDS
def test_gfh_graduate_files_once_and_then_passes(
    repo: Path, put_pill: PutPill, published: Published
) -> None:
    put_pill(occurrences="3")
    run_git(repo, "add", "-A")
    first = run_hook(repo, published, "gfh-graduate")
    assert first.returncode == 1, first.stdout + first.stderr
    assert "filed requests/" in first.stdout
    [filed] = (repo / "requests").glob("*.md")
    assert filed.name.endswith("-implementer__parser.md")
    run_git(repo, "add", "-A")
    second = run_hook(repo, published, "gfh-graduate")
    assert second.returncode == 0, second.stdout + second.stderr


@pytest.mark.slow
@BUILDS
def test_gfh_pills_check_fails_on_a_bad_pill(
    repo: Path, put_pill: PutPill, published: Published
) -> None:
    put_pill(occurrences="0")
    run_git(repo, "add", "-A")
    result = run_hook(repo, published, "gfh-pills-check")
    assert result.returncode == 1
    assert "pills/implementer/parser.md:8: error: occurrences" in result.stdout
