"""Firing curves: how present a way stays in the agent's context as ticks pass after it fired.

A curve is one of four frozen variants. Each answers three questions about a delta `d` (ticks
since the way last fired; a negative delta, from a tick that went backwards, counts as 0):
`salience_at(d)` in [0, 1], never increasing with `d` (the outward gate compares it with the
floor); `multiplier_at(d, history, now)`, the magnitude a match needs to get through the inward
gate (1.0 except during an ActionPotential burst); and `refire_delta(floor)`, the smallest `d`
at which a match fires again.
"""

from __future__ import annotations

from gitflow_harness.firing.record import Record

_SET = object.__setattr__  # constructors set slots directly: the index builds 500 per call

# `typing` costs ~2 ms to import; the hook path loads this module on every tool call.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import ClassVar, TypeAlias

Tick: TypeAlias = int  # a position on a way's axis (tokens, turns or seconds), from the caller
TickDelta: TypeAlias = int  # a distance between two ticks

# An ActionPotential fire counts towards a burst while its contribution is above this share.
LIVE_CONTRIBUTION = 0.01


# The largest half-life a curve takes, in ticks: far beyond any session (a million turns, a
# thousand full context windows), and small enough that the float math of salience and refire
# deltas stays exact to the tick (a double holds integers to 2**53).
MAX_HALF_LIFE = 10**12


class CurveError(ValueError):
    """A curve declaration that cannot be used; `field` names the offending key, if one does."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class _Curve(Record):
    """What the four variants share. Each defines `salience_at(delta)` and
    `refire_delta(floor)` itself; callers hold a `Curve`, the closed union of the variants, so
    the type checker sees every variant's own methods."""

    __slots__ = ()
    TYPE: ClassVar[str]

    def multiplier_at(self, delta: TickDelta, history: Sequence[Tick], now: Tick) -> float:
        """Return the magnitude a match at `now` needs; `history` holds past fires, newest last."""
        return 1.0

    def to_dict(self) -> dict[str, object]:
        """Return the curve as the frontmatter declares it."""
        out: dict[str, object] = {"type": self.TYPE}
        for name in self.FIELDS:
            value = getattr(self, name)
            out[name] = [list(step) for step in value] if isinstance(value, tuple) else value
        return out

    def to_list(self) -> list[object]:
        """Return the curve compactly, `[type, *parameters]`, for caches (see curve_from_list)."""
        return [self.TYPE, *(self.to_dict()[name] for name in self.FIELDS)]

    def describe(self) -> str:
        """Return a one-line summary, e.g. `Exponential half_life=30000`."""
        return f"{self.TYPE} " + " ".join(f"{n}={getattr(self, n)}" for n in self.FIELDS)


class Exponential(_Curve):
    """Salience halves every `half_life` ticks: `0.5 ** (d / half_life)`."""

    TYPE = "Exponential"
    FIELDS = ("half_life",)
    __slots__ = FIELDS
    half_life: int

    def __init__(self, half_life: int) -> None:
        _SET(
            self,
            "half_life",
            _integer("half_life", half_life, minimum=1, maximum=MAX_HALF_LIFE),
        )

    def salience_at(self, delta: TickDelta) -> float:
        return float(0.5 ** (max(0, delta) / self.half_life))

    def refire_delta(self, floor: float) -> TickDelta | None:
        if floor <= 0.0:
            return None
        if floor > 1.0:
            return 0
        # Exactly: the smallest integer d with d > H * log2(1/floor), i.e. floor(...) + 1. Float
        # rounding can put that one off at the boundary; settle on what salience_at says, so
        # this always agrees with the gate.
        import math  # here, not at the top: the hook's hot path never needs it

        # -log2(floor), not log2(1/floor): 1/floor overflows for a subnormal floor.
        guess = math.floor(self.half_life * -math.log2(floor)) + 1
        for _ in range(64):
            if guess > 0 and self.salience_at(guess - 1) < floor:
                guess -= 1
            elif self.salience_at(guess) >= floor:
                guess += 1
            else:
                break
        return guess


class Flat(_Curve):
    """Fully present for `suppression` ticks, then gone: 1.0 while `d < suppression`, else 0.0."""

    TYPE = "Flat"
    FIELDS = ("suppression",)
    __slots__ = FIELDS
    suppression: int

    def __init__(self, suppression: int) -> None:
        _SET(self, "suppression", _integer("suppression", suppression, minimum=0))

    def salience_at(self, delta: TickDelta) -> float:
        return 1.0 if max(0, delta) < self.suppression else 0.0

    def refire_delta(self, floor: float) -> TickDelta | None:
        if floor <= 0.0:
            return None
        if floor > 1.0:
            return 0
        return self.suppression


