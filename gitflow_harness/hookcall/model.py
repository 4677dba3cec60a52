"""The records every adapter speaks: a `HookEvent` in, an `Outcome` out.

A `HookEvent` is what one hook call means, whichever host sent it. Payload text (prompt, tool
input and output, final messages) lives in it in memory only: nothing here is ever written. What
may be written is reduced to safe names by `name_or_none`. An `Outcome` is the host-independent
answer (context, environment, a block); each adapter's `render` turns it into that host's stdout
and exit code.
"""

from __future__ import annotations

# Ids and names that may be written: one definition, shared with the CLI's session.
from gitflow_harness.store.session_env import MAX_NAME as MAX_NAME
from gitflow_harness.store.session_env import name_or_none as name_or_none

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from gitflow_harness.hookcall.session import RuntimeState

# Event kinds: the host-independent meaning of a host event.
SESSION_START = "session_start"
PROMPT = "prompt"
TOOL_PRE = "tool_pre"
TOOL_POST = "tool_post"
TOOL_FAILURE = "tool_failure"
SUBAGENT_START = "subagent_start"
SUBAGENT_STOP = "subagent_stop"
COMPACT = "compact"
STOP = "stop"
SESSION_END = "session_end"
AGENT_RESPONSE = "agent_response"

PHASES = {TOOL_PRE: "pre", TOOL_POST: "post", TOOL_FAILURE: "failure"}

# The host events that open a compaction; the others of kind COMPACT (PostCompact) and a
# SessionStart `compact` follow one and belong to it.
COMPACT_OPENERS = frozenset({"PreCompact", "preCompact"})

# Claude Code (2.1.332) submits a background task's end, e.g. an `Agent` run it launched async,
# as a prompt that begins with this tag, at once, even in the middle of a turn (docs/ritual.md).
NOTIFICATION_MARKER = "<task-notification>"
# A prompt that begins with this marker is Cursor re-submitting a Stop remediation (docs/ritual.md).
REMEDIATION_MARKER = "[gfh:stop-remediation rule="


def text_or_none(value: object) -> str | None:
    """Return `value` if it is a string (payload text: kept in memory only), else None."""
    return value if isinstance(value, str) else None


class InvalidPayload(Exception):
    """Stdin was not one JSON object: the host sent something this runtime cannot read."""


class HookEvent:
    """One hook call, parsed. Built by an adapter's `parse`; read by the runtime and sources."""

    __slots__ = (
        "adapter",
        "agent",
        "command",
        "cwd",
        "host_session",
        "kind",
        "message",
        "model",
        "name",
        "paths",
        "payload",
        "prompt",
        "raw",
        "role",
        "source",
        "tool",
        "transcript",
    )

    def __init__(
        self,
        adapter: str,
        name: str,
        kind: str | None,
        *,
        payload: dict[str, Any],
        raw: bytes = b"",
        host_session: str | None = None,
        cwd: str | None = None,
        transcript: str | None = None,
        prompt: str | None = None,
        tool: str | None = None,
        command: str | None = None,
        paths: tuple[str, ...] = (),
        role: str | None = None,
        agent: str | None = None,
        message: str | None = None,
        source: str | None = None,
        model: str | None = None,
    ) -> None:
        self.adapter = adapter
        self.name = name  # the host's event name, as configured
        self.kind = kind  # one of the kinds above; None = accepted and ignored
        self.payload = payload
        self.raw = raw  # stdin as received: handed to postchecks on their stdin, never stored
        self.host_session = host_session
        self.cwd = cwd
        self.transcript = transcript
        self.prompt = prompt
        self.tool = tool
        self.command = command
        self.paths = paths
        self.role = role
        self.agent = agent
        self.message = message
        self.source = source
        self.model = model  # the model's name where the host says it (Claude Code: SessionStart)

    @property
    def session(self) -> str | None:
        """The correlated session, `<adapter>:<host session id>`, or None."""
        return f"{self.adapter}:{self.host_session}" if self.host_session else None

    @property
    def phase(self) -> str | None:
        return PHASES.get(self.kind or "")

    @property
    def stop_remediation(self) -> bool:
        return self.prompt is not None and self.prompt.startswith(REMEDIATION_MARKER)

    @property
    def task_notification(self) -> bool:
        """True for a prompt that is Claude Code telling the agent a background task ended."""
        return (
            self.adapter == "claude"
            and self.prompt is not None
            and self.prompt.lstrip().startswith(NOTIFICATION_MARKER)
        )

    def __repr__(self) -> str:  # never show payload text, even in a debugger
        return f"HookEvent({self.adapter}:{self.name}, kind={self.kind}, session={self.session})"


