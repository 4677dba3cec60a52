"""Engagement: one way's firing history within a session, and the gate that decides each match.

The state is a frozen value. `decide` says what a match at tick `now` would do; the caller
delivers the way's text and only then calls `record_fire`, which returns the next state. A way
that was not delivered (its text cut, stdout closed) was never fired.
"""

from __future__ import annotations

from gitflow_harness.firing.curves import (
    ActionPotential,
    ProgressiveStaircase,
)
from gitflow_harness.firing.record import Record

TYPE_CHECKING = False  # see curves.py: no `typing` import at run time
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from gitflow_harness.firing.curves import Curve, Tick, TickDelta

FIRST = "first"  # the first match of an episode
REFIRE = "refire"  # the way faded below the floor (or, for ActionPotential, was let through)
STEP = "step"  # a ProgressiveStaircase reached its next step
SUPPRESSED = "suppressed"  # still present in context: salience at or above the floor
REFRACTORY = "refractory"  # the inward gate refused: refractory period, or magnitude too low
KINDS = (FIRST, REFIRE, STEP, SUPPRESSED, REFRACTORY)
FIRED_KINDS = frozenset({FIRST, REFIRE, STEP})


class Decision(Record):
    """What a match does: its kind, the salience the outward gate saw, the multiplier, and for
    a staircase's fire the salience of the step it fires (its macro's `GFH_SALIENCE`).

    The salience seen is 0.0 at every first fire, whatever the curve: the way was not in the
    context yet. A staircase's step level is another quantity (how strongly to say it), so it
    has a field of its own rather than standing in for the salience.
    """

    FIELDS = ("kind", "salience", "multiplier", "level")
    __slots__ = FIELDS
    kind: str
    salience: float
    multiplier: float
    level: float | None

    def __init__(
        self, kind: str, salience: float, multiplier: float, level: float | None = None
    ) -> None:
        self._init(kind=kind, salience=salience, multiplier=multiplier, level=level)

    @property
    def fired(self) -> bool:
        return self.kind in FIRED_KINDS

    @property
    def reason(self) -> str | None:
        """The `way.suppressed` reason for a refusal (`salience` or `refractory`), else None."""
        if self.kind == SUPPRESSED:
            return "salience"
        if self.kind == REFRACTORY:
            return "refractory"
        return None

    def to_dict(self) -> dict[str, object]:
        return {"decision": self.kind, "salience": self.salience, "multiplier": self.multiplier}


