"""The Stop evaluator: a pure function from a session's events to a verdict.

It reads evidence only: events the hooks and the CLI recorded during the turn. Nothing the agent
wrote in prose is trusted, and nothing is read from disk here, so every case is testable with a
list of events.
"""

from __future__ import annotations

from gitflow_harness.ritual.evidence import tool_call_count
from gitflow_harness.store.events import Event
from gitflow_harness.store.ritual_config import RitualConfig

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, Final, Literal, NamedTuple

    Outcome = Literal["pass", "fail", "unavailable"]
else:
    from gitflow_harness.records import NamedTuple

MAX_REMEDIATION_HOPS: Final = 16
# Hosts whose Stop carries no reply text: when their reply hook did not report, the end-turn
# status stands in for the box. Claude Code and Codex always send `last_assistant_message`.
STAND_IN_HOSTS: Final = frozenset({"cursor"})
ALLOWING: Final = ("allow", "fail_open")  # decisions that let the agent stop
CHAT_BOX: Final = "box"  # `[ritual] chat_turns`: a turn without tools must show the box

NOT_CONTINUED: Final = (
    "a Stop already ended the latest recorded turn, no turn.started followed, and this Stop "
    "does not continue that turn (no stop_hook_active): the prompt of this turn was not "
    "recorded (is the prompt hook installed?)"
)
NO_TURN_STARTED: Final = "no turn.started recorded for this session (is the prompt hook installed?)"
# The fail-open reasons that mean the prompt hook did not record the turn's start.
PROMPT_NOT_RECORDED: Final = frozenset({NO_TURN_STARTED, NOT_CONTINUED})
NO_REPLY: Final = (
    "the Stop payload carried no usable last_assistant_message: the box cannot be checked, "
    "and a turn without tools has nothing else to check"
)
BOX_UNCHECKED: Final = (
    "the box was not checked: the Stop payload carried no usable last_assistant_message"
)

# The rules, in the order they are checked.
STATUS: Final = "status"  # 1: `gfh status --end-turn` ran in the turn
BOX: Final = "box"  # 2: the reply shows the status box
TASK: Final = "task"  # 3: `gfh task set` ran in the turn

REPAIRS: Final = {
    STATUS: "run `gfh status --end-turn`",
    BOX: "show the status box in your reply: the lines from `┌─ gfh` to `┘` that "
    "`gfh status --end-turn` prints",
    TASK: 'declare the turn\'s focus with `gfh task set "<focus>"` '
    '(`gfh task set ""` for a purely conversational turn)',
}


class Evaluation(NamedTuple):
    """What the evidence says about the latest turn of a session."""

    outcome: Outcome
    rule: str | None = None  # the first rule that failed
    missing: tuple[str, ...] = ()  # every rule that failed, in order
    reason: str = ""
    tool_turn: bool = False
    turns: int = 0  # turns in the window (1 + remediation turns walked back over)
    continuation: bool = False  # judged what the turn did after a Stop that was allowed
    unchecked: tuple[str, ...] = ()  # rules the evidence could not judge (skipped, not passed)
    partial_box: bool = False  # the reply has the box's first line but not the whole box

    def message(self) -> str:
        """The repair message: the first failing rule, then how to repair every missing part."""
        if self.outcome != "fail":
            return self.reason
        steps = "; ".join(f"{i}) {REPAIRS[r]}" for i, r in enumerate(self.missing, start=1))
        texts = CONTINUATION_TEXT if self.continuation else RULE_TEXT
        why = PARTIAL_BOX if self.rule == BOX and self.partial_box else texts[self.rule or ""]
        return (
            f"The end-of-turn ritual is incomplete: rule {self.rule!r} failed "
            f"({why}). Before you end this turn: {steps}."
        )


RULE_TEXT: Final = {
    STATUS: "`gfh status --end-turn` did not run in this turn",
    BOX: "the reply does not show the status box",
    TASK: "no `gfh task set` in this turn",
}
# The box counts only whole: a reply that quotes its first line alone has not shown it.
PARTIAL_BOX: Final = "the reply shows the status box's `┌─ gfh` line but not the whole box"
# A turn that went on after its Stop was allowed (another Stop hook kept it going) is judged on
# what it did since: the status must be checked again, the reply must show the box again.
CONTINUATION_TEXT: Final = {
    **RULE_TEXT,
    STATUS: "the turn went on after its Stop and `gfh status --end-turn` did not run since",
    BOX: "the turn went on after its Stop and this reply does not show the status box",
}


