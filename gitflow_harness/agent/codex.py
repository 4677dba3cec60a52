"""OpenAI Codex CLI hooks (docs/hooks.md).

Stdin: `session_id`, `turn_id`, `transcript_path` (the rollout file, may be null), `cwd`,
`hook_event_name`, `model`, `permission_mode` and per-event fields. Context goes back in
`hookSpecificOutput.additionalContext` at every event whose lanes match: Codex documents it for
SessionStart and PreToolUse, and 0.171.0 delivers it from UserPromptSubmit and PostToolUse as
well, so nothing has to wait for a later event. Never `env`: 0.171.0 marks a SessionStart answer
that has it "Failed" and drops its context. The session reaches `gfh` verbs through
`CODEX_SESSION_ID`, which Codex exports to every command it runs (not to its hooks). Codex is
observe-only at Stop (docs/ritual.md): a continuation could replace the agent's answer, so this
adapter never renders a block.
"""

from __future__ import annotations

from gitflow_harness import jsonio
from gitflow_harness.hookcall import model as ev
from gitflow_harness.hookcall.model import Rendered

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from gitflow_harness.hookcall.model import Outcome

NAME = "codex"

EVENTS = {
    "SessionStart": ev.SESSION_START,
    "UserPromptSubmit": ev.PROMPT,
    "PreToolUse": ev.TOOL_PRE,
    "PostToolUse": ev.TOOL_POST,
    "SubagentStart": ev.SUBAGENT_START,
    "SubagentStop": ev.SUBAGENT_STOP,
    "PreCompact": ev.COMPACT,
    "PostCompact": ev.COMPACT,
    "Stop": ev.STOP,
}

# Events whose output carries `hookSpecificOutput.additionalContext` to the model: the two Codex
# documents, and the two 0.171.0 was seen to deliver (a developer message after the prompt, and
# one before the tool's output).
CONTEXT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"})
# The tools whose paths the `files` lane matches: Codex edits files through `apply_patch` (its
# patch names them); a shell command's paths are not read.
FILE_TOOLS = frozenset({"apply_patch"})
MAX_CONTEXT = 10_000
DEFERS = False  # every event with lanes has a channel: nothing waits
TOKENS = "codex"  # the rollout's `token_count` events give the context position
SESSION_CHANNEL = None  # gfh puts nothing into the environment: Codex exports its own id


def parse(name: str, payload: dict[str, Any], raw: bytes) -> ev.HookEvent:
    """Turn one Codex payload into a `HookEvent`."""
    return ev.parse_claude_shape(NAME, EVENTS, FILE_TOOLS, name, payload, raw)


def delivers_session(environ: Mapping[str, str], *, exported: bool) -> bool:
    """True: Codex (0.171.0) exports `CODEX_SESSION_ID` to every command the agent runs, but
    not to its hooks, so nothing a hook can see says otherwise (docs/hooks.md)."""
    return True


def can_inject(name: str) -> bool:
    return name in CONTEXT_EVENTS


def render(event: ev.HookEvent, outcome: Outcome) -> Rendered:
    """Render an outcome as Codex expects it."""
    specific: dict[str, Any] = {}
    text = outcome.context_text
    if text and can_inject(event.name):
        specific["additionalContext"] = text
    if not specific:
        return Rendered()
    out = {"hookSpecificOutput": {"hookEventName": event.name, **specific}}
    return Rendered(stdout=jsonio.dumps(out, ensure_ascii=False) + "\n")


def neutral() -> str:
    return ""
