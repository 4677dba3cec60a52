"""The hook points: what each kind of event consults, and the lanes it opens.

Context sources and stop checks are named as `"module:function"` and imported only when an
event of their kind runs, so a PostToolUse never imports what SessionStart needs.

A context source is `source(ctx: HookContext) -> Iterable[Offer]`. It runs without the session
lock; what it offers is re-checked, budgeted, delivered and committed by the runtime under the
lock (see `delivery`). A stop check is `check(ctx: HookContext) -> Block | None`.

What plugs in here (docs/hooks.md, docs/ritual.md, docs/learning.md):
- the ways firing engine (`ways.firing`), one source for every lane below: `prompt` and
  `keywords` at a prompt; `files`, `commands` and `postcheck` after a tool; `postcheck` after a
  failed tool; `session_start` at session start; `roles` at subagent start; and before a tool,
  what waits for a host's channel;
- the workflow's `ensure` (`ensure_source`), whose hint SessionStart delivers first;
- the role's lessons index (`lessons_source`), injected at subagent start after the ways;
- the end-of-turn ritual (`ritual.hook`), a stop check at `stop` (and its `agent_response`
  reduction on Cursor).
"""

from __future__ import annotations

from gitflow_harness.hookcall import model as ev

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# Lanes each kind opens for the ways engine (docs/ways.md). PreToolUse opens none on purpose: one
# anchor lost every PreToolUse injection to a malformed envelope, and guidance is most useful
# next to the result of the action. It consults the ways source all the same, to deliver what
# waits where a host's only mid-session channel is PreToolUse (Codex).
LANES: dict[str, frozenset[str]] = {
    ev.PROMPT: frozenset({"prompt", "keywords"}),
    ev.TOOL_POST: frozenset({"files", "commands", "postcheck"}),
    ev.TOOL_FAILURE: frozenset({"postcheck"}),
    ev.SESSION_START: frozenset({"session_start"}),
    ev.SUBAGENT_START: frozenset({"roles"}),
}

WAYS = "gitflow_harness.ways.firing:source"
ENSURE = "gitflow_harness.agent.ensure_source:source"
LESSONS = "gitflow_harness.agent.lessons_source:source"

# kind -> context sources, in delivery order.
CONTEXT_SOURCES: dict[str, tuple[str, ...]] = {
    ev.SESSION_START: (ENSURE, WAYS),  # the workflow `ensure` hint; then session_start ways
    ev.PROMPT: (WAYS,),  # ways: prompt, keywords
    ev.TOOL_PRE: (WAYS,),  # ways: only what waits for a channel (a host that defers)
    ev.TOOL_POST: (WAYS,),  # ways: files, commands, postcheck
    ev.TOOL_FAILURE: (WAYS,),  # ways: postcheck
    ev.SUBAGENT_START: (WAYS, LESSONS),  # ways: roles; then the role's lessons index
}

# kind -> stop checks; the first Block wins.
STOP_CHECKS: dict[str, tuple[str, ...]] = {
    ev.STOP: ("gitflow_harness.ritual.hook:stop",),  # the end-of-turn ritual
    # Cursor: reduce the reply to booleans for the coming stop
    ev.AGENT_RESPONSE: ("gitflow_harness.ritual.hook:agent_response",),
}


def resolve(spec: str) -> Callable[..., Any]:
    """Import `"module:function"` and return the function."""
    module_name, _, attr = spec.partition(":")
    from gitflow_harness import import_module

    function = getattr(import_module(module_name), attr)
    if not callable(function):
        raise TypeError(f"{spec} is not callable")
    return function  # type: ignore[no-any-return]


def context_sources(kind: str) -> tuple[str, ...]:
    return CONTEXT_SOURCES.get(kind, ())


def stop_checks(kind: str) -> tuple[str, ...]:
    return STOP_CHECKS.get(kind, ())
