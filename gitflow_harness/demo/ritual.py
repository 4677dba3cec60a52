"""Demo chapter: the end-of-turn ritual at Stop on Claude Code, Cursor and Codex."""

from __future__ import annotations

import json
from typing import Any

from gitflow_harness.demo import Demo

CLAUDE = "ritual-claude-1"
CURSOR = "ritual-cursor-1"
CODEX = "ritual-codex-1"


def run(demo: Demo) -> None:
    demo.section("The end-of-turn ritual: Claude Code forgets the box, is blocked, repairs")
    claude = _Host(demo, "claude", CLAUDE)
    claude.send("UserPromptSubmit", prompt="tidy the parser")
    claude.send("PostToolUse", tool_name="Edit", tool_input={"file_path": "src/parser.py"})
    box = claude.agent("status", "--end-turn").stdout.split("\nhint:")[0]
    claude.agent("task", "set", "tidy the parser")
    claude.send("Stop", last_assistant_message="Tidied the parser.", stop_hook_active=False)
    demo.say("The agent repairs: it shows the box in its reply, and Claude Code stops.")
    claude.send("Stop", last_assistant_message=f"Tidied.\n{box}", stop_hook_active=True)

    demo.section("Cursor: the Stop asks for a follow-up turn, which repairs it")
    cursor = _Host(demo, "cursor", CURSOR)
    cursor.send("beforeSubmitPrompt", prompt="run the tests")
    cursor.send("postToolUse", tool_name="Shell", tool_input={"command": "pytest -q"})
    cursor.agent("task", "set", "run the tests")
    cursor.send("afterAgentResponse", text="All green.")
    answer = cursor.send("stop", status="completed", loop_count=0)
    followup = json.loads(answer).get("followup_message", "")
    demo.say("Cursor submits the follow-up as the next prompt; gfh marks it a remediation turn.")
    cursor.send("beforeSubmitPrompt", prompt=followup)
    box = cursor.agent("status", "--end-turn").stdout.split("\nhint:")[0]
    cursor.send("afterAgentResponse", text=box)
    cursor.send("stop", status="completed", loop_count=1)

    demo.section("Codex only observes: the verdict it would have given is recorded")
    codex = _Host(demo, "codex", CODEX)
    codex.send("UserPromptSubmit", prompt="fix the failing test")
    codex.send("PostToolUse", tool_name="Bash", tool_input={"command": "pytest -q"})
    codex.send("Stop", last_assistant_message="Fixed.", stop_hook_active=False)
    demo.gfh("report", "--format", "markdown")


class _Host:
    """Sends one host's payloads for one session, as that host shapes them."""

    def __init__(self, demo: Demo, adapter: str, session: str) -> None:
        self.demo = demo
        self.adapter = adapter
        self.session = session

    def payload(self, event: str, fields: dict[str, Any]) -> dict[str, Any]:
        root = str(self.demo.repo)
        if self.adapter == "cursor":
            base: dict[str, Any] = {
                "conversation_id": self.session,
                "generation_id": "g-1",
                "model": "gpt-5",
                "workspace_roots": [root],
                "transcript_path": None,
            }
        else:
            base = {"session_id": self.session, "transcript_path": None, "cwd": root}
            if self.adapter == "codex":
                base.update(turn_id="t-1", model="gpt-5-codex", permission_mode="default")
        return {**base, "hook_event_name": event, **fields}

    def send(self, event: str, **fields: Any) -> str:
        proc = self.demo.gfh(
            "hook", self.adapter, event, stdin=json.dumps(self.payload(event, fields)), show=False
        )
        self.demo.say(f"{self.adapter} {event:<19} exit {proc.returncode}")
        for stream in (proc.stdout, proc.stderr):
            for line in stream.strip().splitlines():
                self.demo.say(f"    {line}")
        return proc.stdout

    def agent(self, *args: str) -> Any:
        """Run a gfh command as the agent does: with the session in its environment."""
        return self.demo.gfh(*args, env={"GFH_SESSION": f"{self.adapter}:{self.session}"})
