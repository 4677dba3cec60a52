"""Demo chapter: `gfh init`, then a scripted Claude Code session piped through `gfh hook`.

Three ways of the chapter's own, with short curves so a few prompts show them at work: a prompt
and files way that fires, stays quiet while its text is fresh, and fires again once it faded; a
postcheck way that speaks up after a failed test run; a roles way for reviewer subagents. The
transcript grows between the hook calls, so the tokens tick moves as it would in a session.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitflow_harness.demo import Demo

if TYPE_CHECKING:
    from gitflow_harness.hookcall.session import RuntimeState

SESSION = "5d0c2a4e-demo"

WAYS = {
    "demo/parser-notes": (
        "---\n"
        "description: What the parser is touchy about\n"
        "when:\n"
        "  keywords: [parser]\n"
        "  files: ['src/**/*.py']\n"
        "# A short half-life for the demo: present for ~5000 tokens, back once it has faded.\n"
        "curve: {type: Exponential, half_life: 5000}\n"
        "---\n"
        "# Parser notes\n\n"
        "The parser splits on `---` lines: keep a CRLF case in its tests.\n",
        None,
    ),
    "demo/red-tests": (
        "---\n"
        "description: After a failed command, read the first failure before changing code\n"
        "curve: {type: Exponential, half_life: 4000}\n"
        "---\n"
        "Read the first failure in full before you change anything; rerun only that test.\n",
        "#!/bin/sh\n"
        "# Fires after a tool call that failed (the hook payload arrives on stdin).\n"
        'grep -q \'"hook_event_name": "PostToolUseFailure"\'\n',
    ),
    "demo/review-checklist": (
        "---\n"
        "description: What every reviewer checks\n"
        "roles: [reviewer]\n"
        "curve: {type: Flat, suppression: 0}\n"
        "---\n"
        "Review checklist: tests name the behaviour; no payload text reaches a file.\n",
        None,
    ),
}


def run(demo: Demo) -> None:
    demo.section("gfh init: wire the agents' hooks into the repository")
    demo.gfh("init", "--adapter", "claude", "--adapter", "cursor", "--adapter", "codex")
    settings = json.loads((demo.repo / ".claude" / "settings.json").read_text(encoding="utf-8"))
    demo.say(f".claude/settings.json now runs gfh at: {', '.join(settings['hooks'])}")
    demo.gfh("init", "--adapter", "claude", show=False)
    demo.say("a second `gfh init` changes nothing (it only ever adds what is missing)")
    _add_ways(demo)

    demo.section("A Claude Code session, payload by payload, through `gfh hook claude …`")
    transcript = demo.root / "transcript.jsonl"
    transcript.write_text("", encoding="utf-8")
    env_file = demo.root / "claude-env.sh"
    session = _Session(demo, transcript, {"CLAUDE_ENV_FILE": str(env_file)})
    parser = str(demo.repo / "src" / "parser.py")
    session.send("SessionStart", source="startup", model="claude-sonnet-4-6")
    demo.say(f"$CLAUDE_ENV_FILE now holds: {env_file.read_text(encoding='utf-8').strip()}")
    session.grow("msg_01", 18000)
    session.send("UserPromptSubmit", prompt="fix the parser and run the tests")
    session.send(
        "PostToolUse",
        tool_name="Write",
        tool_use_id="toolu_1",
        tool_input={"file_path": parser, "content": "..."},
        tool_response={"filePath": parser, "success": True},
    )
    session.grow("msg_02", 21000)
    session.send(
        "PostToolUse",
        tool_name="Edit",
        tool_use_id="toolu_2",
        tool_input={"file_path": parser, "old_string": "a", "new_string": "b"},
        tool_response={"filePath": parser},
    )
    session.grow("msg_03", 24500)
    session.send(
        "PostToolUseFailure",
        tool_name="Bash",
        tool_use_id="toolu_3",
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
    session.grow("msg_04", 31000)
    session.send("UserPromptSubmit", prompt="the parser still fails on CRLF input")
    session.send("PreCompact", trigger="auto", custom_instructions="")
    with open(transcript, "a", encoding="utf-8") as out:
        out.write(json.dumps({"type": "system", "subtype": "compact_boundary", "uuid": "cb"}))
        out.write("\n")
    session.show_tick("compact_boundary written: position unknown until the next response")
    session.send("SessionStart", source="compact")
    session.grow("msg_05", 9000)
    session.send("UserPromptSubmit", prompt="now the CRLF case in the parser")

    demo.say("")
    demo.say("What the log kept — names, counts and a verdict; no prompt, no tool input:")
    demo.gfh("events", "tail", "-n", "8")
    demo.gfh("ways", "list")
    state = _state_file(demo)
    if state is not None:
        data = json.loads(state.read_text(encoding="utf-8"))
        demo.say(
            f"session state ({state.parent.name}): turns={data.get('turns')}, "
            f"compaction epoch={data.get('epoch')}, ways engaged={sorted(data.get('ways', {}))}"
        )


def _add_ways(demo: Demo) -> None:
    for way_id, (text, postcheck) in WAYS.items():
        demo.write(f"hooks/ways/{way_id}/{way_id.rsplit('/', 1)[-1]}.md", text)
        if postcheck is not None:
            script = demo.write(f"hooks/ways/{way_id}/postcheck.sh", postcheck)
            script.chmod(0o755)
    demo.git("add", "-A")
    demo.git("commit", "-q", "-m", "Wire the agent hooks; the chapter's ways")
    demo.say(
        f"wrote and committed {len(WAYS)} ways: {', '.join(WAYS)} "
        "(a postcheck runs only once git tracks it at HEAD)"
    )


class _Session:
    """Sends Claude Code-shaped payloads for one session and grows its transcript."""

    def __init__(self, demo: Demo, transcript: Path, env: dict[str, str]) -> None:
        self.demo = demo
        self.transcript = transcript
        self.env = env
        self.ticks: RuntimeState = {}  # what a way's `tokens` tick reads, step by step
        self.seen = len(_decisions(demo))

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
        out = proc.stdout.strip()
        context = json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else None
        if context is None:
            self.demo.say(f"{event:<19} exit {proc.returncode}  (no output)")
        else:
            self.demo.say(
                f"{event:<19} exit {proc.returncode}  additionalContext ({len(context)} chars):"
            )
            for line in context.splitlines():
                self.demo.say(f"{'':<19}   | {line}" if line else f"{'':<19}   |")
        decisions = _decisions(self.demo)
        for data, fired in decisions[self.seen :]:
            self.demo.say(f"{'':<19}   {_describe(data, fired)}")
        self.seen = len(decisions)

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


def _decisions(demo: Demo) -> list[tuple[dict[str, Any], bool]]:
    """Every `way.fired` (True) and `way.suppressed` (False) in the log, in order."""
    from gitflow_harness.store.events import EventLog

    log = EventLog(demo.repo / ".git")
    return [
        (e.data, e.type == "way.fired")
        for e in log.read()
        if e.type in ("way.fired", "way.suppressed") and e.session == f"claude:{SESSION}"
    ]


def _describe(data: dict[str, Any], fired: bool) -> str:
    salience = f"salience {data['salience']:.2f}"
    what = f"{data['way']} ({data['trigger']}, tick {data['tick']}, {salience})"
    if fired:
        return f"fired      {what}: {data['kind']}"
    return f"suppressed {what}: {data['reason']}"


def _state_file(demo: Demo) -> Path | None:
    sessions = demo.root / "state" / "sessions"
    found = sorted(sessions.glob("claude_*/runtime.json")) if sessions.is_dir() else []
    return found[0] if found else None
