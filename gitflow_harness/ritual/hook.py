"""Stop checks: the end-of-turn ritual at Stop, and Cursor's reply reduction (docs/ritual.md).

The reply text is reduced to booleans here, in memory, and dropped: `turn.completed` and the
session state only ever hold observations.
"""

from __future__ import annotations

from gitflow_harness.hookcall import model as ev
from gitflow_harness.hookcall.session import REPLY as REPLY_KEY

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gitflow_harness.agent.context import HookContext
    from gitflow_harness.hookcall.settings import HookConfig

CLOUD_PREFIX = "bc-"  # Cursor background (cloud) agents: their tools do not reach hooks
UNREADABLE = "payload_unreadable"  # the reason of a Stop whose stdin was not a JSON object


def stop(ctx: HookContext) -> ev.Block | None:
    """Record the turn's end and evaluate the ritual; a Block when the adapter enforces it.

    Whatever goes wrong on the way, a `stop.verdict` with `decision: fail_open` is recorded
    before the error reaches the runtime's fail-open boundary: the report counts every Stop.
    """
    if ctx.repo is None:
        return None  # outside a repository there is no log to read or record to
    from gitflow_harness.hookcall.budget import BudgetExceeded

    try:
        return _stop(ctx)
    except (Exception, BudgetExceeded) as exc:  # a Stop past the call's budget counts too
        _record_failure(ctx, exc)
        raise


def _stop(ctx: HookContext) -> ev.Block | None:
    from gitflow_harness.ritual.evidence import box_observations
    from gitflow_harness.ritual.stop import conclude_turn
    from gitflow_harness.store.events import EventLog

    assert ctx.repo is not None
    event = ctx.event
    interrupted = None
    continued = False
    if event.adapter == "cursor":
        reply = _consume_cursor_reply(ctx)
        unsupported = (
            "tool_hooks"
            if event.host_session is not None and event.host_session.startswith(CLOUD_PREFIX)
            else None
        )
        status = event.payload.get("status")
        if status in ("aborted", "error"):
            # Cursor would submit a follow-up as a new prompt: never restart what the user stopped.
            interrupted = f"the turn ended with status {status}"
    else:
        reply = box_observations(event.message, missing_reason="no_last_assistant_message")
        unsupported = None
        # A Stop hook (gfh's or another's) kept the turn going: this Stop continues it.
        continued = event.payload.get("stop_hook_active") is True
    from gitflow_harness.hookcall.session import TURN_START

    verdict = conclude_turn(
        EventLog(ctx.repo.common_dir),
        session=ctx.session,
        adapter=event.adapter,
        ritual=ritual_config(ctx.config()),
        branch=ctx.repo.branch,
        reply=reply,
        tools_unsupported=unsupported,
        interrupted=interrupted,
        continued=continued,
        start=ctx.state.get(TURN_START),
    )
    if verdict.decision == "block" and verdict.rule is not None:
        return ev.Block(verdict.rule, verdict.reason)
    _let_stop(ctx)
    return None


def _let_stop(ctx: HookContext) -> None:
    """The agent was let stop: the session's turn is no longer open."""
    if ctx.store is None:
        return
    from gitflow_harness.hookcall.session import close_turn

    with ctx.store.update() as state:
        close_turn(state)
    ctx.forget_snapshot()


def _record_failure(ctx: HookContext, exc: BaseException) -> None:
    import contextlib  # here: `collections` under it costs a Stop 13.8M instructions

    from gitflow_harness.hookcall.failure import describe

    assert ctx.repo is not None
    from gitflow_harness.ritual.stop import StopVerdict, enforces

    try:
        enforced = enforces(ctx.event.adapter, ritual_config(ctx.config()))
    except Exception:
        enforced = False
    reason = f"the Stop check failed: {describe(exc)}"
    data = StopVerdict(ctx.event.adapter, "fail_open", None, reason, enforced).data()
    # If the log itself is what failed, the runtime's hook.error attempt is all that is left.
    with contextlib.suppress(Exception):
        ctx.record("stop.verdict", data)
    with contextlib.suppress(Exception):
        _let_stop(ctx)  # failing open lets the agent stop: its turn is over


def agent_response(ctx: HookContext) -> None:
    """Cursor's afterAgentResponse: keep the reply's box booleans for its generation's stop."""
    if ctx.store is None:
        return None
    from gitflow_harness.ritual.evidence import box_flags

    loose, strict = box_flags(ctx.event.message or "")
    with ctx.store.update() as state:
        state[REPLY_KEY] = {
            "status_box": loose,
            "status_box_strict": strict,
            "generation": generation(ctx.event),
        }
    ctx.forget_snapshot()
    return None


def generation(event: ev.HookEvent) -> str | None:
    """Cursor's `generation_id` (one per user message), or None when the payload has none."""
    return ev.name_or_none(event.payload.get("generation_id"))


def _consume_cursor_reply(ctx: HookContext) -> dict[str, Any]:
    """Take the reply observed for this stop's generation; any other reply is left alone.

    Cursor's `generation_id` changes with every user message, a follow-up included, so a reply
    of another generation belongs to another turn: this turn's reply was then not observed.
    """
    from gitflow_harness.ritual.evidence import observed, unknown

    flags = None
    other = False
    if ctx.store is not None:
        ours = generation(ctx.event)
        with ctx.store.update() as state:
            stored = state.get(REPLY_KEY)
            if isinstance(stored, dict) and stored.get("generation") == ours:
                flags = state.pop(REPLY_KEY)
            else:
                other = isinstance(stored, dict)
        ctx.forget_snapshot()
    if not isinstance(flags, dict):
        reason = (
            "after_agent_response_of_another_generation"
            if other
            else "after_agent_response_not_reported"
        )
        return {"status_box": unknown(reason), "status_box_strict": unknown(reason)}
    return {
        "status_box": observed(flags.get("status_box") is True),
        "status_box_strict": observed(flags.get("status_box_strict") is True),
    }


def ritual_config(config: HookConfig) -> Any:
    """Build the `[ritual]` record from the hook's plain-data configuration."""
    from gitflow_harness.hookcall.settings import setting
    from gitflow_harness.store.ritual_config import RitualConfig

    def value(key: str) -> Any:
        return setting(config, "ritual", key)

    return RitualConfig(
        enforce=tuple(value("enforce")),
        require_status=bool(value("require_status")),
        require_box=bool(value("require_box")),
        require_task=bool(value("require_task")),
        max_blocks=int(value("max_blocks")),
        chat_turns=str(value("chat_turns")),
    )