class ProgressiveStaircase(_Curve):
    """Fires once at each step's delta, measured from the episode's first fire, then is quiet.

    `steps` are `(delta, salience)` pairs: first delta 0, deltas strictly increasing, saliences in
    [0, 1] and never increasing. A step's salience is what its fire carries (to the macro).
    """

    TYPE = "ProgressiveStaircase"
    FIELDS = ("steps",)
    __slots__ = FIELDS
    steps: tuple[tuple[int, float], ...]

    def __init__(self, steps: Sequence[Sequence[int | float]]) -> None:
        _SET(self, "steps", _steps(steps))

    def step_index(self, elapsed: TickDelta) -> int:
        """Return the index of the step in force `elapsed` ticks after the episode began."""
        elapsed = max(0, elapsed)
        index = 0
        for i, (at, _) in enumerate(self.steps):
            if at > elapsed:
                break
            index = i
        return index

    def salience_at(self, delta: TickDelta) -> float:
        return self.steps[self.step_index(delta)][1]

    def refire_delta(self, floor: float) -> TickDelta | None:
        # Steps are measured from the episode's first fire, not gated by the floor.
        return self.steps[1][0] if len(self.steps) > 1 else None

    def describe(self) -> str:
        return f"{self.TYPE} steps=" + ", ".join(f"{d}:{s:g}" for d, s in self.steps)


class ActionPotential(_Curve):
    """The inward gate: a refractory period after every fire, and a threshold raised by bursts.

    No match fires within `absolute_refractory` ticks of a fire. Each fire contributes
    `0.5 ** (d / multiplier_half_life)` and counts while that is above 1 %; when at least
    `burst_threshold` fires count, the multiplier rises toward `peak_multiplier` with their summed
    contribution, and a match fires only if its magnitude (lanes matched) reaches it. There is
    no outward decay: outside those two, every match fires.
    """

    TYPE = "ActionPotential"
    FIELDS = ("burst_threshold", "peak_multiplier", "absolute_refractory", "multiplier_half_life")
    __slots__ = FIELDS
    burst_threshold: int
    peak_multiplier: float
    absolute_refractory: int
    multiplier_half_life: int

    def __init__(
        self,
        burst_threshold: int,
        peak_multiplier: float,
        absolute_refractory: int,
        multiplier_half_life: int,
    ) -> None:
        _SET(self, "burst_threshold", _integer("burst_threshold", burst_threshold, minimum=1))
        _SET(self, "peak_multiplier", _number("peak_multiplier", peak_multiplier, minimum=1.0))
        _SET(
            self,
            "absolute_refractory",
            _integer("absolute_refractory", absolute_refractory, minimum=0),
        )
        _SET(
            self,
            "multiplier_half_life",
            _integer(
                "multiplier_half_life", multiplier_half_life, minimum=1, maximum=MAX_HALF_LIFE
            ),
        )

    def salience_at(self, delta: TickDelta) -> float:
        # Drawn as fully present through the refractory period; the floor never gates it.
        return 1.0 if max(0, delta) < self.absolute_refractory else 0.0

    def contribution(self, delta: TickDelta) -> float:
        """Return what a fire `delta` ticks ago adds to a burst."""
        return float(0.5 ** (max(0, delta) / self.multiplier_half_life))

    def burst_window(self) -> TickDelta:
        """Return the smallest delta at which a fire no longer counts towards a burst."""
        import math

        guess = math.ceil(self.multiplier_half_life * math.log2(1.0 / LIVE_CONTRIBUTION))
        while guess > 0 and self.contribution(guess - 1) <= LIVE_CONTRIBUTION:
            guess -= 1
        while self.contribution(guess) > LIVE_CONTRIBUTION:
            guess += 1
        return guess

    def live(self, history: Sequence[Tick], now: Tick) -> tuple[Tick, ...]:
        """Return the fires of `history` that still count towards a burst at `now`."""
        return tuple(t for t in history if self.contribution(now - t) > LIVE_CONTRIBUTION)

    def multiplier_at(self, delta: TickDelta, history: Sequence[Tick], now: Tick) -> float:
        # `delta` is the distance to the newest fire: once that one no longer counts, none does.
        if not history or self.contribution(delta) <= LIVE_CONTRIBUTION:
            return 1.0
        live = [c for t in history if (c := self.contribution(now - t)) > LIVE_CONTRIBUTION]
        if len(live) < self.burst_threshold:
            return 1.0
        strength = min(1.0, sum(live) / self.burst_threshold)
        return 1.0 + (self.peak_multiplier - 1.0) * strength

    def refire_delta(self, floor: float) -> TickDelta | None:
        # Outside a burst a single-lane match fires as soon as the refractory period is over.
        return self.absolute_refractory

    def describe(self) -> str:
        return (
            f"{self.TYPE} burst_threshold={self.burst_threshold} "
            f"peak_multiplier={self.peak_multiplier:g} "
            f"absolute_refractory={self.absolute_refractory} "
            f"multiplier_half_life={self.multiplier_half_life}"
        )


