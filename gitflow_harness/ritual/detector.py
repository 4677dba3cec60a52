"""`stop-ritual`: how turns ended — evaluated, blocked (by rule), repaired, failed open.

Read from `stop.verdict` events alone. A verdict that follows a block in the same session is a
repair attempt; the first verdict of a chain tells whether the ritual was completed unprompted.
A verdict on a turn that went on after its Stop was allowed (`continuation`) belongs to that turn.
A Stop whose payload could not be read has no session and still counts, as a fail-open.
"""

from __future__ import annotations

from collections import Counter
from typing import Final

from gitflow_harness.report.model import DetectorResult, Finding, ReportContext, Status
from gitflow_harness.ritual.evaluate import PROMPT_NOT_RECORDED
from gitflow_harness.store.events import Event

ID: Final = "stop-ritual"


class StopRitual:
    """Count Stop verdicts per adapter, blocks by rule, repairs and fail-opens."""

    id = ID

    def __init__(self, ctx: ReportContext | None = None) -> None:
        self.evaluated: Counter[str] = Counter()
        self.blocks: Counter[str] = Counter()
        self.would_block: Counter[str] = Counter()  # adapters that only observe
        self.fail_open: Counter[str] = Counter()
        self.unchecked: Counter[str] = Counter()  # rules a verdict could not check, by rule
        self.repaired = 0
        self.tool_turns = 0
        self.unprompted = 0
        # session -> the turn its latest verdict blocked. Only blocked sessions are kept: any
        # other verdict closes its turn, so memory follows the sessions waiting on a repair.
        self._blocked: dict[str, int | None] = {}

    def observe(self, event: Event) -> None:
        if event.type != "stop.verdict":
            return
        data = event.data
        if data.get("interrupted") is True:
            return  # the host ended the turn (aborted, error): nothing was evaluated
        adapter = str(data.get("adapter"))
        decision = data.get("decision")
        rule = data.get("rule")
        turn = data.get("turn") if isinstance(data.get("turn"), int) else None
        session = event.session or ""
        blocked = session in self._blocked
        # Claude Code continues the same turn after a block, and after an allowed Stop another
        # Stop hook blocked: its next Stop is not a new turn.
        continuation = data.get("continuation") is True
        same_turn = blocked and turn is not None and self._blocked[session] == turn
        repairing = blocked and (same_turn or data.get("remediation") is True)
        if not (same_turn or continuation):
            self.evaluated[adapter] += 1
        if decision == "fail_open":
            self.fail_open[str(data.get("reason"))] += 1
        elif decision == "block":
            self.blocks[str(rule)] += 1
        elif rule is not None:
            self.would_block[f"{adapter}:{rule}"] += 1
        if repairing and decision == "allow" and rule is None:
            self.repaired += 1
        unchecked = data.get("unchecked")
        skipped = [str(r) for r in unchecked] if isinstance(unchecked, list) else []
        self.unchecked.update(skipped)
        first = not (repairing or continuation)  # the turn's first verdict
        # A turn allowed with a rule unchecked did not show it completed the ritual: leave it
        # out of the unprompted share rather than count a skipped rule as kept.
        if first and data.get("tool_turn") is True and decision != "fail_open" and not skipped:
            self.tool_turns += 1
            if rule is None:
                self.unprompted += 1
        if decision == "block":
            self._blocked[session] = turn
        else:
            self._blocked.pop(session, None)

    def finish(self, ctx: ReportContext) -> DetectorResult:
        total = sum(self.evaluated.values())
        if total == 0:
            return DetectorResult(self.id, "insufficient-evidence", 0)
        blocks = sum(self.blocks.values())
        fail_opens = sum(self.fail_open.values())
        evidence = {
            "evaluated": total,
            "blocked": blocks,
            "repaired": self.repaired,
            "fail_open": fail_opens,
            "tool_turns": self.tool_turns,
            "unprompted": self.unprompted,
        }
        notes = tuple(
            f"{label}: {_breakdown(counts)}"
            for label, counts in (
                ("turns evaluated by adapter", self.evaluated),
                ("blocks by rule", self.blocks),
                ("would have blocked (observe-only adapters)", self.would_block),
                ("fail-opens by reason", self.fail_open),
                ("rules left unchecked (the host sent no reply text)", self.unchecked),
            )
            if counts
        )
        share = f"{self.unprompted} of {self.tool_turns}" if self.tool_turns else "no"
        observed = (
            f"{total} turn(s) evaluated at Stop; {blocks} blocked, {self.repaired} repaired "
            f"after a block, {fail_opens} failed open; {share} tool turn(s) completed the "
            "ritual unprompted."
        )
        attention = fail_opens > 0 or (self.tool_turns and self.unprompted < self.tool_turns)
        if fail_opens and PROMPT_NOT_RECORDED.intersection(self.fail_open):
            next_step = (
                "Fail-opens mean the Stop hook had no evidence: check that the prompt hook "
                "(UserPromptSubmit / beforeSubmitPrompt) is installed (`gfh init`)."
            )
        elif fail_opens:
            next_step = (
                "Fail-opens mean a Stop could not be judged from the evidence: the notes give "
                "each reason (a payload gfh could not read is also a `hook.error`)."
            )
        elif attention:
            next_step = (
                "Agents end tool turns without the ritual until blocked: add the ritual to the "
                "agent's instructions (status --end-turn, the box, task set)."
            )
        else:
            next_step = "Nothing to do: turns end with the ritual complete."
        finding = Finding(
            self.id, "stop", "attention" if attention else "good", observed, evidence, next_step
        )
        status: Status = "fired"
        return DetectorResult(self.id, status, total, (finding,), notes)


def _breakdown(counts: Counter[str]) -> str:
    return ", ".join(f"{key} {n}" for key, n in sorted(counts.items()))
