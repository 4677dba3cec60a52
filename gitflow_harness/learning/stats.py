"""Whether lessons are captured and whether they help: overdue roles, verify readings, use.

Pure functions over `Records`, pills, a clock the caller passes in, and `Moments` that place a
lesson in time (`history.PillMoments` does it from git history).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal, Protocol

from gitflow_harness.learning.pills import Pill
from gitflow_harness.learning.records import Records

Z95: Final = 1.959963984540054  # two-sided 95 %


class Moments(Protocol):
    """When a lesson was learned and when it was last seen."""

    def learned(self, pill: Pill) -> dt.datetime: ...

    def seen(self, pill: Pill) -> dt.datetime: ...


ReadingKind = Literal["lower", "higher", "unclear", "not measurable"]


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Return the Wilson score interval of k successes in n trials."""
    if n <= 0 or not 0 <= k <= n:
        raise ValueError(f"wilson needs 0 <= k <= n and n > 0, got k={k}, n={n}")
    p = k / n
    z2 = z * z
    centre = p + z2 / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    denominator = 1 + z2 / n
    return max(0.0, (centre - spread) / denominator), min(1.0, (centre + spread) / denominator)


@dataclass(frozen=True, slots=True)
class Share:
    """k loop-backs of n rounds, with the 95 % Wilson interval."""

    k: int
    n: int

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.k, self.n)

    def to_dict(self) -> dict[str, object]:
        lo, hi = self.interval
        return {"k": self.k, "n": self.n, "low": round(lo, 3), "high": round(hi, 3)}

    def __str__(self) -> str:
        lo, hi = self.interval
        return f"{self.k}/{self.n} [{lo:.3f}, {hi:.3f}]"


def compare(before: Share, after: Share) -> ReadingKind:
    """Call a change only when the two intervals do not overlap."""
    b_lo, b_hi = before.interval
    a_lo, a_hi = after.interval
    if a_hi < b_lo:
        return "lower"
    if a_lo > b_hi:
        return "higher"
    return "unclear"


# -- overdue ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoleLoad:
    """A role's loop-backs in the capture window, and those since its newest lesson."""

    role: str
    rounds: int  # in the window
    sent_back: int  # of those rounds, the ones a loop-back returned (never more than rounds)
    loop_backs: int  # verdicts charged to it in the window (what makes a role overdue)
    without_round: int  # of those, the ones with no round of the role behind them in the window
    since_lesson: int  # loop-backs after its newest lesson
    newest_lesson: str | None  # pill key
    lesson_moment: dt.datetime | None
    overdue: bool


def role_loads(
    records: Records,
    pills: Sequence[Pill],
    moments: Moments,
    *,
    now: dt.datetime,
    capture_at: int,
    capture_days: int,
) -> list[RoleLoad]:
    """Return every role with rounds or loop-backs in the window; overdue at `capture_at`."""
    start = now - dt.timedelta(days=capture_days)
    loads = []
    for role in sorted(records.roles):
        lessons = [p for p in pills if p.applies(role)]
        newest: Pill | None = None
        newest_at: dt.datetime | None = None
        for pill in lessons:
            at = moments.seen(pill)
            if newest_at is None or at > newest_at:
                newest, newest_at = pill, at
        charged = [lb for lb in records.loop_backs if lb.charged == role and start <= lb.at <= now]
        since = [lb for lb in charged if newest_at is None or lb.at > newest_at]
        rounds = records.after(role, start - dt.timedelta(microseconds=1), now)
        if not rounds and not charged:
            continue
        # Several verdicts may return one round, and a verdict may find no round of the role
        # in its session: loop-backs are not a share of rounds, the rounds sent back are.
        in_window = set(rounds)
        loads.append(
            RoleLoad(
                role=role,
                rounds=len(rounds),
                sent_back=len(in_window & records.sent_back),
                loop_backs=len(charged),
                without_round=sum(1 for lb in charged if lb.round not in in_window),
                since_lesson=len(since),
                newest_lesson=newest.key if newest else None,
                lesson_moment=newest_at,
                overdue=len(since) >= capture_at,
            )
        )
    return loads


