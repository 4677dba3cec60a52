"""Evidence events: what the hooks record about a session (docs/events.md).

`turn.started`, `tool.requested`, `subagent.started`, `subagent.stopped`. Nothing else from a
payload is written: names and ids pass `event.name_or_none`, a subagent's final message is reduced
to a declared verdict token, a prompt to one boolean. `subagent.stopped` carries the model when
the host names it: Codex and Cursor on every event, Claude Code only at SessionStart, so the
session state keeps that one (learning compares rounds on the same model).
"""

from __future__ import annotations

from gitflow_harness.hookcall import model as ev

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from gitflow_harness.agent.context import HookContext
    from gitflow_harness.hookcall.settings import HookConfig

# Verdicts that say the work passed. They are declared here because they send nothing back;
# the ones that do are declared in the configuration (`learning.loop_back`, `graph.loops`).
MODEL: Final = "model"  # the session state's key for the model named at session start

AFFIRMATIVE = frozenset({"PASS", "PASSED", "APPROVED", "ACCEPTED", "OK", "DONE"})

# The token is `store.config.VERDICT_TOKEN`'s grammar, written out here so the hook path does not
# import the configuration schema (a test keeps the two equal). `verdict_token` reads a first line
# by it without `re` (tests compare the two on generated lines).
_VERDICT = r"VERDICT:[ \t]*([A-Za-z][A-Za-z_-]{0,31})[ \t]*\.?[ \t]*"
_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_TOKEN = _LETTERS | frozenset("_-")


def record(ctx: HookContext) -> None:
    """Record the evidence this event carries, and keep the session's turn count."""
    event = ctx.event
    kind = event.kind
    if kind == ev.SESSION_START and event.source != "compact":  # a compaction is mid-turn
        _close_turn(ctx)
    if kind == ev.PROMPT:
        _start_turn(ctx)
    elif kind in ev.PHASES:
        ctx.record("tool.requested", {"tool": event.tool, "phase": event.phase})
    elif kind == ev.SUBAGENT_START:
        ctx.record("subagent.started", {"role": event.role, "agent": event.agent})
    elif kind == ev.SUBAGENT_STOP:
        ctx.record(
            "subagent.stopped",
            {
                "role": event.role,
                "agent": event.agent,
                "verdict": verdict_of(ctx),
                "model": model_of(ctx),
            },
        )
    elif kind == ev.SESSION_END:
        # A turn still blocked when its session ends was ended by the host, unrepaired.
        _close_turn(ctx)
        ctx.record("session.ended", {"reason": ev.name_or_none(event.payload.get("reason"))})
    elif (
        kind == ev.SESSION_START
        and event.model is not None
        and ctx.store is not None
        and ctx.state.get(MODEL) != event.model
    ):
        # Claude Code names the model at SessionStart only: keep it for the session's rounds.
        with ctx.store.update() as state:
            state[MODEL] = event.model
        ctx.forget_snapshot()


def _start_turn(ctx: HookContext) -> None:
    """Count the turn and record its `turn.started`, keeping where that line landed in the log
    (under the session lock, so the count and the place agree) for the turn's Stop."""
    event = ctx.event
    if ctx.store is None:
        ctx.record("turn.started", {"turn": None, "stop_remediation": event.stop_remediation})
        return
    from gitflow_harness.hookcall.session import (
        TURN_START,
        bump_turn,
        forget_reply,
        open_turn,
        remember_turn_start,
    )

    failure: BaseException | None = None
    with ctx.store.update() as state:
        # A background task's notification in the middle of a turn is part of that turn: its
        # Stop is still to come, and what the turn did before counts.
        if event.task_notification and open_turn(state) is not None:
            return
        turn = bump_turn(state)
        forget_reply(state)
        try:
            landed = ctx.record(
                "turn.started", {"turn": turn, "stop_remediation": event.stop_remediation}
            )
        except BaseException as exc:  # the turn still counts: the state is saved, then it goes on
            failure = exc
            state.pop(TURN_START, None)
        else:
            remember_turn_start(state, landed)
    ctx.forget_snapshot()
    if failure is not None:
        raise failure


def model_of(ctx: HookContext) -> str | None:
    """Return the model the host names for this event, else the one its session started with."""
    if ctx.event.model is not None:
        return ctx.event.model
    stored = ctx.state.get(MODEL)
    return ev.name_or_none(stored)


def verdict_of(ctx: HookContext) -> str | None:
    """Return the declared verdict token the subagent's final message opens with, or None."""
    token = verdict_token(ctx.event.message)
    if token is None:
        return None
    return token if token in declared_verdicts(ctx.config()) else None


def verdict_token(message: str | None) -> str | None:
    """Return X from a first line `VERDICT: X`, upper-cased, or None."""
    if not message:
        return None
    first = message.lstrip("\ufeff \t\r\n").split("\n", 1)[0].rstrip("\r")
    if not first.startswith("VERDICT:"):
        return None
    token = first[len("VERDICT:") :].strip(" \t")
    if token.endswith("."):
        token = token[:-1].rstrip(" \t")
    if 0 < len(token) <= 32 and token[0] in _LETTERS and _TOKEN.issuperset(token):
        return token.upper()
    return None


def declared_verdicts(config: HookConfig) -> frozenset[str]:
    """Return every verdict token the configuration and the affirmative set declare."""
    tokens = set(AFFIRMATIVE)
    learning = config.get("learning")
    if isinstance(learning, dict):
        tokens.update(t for t in learning.get("loop_back", ()) if isinstance(t, str))
    graph = config.get("graph")
    loops = graph.get("loops") if isinstance(graph, dict) else None
    if isinstance(loops, dict):
        for verdicts in loops.values():
            if isinstance(verdicts, dict):
                tokens.update(v for v in verdicts if isinstance(v, str))
    return frozenset(tokens)


def _close_turn(ctx: HookContext) -> None:
    """No turn of the session is open any more: a notification that comes later is a turn of
    its own, not part of one a user interrupted (Claude Code runs no Stop then)."""
    if ctx.store is None:
        return
    from gitflow_harness.hookcall.session import close_turn, open_turn

    if open_turn(ctx.state) is None:
        return
    with ctx.store.update() as state:
        close_turn(state)
    ctx.forget_snapshot()
