"""Records for learning: subagent rounds, their verdicts, and whose work a loop-back sent back.

A *round* is one `subagent.stopped` event (role = agent type, verdict = a declared token or
null, model when the host said). A *loop-back* is a round whose verdict is in
`learning.loop_back` or is a verdict the graph declares for that role. It is charged to the stage
the work went back to: with `graph.loops`, the only target, or among several the next one
dispatched (`subagent.started`) in the same session within 24 hours; without a graph edge, the
role that reported it. The charged role's latest round in that session is the one sent back.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final, NamedTuple

from gitflow_harness.store.config import GraphConfig, LearningConfig
from gitflow_harness.store.events import Event, parse_at

ATTRIBUTION_WINDOW: Final = dt.timedelta(hours=24)
TYPES: Final = frozenset({"subagent.started", "subagent.stopped"})


class Seen(NamedTuple):
    """The part of a subagent event learning keeps: ids and tokens, never text."""

    at: str
    stopped: bool
    session: str | None
    role: str
    verdict: str | None
    model: str | None


class Round(NamedTuple):
    at: dt.datetime
    session: str | None
    role: str
    verdict: str | None
    model: str | None


class LoopBack(NamedTuple):
    at: dt.datetime
    session: str | None
    reporter: str  # the role whose verdict sent the work back
    verdict: str
    charged: str | None  # the role whose work went back; None when it cannot be told
    round: int | None  # index of the charged role's round that was sent back


@dataclass
class Collector:
    """Keeps the subagent events of a stream (one pass, a few fields each)."""

    seen: list[Seen] = field(default_factory=list)
    skipped: int = 0  # subagent events without a usable role

    def observe(self, event: Event) -> None:
        if event.type not in TYPES:
            return
        data = event.data
        role = data.get("role")
        if not isinstance(role, str) or not role:
            self.skipped += 1
            return
        verdict = data.get("verdict")
        model = data.get("model")
        self.seen.append(
            Seen(
                event.at,
                event.type == "subagent.stopped",
                event.session,
                role,
                verdict if isinstance(verdict, str) and verdict else None,
                model if isinstance(model, str) and model else None,
            )
        )

    def feed(self, events: Iterable[Event]) -> Collector:
        for event in events:
            self.observe(event)
        return self


@dataclass
class Records:
    """Rounds, loop-backs and dispatches, in time order."""

    rounds: list[Round] = field(default_factory=list)
    sent_back: set[int] = field(default_factory=set)  # indexes into rounds
    loop_backs: list[LoopBack] = field(default_factory=list)
    starts: dict[str, list[dt.datetime]] = field(default_factory=dict)  # role -> dispatch times
    skipped: int = 0
    _by_role: dict[str, tuple[list[dt.datetime], list[int]]] | None = field(
        default=None, repr=False
    )

    def before(self, role: str, start: dt.datetime, end: dt.datetime) -> list[int]:
        """Return indexes of `role`'s rounds with start <= at < end."""
        times, indexes = self._index(role)
        return indexes[bisect.bisect_left(times, start) : bisect.bisect_left(times, end)]

    def after(self, role: str, start: dt.datetime, end: dt.datetime) -> list[int]:
        """Return indexes of `role`'s rounds with start < at <= end."""
        times, indexes = self._index(role)
        return indexes[bisect.bisect_right(times, start) : bisect.bisect_right(times, end)]

    def _index(self, role: str) -> tuple[list[dt.datetime], list[int]]:
        if self._by_role is None:
            self._by_role = {}
            for i, r in enumerate(self.rounds):  # rounds are in time order
                times, indexes = self._by_role.setdefault(r.role, ([], []))
                times.append(r.at)
                indexes.append(i)
        return self._by_role.get(role, ([], []))

    @property
    def roles(self) -> set[str]:
        return {r.role for r in self.rounds} | {lb.charged for lb in self.loop_backs if lb.charged}

    @property
    def unattributed(self) -> int:
        return sum(1 for lb in self.loop_backs if lb.charged is None)


def is_loop_back(
    role: str, verdict: str | None, learning: LearningConfig, graph: GraphConfig
) -> bool:
    """True when `verdict` from `role` sends work back."""
    if verdict is None:
        return False
    return verdict in learning.loop_back or verdict in graph.loops.get(role, {})


@dataclass
class _Pending:
    index: int  # into loop_backs
    session: str
    targets: tuple[str, ...]
    at: dt.datetime
    latest: dict[str, int | None]  # each target's latest round in the session at the verdict


def build(collector: Collector, learning: LearningConfig, graph: GraphConfig) -> Records:
    """Turn collected subagent events into rounds and attributed loop-backs."""
    records = Records(skipped=collector.skipped)
    timed: list[tuple[dt.datetime, Seen]] = []
    for seen in collector.seen:
        try:
            moment = parse_at(seen.at)
        except ValueError:
            records.skipped += 1  # a foreign writer's timestamp: no place in time, no record
            continue
        if moment.tzinfo is None:
            records.skipped += 1
            continue
        timed.append((moment, seen))
    timed.sort(key=lambda item: item[0])
    latest_round: dict[tuple[str, str], int] = {}
    pending: list[_Pending] = []

    def charge(lb_index: int, role: str | None, round_index: int | None) -> None:
        lb = records.loop_backs[lb_index]
        records.loop_backs[lb_index] = lb._replace(charged=role, round=round_index)
        if round_index is not None:
            records.sent_back.add(round_index)

    for at, seen in timed:
        # Loop-backs whose 24 hours passed without a dispatch among their targets stay unknown.
        pending = [p for p in pending if at - p.at <= ATTRIBUTION_WINDOW]
        if not seen.stopped:
            records.starts.setdefault(seen.role, []).append(at)
            for p in list(pending):
                if p.session == seen.session and seen.role in p.targets:
                    charge(p.index, seen.role, p.latest.get(seen.role))
                    pending.remove(p)
            continue
        index = len(records.rounds)
        records.rounds.append(Round(at, seen.session, seen.role, seen.verdict, seen.model))
        if seen.session is not None:
            latest_round[(seen.session, seen.role)] = index
        if not is_loop_back(seen.role, seen.verdict, learning, graph):
            continue
        assert seen.verdict is not None
        lb_index = len(records.loop_backs)
        records.loop_backs.append(LoopBack(at, seen.session, seen.role, seen.verdict, None, None))
        targets = graph.loops.get(seen.role, {}).get(seen.verdict)
        if not targets:
            charge(lb_index, seen.role, index)
        elif len(targets) == 1:
            sent = latest_round.get((seen.session, targets[0])) if seen.session else None
            charge(lb_index, targets[0], sent)
        elif seen.session is not None:
            latest = {t: latest_round.get((seen.session, t)) for t in targets}
            pending.append(_Pending(lb_index, seen.session, tuple(targets), at, latest))
    return records
