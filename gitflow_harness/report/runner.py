"""Run every detector over one pass of the event log, of one repository or of several."""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from gitflow_harness.report.detectors import DetectorFactory, factories
from gitflow_harness.report.model import Detector, DetectorResult, Finding, ReportContext
from gitflow_harness.report.repos import RepoRef, repo_ref
from gitflow_harness.store.events import Event, ReadStats
from gitflow_harness.workspace import Workspace


@dataclass(frozen=True, slots=True)
class Report:
    """Every detector's result, and what the read of the log skipped; over several
    repositories, their results together and each repository's own report."""

    results: tuple[DetectorResult, ...]
    stats: ReadStats
    since: str | None
    repositories: tuple[RepositoryReport, ...] = ()

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
        } | (
            {"repositories": [part.to_dict() for part in self.repositories]}
            if self.repositories
            else {}
        )


@dataclass(frozen=True, slots=True)
class RepositoryReport:
    """One repository's own report, within a report over several."""

    repo: RepoRef
    label: str  # its name, or its path where two repositories share a name
    report: Report

    def to_dict(self) -> dict[str, Any]:
        return {"repo": self.repo.to_dict(), "label": self.label} | self.report.to_dict()


def run_reports(
    workspaces: Sequence[Workspace],
    *,
    since: str | None = None,
    detectors: Sequence[DetectorFactory] | None = None,
) -> Report:
    """Report on each repository in turn, then on all of them together.

    Each repository's detectors see its own log and git (one repository after the other, so
    memory is that of the largest, not of their sum); together, each detector's results are
    summed: its status the strongest of them, `considered` their sum, every finding and note
    labelled with its repository.
    """
    refs = [repo_ref(ws) for ws in workspaces]
    names = Counter(ref.name for ref in refs)
    parts = tuple(
        RepositoryReport(
            ref,
            ref.name if names[ref.name] == 1 else ref.path,
            run_report(ws, since=since, detectors=detectors),
        )
        for ws, ref in zip(workspaces, refs, strict=True)
    )
    stats = ReadStats([counts for part in parts for counts in part.report.stats.files])
    return Report(_together(parts), stats, since, parts)


_STRENGTH: Final[dict[str, int]] = {"insufficient-evidence": 0, "quiet": 1, "fired": 2}


def _together(parts: Sequence[RepositoryReport]) -> tuple[DetectorResult, ...]:
    by_id: dict[str, list[tuple[str, DetectorResult]]] = {}
    for part in parts:
        for result in part.report.results:
            by_id.setdefault(result.id, []).append((part.label, result))
    return tuple(
        DetectorResult(
            detector,
            max((r.status for _, r in results), key=_STRENGTH.__getitem__),
            sum(r.considered for _, r in results),
            tuple(
                replace(f, subject=f"{label} · {f.subject}")
                for label, r in results
                for f in r.findings
            ),
            tuple(f"{label}: {note}" for label, r in results for note in r.notes),
        )
        for detector, results in by_id.items()
    )


Observe = Callable[[Event], None]


class _Routes(dict[str, tuple[Observe, ...]]):
    """Event type -> the `observe` of every detector that reads it, in report order.

    A detector that declares the event types it reads is not called for the others: most of a
    log is hook traffic that only some detectors look at. A type's entry is worked out the
    first time it is seen, so each event costs one lookup.
    """

    def __init__(self, running: Sequence[Detector]) -> None:
        super().__init__()
        self._running = running

    def __missing__(self, kind: str) -> tuple[Observe, ...]:
        found = tuple(d.observe for d in self._running if _reads(d, kind))
        if len(self) < ROUTES_KEPT:  # types are few; memory must not grow with a log of many
            self[kind] = found
        return found


ROUTES_KEPT: Final = 256
YOUNG: Final = 5_000  # allocations between two collections of the youngest generation


def _reads(detector: Detector, kind: str) -> bool:
    types = getattr(detector, "types", None)
    return types is None or kind in types


class _DataRead(dict[str, bool]):
    """Event type -> whether a detector that reads it reads its `data` too.

    A detector reads the `data` of every type it reads, unless it names the few it does (in
    `data_types`): the follow-through detector sees every event for its time and session,
    and the data of `verb` and `git.update` alone. The report leaves the rest unparsed.
    """

    def __init__(self, running: Sequence[Detector]) -> None:
        super().__init__()
        self._running = running

    def __missing__(self, kind: str) -> bool:
        found = any(
            _reads(d, kind) and kind in getattr(d, "data_types", (kind,)) for d in self._running
        )
        if len(self) < ROUTES_KEPT:
            self[kind] = found
        return found


