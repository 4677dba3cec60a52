"""The Stop verdict: gather the turn's events, evaluate, decide per adapter, record.

Adapters render the decision in their host's protocol; this module decides and records. Every
verdict is a `stop.verdict` event, and evidence that cannot be had (no `turn.started` for the
session, an unreadable log) allows the stop as `fail_open` with its reason: never silently.
"""

from __future__ import annotations

from gitflow_harness.ritual.evaluate import ALLOWING, MAX_REMEDIATION_HOPS, Evaluation, evaluate
from gitflow_harness.ritual.evidence import tool_call_count
from gitflow_harness.store.events import Event, EventLog, make_event
from gitflow_harness.store.ritual_config import RitualConfig

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final, Literal, NamedTuple

    Decision = Literal["allow", "block", "fail_open"]
else:
    from gitflow_harness.records import NamedTuple

# How far back the turn's start is looked for: the bytes of the log after it, about 60,000
# events. A bound in bytes, not lines: a read on from a known start checks it from the files'
# sizes alone, where a count of lines would have to read them.
SCAN_BYTES: Final = 16 * 1024 * 1024
OBSERVE_ONLY: Final = frozenset({"codex"})  # a continuation can replace Codex's answer
# The reason of a Stop let through after `[ritual] max_blocks` blocks of one turn.
EXHAUSTED: Final = "remediation_exhausted"


class StopVerdict(NamedTuple):
    """What the Stop hook does, and why."""

    adapter: str
    decision: Decision
    rule: str | None
    reason: str
    enforced: bool  # False when the adapter only observes: `rule` is what it would have blocked on
    tool_turn: bool = False
    turn: int | None = None  # the turn the verdict closes (or blocks)
    remediation: bool = False  # the turn repairs an earlier blocked turn (a follow-up turn)
    interrupted: bool = False  # the host ended the turn (aborted, error): recorded, not judged
    continuation: bool = False  # the turn went on after a Stop that was allowed: judged since
    unchecked: tuple[str, ...] = ()  # rules skipped for want of evidence (the reply unseen)

    def data(self) -> dict[str, object]:
        """The `stop.verdict` event's data: what was decided and why, then what the report groups
        by (docs/events.md)."""
        return {
            "adapter": self.adapter,
            "decision": self.decision,
            "rule": self.rule,
            "reason": self.reason,
            "enforced": self.enforced,
            "tool_turn": self.tool_turn,
            "turn": self.turn,
            "remediation": self.remediation,
            "interrupted": self.interrupted,
            "continuation": self.continuation,
            "unchecked": list(self.unchecked),
        }


def turn_events(
    log: EventLog, session: str, *, reach: int = SCAN_BYTES, start: object = None
) -> tuple[list[Event], bool]:
    """Return `session`'s events from the start of its latest turn chain, oldest first, and
    whether that start was found within the last `reach` bytes of the log.

    Reads the log backwards and stops at the `turn.started` that begins the chain (walking back
    over remediation turns), so the cost follows the turn, not the log; the lines of other
    sessions on the way are searched past, not parsed. With `start`, where the session state
    says its latest `turn.started` landed (`hookcall.session.TURN_START`), the log is read on
    from there instead when that line is still the latest turn's start and begins its chain;
    the answer is the same either way.
    """
    if start is not None:
        found = _turn_from(log, session, start, reach)
        if found is not None:
            return found, True
    collected: list[Event] = []
    hops = 0
    for ev in log.reverse_of(session, reach=reach):
        if ev is None:
            break
        collected.append(ev)
        if ev.type == "turn.started":
            hops += 1
            if ev.data.get("stop_remediation") is not True or hops > MAX_REMEDIATION_HOPS:
                collected.reverse()
                return collected, True
    else:
        collected.reverse()
        return collected, True
    collected.reverse()
    return collected, False


def _turn_from(log: EventLog, session: str, start: object, reach: int) -> list[Event] | None:
    """The turn's events read on from where its `turn.started` landed, or None when the read
    back must decide: the place does not parse or holds another line, the turn repairs an
    earlier one (its chain starts further back), a later `turn.started` of the session is in
    the log, or the place is out of the read back's `reach`."""
    if not isinstance(start, dict):
        return None
    name, offset, event_id = start.get("file"), start.get("at"), start.get("id")
    if not isinstance(name, str) or type(offset) is not int or offset < 0:
        return None
    events: list[Event] = []
    for ev in log.forward_of(session, name, offset, reach=reach):
        if not events:
            if (
                ev.id != event_id
                or ev.type != "turn.started"
                or ev.data.get("stop_remediation") is True
            ):
                return None
        elif ev.type == "turn.started":
            return None
        events.append(ev)
    return events or None


def enforces(adapter: str, ritual: RitualConfig) -> bool:
    """True when a failed ritual blocks this adapter's Stop (never Codex's: it only observes;
    nobody's with `max_blocks = 0`)."""
    return adapter in ritual.enforce and adapter not in OBSERVE_ONLY and ritual.max_blocks > 0


def consecutive_blocks(events: list[Event]) -> int:
    """Count the blocks among `events` (one turn's window) since its last allowing verdict."""
    count = 0
    for ev in events:
        if ev.type != "stop.verdict":
            continue
        decision = ev.data.get("decision")
        if decision == "block":
            count += 1
        elif decision in ALLOWING:
            count = 0
    return count


