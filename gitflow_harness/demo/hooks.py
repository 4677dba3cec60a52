"""Demo chapter: `gfh init`, then a scripted Claude Code session piped through `gfh hook`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gitflow_harness.demo import Demo

SESSION = "5d0c2a4e-demo"


def run(demo: Demo) -> None:
    demo.section("gfh init: wire the agents' hooks into the repository")
    demo.gfh("init", "--adapter", "claude", "--adapter", "cursor", "--adapter", "codex")
    settings = json.loads((demo.repo / ".claude" / "settings.json").read_text(encoding="utf-8"))
    demo.say(f".claude/settings.json now runs gfh at: {', '.join(settings['hooks'])}")
    demo.gfh("init", "--adapter", "claude", show=False)
    demo.say("a second `gfh init` changes nothing (it only ever adds what is missing)")

    demo.section("A Claude Code session, payload by payload, through `gfh hook claude …`")
    transcript = demo.root / "transcript.jsonl"
    transcript.write_text("", encoding="utf-8")
    env_file = demo.root / "claude-env.sh"
    env = {"CLAUDE_ENV_FILE": str(env_file)}
    session = _Session(demo, transcript, env)
    session.send("SessionStart", source="startup", model="claude-sonnet-4-6")
    demo.say(f"$CLAUDE_ENV_FILE now holds: {env_file.read_text(encoding='utf-8').strip()}")
    session.grow("msg_01", 18000)
    session.send("UserPromptSubmit", prompt="fix the parser and run the tests")
    session.send(
        "PostToolUse",
        tool_name="Write",
        tool_use_id="toolu_1",
        tool_input={"file_path": str(demo.repo / "src" / "parser.py"), "content": "..."},
        tool_response={"filePath": str(demo.repo / "src" / "parser.py"), "success": True},
    )
    session.grow("msg_02", 24500)
    session.send(
        "PostToolUseFailure",
        tool_name="Bash",
        tool_use_id="toolu_2",
        tool_input={"command": "pytest -q"},
        error="Exit code 1\n1 failed",
        is_interrupt=False,
    )
    session.send("SubagentStart", agent_id="a-1", agent_type="reviewer")
    session.send(
        "SubagentStop",
        agent_id="a-1",
        agent_type="reviewer",
        last_assistant_message="VERDICT: REJECTED\nThe CRLF case still fails.",
        stop_hook_active=False,
    )
    session.grow("msg_03", 31000)
    session.send("PreCompact", trigger="auto", custom_instructions="")
    with open(transcript, "a", encoding="utf-8") as out:
        out.write(json.dumps({"type": "system", "subtype": "compact_boundary", "uuid": "cb"}))
        out.write("\n")
    session.show_tick("compact_boundary written: position unknown until the next response")
    session.send("SessionStart", source="compact")
    session.grow("msg_04", 9000)
    session.send("UserPromptSubmit", prompt="now the CRLF case")
    demo.say("")
    demo.say("What the log kept — names, counts and a verdict; no prompt, no tool input:")
    demo.gfh("events", "tail", "-n", "10")
    state = _state_file(demo)
    if state is not None:
        data = json.loads(state.read_text(encoding="utf-8"))
        demo.say(
            f"session state ({state.parent.name}): turns={data.get('turns')}, "
            f"compaction epoch={data.get('epoch')}"
        )


class _Session:
    """Sends Claude Code-shaped payloads for one session and grows its transcript."""

    def __init__(self, demo: Demo, transcript: Path, env: dict[str, str]) -> None:
        self.demo = demo
        self.transcript = transcript
        self.env = env
        self.ticks: dict[str, Any] = {}  # what a way's `tokens` tick reads, step by step

    def send(self, event: str, **fields: Any) -> None:
        payload = {
            "session_id": SESSION,
            "transcript_path": str(self.transcript),
            "cwd": str(self.demo.repo),
            "permission_mode": "default",
            "hook_event_name": event,
            **fields,
        }
        proc = self.demo.gfh(
            "hook", "claude", event, stdin=json.dumps(payload), env=self.env, show=False
        )
        answer = proc.stdout.strip() or "(no output)"
        self.demo.say(f"{event:<19} exit {proc.returncode}  {answer}")

    def grow(self, message_id: str, tokens: int) -> None:
        usage = {
            "input_tokens": 6,
            "cache_creation_input_tokens": 1000,
            "cache_read_input_tokens": tokens - 1006,
            "output_tokens": 300,
        }
        line = {
            "type": "assistant",
            "isSidechain": False,
            "message": {"id": message_id, "role": "assistant", "content": [], "usage": usage},
        }
        with open(self.transcript, "a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")
        self.show_tick(f"context position now {tokens}")

    def show_tick(self, what: str) -> None:
        from gitflow_harness.agent import ticks

        compacted = ticks.observe(self.ticks, ticks.claude_position(self.transcript))
        tick = ticks.token_tick(self.ticks)
        note = " (a compaction: every way's episode ends)" if compacted else ""
        self.demo.say(f"{'(transcript)':<19} {what}; the tokens tick reads {tick}{note}")


def _state_file(demo: Demo) -> Path | None:
    sessions = demo.root / "state" / "sessions"
    found = sorted(sessions.glob("claude_*/runtime.json")) if sessions.is_dir() else []
    return found[0] if found else None
