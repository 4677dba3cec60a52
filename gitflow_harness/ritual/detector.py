"""`stop-ritual`: how turns ended — evaluated, blocked (by rule), repaired, ended unrepaired,
failed open.

Read from `stop.verdict`, `turn.started` and `session.ended` events. A verdict that follows a
block in the same session is a repair attempt; the first verdict of a chain tells whether the
ritual was completed unprompted. A verdict on a turn that went on after its Stop was allowed
(`continuation`) belongs to that turn. A Stop whose payload could not be read has no session and
still counts, as a fail-open. A blocked turn ends unrepaired by gfh's bound
(`remediation_exhausted`) or by the host: the session moved on to a prompt of its own, ended, or
went quiet for a day after the block.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Final, NamedTuple

from gitflow_harness.report.model import DetectorResult, Finding, ReportContext, Status
from gitflow_harness.ritual.evaluate import PROMPT_NOT_RECORDED
from gitflow_harness.ritual.stop import EXHAUSTED
from gitflow_harness.store.events import Event, parse_at

ID: Final = "stop-ritual"
# A block this much older than the log's latest Stop or prompt belongs to a session that ended
# (the report's horizon for a quiet session); a younger one may still be repaired: pending.
QUIET: Final = timedelta(hours=24)
# What the breakdown counts per adapter: turns evaluated; verdicts allowed (clean), blocked,
# allowed with a rule that would have blocked (observe-only) and failed open; repairs after a
# block; turns ended unrepaired; blocks still standing at the end of the log.
OUTCOMES: Final = (
    "evaluated", "allowed", "blocked", "would_block", "repaired", "ended_unrepaired",
    "pending", "fail_open",
)  # fmt: skip


class Blocked(NamedTuple):
    """A session's latest verdict was a block: which turn, on which rule, when."""

    turn: int | None
    rule: str
    at: str
    adapter: str


