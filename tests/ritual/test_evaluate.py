from __future__ import annotations

from typing import Any

import pytest

from gitflow_harness.ritual.evaluate import (
    BOX,
    CHECKS,
    NO_TURN_STARTED,
    STATUS,
    TASK,
    Demand,
    TurnEvidence,
    box_required,
    box_satisfied,
    evaluate,
    judge,
    latest_turn,
    status_required,
    status_satisfied,
    task_required,
    task_satisfied,
)
from gitflow_harness.store.config import RitualConfig, default_config
from gitflow_harness.store.events import Event, make_event

RITUAL = default_config().ritual
CHAT_BOX = RITUAL._replace(chat_turns="box")  # a turn without tools must show the box
SESSION = "claude:s1"


def ev(type_: str, **data: Any) -> Event:
    return make_event(type_, data, surface="hook", session=SESSION, branch="feature")


def started(remediation: bool = False) -> Event:
    return ev("turn.started", turn=1, stop_remediation=remediation)


def completed(
    box: bool | None = None,
    tools: int | None = None,
    continued: bool = False,
    *,
    top_only: bool = False,
) -> Event:
    """A `turn.completed`; `top_only`: the reply has the box's first line, not the whole box."""
    status_box: dict[str, Any] = (
        {"state": "observed", "value": box}
        if box is not None
        else {"state": "unknown", "reason": "reply_not_reported"}
    )
    strict = {"state": "observed", "value": False} if top_only else status_box
    if top_only:
        status_box = {"state": "observed", "value": True}
    count: dict[str, Any] = (
        {"state": "observed", "value": tools}
        if tools is not None
        else {"state": "unknown", "reason": "no_tool_hooks"}
    )
    return ev(
        "turn.completed",
        turn=1,
        ritual={"status_box": status_box, "status_box_strict": strict},
        tool_call_count=count,
        continued=continued,
    )


def verdict(decision: str, rule: str | None = None) -> Event:
    return ev("stop.verdict", decision=decision, rule=rule)


TOOL = ev("tool.requested", tool="Bash", phase="post")
STATUS_RAN = ev("coord.status_observed", status="end_turn_checked")
TASK_SET = ev("coord.task_changed", state="set", fingerprint="ab12")


def test_no_history_is_unavailable_not_a_pass() -> None:
    result = evaluate([], adapter="claude", ritual=RITUAL)
    assert result.outcome == "unavailable"
    assert "no turn.completed" in result.reason
    result = evaluate([completed(box=True)], adapter="claude", ritual=RITUAL)
    assert result.outcome == "unavailable"
    assert "no turn.started recorded for this session" in result.reason


def test_a_turn_without_tools_needs_nothing_by_default() -> None:
    for adapter in ("claude", "cursor", "codex"):
        for box in (True, False, None):
            result = evaluate(
                [started(), completed(box=box, tools=0)], adapter=adapter, ritual=RITUAL
            )
            assert (result.outcome, result.missing, result.tool_turn) == ("pass", (), False)


def test_with_chat_turns_box_a_prose_turn_needs_only_the_box() -> None:
    assert (
        evaluate([started(), completed(box=True)], adapter="claude", ritual=CHAT_BOX).outcome
        == "pass"
    )
    result = evaluate([started(), completed(box=False)], adapter="claude", ritual=CHAT_BOX)
    assert (result.outcome, result.rule, result.missing) == ("fail", BOX, (BOX,))
    assert not result.tool_turn


def test_the_box_counts_only_whole() -> None:
    """If the reply has the box's `┌─ gfh` line but not its closing line, then rule 2 fails,
    and the message says the box is incomplete rather than absent."""
    events = [started(), TOOL, STATUS_RAN, TASK_SET, completed(tools=1, top_only=True)]
    result = evaluate(events, adapter="claude", ritual=RITUAL)
    assert (result.outcome, result.missing) == ("fail", (BOX,))
    assert "`┌─ gfh` line but not the whole box" in result.message()
    absent = evaluate(
        [*events[:-1], completed(box=False, tools=1)], adapter="claude", ritual=RITUAL
    )
    assert "the reply does not show the status box" in absent.message()
    prose = evaluate([started(), completed(top_only=True)], adapter="claude", ritual=CHAT_BOX)
    assert prose.missing == (BOX,)


