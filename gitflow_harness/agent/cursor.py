"""Cursor hooks (docs/hooks.md).

Stdin: `conversation_id`, `generation_id`, `workspace_roots[]`, `hook_event_name` and snake_case
per-event fields. Stdout is always one JSON object; exit 0. Context goes back as
`additional_context` only where Cursor documents it: `sessionStart`. Everywhere else
(`beforeSubmitPrompt`, `postToolUse`, `postToolUseFailure`, `subagentStart`) what the main
agent's lanes match waits, as way ids, for the session's next event that can carry it. The
session reaches `gfh` verbs through `sessionStart`'s `env`. A Stop block is a
`followup_message` beginning with the remediation marker, which the next `beforeSubmitPrompt`
recognises.
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

NAME = "cursor"

EVENTS = {
    "sessionStart": ev.SESSION_START,
    "beforeSubmitPrompt": ev.PROMPT,
    "preToolUse": ev.TOOL_PRE,
    "postToolUse": ev.TOOL_POST,
    "postToolUseFailure": ev.TOOL_FAILURE,
    "subagentStart": ev.SUBAGENT_START,
    "subagentStop": ev.SUBAGENT_STOP,
    "preCompact": ev.COMPACT,
    "stop": ev.STOP,
    "sessionEnd": ev.SESSION_END,
    "afterAgentResponse": ev.AGENT_RESPONSE,
}

# Events whose output may carry `additional_context` (as Cursor documents). A channel the host
# documents later is one more name here.
CONTEXT_EVENTS = frozenset({"sessionStart"})
BLOCKING_EVENTS = frozenset({"stop"})
# The tools whose paths the `files` lane matches: Cursor's read and edit tools. Grep,
# Glob and the like take a path too, but to search, not to work on a file.
FILE_TOOLS = frozenset({"Read", "Write", "Edit", "StrReplace"})
MAX_CONTEXT = 10_000
DEFERS = True  # what the main agent's lanes match waits for the next event that can carry it
TOKENS = None  # Cursor reports no context position to hooks: ways use the `turns` axis
SESSION_CHANNEL = "env"  # `GFH_SESSION` goes out in sessionStart's documented `env`


def parse(name: str, payload: dict[str, Any], raw: bytes) -> ev.HookEvent:
    """Turn one Cursor payload into a `HookEvent`."""
    kind = EVENTS.get(name)
    tool = ev.name_or_none(payload.get("tool_name"))
    command, paths = ev.tool_facts(payload.get("tool_input"))
    if tool not in FILE_TOOLS:
        paths = ()
    if kind in (ev.TOOL_PRE, ev.TOOL_POST, ev.TOOL_FAILURE) and command is None:
        command = ev.text_or_none(payload.get("command"))
    message = None
    if kind == ev.SUBAGENT_STOP:
        message = ev.text_or_none(payload.get("result"))
    elif kind == ev.AGENT_RESPONSE:
        message = ev.text_or_none(payload.get("text"))
    roots = payload.get("workspace_roots")
    cwd = ev.text_or_none(payload.get("cwd"))
    if cwd is None and isinstance(roots, list) and roots:
        cwd = ev.text_or_none(roots[0])
    session = ev.name_or_none(payload.get("conversation_id")) or ev.name_or_none(
        payload.get("session_id")
    )
    return ev.HookEvent(
        NAME,
        name,
        kind,
        payload=payload,
        raw=raw,
        host_session=session,
        cwd=cwd,
        transcript=ev.text_or_none(payload.get("transcript_path")),
        prompt=ev.text_or_none(payload.get("prompt")) if kind == ev.PROMPT else None,
        tool=tool,
        command=command,
        paths=paths,
        role=ev.name_or_none(payload.get("subagent_type")),
        agent=ev.name_or_none(payload.get("subagent_id")),
        message=message,
        source=None,
        model=ev.name_or_none(payload.get("model")),
    )


def delivers_session(environ: Mapping[str, str], *, exported: bool) -> bool:
    """True when the agent's commands will learn the session: always, through the `env` that
    Cursor documents for sessionStart."""
    return True


def can_inject(name: str) -> bool:
    return name in CONTEXT_EVENTS


def render(event: ev.HookEvent, outcome: Outcome) -> Rendered:
    """Render an outcome as Cursor expects it: always one JSON object, exit 0."""
    out: dict[str, Any] = {}
    if outcome.block is not None and event.name in BLOCKING_EVENTS:
        out["followup_message"] = (
            f"{ev.REMEDIATION_MARKER}{outcome.block.rule}]\n{outcome.block.reason}"
        )
    if outcome.env and event.name == "sessionStart":
        out["env"] = dict(outcome.env)
    text = outcome.context_text
    if text and can_inject(event.name):
        out["additional_context"] = text
    return Rendered(stdout=jsonio.dumps(out, ensure_ascii=False) + "\n")


def neutral() -> str:
    return "{}\n"
