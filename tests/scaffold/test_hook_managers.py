"""The husky and lefthook snippets of docs/git-hooks.md, run by the real tools and real git.

Both come from npm, installed pinned into the checkout's ignored `.cache/` by the test set-up
(tests/npm.py), which fails the run in CI when npm cannot install them and skips elsewhere.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitflow_harness import git as gitmod
from gitflow_harness.workflow.gate_index import write_gate
from tests import npm
from tests.helpers import ROOT, commit, git, write
from tests.precommit.conftest import run_git

pytestmark = pytest.mark.slow

DOC = (ROOT / "docs" / "git-hooks.md").read_text(encoding="utf-8")
AGENT = {"GFH_SESSION": "claude:3b7d-session"}

HUSKY_HOOK = 'gfh git-hook run {stage} "$@"'
LEFTHOOK_SCRIPT = '#!/bin/sh\nexec gfh git-hook run {stage} "$@"\n'
LEFTHOOK_YML = """\
pre-commit:
  scripts:
    gfh:
      runner: sh
pre-push:
  scripts:
    gfh:
      runner: sh
      use_stdin: true
post-merge:
  scripts:
    gfh:
      runner: sh
"""


@pytest.fixture(scope="session")
def husky() -> Path:
    return npm.installed(npm.HUSKY)


@pytest.fixture(scope="session")
def lefthook() -> Path:
    return npm.installed(npm.LEFTHOOK)


def red_branch(repo: Path) -> None:
    git(repo, "switch", "-q", "-c", "red")
    commit(repo, "red work", {"red.txt": "r\n"})
    r = gitmod.discover(repo)
    write_gate(r, gitmod.tree_of(r, "red"), "red", verb="done", branch="red", head=None)
    git(repo, "switch", "-q", "main")


def exercise(repo: Path, remote: Path) -> None:
    """A red branch pushed from main is refused; an agent's commit on main is refused."""
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "the hook manager's files")
    red_branch(repo)
    pushed = run_git(repo, "push", "-q", "origin", "red")
    assert pushed.returncode == 1, pushed.stdout + pushed.stderr
    assert "refusing to push red" in pushed.stdout + pushed.stderr
    assert git(remote, "branch", "--list", "red") == ""
    refused = run_git(repo, "commit", "-q", "--allow-empty", "-m", "on main", env=AGENT)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "refusing to commit on the trunk main" in refused.stdout + refused.stderr


def test_the_husky_snippets_run_gfhs_checks(
    repo: Path, remote: Path, husky: Path, gfh_on_path: None
) -> None:
    for stage in ("pre-commit", "pre-push", "post-merge"):
        assert f"# .husky/{stage}\n{HUSKY_HOOK.format(stage=stage)}\n" in DOC
    installed = subprocess.run([str(husky)], cwd=repo, capture_output=True, text=True)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    for stage in ("pre-commit", "pre-push"):
        write(repo, f".husky/{stage}", HUSKY_HOOK.format(stage=stage) + "\n")
    exercise(repo, remote)


def test_the_lefthook_snippets_run_gfhs_checks(
    repo: Path, remote: Path, lefthook: Path, gfh_on_path: None
) -> None:
    assert f"# lefthook.yml\n{LEFTHOOK_YML}" in DOC
    write(repo, "lefthook.yml", LEFTHOOK_YML)
    for stage in ("pre-commit", "pre-push", "post-merge"):
        script = LEFTHOOK_SCRIPT.format(stage=stage)
        assert f"# .lefthook/{stage}/gfh\n{script}" in DOC
        write(repo, f".lefthook/{stage}/gfh", script).chmod(0o755)
    installed = subprocess.run([str(lefthook), "install"], cwd=repo, capture_output=True, text=True)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    exercise(repo, remote)