@pytest.mark.parametrize(
    ("evidence", "box", "rule", "missing"),
    [
        ([], False, STATUS, (STATUS, BOX, TASK)),
        ([STATUS_RAN], False, BOX, (BOX, TASK)),
        ([STATUS_RAN], True, TASK, (TASK,)),
        ([STATUS_RAN, TASK_SET], True, None, ()),
        ([TASK_SET], True, STATUS, (STATUS,)),
    ],
)
def test_tool_turn_rules_in_order(
    evidence: list[Event], box: bool, rule: str | None, missing: tuple[str, ...]
) -> None:
    events = [started(), TOOL, *evidence, completed(box=box, tools=1)]
    result = evaluate(events, adapter="claude", ritual=RITUAL)
    assert result.tool_turn
    assert result.rule == rule
    assert result.missing == missing
    assert result.outcome == ("pass" if rule is None else "fail")


def test_message_names_the_first_rule_and_every_repair() -> None:
    result = evaluate(
        [started(), TOOL, completed(box=False, tools=1)], adapter="claude", ritual=RITUAL
    )
    text = result.message()
    assert "rule 'status' failed" in text
    assert "1) run `gfh status --end-turn`" in text
    assert "2) show the status box" in text
    assert '3) declare the turn\'s focus with `gfh task set "<focus>"`' in text


def test_an_unattested_tool_channel_still_makes_a_tool_turn() -> None:
    final = completed(box=True)
    final.data["tool_call_count"] = {
        "state": "expected_but_missing",
        "reason": "tool_channel_unattested",
    }
    result = evaluate([started(), final], adapter="claude", ritual=RITUAL)
    assert result.tool_turn
    assert result.rule == STATUS


def test_cursor_passes_without_reply_text_once_status_and_task_are_recorded() -> None:
    events = [started(), TOOL, STATUS_RAN, TASK_SET, completed(box=None, tools=1)]
    result = evaluate(events, adapter="cursor", ritual=RITUAL)
    assert (result.outcome, result.unchecked) == ("pass", ())
    # When Cursor's afterAgentResponse did report, its observation wins.
    reported = [*events[:-1], completed(box=False, tools=1)]
    assert evaluate(reported, adapter="cursor", ritual=RITUAL).rule == BOX


def test_cursor_prose_turn_without_reply_is_repaired_by_the_status() -> None:
    """If Cursor's reply was not observed in a turn without tools that must show the box, then
    rule 1 stands in for the box: the turn is held to `gfh status --end-turn`, which the agent
    can run."""
    result = evaluate([started(), completed(box=None, tools=0)], adapter="cursor", ritual=CHAT_BOX)
    assert (result.outcome, result.rule, result.missing) == ("fail", STATUS, (STATUS,))
    repaired = [started(), STATUS_RAN, completed(box=None, tools=0)]
    assert evaluate(repaired, adapter="cursor", ritual=CHAT_BOX).outcome == "pass"


@pytest.mark.parametrize("adapter", ["claude", "codex"])
def test_a_tool_turn_without_the_reply_is_judged_on_status_and_task(adapter: str) -> None:
    """If Claude Code or Codex sent no usable last message, then the box cannot be judged: a
    tool turn is held to rules 1 and 3 and the box is recorded as unchecked, not passed."""
    bare = [started(), TOOL, completed(box=None, tools=1)]
    result = evaluate(bare, adapter=adapter, ritual=RITUAL)
    assert (result.rule, result.missing, result.unchecked) == (STATUS, (STATUS, TASK), (BOX,))
    done = [started(), TOOL, STATUS_RAN, TASK_SET, completed(box=None, tools=1)]
    result = evaluate(done, adapter=adapter, ritual=RITUAL)
    assert (result.outcome, result.unchecked) == ("pass", (BOX,))
    assert "no usable last_assistant_message" in result.reason