class TurnEvidence(NamedTuple):
    """What the events of the latest turn say, read once: the rules judge only this."""

    tool_turn: bool  # the turn used tools before its first Stop
    status_ran: bool  # `gfh status --end-turn` ran in the part of the turn being judged
    task_set: bool  # `gfh task set` ran in the turn
    box_seen: bool  # the reply was observed
    box_whole: bool  # and shows the whole box
    partial_box: bool  # the reply has the box's first line but not the whole box
    turns: int = 1
    continuation: bool = False


class Demand(NamedTuple):
    """What the configuration and the host ask of one turn's evidence."""

    evidence: TurnEvidence
    ritual: RitualConfig
    box_wanted: bool  # the reply must show the box
    stand_in: bool  # the reply was not observed, and the end-turn status stands in for the box


class Rule(NamedTuple):
    """One rule of the ritual: when it applies, and whether the evidence satisfies it."""

    name: str
    required: Callable[[Demand], bool]
    satisfied: Callable[[TurnEvidence], bool]


def status_required(d: Demand) -> bool:
    return (d.evidence.tool_turn and d.ritual.require_status) or d.stand_in


def status_satisfied(e: TurnEvidence) -> bool:
    return e.status_ran


def box_required(d: Demand) -> bool:
    return d.box_wanted and d.evidence.box_seen


def box_satisfied(e: TurnEvidence) -> bool:
    return e.box_whole


def task_required(d: Demand) -> bool:
    return d.evidence.tool_turn and d.ritual.require_task


def task_satisfied(e: TurnEvidence) -> bool:
    return e.task_set


# The rules, in the order they are checked (and their repairs listed).
CHECKS: Final = (
    Rule(STATUS, status_required, status_satisfied),
    Rule(BOX, box_required, box_satisfied),
    Rule(TASK, task_required, task_satisfied),
)


def evaluate(events: Sequence[Event], *, adapter: str, ritual: RitualConfig) -> Evaluation:
    """Evaluate the latest turn in `events` (one session's events, in log order)."""
    found = latest_turn(events)
    if isinstance(found, str):
        return Evaluation("unavailable", reason=found)
    window, turns = found
    # A turn whose Stop was already allowed can go on: Claude Code runs the Stop hooks of all
    # settings files at once and continues the turn when any of them blocks (Codex likewise),
    # saying so with `stop_hook_active`. What it did after that verdict is judged, and nothing
    # before it counts for the status; the task declared earlier in the turn still does.
    allowed = _last_allowing(window)
    if allowed is not None and window[-1].data.get("continued") is not True:
        return Evaluation("unavailable", reason=NOT_CONTINUED)
    judged = window if allowed is None else window[allowed + 1 :]
    evidence = read_evidence(window, judged, turns, continuation=allowed is not None)
    return judge(evidence, adapter=adapter, ritual=ritual)


def latest_turn(events: Sequence[Event]) -> tuple[Sequence[Event], int] | str:
    """The latest turn's events, from its start (walked back over the remediation turns that
    repaired it) to its Stop, and how many turns that spans; or why there is no such turn."""
    completed = _last_index(events, "turn.completed", len(events))
    if completed is None:
        return "no turn.completed recorded for this session"
    start = _last_index(events, "turn.started", completed)
    if start is None:
        return NO_TURN_STARTED
    turns = 1
    while events[start].data.get("stop_remediation") is True and turns <= MAX_REMEDIATION_HOPS:
        previous = _last_index(events, "turn.started", start)
        if previous is None:
            break
        start = previous
        turns += 1
    return events[start : completed + 1], turns


