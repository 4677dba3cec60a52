"""The report's data model: what a detector sees and what it says.

A report streams the event log exactly once. Every detector receives each event through
`observe` (keep only what you need: memory must not grow with the log), then `finish` turns what
it kept into a `DetectorResult`. Detectors never print and never read the log themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from gitflow_harness.store.events import Event, ReadStats
    from gitflow_harness.workspace import Workspace

Tone = Literal["good", "attention", "info"]
Status = Literal["fired", "quiet", "insufficient-evidence"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing a detector noticed about one subject (a hint family, a role, a branch...)."""

    detector: str
    subject: str
    tone: Tone
    observed: str  # one sentence: what was seen
    evidence: dict[str, Any]  # the numbers behind it
    next_step: str  # one sentence: what to do about it

    def to_dict(self) -> dict[str, Any]:
        return {
            "detector": self.detector,
            "subject": self.subject,
            "tone": self.tone,
            "observed": self.observed,
            "evidence": self.evidence,
            "next_step": self.next_step,
        }


@dataclass(frozen=True, slots=True)
class DetectorResult:
    """A detector's verdict: fired (with findings), quiet, or not enough evidence to say."""

    id: str
    status: Status
    considered: int
    findings: tuple[Finding, ...] = ()
    notes: tuple[str, ...] = ()  # e.g. "git history touched 2 episodes"
    # The numbers behind the pictures of the HTML report, per subject, below any threshold a
    # finding needs (every family that fired, every adapter, every lesson reading): JSON data.
    breakdown: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "status": self.status, "considered": self.considered}
        if self.notes:
            out["notes"] = list(self.notes)
        if self.breakdown:
            out["breakdown"] = self.breakdown
        return out


@dataclass
class ReportContext:
    """What detectors may consult at `finish`: the workspace (git, config) and the read stats."""

    workspace: Workspace
    stats: ReadStats
    since: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Detector(Protocol):
    """A streaming detector.

    A detector may also set `types`, a frozenset of the event types it reads: the report then
    calls its `observe` only for those (without it, for every event); and `data_types`, those
    whose `data` it reads: the others reach it with an empty `data` (without it, it reads the
    `data` of every type it reads). One that defines `observe_chunk(events)` is handed the
    log's events a list at a time, in order, instead (every event, whatever its `types`): a
    detector that reads most events saves a call per event.
    """

    id: str

    def observe(self, event: Event) -> None: ...

    def finish(self, ctx: ReportContext) -> DetectorResult: ...
