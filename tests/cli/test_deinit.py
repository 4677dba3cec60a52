"""`gfh deinit`: exactly what `gfh init` added goes, everything of the user's stays."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.helpers import CliRunner, write

USER_SETTINGS = {
    "model": "opus",
    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./my-stop.sh"}]}]},
}
USER_PRE_COMMIT = """\
# my checks
repos:
  - repo: https://github.com/pre-commit/pre-commit-hooks
    rev: v5.0.0
    hooks:
      - id: trailing-whitespace   # keep me
default_stages: [pre-commit]
"""
MY_HOOK = "#!/bin/sh\necho mine\n"
ALL = ("--adapter", "claude", "--adapter", "cursor", "--adapter", "codex")
SOURCE = ("--hooks-repo", "https://git.example.invalid/gfh", "--hooks-rev", "v0.2.0")


@pytest.fixture
def set_up(repo: Path, gfh: CliRunner) -> Path:
    """A repository with the user's own settings, pre-commit config and pre-commit hook, then
    everything `gfh init` can add."""
    write(repo, ".claude/settings.json", json.dumps(USER_SETTINGS, indent=2) + "\n")
    write(repo, ".pre-commit-config.yaml", USER_PRE_COMMIT)
    write(repo, ".git/hooks/pre-commit", MY_HOOK).chmod(0o755)
    result = gfh("init", *ALL, "--pre-commit", *SOURCE, "--git-hooks")
    assert result.code == 0, result.err
    return repo


def test_deinit_removes_what_init_added_and_keeps_the_users(set_up: Path, gfh: CliRunner) -> None:
    result = gfh("deinit")
    assert result.code == 0, result.err
    repo = set_up
    assert json.loads((repo / ".claude/settings.json").read_text()) == USER_SETTINGS
    assert not (repo / ".cursor/hooks.json").exists()  # nothing of anyone's was left in it
    assert not (repo / ".codex/hooks.json").exists()
    assert (repo / ".pre-commit-config.yaml").read_text() == USER_PRE_COMMIT  # byte for byte
    hooks = repo / ".git" / "hooks"
    assert (hooks / "pre-commit").read_text() == MY_HOOK
    assert os.access(hooks / "pre-commit", os.X_OK)
    assert not (hooks / "pre-commit.gfh-chained").exists()
    assert not (hooks / "pre-push").exists()
    assert (repo / ".gitflow-harness.toml").is_file()  # the project's own now: kept
    assert (repo / "hooks/ways/workflow/end-of-turn/end-of-turn.md").is_file()


def test_deinit_twice_is_deinit_once(set_up: Path, gfh: CliRunner) -> None:
    assert gfh("deinit").code == 0
    again = gfh("deinit", "--json")
    assert again.code == 0
    assert again.json()["files"] == []
    assert "nothing of gfh's to remove" in gfh("deinit").out


def test_deinit_dry_run_prints_the_diff_and_writes_nothing(set_up: Path, gfh: CliRunner) -> None:
    before = (set_up / ".pre-commit-config.yaml").read_text()
    result = gfh("deinit", "--dry-run")
    assert result.code == 0
    assert "-  - repo: https://git.example.invalid/gfh" in result.out
    assert "+++ /dev/null" in result.out  # .cursor/hooks.json goes
    assert (set_up / ".pre-commit-config.yaml").read_text() == before
    assert (set_up / ".cursor/hooks.json").exists()


def test_a_pre_commit_entry_mixing_gfh_and_user_hooks_is_left_with_a_note(
    repo: Path, gfh: CliRunner
) -> None:
    mixed = (
        "repos:\n  - repo: local\n    hooks:\n      - id: gfh-pills-check\n        name: p\n"
        "        entry: gfh pills check\n        language: system\n      - id: mine\n"
        "        name: mine\n        entry: 'true'\n        language: system\n"
    )
    write(repo, ".pre-commit-config.yaml", mixed)
    result = gfh("deinit")
    assert result.code == 0
    assert (repo / ".pre-commit-config.yaml").read_text() == mixed
    assert "left for you to edit" in result.out


def test_a_config_init_wrote_alone_is_removed(repo: Path, gfh: CliRunner) -> None:
    assert gfh("init", "--pre-commit-local", "--adapter", "claude").code == 0
    assert gfh("deinit").code == 0
    assert not (repo / ".pre-commit-config.yaml").exists()
    assert not (repo / ".claude/settings.json").exists()


def test_git_hooks_beside_gfhs_pre_commit_hooks_warn_of_running_twice(
    repo: Path, gfh: CliRunner
) -> None:
    assert gfh("init", "--adapter", "claude", "--pre-commit", *SOURCE).code == 0
    result = gfh("init", "--adapter", "claude", "--git-hooks")
    assert "each check would run twice" in result.err


def test_deinit_takes_out_the_mcp_server_init_registered(repo: Path, gfh: CliRunner) -> None:
    """If `gfh init --mcp` registered `gfh mcp` beside a server of the user's, then deinit
    removes gfh's alone (and a file that held only gfh's), `--dry-run` first showing it."""
    mine = {"mcpServers": {"docs": {"command": "docs-server"}}}
    write(repo, ".mcp.json", json.dumps(mine, indent=2) + "\n")
    assert gfh("init", *ALL, "--mcp").code == 0
    assert "gfh" in json.loads((repo / ".mcp.json").read_text())["mcpServers"]
    dry = gfh("deinit", "--dry-run")
    assert dry.code == 0
    assert '-    "gfh": {' in dry.out
    assert "gfh" in json.loads((repo / ".mcp.json").read_text())["mcpServers"]  # untouched
    assert gfh("deinit").code == 0
    assert json.loads((repo / ".mcp.json").read_text()) == mine
    assert not (repo / ".cursor/mcp.json").exists()
    assert not (repo / ".codex/config.toml").exists()  # it held gfh's server alone


def test_a_pre_commit_config_that_does_not_parse_is_a_configuration_error(
    repo: Path, gfh: CliRunner
) -> None:
    write(repo, ".pre-commit-config.yaml", "repos: [\n  - broken: {\n")
    result = gfh("deinit", "--dry-run")
    assert result.code == 2
    [line] = result.err.splitlines()
    assert line.startswith("gfh: .pre-commit-config.yaml:")
    assert "internal error" not in result.err