# -- verify -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Reading:
    """Did loop-backs of a role change after a lesson? Or why that cannot be told."""

    pill: str
    role: str
    kind: ReadingKind
    reason: str | None
    model: str | None
    before: Share | None
    after: Share | None
    since: dt.datetime
    control: dict[str, tuple[Share | None, Share | None]] = field(default_factory=dict)

    def summary(self) -> str:
        if self.kind == "not measurable":
            return f"not measurable: {self.reason}"
        return f"{self.kind}: before {self.before}, after {self.after} on {self.model}"


def verify(
    records: Records,
    pill: Pill,
    role: str,
    moments: Moments,
    *,
    days: int,
    minimum: int,
    stages: Iterable[str],
) -> Reading:
    """Compare `role`'s share of sent-back rounds `days` before and after the lesson."""
    since = moments.learned(pill)
    lo, hi = since - dt.timedelta(days=days), since + dt.timedelta(days=days)
    before = records.before(role, lo, since)
    after = records.after(role, since, hi)

    def share(indexes: Sequence[int]) -> Share:
        return Share(sum(1 for i in indexes if i in records.sent_back), len(indexes))

    control: dict[str, tuple[Share | None, Share | None]] = {}
    for stage in sorted(set(stages) - {role}):
        b_side, a_side = records.before(stage, lo, since), records.after(stage, since, hi)
        control[stage] = (share(b_side) if b_side else None, share(a_side) if a_side else None)

    def unmeasurable(reason: str) -> Reading:
        return Reading(pill.key, role, "not measurable", reason, None, None, None, since, control)

    if not before and not after:
        return unmeasurable(
            f"no {role} rounds recorded within {days} days either side of {pill.date}"
        )
    per_model: dict[str, tuple[list[int], list[int]]] = {}
    for side, indexes in ((0, before), (1, after)):
        for i in indexes:
            model = records.rounds[i].model
            if model is not None:
                per_model.setdefault(model, ([], []))[side].append(i)
    if not per_model:
        return unmeasurable(
            f"the model of all {len(before) + len(after)} {role} rounds is unknown (the host did "
            "not report it), so no two sides run on the same model"
        )
    best = max(
        per_model,
        key=lambda m: (min(len(per_model[m][0]), len(per_model[m][1])), len(per_model[m][0])),
    )
    b, a = per_model[best]
    if len(b) < minimum or len(a) < minimum:
        short = []
        if len(b) < minimum:
            short.append(f"{len(b)} before")
        if len(a) < minimum:
            short.append(f"{len(a)} after")
        return unmeasurable(
            f"only {' and '.join(short)} the lesson on {best} ({minimum} needed on each side "
            f"within {days} days)"
        )
    before_share, after_share = share(b), share(a)
    return Reading(
        pill.key,
        role,
        compare(before_share, after_share),
        None,
        best,
        before_share,
        after_share,
        since,
        control,
    )


# -- use --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Applied:
    """How many dispatches of its roles had the lesson in their injected index."""

    rounds: int | None
    reason: str | None = None


def applied(
    records: Records,
    pill: Pill,
    moments: Moments,
    *,
    injected: set[str],
    until: dt.datetime | None,
) -> Applied:
    """Count dispatches of the lesson's injected roles from its moment until `until` (retired)."""
    roles = [r for r in pill.roles if r in injected]
    if not roles:
        return Applied(None, "its roles are not injected (not in graph.stages)")
    if not any(records.starts.values()):
        return Applied(None, "no subagent starts recorded, so no injection can be counted")
    if pill.status == "retired" and until is None:
        return Applied(None, "retired, and when it left the index is not in git history")
    since = moments.learned(pill)
    count = sum(
        1
        for role in roles
        for at in records.starts.get(role, ())
        if at > since and (until is None or at <= until)
    )
    return Applied(count)