class StopRitual:
    """Count Stop verdicts per adapter, blocks by rule, repairs and fail-opens."""

    id = ID
    types = frozenset({"stop.verdict", "turn.started", "session.ended"})

    def __init__(self, ctx: ReportContext | None = None) -> None:
        self.evaluated: Counter[str] = Counter()
        self.blocks: Counter[str] = Counter()
        self.would_block: Counter[str] = Counter()  # adapters that only observe
        self.fail_open: Counter[str] = Counter()
        self.unchecked: Counter[str] = Counter()  # rules a verdict could not check, by rule
        self.repaired = 0
        self.tool_turns = 0
        self.unprompted = 0
        self.ended_by_gfh = 0  # let through after `max_blocks` blocks: `remediation_exhausted`
        self.ended_by_host = 0  # the last verdict was a block, and the turn ended all the same
        self.unrepaired: Counter[str] = Counter()  # turns ended unrepaired, by the rule failing
        # adapter -> outcome (one of `OUTCOMES`) -> count: what the HTML report draws
        self.by_adapter: dict[str, Counter[str]] = {}
        self._latest = ""  # the latest `at` seen (RFC 3339 UTC with `Z`: sorts as text)
        # session -> the turn its latest verdict blocked. Only blocked sessions are kept: any
        # other verdict closes its turn, so memory follows the sessions waiting on a repair.
        self._blocked: dict[str, Blocked] = {}

    def observe(self, event: Event) -> None:
        self._latest = max(self._latest, event.at)
        if event.type == "turn.started":
            self._started(event)
            return
        if event.type == "session.ended":
            standing = self._blocked.pop(event.session or "", None)
            if standing is not None:
                self._host_ended(standing)  # the session ended on a block: nothing repaired it
            return
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
        same_turn = blocked and turn is not None and self._blocked[session].turn == turn
        repairing = blocked and (same_turn or data.get("remediation") is True)
        if blocked and not repairing and not continuation:
            # A verdict of another turn, whose prompt went unrecorded: the blocked turn ended.
            self._host_ended(self._blocked.pop(session))
            blocked = False
        outcomes = self._outcomes(adapter)
        if not (same_turn or continuation):
            self.evaluated[adapter] += 1
            outcomes["evaluated"] += 1
        if decision == "fail_open":
            self.fail_open[str(data.get("reason"))] += 1
            outcomes["fail_open"] += 1
        elif decision == "block":
            self.blocks[str(rule)] += 1
            outcomes["blocked"] += 1
        elif rule is not None:
            self.would_block[f"{adapter}:{rule}"] += 1
            outcomes["would_block"] += 1
        else:
            outcomes["allowed"] += 1
        if repairing and decision == "allow" and rule is None:
            self.repaired += 1
            outcomes["repaired"] += 1
        if decision == "fail_open" and data.get("reason") == EXHAUSTED:
            self.ended_by_gfh += 1
            self.unrepaired[str(rule)] += 1
            outcomes["ended_unrepaired"] += 1
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
            self._blocked[session] = Blocked(turn, str(rule), event.at, adapter)
        else:
            self._blocked.pop(session, None)

    def _started(self, event: Event) -> None:
        """A prompt of the session's own ends a blocked turn; Cursor's remediation prompt
        (`stop_remediation`) continues it."""
        if event.data.get("stop_remediation") is True:
            return
        blocked = self._blocked.pop(event.session or "", None)
        if blocked is not None:
            self._host_ended(blocked)

    def _host_ended(self, blocked: Blocked) -> None:
        self.ended_by_host += 1
        self.unrepaired[blocked.rule] += 1
        self._outcomes(blocked.adapter)["ended_unrepaired"] += 1

    def _outcomes(self, adapter: str) -> Counter[str]:
        found = self.by_adapter.get(adapter)
        if found is None:
            found = self.by_adapter[adapter] = Counter()
        return found

    def _settle_the_end(self) -> int:
        """Judge the blocks still standing at the end of the log: a session quiet for `QUIET`
        since its block has ended, unrepaired; a younger block is pending (a repair may be
        under way). Return how many are pending."""
        if not self._blocked:
            return 0
        latest = parse_at(self._latest)
        pending = 0
        for blocked in self._blocked.values():
            if latest - parse_at(blocked.at) >= QUIET:
                self._host_ended(blocked)
            else:
                pending += 1
                self._outcomes(blocked.adapter)["pending"] += 1
        self._blocked.clear()
        return pending

    def finish(self, ctx: ReportContext) -> DetectorResult:
        total = sum(self.evaluated.values())
        if total == 0:
            return DetectorResult(self.id, "insufficient-evidence", 0)
        pending = self._settle_the_end()
        blocks = sum(self.blocks.values())
        fail_opens = sum(self.fail_open.values())
        unrepaired = self.ended_by_gfh + self.ended_by_host
        evidence = {
            "evaluated": total,
            "blocked": blocks,
            "repaired": self.repaired,
            "ended_by_gfh": self.ended_by_gfh,
            "ended_by_host": self.ended_by_host,
            "pending": pending,
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
                ("turns ended unrepaired, by the rule that failed", self.unrepaired),
                ("rules left unchecked (the host sent no reply text)", self.unchecked),
            )
            if counts
        )
        share = f"{self.unprompted} of {self.tool_turns}" if self.tool_turns else "no"
        still = f", {pending} still blocked at the end of the log" if pending else ""
        observed = (
            f"{total} turn(s) evaluated at Stop; {blocks} blocked, {self.repaired} repaired "
            f"after a block, {unrepaired} ended unrepaired ({self.ended_by_gfh} by gfh's "
            f"bound, {self.ended_by_host} by the host){still}; {fail_opens} failed open; "
            f"{share} tool turn(s) completed the ritual unprompted."
        )
        attention = (
            fail_opens > 0
            or unrepaired > 0
            or bool(self.tool_turns and self.unprompted < self.tool_turns)
        )
        other_fail_opens = fail_opens - self.fail_open[EXHAUSTED]
        if fail_opens and PROMPT_NOT_RECORDED.intersection(self.fail_open):
            next_step = (
                "Fail-opens mean the Stop hook had no evidence: check that the prompt hook "
                "(UserPromptSubmit / beforeSubmitPrompt) is installed (`gfh init`)."
            )
        elif other_fail_opens:
            next_step = (
                "Fail-opens mean a Stop could not be judged from the evidence: the notes give "
                "each reason (a payload gfh could not read is also a `hook.error`)."
            )
        elif unrepaired:
            next_step = (
                "Turns ended with the ritual still failing (the notes say which rule): read the "
                "block reasons the agent got (`gfh events tail`) and teach the ritual in its "
                "instructions; a host's own loop cap below `[ritual] max_blocks` ends turns first."
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
        breakdown = {
            "adapters": {
                adapter: {k: counts[k] for k in OUTCOMES}
                for adapter, counts in sorted(self.by_adapter.items())
            },
            "fail_open_by_reason": dict(sorted(self.fail_open.items())),
            "unrepaired_by_rule": dict(sorted(self.unrepaired.items())),
            "blocks_by_rule": dict(sorted(self.blocks.items())),
        }
        return DetectorResult(self.id, status, total, (finding,), notes, breakdown)


def _breakdown(counts: Counter[str]) -> str:
    return ", ".join(f"{key} {n}" for key, n in sorted(counts.items()))
