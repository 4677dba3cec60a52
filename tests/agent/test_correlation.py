"""Session correlation: GFH_SESSION reaches the agent's later `gfh` runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitflow_harness.agent.correlation import EnvFileError, export_line, write_env_file
from tests.agent import kit
from tests.helpers import CliRunner, read_events


def test_session_start_exports_gfh_session_and_a_later_verb_carries_it(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    """If Claude Code sources $CLAUDE_ENV_FILE before a command, then a real `gfh status` run
    that way records its `verb` event under the session the SessionStart hook wrote there."""
    env_file = tmp_path / "claude-env.sh"
    data = kit.payload("claude", "SessionStart", repo)
    result = kit.hook(gfh, "claude", "SessionStart", data, env={"CLAUDE_ENV_FILE": str(env_file)})
    assert result.code == 0
    assert env_file.read_text() == (
        "export GFH_SESSION='claude:7f3c9d2e-1b4a-4c55-9a61-2f0d8e6b1a90'\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "GFH_SESSION"}
    command = '. "$1" && exec "$2" -m gitflow_harness status'
    proc = subprocess.run(
        ["bash", "-c", command, "bash", str(env_file), sys.executable],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert "claude:7f3c" in proc.stdout  # the status box shows the session too
    [verb] = [e for e in read_events(repo) if e["type"] == "verb" and e["data"]["verb"] == "status"]
    assert verb["session"] == "claude:7f3c9d2e-1b4a-4c55-9a61-2f0d8e6b1a90"
    assert verb["surface"] == "cli"


def test_the_export_line_is_written_once_and_after_a_newline(tmp_path: Path) -> None:
    env_file = tmp_path / "env"
    env_file.write_text("export OTHER=1")  # no trailing newline
    assert write_env_file("claude:abc", {"CLAUDE_ENV_FILE": str(env_file)})
    assert not write_env_file("claude:abc", {"CLAUDE_ENV_FILE": str(env_file)})
    assert env_file.read_text() == "export OTHER=1\nexport GFH_SESSION='claude:abc'\n"
    assert not write_env_file("claude:abc", {})


def test_export_line_quotes_for_the_shell() -> None:
    assert export_line("claude:it's") == "export GFH_SESSION='claude:it'\"'\"'s'\n"


def test_cursor_and_codex_get_the_session_in_their_env_output(repo: Path, gfh: CliRunner) -> None:
    cursor = kit.hook(gfh, "cursor", "sessionStart", kit.payload("cursor", "sessionStart", repo))
    assert cursor.json()["env"] == {"GFH_SESSION": "cursor:c-5b1e"}
    codex = kit.hook(gfh, "codex", "SessionStart", kit.payload("codex", "SessionStart", repo))
    assert codex.json()["hookSpecificOutput"]["env"] == {"GFH_SESSION": "codex:0199a7c2-codex"}


def test_no_session_id_means_no_correlation(repo: Path, gfh: CliRunner, tmp_path: Path) -> None:
    env_file = tmp_path / "env"
    data = kit.payload("claude", "SessionStart", repo)
    del data["session_id"]
    result = kit.hook(gfh, "claude", "SessionStart", data, env={"CLAUDE_ENV_FILE": str(env_file)})
    assert result.code == 0
    assert not env_file.exists()


@pytest.mark.parametrize("where", ["missing-directory", "a-directory"])
def test_an_env_file_gfh_cannot_write_costs_the_session_nothing_else(
    repo: Path, gfh: CliRunner, tmp_path: Path, where: str
) -> None:
    """If $CLAUDE_ENV_FILE cannot be written (its directory is gone, a directory stands in its
    place), then SessionStart still delivers the ensure hint and its ways, and says in one
    stderr line and a hook.error which path failed and why."""
    kit.way(repo, "opening", "when:\n  session_start: true\n" + kit.EXPONENTIAL, "Opening.")
    env_file = tmp_path / "gone" / "env" if where == "missing-directory" else tmp_path
    reason = "No such file or directory" if where == "missing-directory" else "Is a directory"
    data = kit.payload("claude", "SessionStart", repo)
    result = kit.hook(gfh, "claude", "SessionStart", data, env={"CLAUDE_ENV_FILE": str(env_file)})
    assert result.code == 0
    context = kit.context(result)
    assert context is not None
    assert "[ensure-main-worktree-first]" in context
    assert context.endswith("Opening.")
    [line] = result.err.splitlines()
    assert line.startswith(
        f"gfh hook claude SessionStart: EnvFileError: cannot write $CLAUDE_ENV_FILE {env_file}: "
        f"{reason}; "
    )
    [error] = [e for e in read_events(repo) if e["type"] == "hook.error"]
    assert error["data"]["error"] == line.removeprefix("gfh hook claude SessionStart: ")
    assert error["session"] == "claude:7f3c9d2e-1b4a-4c55-9a61-2f0d8e6b1a90"
    assert [e["data"]["verb"] for e in read_events(repo) if e["type"] == "verb"] == ["ensure"]


def test_write_env_file_raises_its_own_error_not_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(EnvFileError, match="Is a directory"):
        write_env_file("claude:abc", {"CLAUDE_ENV_FILE": str(tmp_path)})


def test_an_env_file_error_with_an_unwritable_log_still_delivers_the_context(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    """If neither $CLAUDE_ENV_FILE nor the event log can be written, the session start still
    gets its context, and stderr says both."""
    kit.way(repo, "opening", "when:\n  session_start: true\n" + kit.EXPONENTIAL, "Opening.")
    events = repo / ".git" / "gitflow-harness" / "events"
    events.parent.mkdir(parents=True, exist_ok=True)
    events.write_text("not a directory\n")
    data = kit.payload("claude", "SessionStart", repo)
    result = kit.hook(gfh, "claude", "SessionStart", data, env={"CLAUDE_ENV_FILE": str(tmp_path)})
    assert result.code == 0
    context = kit.context(result)
    assert context is not None
    assert context.endswith("Opening.")
    assert "EnvFileError: cannot write $CLAUDE_ENV_FILE" in result.err
    assert "not recorded" in result.err
