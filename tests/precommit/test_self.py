"""This repository runs its own hooks: `.pre-commit-config.yaml`, checked and run for real."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from pre_commit.clientlib import load_config, load_manifest

from tests.helpers import ROOT, git, write
from tests.precommit.conftest import pre_commit
from tests.precommit.store import BUILDS, copy_checkout

# mypy's incremental cache, kept between runs under the ignored .cache/: mypy checks each
# module's recorded hash, so a changed file (or mypy, or its options) is checked again, and the
# unchanged rest is not checked from scratch in every copy.
MYPY_CACHE = ROOT / ".cache" / "mypy"


def local_hooks() -> dict[str, dict[str, Any]]:
    config = load_config(str(ROOT / ".pre-commit-config.yaml"))
    [local] = [r for r in config["repos"] if r["repo"] == "local"]
    return {h["id"]: h for h in local["hooks"]}


def test_this_repository_runs_every_published_hook_as_published() -> None:
    """If a published hook changes its files, stages or filenames, then this repository's own
    copy of it changes too: the project checks itself the way its users are checked."""
    mine = local_hooks()
    for published in load_manifest(str(ROOT / ".pre-commit-hooks.yaml")):
        hook = mine[published["id"]]
        assert hook["entry"] == published["entry"].replace("gfh ", "python -m gitflow_harness ", 1)
        for key in ("files", "stages", "pass_filenames", "always_run", "language"):
            assert hook[key] == published[key], (published["id"], key)


def test_the_gfh_hooks_share_mypys_environment_which_has_every_runtime_dependency() -> None:
    hooks = local_hooks()
    env = hooks["mypy"]["additional_dependencies"]
    gfh_hooks = [h for name, h in hooks.items() if name.startswith("gfh-")]
    assert len(gfh_hooks) == 7
    assert all(h["additional_dependencies"] == env for h in gfh_hooks)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert set(project["dependencies"]) <= set(env)


def test_the_default_install_covers_every_stage_the_hooks_use() -> None:
    config = load_config(str(ROOT / ".pre-commit-config.yaml"))
    default = config["default_stages"]
    assert default == ["pre-commit", "pre-merge-commit", "manual"]  # ruff, mypy: not on a push
    used = {stage for h in local_hooks().values() for stage in h["stages"] or default}
    assert used - {"manual"} == set(config["default_install_hook_types"])


def test_the_repositorys_own_folders_hold_real_content() -> None:
    ways = list((ROOT / "hooks" / "ways").glob("*/*/*.md"))
    pills = list((ROOT / "pills").glob("*/*.md"))
    assert len(ways) >= 4
    assert len(pills) >= 3
    # requests/ exists in git (its README says what arrives there), so gfh-requests-check runs
    # on the repository's own folder rather than being skipped for want of files.
    assert "requests/README.md" in git(ROOT, "ls-files", "requests").split()


@pytest.mark.slow
@BUILDS
def test_pre_commit_run_all_files_passes_on_this_repository(tmp_path: Path) -> None:
    """If `make lint` would fail on this checkout, this fails: every hook of the repository's
    own config, on a copy of its files (the checkout itself is never written)."""
    copy = copy_checkout(tmp_path / "gitflow-harness")
    proc = pre_commit(copy, "run", "--all-files", env={"MYPY_CACHE_DIR": str(MYPY_CACHE)})
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    names = (
        "ruff",
        "ruff format",
        "mypy",
        "gfh ways lint",
        "gfh pills check",
        "gfh requests check",
    )
    for name in names:
        assert re.search(rf"^{re.escape(name)}\b.*Passed$", output, re.MULTILINE), name
    assert "gfh learn --check" in output
    assert git(copy, "status", "--porcelain", "--untracked-files=all") == ""

    # The gfh hooks check this repository for real: a broken lesson fails the run.
    pill = next((copy / "pills").glob("*/*.md"))
    write(
        copy,
        str(pill.relative_to(copy)),
        pill.read_text().replace("occurrences: 1", "occurrences: 0"),
    )
    broken = pre_commit(copy, "run", "gfh-pills-check", "--all-files")
    assert broken.returncode == 1
    assert f"{pill.relative_to(copy)}:" in broken.stdout
    assert "occurrences" in broken.stdout
