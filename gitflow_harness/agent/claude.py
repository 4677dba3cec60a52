"""Claude Code hooks (docs/hooks.md).

Stdin: `session_id`, `transcript_path`, `cwd`, `hook_event_name` and per-event fields. Context
goes back as `hookSpecificOutput.additionalContext` (strings capped at 10,000 characters);
exit 2 blocks, with stderr as the message. The session reaches `gfh` verbs through an `export`
line appended to `$CLAUDE_ENV_FILE` at SessionStart, and through `CLAUDE_CODE_SESSION_ID`, which
Claude Code exports to every command it runs.

Cursor runs Claude Code's hooks too (its "Third Party Hooks"), with no Stop loop
limit. Where both hosts are installed each Cursor event would then be handled twice, and this
adapter's Stop, recording under `claude:<conversation>` while the agent's verbs record under
`cursor:<conversation>`, would never see the ritual done and block every stop. So a call made by
Cursor is answered neutrally and recorded nowhere: Cursor's own adapter handles it, once.
"""

from __future__ import annotations

import os

from gitflow_harness import jsonio
from gitflow_harness.hookcall import model as ev
from gitflow_harness.hookcall.model import Rendered
from gitflow_harness.store.session_env import host_session_id, host_variables

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from gitflow_harness.hookcall.model import Outcome

NAME = "claude"

EVENTS = {
    "SessionStart": ev.SESSION_START,
    "UserPromptSubmit": ev.PROMPT,
    "PreToolUse": ev.TOOL_PRE,
    "PostToolUse": ev.TOOL_POST,
    "PostToolUseFailure": ev.TOOL_FAILURE,
    "SubagentStart": ev.SUBAGENT_START,
    "SubagentStop": ev.SUBAGENT_STOP,
    "PreCompact": ev.COMPACT,
    "PostCompact": ev.COMPACT,
    "Stop": ev.STOP,
    "SessionEnd": ev.SESSION_END,
}

# Events whose output may carry `hookSpecificOutput.additionalContext` (Claude Code documents
# these and more; Stop and SubagentStop would keep the turn going, so gfh does not use them).
CONTEXT_EVENTS = frozenset(
    {
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "SubagentStart",
    }
)
BLOCKING_EVENTS = frozenset({"Stop", "SubagentStop"})
# The tools whose paths the `files` lane matches (the Edit, Write and Read tools). Grep,
# Glob and LS take a `path` too, but to search, not to work on a file.
FILE_TOOLS = frozenset({"Read", "Write", "Edit", "MultiEdit", "NotebookEdit"})
MAX_CONTEXT = 10_000  # Claude Code caps every output string at 10,000 characters
DEFERS = False
TOKENS = "claude"  # the transcript reader that gives this host's context position
SESSION_CHANNEL = "env_file"  # an `export GFH_SESSION=…` line in `$CLAUDE_ENV_FILE`


# How a call made by Cursor shows itself: the variables Cursor sets for every hook it runs, and
# fields of Cursor's payloads that Claude Code never sends.
CURSOR_ENVIRONMENT = ("CURSOR_VERSION", "CURSOR_PROJECT_DIR")
CURSOR_FIELDS = ("cursor_version", "conversation_id")


def parse(name: str, payload: dict[str, Any], raw: bytes) -> ev.HookEvent:
    """Turn one Claude Code payload into a `HookEvent`; one Cursor sent is not this host's."""
    if called_by_cursor(payload):
        return ev.HookEvent(NAME, name, None, payload=payload, raw=raw)  # accepted, ignored
    return ev.parse_claude_shape(NAME, EVENTS, FILE_TOOLS, name, payload, raw)


def called_by_cursor(payload: dict[str, Any]) -> bool:
    """True when Cursor, not Claude Code, ran this hook."""
    return any(os.environ.get(var) for var in CURSOR_ENVIRONMENT) or any(
        key in payload for key in CURSOR_FIELDS
    )


def delivers_session(environ: Mapping[str, str], *, exported: bool) -> bool:
    """True when the agent's commands will learn the session: through the export line gfh
    wrote to `$CLAUDE_ENV_FILE`, or through `CLAUDE_CODE_SESSION_ID`, which Claude Code
    (2.1.332) exports to every subprocess it starts — this hook's included."""
    return exported or host_session_id(environ, *host_variables(NAME)) is not None


def can_inject(name: str) -> bool:
    return name in CONTEXT_EVENTS


def render(event: ev.HookEvent, outcome: Outcome) -> Rendered:
    """Render an outcome as Claude Code expects it."""
    if outcome.block is not None and event.name in BLOCKING_EVENTS:
        reason = f"{outcome.block.reason}\n[gfh stop] rule={outcome.block.rule}"
        return Rendered(stderr=reason + "\n", code=2)
    text = outcome.context_text
    if text and can_inject(event.name):
        out = {"hookSpecificOutput": {"hookEventName": event.name, "additionalContext": text}}
        return Rendered(stdout=jsonio.dumps(out, ensure_ascii=False) + "\n")
    return Rendered()


def neutral() -> str:
    """Stdout that changes nothing, for a call that failed open."""
    return ""
