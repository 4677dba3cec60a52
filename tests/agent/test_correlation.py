"""Session correlation: GFH_SESSION reaches the agent's later `gfh` runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitflow_harness.agent import claude, cursor
from gitflow_harness.agent.correlation import EnvFileError, export_line, write_env_file
from tests.agent import kit
from tests.helpers import CliRunner, read_events

SESSION = "claude:7f3c9d2e-1b4a-4c55-9a61-2f0d8e6b1a90"


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


def test_cursor_gets_the_session_in_its_env_output_codex_never(repo: Path, gfh: CliRunner) -> None:
    cursor = kit.hook(gfh, "cursor", "sessionStart", kit.payload("cursor", "sessionStart", repo))
    assert cursor.json()["env"] == {"GFH_SESSION": "cursor:c-5b1e"}
    assert cursor.err == ""
    codex = kit.hook(gfh, "codex", "SessionStart", kit.payload("codex", "SessionStart", repo))
    assert codex.err == ""  # nothing to say: Codex exports its own id
    assert "env" not in codex.json()["hookSpecificOutput"]


@pytest.mark.parametrize(
    ("environ", "exported", "delivers"),
    [
        ({}, False, False),
        ({}, True, True),  # the export line is in $CLAUDE_ENV_FILE
        ({"CLAUDE_CODE_SESSION_ID": "7f3c"}, False, True),
        ({"CLAUDE_CODE_SESSION_ID": "7f 3c"}, False, False),
        ({"CODEX_SESSION_ID": "7f3c"}, False, False),
    ],
)
def test_claude_delivers_through_the_env_file_or_its_own_variable(
    environ: dict[str, str], exported: bool, delivers: bool
) -> None:
    assert claude.delivers_session(environ, exported=exported) is delivers
    assert cursor.delivers_session(environ, exported=exported) is True


def test_a_claude_session_start_that_delivers_no_session_says_so(
    repo: Path, gfh: CliRunner
) -> None:
    """If Claude Code gives the hook neither $CLAUDE_ENV_FILE nor CLAUDE_CODE_SESSION_ID, then
    the agent's commands cannot learn the session: the agent is told what to prefix them with,
    one stderr line says why, and a `hook.error` records it for the report."""
    kit.way(repo, "opening", "when:\n  session_start: true\n" + kit.EXPONENTIAL, "Opening.")
    data = kit.payload("claude", "SessionStart", repo)
    result = kit.hook(gfh, "claude", "SessionStart", data, host_env=False)
    assert result.code == 0
    context = kit.context(result)
    assert context is not None
    assert context.startswith("gfh: this session's id does not reach your commands")
    assert f"`GFH_SESSION={SESSION} gfh task set" in context
    assert context.endswith("Opening.")
    [line] = result.err.splitlines()
    assert line == (
        "gfh hook claude SessionStart: SessionUndelivered: no $CLAUDE_ENV_FILE and no "
        "$CLAUDE_CODE_SESSION_ID in the hook's environment, so Claude Code passes no session to "
        "the agent's gfh commands; the agent is told to prefix them with GFH_SESSION=claude:<id>"
    )
    [error] = [e for e in read_events(repo) if e["type"] == "hook.error"]
    assert error["data"]["error"] == line.removeprefix("gfh hook claude SessionStart: ")
    report = gfh("report", "--json").json()
    [finding] = [f for f in report["findings"] if f["detector"] == "hook-errors"]
    assert finding["subject"] == "SessionUndelivered"
    assert "GFH_SESSION" in finding["next_step"]


def test_either_channel_alone_delivers_the_session_silently(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    data = kit.payload("claude", "SessionStart", repo)
    env_file = {"CLAUDE_ENV_FILE": str(tmp_path / "env")}
    for env, host_env in ((env_file, False), ({}, True)):
        result = kit.hook(gfh, "claude", "SessionStart", data, env=env, host_env=host_env)
        assert result.err == ""
        context = kit.context(result) or ""
        assert "does not reach your commands" not in context
    assert [e for e in read_events(repo) if e["type"] == "hook.error"] == []


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
    place) and the hook has no CLAUDE_CODE_SESSION_ID, then SessionStart still delivers the
    ensure hint and its ways, and says in one stderr line and a hook.error which path failed
    and why."""
    kit.way(repo, "opening", "when:\n  session_start: true\n" + kit.EXPONENTIAL, "Opening.")
    env_file = tmp_path / "gone" / "env" if where == "missing-directory" else tmp_path
    reason = "No such file or directory" if where == "missing-directory" else "Is a directory"
    data = kit.payload("claude", "SessionStart", repo)
    env = {"CLAUDE_ENV_FILE": str(env_file)}
    result = kit.hook(gfh, "claude", "SessionStart", data, env=env, host_env=False)
    assert result.code == 0
    context = kit.context(result)
    assert context is not None
    assert "[ensure-main-worktree-first]" in context
    assert context.endswith("Opening.")
    [line] = result.err.splitlines()
    assert line.startswith(
        "gfh hook claude SessionStart: SessionUndelivered: cannot write $CLAUDE_ENV_FILE "
        f"{env_file}: {reason} and no $CLAUDE_CODE_SESSION_ID in the hook's environment, "
    )
    [error] = [e for e in read_events(repo) if e["type"] == "hook.error"]
    assert error["data"]["error"] == line.removeprefix("gfh hook claude SessionStart: ")
    assert error["session"] == "claude:7f3c9d2e-1b4a-4c55-9a61-2f0d8e6b1a90"
    assert [e["data"]["verb"] for e in read_events(repo) if e["type"] == "verb"] == ["ensure"]
    # With Claude Code's own variable in the hook's environment the file costs nothing.
    quiet = kit.hook(gfh, "claude", "SessionStart", data, env=env)
    assert (quiet.code, quiet.err) == (0, "")


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
    env = {"CLAUDE_ENV_FILE": str(tmp_path)}
    result = kit.hook(gfh, "claude", "SessionStart", data, env=env, host_env=False)
    assert result.code == 0
    context = kit.context(result)
    assert context is not None
    assert context.endswith("Opening.")
    assert "SessionUndelivered: cannot write $CLAUDE_ENV_FILE" in result.err
    assert "not recorded" in result.err