@pytest.mark.parametrize("adapter", ["claude", "codex"])
def test_a_turn_without_tools_or_reply_has_nothing_to_check(adapter: str) -> None:
    result = evaluate([started(), completed(box=None, tools=0)], adapter=adapter, ritual=CHAT_BOX)
    assert result.outcome == "unavailable"
    assert "last_assistant_message" in result.reason
    # The status does not stand in on these hosts: running it changes nothing.
    with_status = [started(), STATUS_RAN, completed(box=None, tools=0)]
    assert evaluate(with_status, adapter=adapter, ritual=CHAT_BOX).outcome == "unavailable"
    no_box = RitualConfig(("claude",), True, False, True, chat_turns="box")
    result = evaluate([started(), completed(box=None, tools=0)], adapter=adapter, ritual=no_box)
    assert (result.outcome, result.unchecked) == ("pass", ())  # the box was not asked for


def test_cursor_remediation_turn_inherits_the_human_turns_task() -> None:
    human = [started(), TOOL, TASK_SET, completed(box=None, tools=1)]
    repair = [STATUS_RAN, completed(box=None, tools=0)]
    with_marker = [*human, started(remediation=True), *repair]
    result = evaluate(with_marker, adapter="cursor", ritual=RITUAL)
    assert (result.outcome, result.turns) == ("pass", 2)
    without_marker = [*human, started(remediation=False), *repair]
    result = evaluate(without_marker, adapter="cursor", ritual=CHAT_BOX)
    assert result.turns == 1
    assert not result.tool_turn  # the repair turn alone used no tools...
    assert result.outcome == "pass"  # ...so it needs only the box, which status stands in for
    with_tool = [*human, started(remediation=False), TOOL, *repair]
    assert evaluate(with_tool, adapter="cursor", ritual=RITUAL).rule == TASK


def test_remediation_walk_is_bounded() -> None:
    events = [started(), TASK_SET]
    for _ in range(20):
        events += [completed(box=None, tools=1), started(remediation=True), TOOL]
    events += [STATUS_RAN, completed(box=None, tools=1)]
    result = evaluate(events, adapter="cursor", ritual=RITUAL)
    assert result.turns == 17
    assert result.rule == TASK  # the human turn's task lies beyond the walk


def test_rules_switched_off_are_not_checked() -> None:
    events = [started(), TOOL, completed(box=False, tools=1)]
    off = RitualConfig(
        enforce=("claude",), require_status=False, require_box=False, require_task=True
    )
    assert evaluate(events, adapter="claude", ritual=off).missing == (TASK,)
    none = RitualConfig(
        enforce=("claude",), require_status=False, require_box=False, require_task=False
    )
    assert evaluate(events, adapter="claude", ritual=none).outcome == "pass"


def test_the_commands_that_repair_a_prose_turn_do_not_make_it_a_tool_turn() -> None:
    """If a prose turn is blocked for its box and the agent runs `gfh status` to repair it,
    then the turn still needs only the box: the repair's own tool call does not add rules."""
    events = [started(), completed(box=False, tools=0), TOOL, STATUS_RAN]
    result = evaluate([*events, completed(box=True, tools=1)], adapter="claude", ritual=CHAT_BOX)
    assert (result.outcome, result.tool_turn) == ("pass", False)


