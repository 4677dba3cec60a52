"""`.pre-commit-hooks.yaml`: what this repository publishes, checked and run by pre-commit."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import pytest
from pre_commit.clientlib import load_manifest

from tests.helpers import ROOT, CliRunner, git, write
from tests.learning.conftest import pill_text
from tests.precommit.conftest import install, run_git, run_hook
from tests.precommit.store import BUILDS, Published

MANIFEST = ROOT / ".pre-commit-hooks.yaml"
COMMIT_STAGES = {"pre-commit", "pre-merge-commit", "manual"}
LEGACY_WAY = (
    "---\ndescription: Deploy carefully\nredisclose: 15\nwhen:\n  keywords: [deploy]\n---\n"
    "Run the smoke tests before a deploy.\n"
)


def hooks() -> dict[str, dict[str, Any]]:
    return {h["id"]: h for h in load_manifest(str(MANIFEST))}


def test_the_manifest_publishes_the_designed_hook_ids() -> None:
    assert list(hooks()) == [
        "gfh-ways-lint",
        "gfh-pills-check",
        "gfh-requests-check",
        "gfh-graduate",
        "gfh-record-update",
        "gfh-gate-push",
        "gfh-protect-trunk",
    ]


@pytest.mark.parametrize("hook", list(hooks().values()), ids=lambda h: h["id"])
def test_every_hook_is_a_python_gfh_command_that_exists(
    hook: dict[str, Any], gfh: CliRunner
) -> None:
    assert hook["language"] == "python"
    assert hook["minimum_pre_commit_version"] == "3.2.0"
    program, *words = hook["entry"].split()
    assert program == "gfh"
    command = [w for w in words if not w.startswith("-")]
    assert gfh(*command, "--help").code == 0, hook["entry"]


@pytest.mark.parametrize("hook", list(hooks().values()), ids=lambda h: h["id"])
def test_no_hook_is_spawned_for_an_unrelated_commit(hook: dict[str, Any]) -> None:
    """If a hook runs on commits, then a `files:` filter keeps it to its folder; if it runs on a
    git stage that passes no files, then it is kept off commits by its stages. The one
    exception is gfh-protect-trunk: the branch, not the files, decides, so it runs for every
    commit (and costs one `git` call off the trunk)."""
    stages = set(hook["stages"])
    assert stages, "empty stages means every stage"
    if hook["id"] == "gfh-protect-trunk":
        assert stages == {"pre-commit", "pre-merge-commit", "pre-push"}
        assert hook["always_run"]
        assert hook["pass_filenames"] is False
        return
    if stages <= COMMIT_STAGES:
        assert hook["files"].startswith("^"), hook["files"]
        assert not hook["always_run"]
        assert not re.search(hook["files"], "src/app.py")
    else:
        assert not stages & COMMIT_STAGES
        assert hook["always_run"], "post-* and pre-push pass no files: always_run is needed"
        assert hook["pass_filenames"] is False


def test_the_git_stage_hooks_run_where_git_tells_them_what_happened() -> None:
    published = hooks()
    # post-commit: a merge that stopped on conflicts is finished by `git commit`, which runs no
    # post-merge hook.
    assert published["gfh-record-update"]["stages"] == ["post-merge", "post-rewrite", "post-commit"]
    assert published["gfh-gate-push"]["stages"] == ["pre-push"]
    assert published["gfh-ways-lint"]["pass_filenames"] is True  # lint only the changed ways
    assert published["gfh-graduate"]["pass_filenames"] is False


# -- the real framework --------------------------------------------------------------------


def try_repo(repo: Path, published: Published, hook: str) -> str:
    proc = run_hook(repo, published, hook)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return ("fail:" if proc.returncode else "pass:") + proc.stdout


@pytest.mark.slow
@BUILDS
def test_ways_lint_fails_on_a_legacy_way_until_it_is_migrated(
    repo: Path, published: Published, gfh: CliRunner
) -> None:
    write(repo, "hooks/ways/deploy/deploy.md", LEGACY_WAY)
    git(repo, "add", "-A")
    first = try_repo(repo, published, "gfh-ways-lint")
    assert first.startswith("fail:"), first
    assert (
        "hooks/ways/deploy/deploy.md:3: error: redisclose is retired: run `gfh ways migrate`"
        in first
    )
    assert gfh("ways", "migrate", "--apply").code == 0
    second = try_repo(repo, published, "gfh-ways-lint")
    assert second.startswith("pass:"), second
    assert "gfh ways lint" in second


@pytest.mark.slow
@BUILDS
def test_graduate_stops_the_commit_that_owes_a_request_until_it_is_added(
    repo: Path, published: Published
) -> None:
    install(repo, published, ["gfh-pills-check", "gfh-graduate"], ["pre-commit"])
    write(repo, "pills/implementer/parser.md", pill_text(occurrences="3"))
    git(repo, "add", "-A")
    stopped = run_git(repo, "commit", "-m", "a lesson that recurred")
    output = stopped.stdout + stopped.stderr
    assert stopped.returncode == 1, output
    name = f"{dt.date.today().isoformat()}-implementer__parser.md"
    assert f"filed requests/{name}" in output
    assert f"git add requests/{name}" in output
    assert git(repo, "log", "-1", "--format=%s") == "use the gfh hooks\n"

    git(repo, "add", "-A")
    committed = run_git(repo, "commit", "-m", "a lesson that recurred, and its request")
    assert committed.returncode == 0, committed.stdout + committed.stderr
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == [
        "pills/implementer/parser.md",
        f"requests/{name}",
    ]
