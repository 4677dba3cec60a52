"""`way-firing`: which ways fire and are suppressed, and where on their declared curve.

Read from `way.fired`, `way.suppressed` and `session.ended`. Every fire and suppression is placed
at its distance from the same session's previous fire of the way (a staircase: its episode's first
fire), on the way's own axis, in `BINS` slices of the span `gfh ways plot` draws, so a picture
can put them beside the curve. What cannot be placed is counted by why.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Final

from gitflow_harness.report.model import DetectorResult, Finding, ReportContext, Status, Tone
from gitflow_harness.store.events import Event

ID: Final = "way-firing"
BINS: Final = 20  # slices of the curve's span; one more counts what lies beyond it
MAX_OPEN: Final = 4096  # (way, session) pairs whose last fire is kept; the oldest go first
MAX_WAYS: Final = 512  # ways counted apart; the rest count together as OTHER
OTHER: Final = "(other)"
# Why an event could not be placed on its way's curve.
FIRST: Final = "first_fire"  # a first fire is the curve's origin, not a point on it
NO_EARLIER: Final = "no_earlier_fire"  # no fire of the way earlier in the session was read
OTHER_AXIS: Final = "other_axis"  # counted on another axis than the way declares
RESTARTED: Final = "ticks_restarted"  # the session's ticks went back (a compaction)
UNDECLARED: Final = "way_not_declared"  # no way of that id is declared now: no curve to read
NO_TICK: Final = "no_tick"  # the event carries no tick
# The kinds and reasons events write (docs/events.md), known without a check on every event.
TOKENS: Final = frozenset({"first", "refire", "step", "salience", "refractory", "budget"})


@dataclass(frozen=True, slots=True)
class Declared:
    """What a way declares that the picture needs: its curve, axis and span."""

    curve: dict[str, object]
    axis: str
    span: int  # the last delta drawn, as `gfh ways plot` draws it
    refire: int | None


@dataclass(slots=True)
class WayTally:
    """The fires and suppressions of one way."""

    fired: Counter[str] = field(default_factory=Counter)  # by kind
    suppressed: Counter[str] = field(default_factory=Counter)  # by reason
    unplaced: Counter[str] = field(default_factory=Counter)  # by why
    # series ("fired" or the suppression's reason) -> slice -> count; slice BINS is beyond
    placed: dict[str, list[int]] = field(default_factory=dict)


class WayFiring:
    """Count each way's fires and suppressions, placed on its declared curve."""

    id = ID
    types = frozenset({"way.fired", "way.suppressed", "session.ended"})

    def __init__(self, ctx: ReportContext) -> None:
        self._floor = ctx.workspace.config.ways.floor
        self._declared = _declared(ctx, self._floor)
        self._ways: dict[str, WayTally] = {}
        # (way, session) -> the tick its curve is measured from, newest last
        self._origin: dict[tuple[str, str], tuple[str, int]] = {}  # ... (axis, tick)

    def observe(self, event: Event) -> None:
        if event.type == "session.ended":
            self._forget(event.session)
            return
        data = event.data
        way = data.get("way")
        if type(way) is not str:
            return
        tally = self._ways.get(way) or self._tally(way)
        kind = data.get("kind")
        kind = kind if type(kind) is str and kind in TOKENS else _token(kind)
        if event.type == "way.fired":
            tally.fired[kind] += 1
            series = "fired"
        else:
            reason = data.get("reason")
            series = reason if type(reason) is str and reason in TOKENS else _token(reason)
            tally.suppressed[series] += 1
        why = self._place(way, tally, series, event, kind)
        if why is not None:
            tally.unplaced[why] += 1

    def _tally(self, way: str) -> WayTally:
        tally = self._ways.get(way)
        if tally is None:
            if len(self._ways) >= MAX_WAYS:
                way = OTHER
                tally = self._ways.get(way)
            if tally is None:
                tally = self._ways[way] = WayTally()
        return tally

    def _place(self, way: str, tally: WayTally, series: str, event: Event, kind: str) -> str | None:
        """Put the event in its slice of the way's curve; return why not, if it cannot be."""
        data = event.data
        tick, axis = data.get("tick"), data.get("axis")
        if type(tick) is not int:
            return NO_TICK
        key = (way, event.session or "")
        origin = self._origin.get(key) if event.session else None
        fired = series == "fired"
        if fired and kind != "step" and event.session:
            # A fire starts the curve again; a staircase's step is a point on its episode's.
            self._origin.pop(key, None)
            self._origin[key] = (str(axis), tick)
            if len(self._origin) > MAX_OPEN:
                del self._origin[next(iter(self._origin))]
        if fired and kind == "first":
            return FIRST
        declared = self._declared.get(way)
        if declared is None:
            return UNDECLARED
        if axis != declared.axis:
            return OTHER_AXIS
        if origin is None or origin[0] != axis:
            return NO_EARLIER
        delta = tick - origin[1]
        if delta < 0:
            return RESTARTED
        bins = tally.placed.get(series)
        if bins is None:
            bins = tally.placed[series] = [0] * (BINS + 1)
        bins[min(BINS, delta * BINS // declared.span)] += 1
        return None

    def _forget(self, session: str | None) -> None:
        if session is None:
            return
        for key in [k for k in self._origin if k[1] == session]:
            del self._origin[key]

    def finish(self, ctx: ReportContext) -> DetectorResult:
        findings = tuple(self._finding(way, t) for way, t in sorted(self._ways.items()))
        total = sum(sum(t.fired.values()) + sum(t.suppressed.values()) for t in self._ways.values())
        quiet = sorted(set(self._declared) - set(self._ways))
        notes = []
        if quiet:
            more = f" and {len(quiet) - 10} more" if len(quiet) > 10 else ""
            notes.append(
                f"{len(quiet)} declared way(s) neither fired nor were suppressed: "
                f"{', '.join(quiet[:10])}{more}"
            )
        status: Status
        if findings:
            status = "fired"
        elif self._declared and ctx.stats.events:
            status = "quiet"
        else:
            status = "insufficient-evidence"
        breakdown = {
            "floor": self._floor,
            "bins": BINS,
            "ways": {way: self._breakdown(way, t) for way, t in sorted(self._ways.items())},
        }
        return DetectorResult(self.id, status, total, findings, tuple(notes), breakdown)

    def _breakdown(self, way: str, tally: WayTally) -> dict[str, Any]:
        declared = self._declared.get(way)
        return {
            "fired": dict(sorted(tally.fired.items())),
            "suppressed": dict(sorted(tally.suppressed.items())),
            "unplaced": dict(sorted(tally.unplaced.items())),
            "placed": dict(sorted(tally.placed.items())),
            "declared": None
            if declared is None
            else {
                "curve": declared.curve,
                "axis": declared.axis,
                "span": declared.span,
                "refire_delta": declared.refire,
            },
        }

    def _finding(self, way: str, tally: WayTally) -> Finding:
        fired, suppressed = sum(tally.fired.values()), sum(tally.suppressed.values())
        placed = sum(sum(bins) for bins in tally.placed.values())
        budget = tally.suppressed["budget"]
        declared = self._declared.get(way)
        axis = declared.axis if declared else "its axis"
        total, unplaced = fired + suppressed, fired + suppressed - placed
        observed = f"{way} fired {fired} time(s) ({_counts(tally.fired)})"
        observed += f", suppressed {suppressed} ({_counts(tally.suppressed)})" if suppressed else ""
        observed += f"; {placed} of {total} placed on its curve over {axis}"
        observed += f", {unplaced} not ({_counts(tally.unplaced)})." if unplaced else "."
        tone: Tone = "attention" if budget else "info"
        if budget:
            step = (
                f"{budget} match(es) were cut by the hook's character budget: shorten the way's "
                "text, or lower the salience of the ways that fire with it."
            )
        elif declared is None:
            step = "No way of this id is declared any more: its events are history."
        else:
            step = f"Compare with its curve: `gfh ways show {way} --plot`, `gfh ways tune`."
        evidence = {
            "fired": fired,
            "suppressed": suppressed,
            "placed": placed,
            "unplaced": unplaced,
        }
        return Finding(self.id, way, tone, observed, evidence, step)


def _declared(ctx: ReportContext, floor: float) -> dict[str, Declared]:
    """The declared ways of the workspace, by id (none when they cannot be read)."""
    from gitflow_harness.ways import catalog
    from gitflow_harness.ways.plot import horizon

    ws = ctx.workspace
    index = catalog.load(ws.top, ws.config)
    return {
        way.id: Declared(
            way.curve.to_dict(),
            way.axis,
            horizon(way.curve, floor),
            way.curve.refire_delta(floor),
        )
        for way in index.ways
    }


def _token(value: object) -> str:
    return value if isinstance(value, str) and value.isidentifier() else "(unknown)"


def _counts(counts: Counter[str]) -> str:
    return ", ".join(f"{k.replace('_', ' ')} {n}" for k, n in sorted(counts.items()))