def run_report(
    ws: Workspace,
    *,
    since: str | None = None,
    detectors: Sequence[DetectorFactory] | None = None,
) -> Report:
    """Stream the log once, feeding every event to every detector, and collect their results.

    Memory follows what the detectors keep, never the length of the log. Over a long log, on
    a machine with a CPU idle for it, a forked child streams the log beside this process for
    the detectors that read a few types of event, while this process does those that read
    every event (`_sides`); each side's results are the same as one pass would give.
    """
    stats = ReadStats()
    ctx = ReportContext(workspace=ws, stats=stats, since=since)
    running = [make(ctx) for make in (factories() if detectors is None else detectors)]
    results: dict[int, DetectorResult] = {}
    here, apart = _sides(ws, running, since)
    if not apart:
        _pass(ws, running, stats, since)
    else:
        from gitflow_harness import halves

        counted = False

        def mine(part: Sequence[Detector]) -> None:
            # The first pass counts the log's lines; one run again for the child's part does not.
            nonlocal counted
            _pass(ws, part, ReadStats() if counted else stats, since)
            counted = True

        def theirs(part: Sequence[Detector]) -> list[DetectorResult]:
            seen = ReadStats()
            _pass(ws, part, seen, since)
            return [d.finish(replace(ctx, stats=seen)) for d in part]

        def take(part: Sequence[Detector], answer: object) -> bool:
            if type(answer) is not list or len(answer) != len(part):
                return False
            results.update((id(d), result) for d, result in zip(part, answer, strict=True))
            return True

        import pickle

        halves.share(here, apart, mine, theirs, take, dumps=pickle.dumps, loads=pickle.loads)
    return Report(
        tuple(results[id(d)] if id(d) in results else d.finish(ctx) for d in running),
        stats,
        since,
    )


SPLIT_BYTES: Final = 8 << 20  # a shorter log is streamed in one process: a fork costs ms


def _sides(
    ws: Workspace, running: Sequence[Detector], since: str | None
) -> tuple[list[Detector], list[Detector]]:
    """The detectors this process runs, and those a child may run beside it: the ones that
    read a few types of event (`types`), when others read every event, the files to read
    (from `since` on) are long and a child may be used. Else all run here."""
    few = [d for d in running if getattr(d, "types", None) is not None]
    every = [d for d in running if getattr(d, "types", None) is None]
    if not few or not every:
        return list(running), []
    from gitflow_harness import halves

    try:
        month = "" if since is None else since[:7]
        size = sum(path.stat().st_size for path in ws.log.files() if path.stem >= month)
    except OSError:
        return list(running), []
    if size < SPLIT_BYTES or not halves.available():
        return list(running), []
    return every, few


def _pass(ws: Workspace, running: Sequence[Detector], stats: ReadStats, since: str | None) -> None:
    """One pass over the log, each event to the detectors of `running` that read it."""
    # A detector that takes a chunk of events at a time is handed each chunk whole; the others
    # are handed, one by one, the events of the types they read.
    whole = [chunk for d in running if (chunk := getattr(d, "observe_chunk", None)) is not None]
    routes = _Routes([d for d in running if getattr(d, "observe_chunk", None) is None])
    reads_data = _DataRead(running).__getitem__
    from gitflow_harness.store.eventscan import scan

    # What is loaded now (modules, the detectors) outlives the pass: frozen, the collector's
    # full passes over a long log need not walk it (about 3.5% of a report's CPU time). The
    # pass holds a chunk of events at a time, hundreds of containers that die together: the
    # youngest generation is collected every few thousand of them rather than every 700, so
    # a chunk is not walked again and again (about 5% more). Memory still stays flat.
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], YOUNG), *thresholds[1:])
    gc.freeze()
    try:
        for events in scan(ws.log, since=since, stats=stats, reads_data=reads_data):
            for observe_chunk in whole:
                observe_chunk(events)
            for event in events:
                for observe in routes[event.type]:
                    observe(event)
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