def test_a_stop_after_a_closed_turn_without_a_new_start_is_unavailable() -> None:
    """If the prompt hook missed a turn, the previous turn's evidence must not pass it."""
    allowed = verdict("allow")
    first = [started(), TOOL, STATUS_RAN, TASK_SET, completed(box=True, tools=1), allowed]
    result = evaluate([*first, TOOL, completed(box=True, tools=1)], adapter="claude", ritual=RITUAL)
    assert result.outcome == "unavailable"
    assert "does not continue that turn" in result.reason
    assert "the prompt of this turn was not recorded" in result.reason
    blocked = verdict("block", "box")
    repairing = [started(), completed(box=False, tools=0), blocked]
    assert (
        evaluate(
            [*repairing, completed(box=True, tools=0)], adapter="claude", ritual=CHAT_BOX
        ).outcome
        == "pass"
    )


def test_clearing_the_task_is_not_declaring_one() -> None:
    cleared = ev("coord.task_changed", state="cleared", fingerprint=None)
    events = [started(), TOOL, STATUS_RAN, cleared, completed(box=True, tools=1)]
    assert evaluate(events, adapter="claude", ritual=RITUAL).rule == TASK


ALLOWED_TOOL_TURN = [
    started(),
    TOOL,
    STATUS_RAN,
    TASK_SET,
    completed(box=True, tools=1),
    verdict("allow"),
]


def test_a_continued_tool_turn_needs_a_fresh_status_and_keeps_its_task() -> None:
    """If another Stop hook kept a turn going after gfh allowed it and the agent used tools
    again, then the status must be checked after that verdict; the task still counts."""
    events = [*ALLOWED_TOOL_TURN, TOOL, completed(box=True, tools=2, continued=True)]
    result = evaluate(events, adapter="claude", ritual=RITUAL)
    assert (result.outcome, result.missing) == ("fail", (STATUS,))
    assert (result.tool_turn, result.continuation) == (True, True)
    assert "went on after its Stop" in result.message()
    fresh = [*ALLOWED_TOOL_TURN, TOOL, STATUS_RAN, completed(box=True, tools=2, continued=True)]
    result = evaluate(fresh, adapter="claude", ritual=RITUAL)
    assert (result.outcome, result.continuation) == ("pass", True)


def test_a_continuation_without_tools_is_a_turn_without_tools() -> None:
    """If the turn went on without tools, then it is judged as a turn without tools, even
    though the turn's own tool count (taken from its start) is not zero: by default it needs
    nothing, with `chat_turns = "box"` only its new reply's box."""
    no_box = [*ALLOWED_TOOL_TURN, completed(box=False, tools=1, continued=True)]
    result = evaluate(no_box, adapter="claude", ritual=RITUAL)
    assert (result.outcome, result.tool_turn, result.continuation) == ("pass", False, True)
    events = [*ALLOWED_TOOL_TURN, completed(box=True, tools=1, continued=True)]
    result = evaluate(events, adapter="claude", ritual=CHAT_BOX)
    assert (result.outcome, result.tool_turn, result.continuation) == ("pass", False, True)
    result = evaluate(no_box, adapter="claude", ritual=CHAT_BOX)
    assert (result.outcome, result.missing) == ("fail", (BOX,))
    assert "this reply does not show the status box" in result.message()


def test_a_blocked_continuation_is_repaired_like_any_turn() -> None:
    """If gfh blocks a continuation, then its repair counts, and the repair's own tool calls do
    not make a prose continuation a tool turn."""
    tools = [
        *ALLOWED_TOOL_TURN,
        TOOL,
        completed(box=True, tools=2, continued=True),
        verdict("block", STATUS),
        STATUS_RAN,
        completed(box=True, tools=2, continued=True),
    ]
    assert evaluate(tools, adapter="claude", ritual=RITUAL).outcome == "pass"
    prose = [
        *ALLOWED_TOOL_TURN,
        completed(box=False, tools=1, continued=True),
        verdict("block", BOX),
        TOOL,
        STATUS_RAN,
        completed(box=True, tools=2, continued=True),
    ]
    result = evaluate(prose, adapter="claude", ritual=CHAT_BOX)
    assert (result.outcome, result.tool_turn) == ("pass", False)


