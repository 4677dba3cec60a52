"""`gfh init --pre-commit` in the published form, for a team: whoever commits gets gfh from
pre-commit, with nothing of gfh on their PATH."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from gitflow_harness.scaffold import precommit
from tests.helpers import CliRunner, commit, git
from tests.precommit.conftest import pre_commit, run_git
from tests.precommit.store import BUILDS, Published

pytestmark = [pytest.mark.slow, BUILDS]


def path_without_gfh() -> str:
    """A PATH with git on it and no gfh: a teammate who never installed gitflow-harness."""
    dirs = [os.path.dirname(shutil.which("git") or "/usr/bin/git"), "/usr/bin", "/bin"]
    path = os.pathsep.join(dict.fromkeys(dirs))
    assert shutil.which("gfh", path=path) is None
    return path


def test_a_teammate_without_gfh_commits_and_pushes_in_a_repository_set_up_by_init(
    repo: Path, published: Published, gfh: CliRunner, tmp_path: Path
) -> None:
    """If the repository was set up with `gfh init --pre-commit`, then a teammate with no gfh
    on PATH clones it, runs the install line init printed, and commits and pushes: pre-commit
    builds gfh itself (the old `repo: local` hooks said "Executable `gfh` not found")."""
    result = gfh(
        "init",
        "--pre-commit",
        "--hooks-repo",
        str(published.path),
        "--hooks-rev",
        published.rev,
        "--adapter",
        "claude",
    )
    assert result.code == 0, result.err
    said = result.out + result.err
    line = precommit.install_command(precommit.install_types(precommit.manifest()))
    assert f"`{line}`" in said
    config = (repo / ".pre-commit-config.yaml").read_text()
    assert f"- repo: {published.path}" in config
    assert "language: system" not in config
    assert "default_install_hook_types" not in config
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "set up gfh")
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(remote))

    mate = tmp_path / "teammate"
    git(tmp_path, "clone", "-q", str(remote), str(mate))
    env = {"PATH": path_without_gfh()}
    installed = pre_commit(mate, *line.split()[1:], env=env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    git(mate, "switch", "-q", "-c", "feature/notes")
    (mate / "notes.txt").write_text("n\n")
    git(mate, "add", "notes.txt")
    committed = run_git(mate, "commit", "-q", "-m", "notes", env=env)
    assert committed.returncode == 0, committed.stdout + committed.stderr
    assert "not found" not in committed.stdout + committed.stderr
    pushed = run_git(mate, "push", "-q", "origin", "feature/notes", env=env)
    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    assert git(remote, "branch", "--list", "feature/notes").strip() == "feature/notes"

    # The trunk is protected by gfh-protect-trunk: an agent's commit on it is refused, with
    # the way out; a person's goes ahead with a warning pre-commit shows.
    git(mate, "switch", "-q", "main")
    agent = {**env, "GFH_SESSION": "claude:51aa-session"}
    refused = run_git(mate, "commit", "-q", "--allow-empty", "-m", "on main", env=agent)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "refusing to commit on the trunk main" in refused.stderr  # git: hooks' output
    assert "`gfh start NAME`" in refused.stderr
    person = run_git(mate, "commit", "-q", "--allow-empty", "-m", "by a person", env=env)
    assert person.returncode == 0, person.stdout + person.stderr
    assert "warning: a commit on the trunk main" in person.stderr
    to_trunk = run_git(mate, "push", "-q", "origin", "main", env=agent)
    assert to_trunk.returncode == 1, to_trunk.stdout + to_trunk.stderr
    assert "refusing to push to the trunk main" in to_trunk.stdout + to_trunk.stderr


def test_a_project_hook_without_stages_stays_off_the_push_and_the_install_types_untouched(
    repo: Path, gfh: CliRunner
) -> None:
    """If the project has a hook without `stages:`, then `gfh init --pre-commit` leaves it and
    `default_install_hook_types` alone (an older gfh set six types, so the project's hook ran
    at push and merge too) and says that installing gfh's stages runs such hooks there."""
    mine = (
        "repos:\n  - repo: local\n    hooks:\n      - id: mine\n        name: mine\n"
        "        entry: 'true'\n        language: system\n"
    )
    commit(repo, "the project's own hook", {".pre-commit-config.yaml": mine})
    src = precommit.Source("https://git.example.invalid/gfh", "v0.2.0")
    result = gfh("init", "--pre-commit", "--hooks-repo", src.repo, "--hooks-rev", src.rev)
    assert result.code == 0, result.err
    text = (repo / ".pre-commit-config.yaml").read_text()
    assert text.startswith(mine)
    assert "default_install_hook_types" not in text
    assert "a hook of yours without `stages:` then runs at those stages too" in result.out
    # The real pre-commit agrees: a plain install installs the commit hook only, so the
    # project's hook is not run at push or after a merge behind the user's back.
    installed = pre_commit(repo, "install")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    hooks = {p.name for p in (repo / ".git" / "hooks").iterdir()}
    assert "pre-commit" in hooks
    assert not hooks & {"pre-push", "post-merge", "post-rewrite", "post-commit"}


def test_an_older_gfhs_install_types_are_named_with_how_to_remove_them(
    repo: Path, gfh: CliRunner
) -> None:
    old = "default_install_hook_types: [pre-commit, pre-merge-commit, post-merge, pre-push]\n"
    commit(repo, "older gfh", {".pre-commit-config.yaml": old + "repos:\n"})
    result = gfh("init", "--pre-commit-local")
    assert result.code == 0, result.err
    assert "delete it" in result.out
    assert (repo / ".pre-commit-config.yaml").read_text().startswith(old)


def test_without_a_source_init_says_how_to_name_one(
    repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gitflow_harness.scaffold import source

    monkeypatch.setattr(source, "installed_direct_url", lambda: None)
    result = gfh("init", "--pre-commit")
    assert result.code == 2
    assert "--hooks-repo URL --hooks-rev REV" in result.err
    assert not (repo / ".pre-commit-config.yaml").exists()
    assert gfh("init", "--hooks-repo", "x").code == 2
    assert sys.executable  # the venv's pre-commit built gfh above, not PATH
