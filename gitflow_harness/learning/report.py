"""The learning report: everything `gfh learn` shows and the `learning` detector reads.

One pass over the event log (through a `Collector`), one parse of pills and requests, and one
git history walk when there are records to place against lessons.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gitflow_harness import git
from gitflow_harness.learning import history, stats
from gitflow_harness.learning.graduation import Evidence, Owed, Relapse, owed, relapses
from gitflow_harness.learning.index import injects
from gitflow_harness.learning.pills import Catalog, Pill, load_catalog
from gitflow_harness.learning.records import Collector, Records, build
from gitflow_harness.learning.requests import Ledger, Request, load_ledger
from gitflow_harness.store.config import Config
from gitflow_harness.store.events import EventLog


@dataclass(frozen=True, slots=True)
class LessonStats:
    pill: Pill
    applied: stats.Applied
    readings: tuple[stats.Reading, ...]


@dataclass(frozen=True, slots=True)
class LearningReport:
    now: dt.datetime
    days: int
    catalog: Catalog
    ledger: Ledger
    records: Records
    roles: tuple[stats.RoleLoad, ...]
    owed: tuple[Owed, ...]
    relapses: tuple[Relapse, ...]
    lessons: tuple[LessonStats, ...]

    @property
    def open_requests(self) -> list[Request]:
        return sorted(
            (r for r in self.ledger.requests if r.status == "open"), key=lambda r: r.order
        )

    @property
    def overdue(self) -> list[stats.RoleLoad]:
        return [load for load in self.roles if load.overdue]

    @property
    def problems(self) -> int:
        found = (*self.catalog.problems, *self.ledger.problems)
        return len({p.path for p in found if p.severity == "error"})


def analyze(
    repo: git.Repo,
    config: Config,
    collector: Collector,
    *,
    now: dt.datetime,
    days: int | None = None,
) -> LearningReport:
    """Build the learning report from collected events and the repository's files."""
    top = Path(repo.worktree())
    catalog = load_catalog(top, config.paths.pills)
    ledger = load_ledger(top, config.paths.requests)
    recs = build(collector, config.learning, config.graph)
    window = days if days is not None else config.learning.capture_days
    pills = catalog.pills
    has_records = bool(recs.rounds or recs.starts)
    oldest = min((p.date for p in pills), default=None) if has_records else None
    paths = {path for p in pills for path in history.pill_paths(p, config.paths.pills)}
    moments = history.PillMoments(history.walk(repo, paths, oldest), config.paths.pills)

    loads = stats.role_loads(
        recs,
        pills,
        moments,
        now=now,
        capture_at=config.learning.capture_at,
        capture_days=window,
    )
    # The hook's rule; a retired lesson was injected while it was active, so its roles count.
    injected = {r for p in pills for r in p.roles if injects(config.graph.stages, r)}
    stages = set(config.graph.stages) or recs.roles
    lessons = []
    for pill in pills:
        until = moments.retired(pill)
        applied = stats.applied(recs, pill, moments, injected=injected, until=until)
        readings = tuple(
            stats.verify(
                recs,
                pill,
                role,
                moments,
                days=config.learning.verify_days,
                minimum=config.learning.verify_min,
                stages=stages,
            )
            for role in pill.roles
        )
        lessons.append(LessonStats(pill, applied, readings))
    return LearningReport(
        now=now,
        days=window,
        catalog=catalog,
        ledger=ledger,
        records=recs,
        roles=tuple(loads),
        owed=tuple(owed(catalog, ledger, config.learning.graduation_at)),
        relapses=tuple(relapses(catalog, ledger)),
        lessons=tuple(lessons),
    )


def collect(log: EventLog, *, since: str | None = None) -> Collector:
    """Stream the event log once into a Collector."""
    return Collector().feed(log.read(since=since))


def evidence(repo: git.Repo, config: Config, log: EventLog, *, now: dt.datetime) -> Evidence:
    """Return the evidence lines a new request quotes, read from the log only when asked."""

    def lines_for(due: Sequence[Owed]) -> dict[str, list[str]]:
        report = analyze(repo, config, collect(log), now=now)
        loads = {load.role: load for load in report.roles}
        by_key = {lesson.pill.key: lesson for lesson in report.lessons}
        out: dict[str, list[str]] = {}
        for item in due:
            lines = []
            for role in item.pill.roles:
                load = loads.get(role)
                if load is None:
                    lines.append(f"- {role} in the last {report.days} days: no rounds recorded")
                else:
                    lines.append(
                        f"- {role} in the last {report.days} days: {_load_text(load)}, "
                        f"{load.since_lesson} since its newest lesson"
                    )
            lesson = by_key.get(item.pill.key)
            for reading in lesson.readings if lesson else ():
                lines.append(f"- verify ({reading.role}): {reading.summary()}")
            out[item.pill.key] = lines
        return out

    return lines_for


