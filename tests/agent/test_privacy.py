"""Privacy canary: after a full scripted session on every host, a unique string placed in every
prompt, tool input, tool response and final message appears in no file gfh wrote."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gitflow_harness.agent import model as ev
from gitflow_harness.agent import postcheck
from gitflow_harness.agent.model import Offer
from tests.agent import kit
from tests.helpers import CliRunner, commit, read_events

CANARY = "zebra-canary-4b9e"


def postcheck_source(ctx: Any) -> list[Offer]:
    """Run the repository's postcheck on the tool's payload; offer its way when it asks."""
    results = postcheck.run_for(ctx, [postcheck.Postcheck("checked", "ways/checked/postcheck.sh")])
    return [
        Offer("Checked way.", way=r.way, fired={"trigger": "postcheck", "kind": "first"})
        for r in results
        if r.status == postcheck.REQUESTED
    ]


@pytest.fixture
def plugged(monkeypatch: pytest.MonkeyPatch, repo: Path) -> None:
    kit.plug(
        monkeypatch, [ev.PROMPT, ev.SESSION_START, ev.SUBAGENT_START], "tests.agent.kit:gate_source"
    )
    from gitflow_harness.agent import sources

    monkeypatch.setitem(
        sources.CONTEXT_SOURCES,
        ev.TOOL_POST,
        ("tests.agent.kit:gate_source", "tests.agent.test_privacy:postcheck_source"),
    )
    monkeypatch.setitem(
        sources.CONTEXT_SOURCES, ev.TOOL_FAILURE, ("tests.agent.test_privacy:postcheck_source",)
    )
    monkeypatch.setattr(
        kit,
        "WAYS",
        {
            "zebra": {"text": "Zebra way.", "prompt": "zebra", "delta": 1},
            "src": {"text": "Source way.", "files": "src/", "delta": 1},
        },
    )
    commit(repo, "a postcheck", {"ways/checked/postcheck.sh": "cat > /dev/null\n"})


def _claude_session(repo: Path, gfh: CliRunner, transcript: Path, env: dict[str, str]) -> None:
    def send(event: str, fixture: str, expect: int = 0, **fields: Any) -> None:
        data = kit.payload("claude", fixture, repo, transcript_path=str(transcript), **fields)
        result = kit.hook(gfh, "claude", event, data, env=env)
        assert result.code == expect
        assert CANARY not in result.out + result.err

    secret = f"please fix the zebra parser {CANARY}"
    send("SessionStart", "SessionStart")
    send("UserPromptSubmit", "UserPromptSubmit", prompt=secret)
    send("PreToolUse", "PreToolUse.Bash", tool_input={"command": f"grep {CANARY}"})
    send(
        "PostToolUse",
        "PostToolUse.Write",
        tool_input={"file_path": f"{repo}/src/{CANARY}.py", "content": CANARY},
        tool_response={"filePath": f"{repo}/src/{CANARY}.py", "success": True},
    )
    send(
        "PostToolUse",
        "PostToolUse.Bash",
        tool_input={"command": f"echo {CANARY}"},
        tool_response={"stdout": CANARY, "stderr": CANARY},
    )
    send("PostToolUseFailure", "PostToolUseFailure.Bash", error=f"Exit code 1\n{CANARY}")
    send("SubagentStart", "SubagentStart")
    send("SubagentStop", "SubagentStop", last_assistant_message=f"VERDICT: REJECTED\n{CANARY}")
    send("PreCompact", "PreCompact", custom_instructions=CANARY)
    send("PostCompact", "PostCompact", compact_summary=CANARY)
    send("SessionStart", "SessionStart.compact")
    send("UserPromptSubmit", "UserPromptSubmit", prompt=secret)
    # The reply shows no status box: the end-of-turn ritual blocks, and says so without quoting it.
    send("Stop", "Stop", expect=2, last_assistant_message=f"Done. {CANARY}")
    send("SessionEnd", "SessionEnd")


def _cursor_session(repo: Path, gfh: CliRunner) -> None:
    def send(event: str, fixture: str, **fields: Any) -> None:
        result = kit.hook(gfh, "cursor", event, kit.payload("cursor", fixture, repo, **fields))
        assert result.code == 0
        assert CANARY not in result.out + result.err

    send("sessionStart", "sessionStart")
    send("beforeSubmitPrompt", "beforeSubmitPrompt", prompt=f"zebra {CANARY}")
    send("postToolUse", "postToolUse", tool_input={"command": CANARY}, tool_output=CANARY)
    send("postToolUseFailure", "postToolUseFailure", error_message=CANARY)
    send("afterAgentResponse", "afterAgentResponse", text=f"┌─ gfh {CANARY}")
    send("subagentStop", "subagentStop", result=f"VERDICT: PASS\n{CANARY}")
    send("stop", "stop")


def _codex_session(repo: Path, gfh: CliRunner) -> None:
    def send(event: str, fixture: str, **fields: Any) -> None:
        result = kit.hook(gfh, "codex", event, kit.payload("codex", fixture, repo, **fields))
        assert result.code == 0
        assert CANARY not in result.out + result.err

    send("SessionStart", "SessionStart")
    send("UserPromptSubmit", "UserPromptSubmit", prompt=f"zebra {CANARY}")
    send("PostToolUse", "PostToolUse.Bash", tool_input={"command": CANARY}, tool_response=CANARY)
    send("SubagentStop", "SubagentStop", last_assistant_message=f"VERDICT: BLOCKED {CANARY}")
    send("Stop", "Stop", last_assistant_message=CANARY)


@pytest.mark.usefixtures("plugged")
def test_no_payload_text_reaches_any_file(
    repo: Path, gfh: CliRunner, tmp_path: Path, hermetic: Path
) -> None:
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_text(kit.transcript_line("m1", 1000))
    env_file = tmp_path / "claude-env"
    _claude_session(repo, gfh, transcript, {"CLAUDE_ENV_FILE": str(env_file)})
    _cursor_session(repo, gfh)
    _codex_session(repo, gfh)

    types = [e["type"] for e in read_events(repo)]
    assert types.count("way.fired") >= 4  # the session did real work: ways, postchecks, evidence
    assert "subagent.stopped" in types
    assert types.count("turn.started") == 4
    assert "hook.error" not in types
    written = [p for root in (hermetic, repo / ".git") for p in root.rglob("*") if p.is_file()]
    written.append(env_file)
    assert any("gfh-state" in str(p) for p in written)
    for path in written:
        assert CANARY.encode() not in path.read_bytes(), path