def tool_facts(tool_input: object, tool: str | None = None) -> tuple[str | None, tuple[str, ...]]:
    """Return the shell command and the file paths a tool's input names."""
    command, paths, _ = patch_aware_facts(tool_input, tool)
    return command, paths


def patch_aware_facts(
    tool_input: object, tool: str | None = None
) -> tuple[str | None, tuple[str, ...], bool]:
    """Return the shell command, the file paths, and whether the input is a patch.

    A patch (Codex's `apply_patch`, named by its tool or recognised by its `*** Begin Patch`
    envelope, also when a shell runs `apply_patch` on one) names files and runs no command: its
    body is file content, which a `commands` lane must not read as a shell command.
    """
    if not isinstance(tool_input, dict):
        return None, (), False
    command = tool_input.get("command")
    parts: list[str] = []
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        parts = command
        command = " ".join(command)
    paths: list[str] = []
    for key in ("file_path", "notebook_path", "path", "target_file"):
        value = tool_input.get(key)
        if isinstance(value, str) and value and "\n" not in value:
            paths.append(value)
    patch = tool == PATCH_TOOL
    # Where a patch may be: anywhere in `apply_patch`'s input; else the command (or its words)
    # and `input` (the freeform tool's shape), never a field of file content or a description.
    where = tool_input.values() if patch else [command, tool_input.get("input"), *parts]
    for value in where:
        if isinstance(value, str) and is_patch(value):
            paths.extend(patch_paths(value))
            patch = True
    if patch or not isinstance(command, str):
        command = None
    return command, tuple(dict.fromkeys(paths)), patch


PATCH_TOOL = "apply_patch"
PATCH_BEGIN = "*** Begin Patch"


def is_patch(text: str) -> bool:
    """True when `text` is a patch envelope, or `apply_patch` run on one (a shell heredoc)."""
    head = text.lstrip()
    if head.startswith(PATCH_BEGIN):
        return True
    return (
        head.startswith(PATCH_TOOL)
        and head[len(PATCH_TOOL) : len(PATCH_TOOL) + 1].isspace()
        and any(line.strip() == PATCH_BEGIN for line in head.splitlines())
    )


_PATCH_PREFIXES = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")


def patch_paths(patch: str) -> list[str]:
    """Return the files an `apply_patch` envelope (Codex) adds, updates, deletes or moves to."""
    out = []
    for line in patch.splitlines():
        for prefix in _PATCH_PREFIXES:
            if line.startswith(prefix):
                out.append(line.removeprefix(prefix).strip())
    return [p for p in out if p]


def first_str(payload: dict[str, Any], *keys: str) -> str | None:
    """Return the first of `keys` whose value is a string."""
    for key in keys:
        value = payload.get(key)
        if isinstance(value, str):
            return value
    return None


