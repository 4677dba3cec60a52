"""Codex: context in `hookSpecificOutput`, never `env`; Stop only ever observes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitflow_harness.agent import codex, sources
from gitflow_harness.hookcall import model as ev
from tests.agent import kit
from tests.helpers import CliRunner, read_events

FIXTURES = [(e, p) for a, e, p in kit.fixture_files() if a == "codex"]
# The events whose `hookSpecificOutput.additionalContext` reaches the model: Codex documents
# SessionStart and PreToolUse; 0.171.0 delivers UserPromptSubmit's and PostToolUse's too
# (tests/hosts/test_codex.py runs the real host).
PROTOCOL_CONTEXT = frozenset({"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"})


def test_context_goes_out_where_the_host_takes_it() -> None:
    assert codex.CONTEXT_EVENTS == PROTOCOL_CONTEXT
    assert not codex.DEFERS  # every event with lanes has a channel


@pytest.mark.parametrize(("event", "path"), FIXTURES, ids=[p.stem for _, p in FIXTURES])
def test_fixture_round_trips_with_context(
    event: str, path: Path, repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit.plug(monkeypatch, sources.CONTEXT_SOURCES, "tests.agent.kit:plain_source")
    data = json.loads(path.read_text().replace(kit.PLACEHOLDER, str(repo)))
    result = kit.hook(gfh, "codex", event, data)
    assert (result.code, result.err) == (0, "")
    specific: dict[str, object] = {}
    if event in PROTOCOL_CONTEXT:  # every fixture event there has a source that offers
        specific["additionalContext"] = "plain context"
    if specific:
        assert result.json() == {"hookSpecificOutput": {"hookEventName": event, **specific}}
    else:
        assert result.out == ""


def test_stop_never_blocks(repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sources.STOP_CHECKS, ev.STOP, ("tests.agent.kit:block_check",))
    result = kit.hook(gfh, "codex", "Stop", kit.payload("codex", "Stop", repo))
    assert (result.code, result.out, result.err) == (0, "", "")


def test_subagent_stop_records_the_declared_verdict(repo: Path, gfh: CliRunner) -> None:
    kit.hook(gfh, "codex", "SubagentStop", kit.payload("codex", "SubagentStop", repo))
    [stopped] = [e for e in read_events(repo) if e["type"] == "subagent.stopped"]
    assert stopped["data"] == {
        "role": "reviewer",
        "agent": "agent-2",
        "verdict": "BLOCKED",
        "model": "gpt-5-codex",  # Codex names the model on every event
    }
    assert stopped["session"] == "codex:0199a7c2-codex"


def test_apply_patch_names_its_files(repo: Path) -> None:
    patch = (
        "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n"
        "*** Add File: docs/new.md\n+hello\n*** End Patch\n"
    )
    data = kit.payload("codex", "PostToolUse.Bash", repo, tool_name="apply_patch")
    data["tool_input"] = {"input": patch}
    event = codex.parse("PostToolUse", data, b"")
    assert event.paths == ("src/a.py", "docs/new.md")


PATCH = (
    "*** Begin Patch\n*** Update File: src/deploy.py\n@@\n-x = 1\n+deploy --force\n*** End Patch\n"
)


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("apply_patch", {"command": PATCH}),
        ("apply_patch", {"input": PATCH}),
        ("Bash", {"command": PATCH}),
        ("Bash", {"command": ["apply_patch", PATCH]}),
        ("Bash", {"command": f"apply_patch <<'EOF'\n{PATCH}EOF\n"}),
        ("Bash", {"command": ["bash", "-lc", f"apply_patch <<'EOF'\n{PATCH}EOF\n"]}),
    ],
    ids=["tool-command", "tool-input", "envelope", "argv", "heredoc", "shell-heredoc"],
)
def test_a_patch_names_its_files_and_runs_no_command(tool: str, tool_input: object) -> None:
    """If Codex's tool input is a patch (by the tool's name or by its envelope), then its files
    are the paths and there is no command: the patch body is file content, not a shell line."""
    data = kit.payload("codex", "PostToolUse.Bash", tool_name=tool, tool_input=tool_input)
    event = codex.parse("PostToolUse", data, b"")
    assert event.paths == ("src/deploy.py",)
    assert event.command is None


def test_a_command_that_only_mentions_the_envelope_stays_a_command() -> None:
    data = kit.payload(
        "codex", "PostToolUse.Bash", tool_input={"command": "grep -n '*** Begin Patch' notes.md"}
    )
    event = codex.parse("PostToolUse", data, b"")
    assert event.command == "grep -n '*** Begin Patch' notes.md"
    assert event.paths == ()


def test_words_inside_a_patch_fire_no_commands_way(repo: Path, gfh: CliRunner) -> None:
    """If a patch's body holds a word a `commands` way matches, then that way does not fire;
    the patched file still matches the `files` lane."""
    kit.way(repo, "deploy", "when:\n  commands: '\\bdeploy\\b'\n" + kit.EXPONENTIAL, "Deploy.")
    kit.way(repo, "source", "when:\n  files: ['src/**']\n" + kit.EXPONENTIAL, "Source.")
    data = kit.payload(
        "codex", "PostToolUse.Bash", repo, tool_name="apply_patch", tool_input={"command": PATCH}
    )
    assert kit.context(kit.hook(gfh, "codex", "PostToolUse", data)) == "Source."
    assert [(w, what) for w, what, _, _ in kit.decisions(repo)] == [("source", "fired")]


def test_session_start_never_answers_with_env(repo: Path, gfh: CliRunner) -> None:
    """If SessionStart's answer had `hookSpecificOutput.env`, then Codex 0.171.0 would mark the
    hook "Failed" and drop its context: the session reaches the CLI through CODEX_SESSION_ID."""
    kit.way(repo, "opening", "when:\n  session_start: true\n" + kit.EXPONENTIAL, "Opening.")
    result = kit.hook(gfh, "codex", "SessionStart", kit.payload("codex", "SessionStart", repo))
    assert (result.code, result.err) == (0, "")
    specific = result.json()["hookSpecificOutput"]
    assert set(specific) == {"hookEventName", "additionalContext"}
    assert specific["additionalContext"].endswith("Opening.")


@pytest.mark.parametrize(
    "environ", [{}, {"CODEX_SESSION_ID": "0199a7c2-codex"}, {"CODEX_SESSION_ID": "not a plain id"}]
)
def test_the_session_reaches_commands_whatever_the_hook_sees(environ: dict[str, str]) -> None:
    """Codex exports its id to the agent's commands, never to its hooks: the hook's own
    environment cannot tell, so it never claims the session is lost."""
    assert codex.delivers_session(environ, exported=False) is True


def test_a_session_start_says_nothing_of_the_session(repo: Path, gfh: CliRunner) -> None:
    """If Codex runs SessionStart (whose environment has no CODEX_SESSION_ID), then gfh
    answers with its context alone: no `env`, no notice, no `hook.error`."""
    data = kit.payload("codex", "SessionStart", repo)
    result = kit.hook(gfh, "codex", "SessionStart", data)
    assert result.code == 0
    context = kit.context(result)
    assert context is not None
    assert "GFH_SESSION=" not in context
    assert set(result.json()["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
    assert result.err == ""
    assert not [e for e in read_events(repo) if e["type"] == "hook.error"]