def read_evidence(
    window: Sequence[Event], judged: Sequence[Event], turns: int, *, continuation: bool
) -> TurnEvidence:
    """Read the evidence of a turn: `window` is the whole turn, `judged` the part after its
    last allowed Stop (`continuation`), else the whole turn."""
    # What the turn was is decided by what happened before its first Stop: the commands an
    # agent runs to repair a block (`gfh status`, `gfh task set`) must not turn a prose turn
    # into a tool turn that then needs more repairs.
    first_stop = next(i for i, ev in enumerate(judged) if ev.type == "turn.completed")
    original = judged[:first_stop]
    tool_count = (
        tool_call_count(original)
        if continuation  # the turn's own count reaches back before the allowed Stop
        else _obs(judged[first_stop].data.get("tool_call_count"))
    )
    reply = _obs(window[-1].data.get("ritual"))
    # The box counts only whole (`status_box_strict`); the first line alone (`status_box`) only
    # says which repair message fits.
    box = _obs(reply.get("status_box_strict"))
    whole = box.get("value") is True
    return TurnEvidence(
        tool_turn=any(ev.type == "tool.requested" for ev in original) or _counted(tool_count),
        status_ran=any(
            ev.type == "coord.status_observed" and ev.data.get("status") == "end_turn_checked"
            for ev in judged
        ),
        task_set=any(
            ev.type == "coord.task_changed" and ev.data.get("state") == "set" for ev in window
        ),
        box_seen=box.get("state") == "observed",
        box_whole=whole,
        partial_box=not whole and _obs(reply.get("status_box")).get("value") is True,
        turns=turns,
        continuation=continuation,
    )


def judge(evidence: TurnEvidence, *, adapter: str, ritual: RitualConfig) -> Evaluation:
    """Apply the rules to a turn's evidence."""
    e = evidence
    # A turn without tools needs nothing unless `chat_turns = "box"`: then only the box.
    box_wanted = ritual.require_box and (e.tool_turn or ritual.chat_turns == CHAT_BOX)
    # When the reply was not observed, what stands in depends on the host. Cursor's Stop carries
    # no text (its afterAgentResponse did not report): the end-turn status stands in for the
    # box, so the rule to repair is rule 1, which the agent can do. Claude Code and Codex always
    # send the reply; a payload without it cannot be judged on the box, which is missing
    # evidence, not the agent's omission: the box is skipped, and a turn without tools, having
    # nothing else to check, fails open.
    stand_in = box_wanted and not e.box_seen and adapter in STAND_IN_HOSTS
    unchecked: tuple[str, ...] = ()
    if box_wanted and not e.box_seen and not stand_in:
        if not e.tool_turn:
            return Evaluation(
                "unavailable", reason=NO_REPLY, turns=e.turns, continuation=e.continuation
            )
        unchecked = (BOX,)
    demand = Demand(e, ritual, box_wanted=box_wanted, stand_in=stand_in)
    missing = tuple(r.name for r in CHECKS if r.required(demand) and not r.satisfied(e))
    if not missing:
        return Evaluation(
            "pass",
            reason=f"ritual complete; {BOX_UNCHECKED}" if unchecked else "ritual complete",
            tool_turn=e.tool_turn,
            turns=e.turns,
            continuation=e.continuation,
            unchecked=unchecked,
        )
    return Evaluation(
        "fail",
        rule=missing[0],
        missing=missing,
        tool_turn=e.tool_turn,
        turns=e.turns,
        continuation=e.continuation,
        unchecked=unchecked,
        partial_box=e.partial_box,
    )


def _counted(tool_count: dict[str, Any]) -> bool:
    """The host's own tool count says the turn used tools (or that they went unreported)."""
    state = tool_count.get("state")
    return (state == "observed" and _positive(tool_count.get("value"))) or (
        state == "expected_but_missing"
    )


def _last_allowing(window: Sequence[Event]) -> int | None:
    for i in range(len(window) - 1, -1, -1):
        ev = window[i]
        if ev.type == "stop.verdict" and ev.data.get("decision") in ALLOWING:
            return i
    return None


def _last_index(events: Sequence[Event], type_: str, before: int) -> int | None:
    for i in range(before - 1, -1, -1):
        if events[i].type == type_:
            return i
    return None


def _obs(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _positive(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