def tries_left(block: int, max_blocks: int) -> str:
    """What a block's reason adds: how many tries the agent has before the bound lets go."""
    left = max_blocks - block
    if left > 0:
        return f"{left} of {max_blocks} tries left before gfh lets this turn end unrepaired."
    return (
        f"0 of {max_blocks} tries left: gfh lets this turn end at its next Stop, repaired or not."
    )


def decide(
    evaluation: Evaluation,
    *,
    adapter: str,
    ritual: RitualConfig,
    turn: int | None = None,
    blocks: int = 0,
) -> StopVerdict:
    """Turn an evaluation into the adapter's decision under `[ritual] enforce` and
    `max_blocks`; `blocks` is how many times this turn was blocked since its last allowed Stop.

    Remediation is bounded so that gfh, not the host's own loop cap, ends a turn the agent
    cannot repair, and says so (`fail_open`, `remediation_exhausted`, the rule still failing).
    """
    enforced = enforces(adapter, ritual)
    decision: Decision
    if evaluation.outcome == "unavailable":
        decision, rule, reason = "fail_open", None, evaluation.reason
    elif evaluation.outcome == "pass":
        decision, rule, reason = "allow", None, evaluation.reason or "ritual complete"
    elif not enforced:
        decision, rule, reason = "allow", evaluation.rule, evaluation.message()
    elif blocks >= ritual.max_blocks:
        decision, rule, reason = "fail_open", evaluation.rule, EXHAUSTED
    else:
        decision, rule = "block", evaluation.rule
        reason = f"{evaluation.message()} {tries_left(blocks + 1, ritual.max_blocks)}"
    return StopVerdict(
        adapter,
        decision,
        rule,
        reason,
        enforced,
        evaluation.tool_turn,
        turn,
        remediation=evaluation.turns > 1,
        continuation=evaluation.continuation,
        unchecked=evaluation.unchecked,
    )


def conclude_turn(
    log: EventLog,
    *,
    session: str | None,
    adapter: str,
    ritual: RitualConfig,
    branch: str | None,
    reply: dict[str, Any],
    tools_unsupported: str | None = None,
    interrupted: str | None = None,
    continued: bool = False,
    start: object = None,
) -> StopVerdict:
    """Record the turn's end, evaluate it, record the verdict; never raise for missing evidence.

    `reply` is the `ritual` observation of the reply (see `evidence.box_observations`): the
    text itself never reaches this function. `turn.completed` is written before the evaluation,
    so the verdict and the log always agree on what the turn showed. `interrupted` says why a
    turn did not complete (the user aborted it, the host hit an error): such a turn is recorded
    and allowed, never held to the ritual. `continued` is the host's word that this Stop
    continues a turn a Stop hook kept going (`stop_hook_active`), recorded on `turn.completed`.
    `start` is where the session state says the turn's `turn.started` landed (`turn_events`).
    """
    enforced = enforces(adapter, ritual)
    if session is None:
        verdict = StopVerdict(
            adapter, "fail_open", None, "no session id in the Stop payload", enforced
        )
        return record_verdict(log, verdict, session, branch)
    try:
        events, complete = turn_events(log, session, reach=SCAN_BYTES, start=start)
    except OSError as exc:
        reason = f"event log unreadable: {exc.strerror or exc}"
        return record_verdict(
            log, StopVerdict(adapter, "fail_open", None, reason, enforced), session, branch
        )
    start = next(
        (i for i in range(len(events) - 1, -1, -1) if events[i].type == "turn.started"), None
    )
    this_turn = events[start:] if start is not None else []
    turn = this_turn[0].data.get("turn") if this_turn else None
    turn = turn if isinstance(turn, int) and not isinstance(turn, bool) else None
    completed = make_event(
        "turn.completed",
        {
            "turn": turn,
            "ritual": reply,
            "tool_call_count": tool_call_count(this_turn, unsupported_reason=tools_unsupported),
            "continued": continued,
        },
        surface="hook",
        session=session,
        branch=branch,
    )
    log.append(completed)
    if interrupted is not None:
        verdict = StopVerdict(
            adapter,
            "allow",
            None,
            f"not evaluated: {interrupted}",
            enforced,
            turn=turn,
            interrupted=True,
        )
        return record_verdict(log, verdict, session, branch)
    if not complete and start is None:
        reason = (
            f"no turn.started of this session within the last {_bytes(SCAN_BYTES)} of the log; "
            "not evaluated"
        )
        return record_verdict(
            log,
            StopVerdict(adapter, "fail_open", None, reason, enforced, turn=turn),
            session,
            branch,
        )
    evaluation = evaluate([*events, completed], adapter=adapter, ritual=ritual)
    verdict = decide(
        evaluation, adapter=adapter, ritual=ritual, turn=turn, blocks=consecutive_blocks(events)
    )
    return record_verdict(log, verdict, session, branch)


def record_verdict(
    log: EventLog, verdict: StopVerdict, session: str | None, branch: str | None
) -> StopVerdict:
    """Append `verdict` as a `stop.verdict` event of `session` and return it."""
    log.record(
        "stop.verdict",
        verdict.data(),
        surface="hook",
        branch=branch,
        session=session,
        use_env_session=False,
    )
    return verdict


def _bytes(count: int) -> str:
    """`16 MiB` for a whole number of MiB, else `1,500 bytes`."""
    mib, rest = divmod(count, 1024 * 1024)
    return f"{mib} MiB" if mib and not rest else f"{count:,} bytes"