Curve: TypeAlias = Exponential | Flat | ProgressiveStaircase | ActionPotential
CURVES: dict[str, type[Curve]] = {
    c.TYPE: c for c in (Exponential, Flat, ProgressiveStaircase, ActionPotential)
}


def curve_from_dict(data: Mapping[str, object] | object) -> Curve:
    """Build a curve from its declaration (`{type: Exponential, half_life: 30000}`)."""
    if not isinstance(data, dict):
        raise CurveError(
            f"expected a mapping such as {{type: Exponential, half_life: 30000}}, got {_kind(data)}"
        )
    kind = data.get("type")
    known = ", ".join(CURVES)
    if kind is None:
        raise CurveError(f"missing 'type' (one of {known})", "type")
    cls = CURVES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise CurveError(f"unknown curve type {kind!r} (one of {known})", "type")
    for key in data:
        if key != "type" and key not in cls.FIELDS:
            raise CurveError(
                f"unknown field {key!r} for {cls.TYPE} (it takes {', '.join(cls.FIELDS)})",
                str(key),
            )
    missing = [name for name in cls.FIELDS if name not in data]
    if missing:
        raise CurveError(
            f"{cls.TYPE} needs {', '.join(cls.FIELDS)}; missing {', '.join(missing)}",
            missing[0],
        )
    return cls(**{name: data[name] for name in cls.FIELDS})


def curve_from_list(data: object) -> Curve:
    """Build a curve from `to_list` output, validating it like a declaration."""
    if type(data) is not list or not data:
        raise CurveError("expected a [type, *parameters] list")
    cls = CURVES.get(data[0])
    if cls is None or len(data) != len(cls.FIELDS) + 1:
        raise CurveError(f"not a curve: {data!r}")
    return cls(*data[1:])


def _integer(name: str, value: object, *, minimum: int, maximum: int | None = None) -> int:
    if type(value) is int and value >= minimum and (maximum is None or value <= maximum):
        return value  # the common case, first
    wanted = f">= {minimum}" if maximum is None else f"from {minimum} to {maximum}"
    if isinstance(value, bool) or not isinstance(value, int):
        raise CurveError(f"{name}: expected an integer {wanted}, got {_kind(value)}", name)
    raise CurveError(f"{name}: expected an integer {wanted}, got {value}", name)


def _number(name: str, value: object, *, minimum: float) -> float:
    # `value != value` is NaN's test, and no finite float exceeds the largest one.
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise CurveError(f"{name}: expected a number >= {minimum:g}, got {_kind(value)}", name)
    if value < minimum or value > 1.7976931348623157e308:
        raise CurveError(f"{name}: expected a finite number >= {minimum:g}, got {value}", name)
    return float(value)


def _steps(value: object) -> tuple[tuple[int, float], ...]:
    if not isinstance(value, list | tuple) or not value:
        raise CurveError(
            "steps: expected a non-empty list of [delta, salience] pairs, "
            f"such as [[0, 1.0], [15000, 0.5]]; got {_kind(value)}",
            "steps",
        )
    steps: list[tuple[int, float]] = []
    for i, pair in enumerate(value, start=1):
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise CurveError(f"steps: step {i} must be a [delta, salience] pair", "steps")
        delta, salience = pair
        if isinstance(delta, bool) or not isinstance(delta, int) or delta < 0:
            raise CurveError(
                f"steps: step {i} delta must be a non-negative integer, got {_kind(delta)}",
                "steps",
            )
        if (
            isinstance(salience, bool)
            or not isinstance(salience, int | float)
            or not 0.0 <= salience <= 1.0
        ):
            raise CurveError(
                f"steps: step {i} salience must be a number in [0, 1], got {_kind(salience)}",
                "steps",
            )
        if i == 1 and delta != 0:
            raise CurveError(f"steps: the first step must be at delta 0, not {delta}", "steps")
        if steps and delta <= steps[-1][0]:
            raise CurveError(
                f"steps: deltas must strictly increase; step {i} ({delta}) "
                f"is not after step {i - 1} ({steps[-1][0]})",
                "steps",
            )
        if steps and salience > steps[-1][1]:
            raise CurveError(
                f"steps: saliences must not increase; step {i} ({salience:g}) "
                f"is above step {i - 1} ({steps[-1][1]:g})",
                "steps",
            )
        steps.append((delta, float(salience)))
    return tuple(steps)


def _kind(value: object) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, str):
        return f"{value!r} (a string)"
    if isinstance(value, int | float):
        return f"{value!r}"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__