def parse_claude_shape(
    adapter: str,
    events: dict[str, str],
    file_tools: frozenset[str],
    name: str,
    payload: dict[str, Any],
    raw: bytes,
) -> HookEvent:
    """Turn a payload shaped as Claude Code sends it into a `HookEvent`.

    Codex hooks use Claude Code's field names, so one parser serves both; each
    adapter brings its event names and the tools whose paths feed the files lane.
    """
    kind = events.get(name)
    tool = name_or_none(payload.get("tool_name"))
    command, paths, patch = patch_aware_facts(payload.get("tool_input"), tool)
    if tool not in file_tools and not patch:
        paths = ()
    message = None
    if kind in (SUBAGENT_STOP, STOP):
        message = text_or_none(payload.get("last_assistant_message"))
    return HookEvent(
        adapter,
        name,
        kind,
        payload=payload,
        raw=raw,
        host_session=name_or_none(payload.get("session_id")),
        cwd=text_or_none(payload.get("cwd")),
        transcript=text_or_none(payload.get("transcript_path")),
        prompt=text_or_none(payload.get("prompt")) if kind == PROMPT else None,
        tool=tool,
        command=command,
        paths=paths,
        role=name_or_none(payload.get("agent_type")),
        agent=name_or_none(payload.get("agent_id")),
        message=message,
        source=name_or_none(payload.get("source") if kind == SESSION_START else None),
        model=name_or_none(payload.get("model")),
    )


class Offer:
    """A piece of context a source wants delivered at this event.

    `way` names the way it comes from (None for other context: a hint, a lessons index). For a
    way, `fired` is the `way.fired` data (without `way`) recorded once the text was written in
    full; `first` gives it priority under the budget. Under the session lock, just before
    delivery, `check(state)` may withdraw it against the freshest state (a parallel hook call
    may have fired it a moment ago); `commit(state)` runs only after its text was delivered,
    and `cut(state)` when the budget left it out. A way's offer that `check` withdraws is
    recorded as `way.suppressed` with `reason` (set by `check`: the gate's reason at that
    moment), its `fired` data updated to what was decided.
    """

    __slots__ = ("check", "commit", "cut", "fired", "first", "reason", "source", "text", "way")

    def __init__(
        self,
        text: str,
        *,
        way: str | None = None,
        fired: dict[str, Any] | None = None,
        first: bool = True,
        check: Callable[[RuntimeState], bool] | None = None,
        commit: Callable[[RuntimeState], None] | None = None,
        cut: Callable[[RuntimeState], None] | None = None,
    ) -> None:
        self.text = text
        self.way = way
        self.fired = fired
        self.first = first
        self.check = check
        self.commit = commit
        self.cut = cut
        self.source = ""  # the source that offered it (set by the runtime)
        self.reason: str | None = None  # why `check` withdrew it: `salience` or `refractory`

    @property
    def trigger(self) -> str | None:
        trigger = (self.fired or {}).get("trigger")
        return trigger if isinstance(trigger, str) else None

    def __repr__(self) -> str:
        return f"Offer(way={self.way!r}, chars={len(self.text)}, first={self.first})"


class Block:
    """A refusal to let the agent stop: the rule that failed and how to repair it.

    See docs/ritual.md.
    """

    __slots__ = ("reason", "rule")

    def __init__(self, rule: str, reason: str) -> None:
        self.rule = rule
        self.reason = reason


class Outcome:
    """The answer to one hook call."""

    __slots__ = ("block", "context", "env")

    def __init__(self) -> None:
        self.context: list[str] = []  # texts delivered, in order
        self.env: dict[str, str] = {}  # session-start environment (Cursor)
        self.block: Block | None = None

    @property
    def context_text(self) -> str:
        return CONTEXT_SEPARATOR.join(self.context)


CONTEXT_SEPARATOR = "\n\n"


class Rendered:
    """One outcome in a host's terms: stdout text, stderr text and exit code."""

    __slots__ = ("code", "stderr", "stdout")

    def __init__(self, stdout: str = "", stderr: str = "", code: int = 0) -> None:
        self.stdout = stdout
        self.stderr = stderr
        self.code = code

    def __repr__(self) -> str:
        return f"Rendered(code={self.code}, stdout={self.stdout!r}, stderr={self.stderr!r})"
