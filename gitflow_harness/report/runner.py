"""Run every detector over one pass of the event log."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gitflow_harness.report.detectors import DetectorFactory, factories
from gitflow_harness.report.model import Detector, DetectorResult, Finding, ReportContext
from gitflow_harness.store.events import Event, ReadStats
from gitflow_harness.workspace import Workspace


@dataclass(frozen=True, slots=True)
class Report:
    """Every detector's result, and what the read of the log skipped."""

    results: tuple[DetectorResult, ...]
    stats: ReadStats
    since: str | None

    @property
    def findings(self) -> list[Finding]:
        return [f for r in self.results for f in r.findings]

    def to_dict(self) -> dict[str, Any]:
        """The `--json` object: detectors, findings, and the log's line counts."""
        return {
            "detectors": [r.to_dict() for r in self.results],
            "findings": [f.to_dict() for f in self.findings],
            "log": {
                "files": len(self.stats.files),
                "events": self.stats.events,
                "foreign": self.stats.foreign,
                "torn": self.stats.torn,
                "skipped": self.stats.skipped,
            },
            "since": self.since,
        }


def run_report(
    ws: Workspace,
    *,
    since: str | None = None,
    detectors: Sequence[DetectorFactory] | None = None,
) -> Report:
    """Stream the log once, feeding every event to every detector, and collect their results.

    Memory follows what the detectors keep, never the length of the log.
    """
    stats = ReadStats()
    ctx = ReportContext(workspace=ws, stats=stats, since=since)
    running = [make(ctx) for make in (factories() if detectors is None else detectors)]
    read = _reading(running)
    every: list[Callable[[Event], None]] = [d.observe for d in running if read.sees_every(d)]
    by_type: dict[str, list[Callable[[Event], None]]] = {}
    for d in running:
        if not read.sees_every(d):
            for kind in _types(d) or ():
                by_type.setdefault(kind, []).append(d.observe)
    no_one: list[Callable[[Event], None]] = []
    for event in ws.log.read(since=since, stats=stats, types=read.types, envelopes=read.envelopes):
        for observe in every:
            observe(event)
        for observe in by_type.get(event.type, no_one):
            observe(event)
    return Report(tuple(d.finish(ctx) for d in running), stats, since)


@dataclass(frozen=True, slots=True)
class _Reading:
    """What the detectors need from the log: the types parsed whole (None: every type), and
    whether the envelopes of the other events are read too."""

    types: frozenset[str] | None
    envelopes: bool

    def sees_every(self, detector: Detector) -> bool:
        """Whether `detector` is called for every event, not only for the types it declares."""
        return _types(detector) is None or _envelopes(detector)


def _reading(running: Sequence[Detector]) -> _Reading:
    # A detector that declares the event types it reads is called only for them, and the lines
    # of types no detector reads are never parsed: most of a log is hook traffic. A detector
    # that also sets `envelopes` sees every other event as its envelope alone.
    declared = [_types(d) for d in running]
    types = None
    if all(t is not None for t in declared):
        types = frozenset().union(*(t for t in declared if t is not None))
    return _Reading(types, any(_envelopes(d) for d in running))


def _types(detector: Detector) -> frozenset[str] | None:
    types: frozenset[str] | None = getattr(detector, "types", None)
    return types


def _envelopes(detector: Detector) -> bool:
    return getattr(detector, "envelopes", False) is True