def to_dict(report: LearningReport) -> dict[str, Any]:
    """Return the report as plain JSON-able data."""
    return {
        "now": report.now.isoformat(timespec="seconds"),
        "days": report.days,
        "pills": len(report.catalog.pills),
        "files_with_errors": report.problems,
        "rounds": len(report.records.rounds),
        "loop_backs": len(report.records.loop_backs),
        "unattributed_loop_backs": report.records.unattributed,
        "skipped_events": report.records.skipped,
        "roles": [
            {
                "role": load.role,
                "rounds": load.rounds,
                "sent_back": load.sent_back,
                "loop_backs": load.loop_backs,
                "loop_backs_without_round": load.without_round,
                "since_lesson": load.since_lesson,
                "newest_lesson": load.newest_lesson,
                "overdue": load.overdue,
            }
            for load in report.roles
        ],
        "overdue": [load.role for load in report.overdue],
        "owed": [
            {
                "pill": o.pill.key,
                "kind": o.kind,
                "occurrences": o.pill.occurrences,
                "reopens": f"{o.reopens.id}.md" if o.reopens else None,
                "why": o.describe(),
            }
            for o in report.owed
        ],
        "open_requests": [
            {
                "id": r.id,
                "pill": r.pill,
                "date": r.date.isoformat(),
                "occurrences": r.occurrences,
                "reopens": r.reopens,
            }
            for r in report.open_requests
        ],
        "relapsed": [
            {
                "pill": r.pill.key,
                "occurrences": r.pill.occurrences,
                "closed": r.closed.id,
                "rule_in": r.closed.rule_in,
                "grown": r.grown,
                "declined": r.declined.id if r.declined else None,
            }
            for r in report.relapses
        ],
        "lessons": [lesson_to_dict(lesson) for lesson in report.lessons],
    }


def lesson_to_dict(lesson: LessonStats) -> dict[str, Any]:
    """Return one lesson, its use and every reading with the control stages', as JSON data."""
    pill = lesson.pill
    return {
        "pill": pill.key,
        "id": pill.id,
        "status": pill.status,
        "roles": list(pill.roles),
        "occurrences": pill.occurrences,
        "date": pill.date.isoformat(),
        "last_seen": pill.last_seen.isoformat(),
        "applied": {"rounds": lesson.applied.rounds, "reason": lesson.applied.reason},
        "verify": [
            {
                "role": r.role,
                "reading": r.kind,
                "reason": r.reason,
                "model": r.model,
                "since": r.since.isoformat(timespec="seconds"),
                "before": r.before.to_dict() if r.before else None,
                "after": r.after.to_dict() if r.after else None,
                "control": {
                    stage: {
                        "before": b.to_dict() if b else None,
                        "after": a.to_dict() if a else None,
                    }
                    for stage, (b, a) in r.control.items()
                },
            }
            for r in lesson.readings
        ],
    }


def render_text(report: LearningReport) -> list[str]:
    """Return the report as lines of text that fit 100 columns."""
    out = [
        f"Learning: {len(report.catalog.pills)} pill(s), {len(report.ledger.requests)} "
        f"request(s), {len(report.records.rounds)} subagent round(s) recorded, "
        f"{len(report.records.loop_backs)} loop-back(s)"
    ]
    if report.problems:
        out.append(
            f"  {report.problems} file(s) cannot be read: `gfh pills check`, `gfh requests check`"
        )
    out += [
        "",
        f"Roles (last {report.days} days): rounds, those sent back, and the loop-back verdicts "
        "charged:",
    ]
    if not report.roles:
        out.append("  no subagent rounds in the window")
    for load in report.roles:
        flag = "  OVERDUE: capture a lesson" if load.overdue else ""
        newest = (
            f"{load.since_lesson} since {load.newest_lesson}"
            if load.newest_lesson
            else "no lesson yet"
        )
        out.append(f"  {load.role}: {_load_text(load)}, {newest}{flag}")
    out += ["", "Owed (`gfh learn --check` files these):"]
    out += [f"  {o.describe()}" for o in report.owed] or ["  nothing"]
    out += ["", "Open requests:"]
    out += [
        f"  {r.id}: {r.pill} at {r.occurrences}" + (f" (reopens {r.reopens})" if r.reopens else "")
        for r in report.open_requests
    ] or ["  none"]
    out += ["", "Relapsed (retired, and back since their rule):"]
    out += [
        f"  {r.pill.key}: +{r.grown} since {r.closed.id} (rule in {r.closed.rule_in})"
        + (f"; its reopening {r.declined.id} was declined" if r.declined else "")
        for r in report.relapses
    ] or ["  none"]
    out += ["", "Lessons:"]
    if not report.lessons:
        out.append("  none yet: `gfh pills new ROLE SLUG --trigger TEXT` writes one")
    for lesson in report.lessons:
        pill = lesson.pill
        applied = (
            f"in {lesson.applied.rounds} dispatch(es)"
            if lesson.applied.rounds is not None
            else f"unknown ({lesson.applied.reason})"
        )
        out.append(f"  {pill.key} [{pill.status}, x{pill.occurrences}] injected: {applied}")
        for reading in lesson.readings:
            out.append(f"    verify {reading.role}: {reading.summary()}")
    return out


def _load_text(load: stats.RoleLoad) -> str:
    """Say a role's rounds and its loop-backs apart: the loop-backs are no share of the rounds."""
    apart = f" ({load.without_round} with no round of its own)" if load.without_round else ""
    return (
        f"{load.rounds} round(s), {load.sent_back} sent back; {load.loop_backs} loop-back(s){apart}"
    )
