"""Privacy canary: after a full scripted session on every host, a unique string placed in every
prompt, tool input, tool response and final message appears in no file gfh wrote."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gitflow_harness.hookcall.session import SessionState
from tests.agent import kit
from tests.helpers import CliRunner, read_events, write

CANARY = "zebra-canary-4b9e"


@pytest.fixture
def ways(repo: Path) -> None:
    """Real ways on every lane, a postcheck and a macro that read the payload, and a lesson."""
    always = "curve: {type: Flat, suppression: 0}\n"
    kit.way(repo, "zebra", f"when:\n  prompt: zebra\n  keywords: [parser]\n{always}")
    kit.way(repo, "src", f"when:\n  files: ['src/**']\n  commands: echo\n{always}")
    kit.way(repo, "opening", f"when:\n  session_start: true\n{always}")
    kit.way(repo, "review", f"roles: [reviewer]\n{always}")
    kit.way(repo, "checked", always, postcheck="cat > /dev/null\n", macro="wc -c\n")
    write(
        repo,
        "pills/reviewer/naming.md",
        "---\nid: reviewer-naming\napplies_to: [reviewer]\nseverity: low\nstatus: active\n"
        "date: 2026-11-01\nlast_seen: 2026-11-02\noccurrences: 1\ntrigger: naming things\n"
        "citations: []\nsource: a review\n---\n\n## Rule\n\nName things.\n",
    )


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
    send("PostToolUse", "PostToolUse.Bash", tool_input={"command": f"echo {CANARY}"})
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


@pytest.mark.usefixtures("ways")
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
    fired = {e["data"]["trigger"] for e in read_events(repo) if e["type"] == "way.fired"}
    assert fired == {"prompt", "file", "command", "postcheck", "session", "subagent"}
    assert "subagent.stopped" in types
    assert types.count("turn.started") == 4
    assert "hook.error" not in types
    written = [p for root in (hermetic, repo / ".git") for p in root.rglob("*") if p.is_file()]
    written.append(env_file)
    assert any("gfh-state" in str(p) for p in written)
    for path in written:
        assert CANARY.encode() not in path.read_bytes(), path


def test_ids_read_from_transcripts_are_not_kept_verbatim(
    repo: Path, gfh: CliRunner, tmp_path: Path, hermetic: Path
) -> None:
    """If a transcript's ids carry text (a Claude Code `message.id` or compaction `uuid`, a Codex
    `timestamp`), then the session state keeps them only as hashes: they still tell a new
    response and a new boundary apart, and never reach a file."""
    kit.way(repo, "parser", "when:\n  prompt: parser\n" + kit.EXPONENTIAL)
    transcript = tmp_path / "claude.jsonl"
    transcript.write_text(kit.transcript_line(f"msg {CANARY} 1", 20000))
    prompt = kit.payload("claude", "UserPromptSubmit", repo, transcript_path=str(transcript))
    kit.hook(gfh, "claude", "UserPromptSubmit", prompt)
    with open(transcript, "a") as out:
        out.write(kit.boundary_line(f"uuid {CANARY}"))
    kit.hook(gfh, "claude", "UserPromptSubmit", prompt)
    with open(transcript, "a") as out:
        out.write(kit.transcript_line(f"msg {CANARY} 2", 9000))
    kit.hook(gfh, "claude", "UserPromptSubmit", prompt)

    rollout = tmp_path / "rollout.jsonl"
    count = {"type": "token_count", "info": {"last_token_usage": {"input_tokens": 5000}}}
    lines = [
        {"timestamp": f"{CANARY} t1", "type": "event_msg", "payload": count},
        {"timestamp": f"{CANARY} t2", "type": "compacted", "payload": {"message": ""}},
    ]
    codex = kit.payload(
        "codex", "UserPromptSubmit", repo, transcript_path=str(rollout), prompt="the parser"
    )
    for line in lines:
        with open(rollout, "a") as out:
            out.write(json.dumps(line) + "\n")
        kit.hook(gfh, "codex", "UserPromptSubmit", codex)

    assert [(w, what, tick) for w, what, tick, _ in kit.decisions(repo)] == [
        ("parser", "fired", 20000),
        ("parser", "fired", 20000),  # the boundary began a new episode
        ("parser", "suppressed", 20000),  # its drop was the same compaction: counted once
        ("parser", "fired", 5000),  # Codex's own session, from its rollout's token count
        ("parser", "fired", 5000),  # the `compacted` line began a new episode
    ]
    codex_state = SessionState("codex:0199a7c2-codex").read()
    assert codex_state["tokens"]["last"] == 5000
    assert codex_state["epoch"] == 1  # the `compacted` line was told apart and counted
    state = [p for p in (hermetic / "gfh-state").rglob("*") if p.is_file()]
    assert any(p.name == "runtime.json" for p in state)
    for path in state:
        assert CANARY.encode() not in path.read_bytes(), path
