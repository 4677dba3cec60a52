"""Session correlation: GFH_SESSION reaches the agent's later `gfh` runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from gitflow_harness.agent.correlation import export_line, write_env_file
from tests.agent import kit
from tests.helpers import CliRunner, read_events

RECORD = (
    "from pathlib import Path\n"
    "from gitflow_harness import git\n"
    "from gitflow_harness.store.events import EventLog\n"
    "repo = git.discover()\n"
    "EventLog(repo.common_dir).record('verb', {'verb': 'status'}, surface='cli', branch='main')\n"
)


def test_session_start_exports_gfh_session_and_a_later_verb_carries_it(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    """If Claude Code sources $CLAUDE_ENV_FILE before a command, then that command's events
    carry the session the SessionStart hook wrote there."""
    env_file = tmp_path / "claude-env.sh"
    data = kit.payload("claude", "SessionStart", repo)
    result = kit.hook(gfh, "claude", "SessionStart", data, env={"CLAUDE_ENV_FILE": str(env_file)})
    assert result.code == 0
    assert env_file.read_text() == (
        "export GFH_SESSION='claude:7f3c9d2e-1b4a-4c55-9a61-2f0d8e6b1a90'\n"
    )
    script = f'. {env_file} && exec {sys.executable} -c "$RECORD"'
    proc = subprocess.run(
        ["sh", "-c", script],
        cwd=repo,
        env={**os.environ, "RECORD": RECORD},
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    [verb] = [e for e in read_events(repo) if e["type"] == "verb" and e["data"]["verb"] == "status"]
    assert verb["session"] == "claude:7f3c9d2e-1b4a-4c55-9a61-2f0d8e6b1a90"


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