class EngagementState(Record):
    """One way's fires in one session: the current episode and, for bursts, recent history.

    `last_fire` and `episode_start` are None until the episode's first fire. `history` holds the
    ticks of recent fires, newest last, for curves that look back (ActionPotential); it is
    pruned to the fires that can still contribute.
    """

    FIELDS = ("curve", "history", "last_fire", "episode_start")
    __slots__ = FIELDS
    curve: Curve
    history: tuple[Tick, ...]
    last_fire: Tick | None
    episode_start: Tick | None

    def __init__(
        self,
        curve: Curve,
        history: Iterable[Tick] = (),
        last_fire: Tick | None = None,
        episode_start: Tick | None = None,
    ) -> None:
        self._init(
            curve=curve,
            history=tuple(history),
            last_fire=last_fire,
            episode_start=episode_start,
        )

    def delta(self, now: Tick) -> TickDelta | None:
        """Return ticks since the last fire (0 when the tick went backwards), None if none."""
        if self.last_fire is None:
            return None
        return max(0, now - self.last_fire)

    def current_salience(self, now: Tick) -> float:
        """The outward gate's input: how present the way still is at `now` (0.0 if not fired)."""
        if self.last_fire is None or self.episode_start is None:
            return 0.0
        if isinstance(self.curve, ProgressiveStaircase):
            return self.curve.salience_at(now - self.episode_start)
        return self.curve.salience_at(now - self.last_fire)

    def multiplier(self, now: Tick) -> float:
        """Return the magnitude a match at `now` needs to pass the inward gate."""
        delta = self.delta(now)
        if delta is None:
            return 1.0
        return self.curve.multiplier_at(delta, self.history, now)

    def should_fire(self, now: Tick, magnitude: float) -> bool:
        """The inward gate: False inside an ActionPotential's refractory period or a burst."""
        _check(now, magnitude)
        curve = self.curve
        if not isinstance(curve, ActionPotential):
            return True
        delta = self.delta(now)
        if delta is not None and delta < curve.absolute_refractory:
            return False
        return magnitude >= self.multiplier(now)

    def decide(self, now: Tick, magnitude: float, floor: float) -> Decision:
        """Return what a match of `magnitude` lanes at `now` does, given the outward `floor`."""
        _check(now, magnitude)
        curve = self.curve
        multiplier = self.multiplier(now)
        inward = self.should_fire(now, magnitude)
        if self.last_fire is None or self.episode_start is None:
            level = curve.steps[0][1] if isinstance(curve, ProgressiveStaircase) else None
            return Decision(FIRST if inward else REFRACTORY, 0.0, multiplier, level)
        salience = self.current_salience(now)
        if isinstance(curve, ProgressiveStaircase):
            reached = curve.step_index(now - self.episode_start)
            fired = curve.step_index(self.last_fire - self.episode_start)
            if reached > fired:
                return Decision(STEP, salience, multiplier, salience)
            return Decision(SUPPRESSED, salience, multiplier)
        if isinstance(curve, ActionPotential):
            return Decision(REFIRE if inward else REFRACTORY, salience, multiplier)
        if salience < floor:
            return Decision(REFIRE, salience, multiplier)
        return Decision(SUPPRESSED, salience, multiplier)

    def record_fire(self, now: Tick, magnitude: float) -> EngagementState:
        """Return the state after the way's text was delivered at `now`.

        Raises ValueError for a fire the inward gate refuses: only fires `decide` allowed may
        be recorded, so a stored state never breaks its own refractory period.
        """
        if not self.should_fire(now, magnitude):
            raise ValueError(
                f"the inward gate refuses a fire at tick {now} with magnitude {magnitude:g}; "
                "record only fires that decide() allowed"
            )
        start = now if self.last_fire is None or self.episode_start is None else self.episode_start
        history: tuple[Tick, ...] = ()
        if isinstance(self.curve, ActionPotential):
            # A tick that went backwards makes older fires count as just now, never as future.
            previous = tuple(min(t, now) for t in self.history)
            history = self.curve.live((*previous, now), now)
        return EngagementState(self.curve, history, now, start)

    def reset_episode(self) -> EngagementState:
        """Return a fresh state: the injected text left the context (a compaction, a clear)."""
        return EngagementState(self.curve)

    def to_dict(self) -> dict[str, object]:
        """Return the state as a small JSON-ready dict (the curve is the way's, not stored)."""
        return {
            "last_fire": self.last_fire,
            "episode_start": self.episode_start,
            "history": list(self.history),
        }

    @classmethod
    def from_dict(cls, curve: Curve, data: Mapping[str, object] | object) -> EngagementState:
        """Rebuild a state stored by `to_dict` for a way whose curve is now `curve`.

        Raises ValueError on anything `to_dict` could not have written.
        """
        if not isinstance(data, dict):
            raise ValueError("engagement state: expected a JSON object")
        unknown = set(data) - {"last_fire", "episode_start", "history"}
        if unknown:
            raise ValueError(f"engagement state: unknown keys {sorted(unknown)}")
        last_fire = _optional_tick(data.get("last_fire"), "last_fire")
        episode_start = _optional_tick(data.get("episode_start"), "episode_start")
        raw_history = data.get("history", [])
        if not isinstance(raw_history, list):
            raise ValueError("engagement state: history must be a list of ticks")
        history = tuple(_tick(t, "history") for t in raw_history)
        if (last_fire is None) != (episode_start is None):
            raise ValueError("engagement state: last_fire and episode_start go together")
        if last_fire is None and history:
            raise ValueError("engagement state: a history without a last fire")
        if not isinstance(curve, ActionPotential):
            history = ()  # the curve changed kind: only ActionPotential looks back
        elif last_fire is not None:
            history = tuple(min(t, last_fire) for t in history)
        return cls(curve, history, last_fire, episode_start)


def simulate(
    curve: Curve, matches: Iterable[tuple[Tick, float]], floor: float
) -> list[tuple[Tick, Decision]]:
    """Run matches `(tick, magnitude)` through a fresh state; fires are recorded as delivered."""
    state = EngagementState(curve)
    out: list[tuple[Tick, Decision]] = []
    for tick, magnitude in matches:
        decision = state.decide(tick, magnitude, floor)
        if decision.fired:
            state = state.record_fire(tick, magnitude)
        out.append((tick, decision))
    return out


def _check(now: object, magnitude: object) -> None:
    _tick(now, "tick")
    if isinstance(magnitude, bool) or not isinstance(magnitude, int | float):
        raise ValueError(f"magnitude must be a number, got {magnitude!r}")
    if not magnitude > 0:
        raise ValueError(f"a match has a positive magnitude (lanes matched), got {magnitude!r}")


def _tick(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer tick, got {value!r}")
    return value


def _optional_tick(value: object, name: str) -> int | None:
    return None if value is None else _tick(value, f"engagement state: {name}")
