"""`gfh doctor`: the problems a user cannot see, each with its fix; exit 1 on any."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import CliRunner, write


@pytest.fixture
def healthy(repo: Path, gfh: CliRunner, gfh_on_path: None) -> Path:
    assert gfh("init", "--adapter", "claude", "--git-hooks").code == 0
    return repo


def problems(gfh: CliRunner, env: dict[str, str] | None = None) -> dict[str, dict[str, Any]]:
    result = gfh("doctor", "--json", env=env)
    doc = result.json()
    assert result.code == (0 if doc["ok"] else 1)
    return {c["id"]: c for c in doc["checks"] if not c["ok"]}


def test_a_healthy_repository_has_no_problems(healthy: Path, gfh: CliRunner) -> None:
    result = gfh("doctor")
    assert result.code == 0, result.out
    assert not [line for line in result.out.splitlines() if line.startswith("problem")]
    assert result.out.endswith("gfh doctor: no problems in 5 check(s)\n")


def test_gfh_not_on_the_hosts_path_is_a_problem_with_its_fix(
    healthy: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    found = problems(gfh)
    assert "host-gfh-claude" in found
    assert "uv tool install" in found["host-gfh-claude"]["fix"]
    text = gfh("doctor")
    assert text.code == 1
    assert "problem  Claude Code's hooks run `gfh`, which is not on PATH" in text.out


def test_a_hook_missing_for_this_version_says_to_run_init(healthy: Path, gfh: CliRunner) -> None:
    path = healthy / ".claude/settings.json"
    data = json.loads(path.read_text())
    del data["hooks"]["PostCompact"]
    path.write_text(json.dumps(data))
    found = problems(gfh)
    assert found["host-hooks-claude"]["fix"] == "gfh init --adapter claude"


def test_pre_commit_hooks_without_their_git_stages_name_the_install_line(
    repo: Path, gfh: CliRunner, gfh_on_path: None
) -> None:
    assert gfh("init", "--adapter", "claude", "--pre-commit-local").code == 0
    found = problems(gfh)
    assert found["git-stages"]["fix"].startswith("pre-commit install --hook-type pre-commit")


def test_local_pre_commit_hooks_without_gfh_on_path_are_a_problem(
    repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert gfh("init", "--adapter", "claude", "--pre-commit-local").code == 0
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert "published form" in problems(gfh)["pre-commit-gfh"]["fix"]


def test_no_git_hook_running_gfh_is_a_problem(
    repo: Path, gfh: CliRunner, gfh_on_path: None
) -> None:
    assert gfh("init", "--adapter", "claude").code == 0
    assert "gfh init --git-hooks" in problems(gfh)["git-stages"]["fix"]


def test_an_agents_shell_without_a_session_is_a_problem(healthy: Path, gfh: CliRunner) -> None:
    assert "session" in problems(gfh, env={"CLAUDECODE": "1"})
    assert "session" not in problems(gfh, env={"CLAUDECODE": "1", "GFH_SESSION": "claude:x"})


def test_a_way_with_an_error_is_a_problem(healthy: Path, gfh: CliRunner) -> None:
    write(healthy, "hooks/ways/broken/broken.md", "---\ndescription: x\n---\nbody\n")
    assert problems(gfh)["ways-lint"]["fix"].startswith("gfh ways lint")


def test_a_broken_configuration_is_exit_2(healthy: Path, gfh: CliRunner) -> None:
    write(healthy, ".gitflow-harness.toml", "[repository]\nprotect_trunk = 3\n")
    result = gfh("doctor")
    assert result.code == 2
    assert ".gitflow-harness.toml:2" in result.err


def test_a_registered_mcp_server_that_cannot_start_is_a_problem(
    healthy: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert gfh("init", "--adapter", "claude", "--mcp").code == 0
    assert "mcp-claude" not in problems(gfh)
    assert any(c["id"] == "mcp-claude" for c in gfh("doctor", "--json").json()["checks"])
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    found = problems(gfh)
    assert found["mcp-claude"]["message"].startswith("Claude Code starts `gfh mcp` (.mcp.json)")