def test_each_continuation_is_judged_from_the_last_allowed_stop() -> None:
    twice = [
        *ALLOWED_TOOL_TURN,
        TOOL,
        STATUS_RAN,
        completed(box=True, tools=2, continued=True),
        verdict("allow"),
        TOOL,
        completed(box=True, tools=3, continued=True),
    ]
    assert evaluate(twice, adapter="claude", ritual=RITUAL).missing == (STATUS,)
    after_fail_open = [
        started(),
        completed(box=None, tools=0),
        verdict("fail_open"),
        TOOL,
        completed(box=True, tools=1, continued=True),
    ]
    result = evaluate(after_fail_open, adapter="claude", ritual=RITUAL)
    assert (result.continuation, result.missing) == (True, (STATUS, TASK))


def test_codex_continuations_are_judged_too() -> None:
    events = [*ALLOWED_TOOL_TURN, TOOL, completed(box=True, tools=2, continued=True)]
    result = evaluate(events, adapter="codex", ritual=RITUAL)
    assert (result.continuation, result.rule) == (True, STATUS)


# One rule at a time: each rule of the table, asked of a turn's evidence.

EVIDENCE = TurnEvidence(
    tool_turn=True,
    status_ran=False,
    task_set=False,
    box_seen=True,
    box_whole=False,
    partial_box=False,
)


def demand(
    evidence: TurnEvidence = EVIDENCE,
    ritual: RitualConfig = RITUAL,
    *,
    box_wanted: bool = True,
    stand_in: bool = False,
) -> Demand:
    return Demand(evidence, ritual, box_wanted=box_wanted, stand_in=stand_in)


def test_the_table_checks_status_then_box_then_task() -> None:
    assert tuple(r.name for r in CHECKS) == (STATUS, BOX, TASK)


def test_the_status_rule() -> None:
    """If a tool turn, then the end-turn status is required unless switched off; a stand-in
    for an unobserved reply requires it in any turn."""
    prose = EVIDENCE._replace(tool_turn=False)
    assert status_required(demand())
    assert not status_required(demand(ritual=RITUAL._replace(require_status=False)))
    assert not status_required(demand(prose))
    assert status_required(demand(prose, stand_in=True))
    assert not status_satisfied(EVIDENCE)
    assert status_satisfied(EVIDENCE._replace(status_ran=True))


def test_the_box_rule() -> None:
    """If the box is wanted and the reply was observed, then the whole box is required."""
    assert box_required(demand())
    assert not box_required(demand(box_wanted=False))
    assert not box_required(demand(EVIDENCE._replace(box_seen=False)))
    assert not box_satisfied(EVIDENCE._replace(partial_box=True))
    assert box_satisfied(EVIDENCE._replace(box_whole=True))


def test_the_task_rule() -> None:
    """If a tool turn, then a declared task is required unless switched off."""
    assert task_required(demand())
    assert not task_required(demand(ritual=RITUAL._replace(require_task=False)))
    assert not task_required(demand(EVIDENCE._replace(tool_turn=False), stand_in=True))
    assert not task_satisfied(EVIDENCE)
    assert task_satisfied(EVIDENCE._replace(task_set=True))


def test_judge_lists_every_missing_rule_in_table_order() -> None:
    result = judge(EVIDENCE, adapter="claude", ritual=RITUAL)
    assert (result.outcome, result.rule, result.missing) == ("fail", STATUS, (STATUS, BOX, TASK))
    whole = EVIDENCE._replace(status_ran=True, task_set=True, box_whole=True, turns=2)
    assert judge(whole, adapter="claude", ritual=RITUAL).outcome == "pass"


def test_latest_turn_walks_back_over_remediation_turns() -> None:
    events = [started(), TOOL, completed(box=False), started(remediation=True), completed()]
    found = latest_turn(events)
    assert not isinstance(found, str)
    assert (list(found[0]), found[1]) == (events, 2)
    assert latest_turn([started()]) == "no turn.completed recorded for this session"
    assert latest_turn([completed()]) == NO_TURN_STARTED
