"""`gfh ways tune`: suggest each way's half-life from how often it actually matched.

Every match is in the log, fired or suppressed (`way.fired`, `way.suppressed`). Per way and
session, the deltas between consecutive matches (on the way's current axis) are the evidence;
the suggestion is their median, rounded to 500 ticks and at least 500. Because the evidence is
matches, not fires, a suggestion can move a curve both ways: a way that matches every 8000
tokens under a 30000 half-life is told 8000; one whose matches come 90000 apart is told 90000.
Exponential curves tune `half_life`, Flat curves `suppression`; the others are left alone.
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gitflow_harness.errors import GfhError
from gitflow_harness.firing.curves import (
    MAX_HALF_LIFE,
    Curve,
    Exponential,
    Flat,
    curve_from_dict,
)
from gitflow_harness.store import documents
from gitflow_harness.store.events import Event
from gitflow_harness.ways.model import Way

ROUND_TO = 500
MINIMUM = 500
FLAG_CHANGE = 0.2
MATCH_EVENTS = ("way.fired", "way.suppressed")


@dataclass(frozen=True)
class Suggestion:
    """The evidence for one way and what it suggests."""

    way: Way
    parameter: str | None  # "half_life", "suppression", or None when the curve is not tunable
    current: int | None
    samples: int  # deltas between consecutive matches
    sessions: int  # sessions that contributed at least one delta
    median: float | None
    suggested: int | None

    @property
    def status(self) -> str:
        if self.parameter is None:
            return "not-tunable"
        if self.suggested is None:
            return "insufficient"
        return "suggested"

    @property
    def change(self) -> float | None:
        if self.suggested is None or not self.current:
            return None
        return (self.suggested - self.current) / self.current

    @property
    def flagged(self) -> bool:
        change = self.change
        return change is not None and abs(change) >= FLAG_CHANGE

    def tuned_curve(self) -> Curve:
        """Return the way's curve with the suggested value."""
        if self.suggested is None or self.parameter is None:
            raise ValueError(f"{self.way.id}: nothing to tune")
        data = self.way.curve.to_dict()
        data[self.parameter] = self.suggested
        return curve_from_dict(data)

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.way.id,
            "curve": self.way.curve.to_dict(),
            "parameter": self.parameter,
            "current": self.current,
            "samples": self.samples,
            "sessions": self.sessions,
            "median": self.median,
            "suggested": self.suggested,
            "change": round(self.change, 4) if self.change is not None else None,
            "flagged": self.flagged,
            "status": self.status,
        }


def match_deltas(events: Iterable[Event], axes: dict[str, str]) -> dict[str, list[tuple[str, int]]]:
    """Return, per way id in `axes`, `(session, delta)` between consecutive matches.

    Events without a session cannot be ordered against each other and are skipped, as are
    events on another axis than the way's current one. Two matches at one tick count once;
    a tick that went backwards (a new transcript, a compaction) starts the count over.
    """
    last: dict[tuple[str, str], int] = {}
    out: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for ev in events:
        if ev.type not in MATCH_EVENTS or ev.session is None:
            continue
        way_id, tick, axis = ev.data.get("way"), ev.data.get("tick"), ev.data.get("axis")
        if not isinstance(way_id, str) or way_id not in axes or axis != axes[way_id]:
            continue
        if isinstance(tick, bool) or not isinstance(tick, int) or tick < 0:
            continue
        key = (way_id, ev.session)
        previous = last.get(key)
        last[key] = tick
        if previous is not None and tick > previous:
            out[way_id].append((ev.session, tick - previous))
    return out


def suggest(ways: Sequence[Way], events: Iterable[Event], *, min_samples: int) -> list[Suggestion]:
    """Return one suggestion per way, from the match events in the log."""
    deltas = match_deltas(events, {w.id: w.axis for w in ways})
    out = []
    for way in ways:
        parameter = _parameter(way.curve)
        found = deltas.get(way.id, [])
        current = getattr(way.curve, parameter) if parameter else None
        median = statistics.median(d for _, d in found) if found else None
        suggested = None
        if parameter is not None and median is not None and len(found) >= min_samples:
            suggested = max(MINIMUM, int(median / ROUND_TO + 0.5) * ROUND_TO)
            suggested = min(suggested, MAX_HALF_LIFE)  # what a curve takes (firing.curves)
        out.append(
            Suggestion(
                way=way,
                parameter=parameter,
                current=current,
                samples=len(found),
                sessions=len({s for s, _ in found}),
                median=float(median) if median is not None else None,
                suggested=suggested,
            )
        )
    return out


def apply(suggestion: Suggestion) -> None:
    """Rewrite only the curve block of the way file, atomically."""
    path = suggestion.way.path
    doc = documents.read_document(path)
    target = suggestion.tuned_curve()
    text = retuned_text(doc, target)
    current, _ = documents.read_text(path)
    if current != doc.text:
        raise GfhError(f"{path}: changed while it was being tuned; run `gfh ways tune` again")
    documents.save(doc, text)


def retuned_text(doc: documents.Document, target: Curve) -> str:
    """Return the text with the curve block set to `target`, changing as little as it can.

    One number changes when the block names the parameter once; otherwise the whole block
    becomes a flow mapping. Either way the result is parsed back and must say `target`.
    """
    if "curve" not in doc.spans:
        raise GfhError(f"{doc.path}: has no curve to tune; run `gfh ways migrate` first")
    span = doc.spans["curve"]
    parameter = _parameter(target)
    block = _without_comments(doc.text[span.block_start : span.block_end])
    found = list(re.finditer(rf"(?<![\w-]){parameter}(\s*:\s*)(\d+(?:\.\d*)?)", block))
    if len(found) == 1:
        number = found[0]
        start = span.block_start + number.start(2)
        end = span.block_start + number.end(2)
        candidate = doc.text[:start] + str(getattr(target, str(parameter))) + doc.text[end:]
        if _says(doc, candidate, target):
            return candidate
    candidate = documents.replace_block(
        doc, "curve", [f"curve: {documents.yaml_scalar(target.to_dict())}"]
    )
    if _says(doc, candidate, target):
        return candidate
    raise GfhError(f"{doc.path}: could not rewrite its curve safely; edit it by hand")


def _without_comments(block: str) -> str:
    """Return `block` with its YAML comments blanked out, every offset kept: a `# half_life: 1`
    note must not be taken for the value."""
    out = []
    for line in block.split("\n"):
        quote = None
        cut = len(line)
        for i, ch in enumerate(line):
            if quote is not None:
                quote = None if ch == quote else quote
            elif ch in "'\"":
                quote = ch
            elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
                cut = i
                break
        out.append(line[:cut] + " " * (len(line) - cut))
    return "\n".join(out)


def _says(doc: documents.Document, text: str, target: Curve) -> bool:
    try:
        parsed = documents.parse_document(text, doc.path)
        return curve_from_dict(parsed.meta.get("curve")) == target
    except (GfhError, ValueError):
        return False


def _parameter(curve: Curve) -> str | None:
    if isinstance(curve, Exponential):
        return "half_life"
    if isinstance(curve, Flat):
        return "suppression"
    return None
