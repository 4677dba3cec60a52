"""The `learning` detector of `gfh report`: overdue roles, owed graduations, open requests,
relapses and the lessons whose effect could be measured."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from gitflow_harness.learning.records import TYPES, Collector
from gitflow_harness.report.model import DetectorResult, Finding, Status, Tone

if TYPE_CHECKING:
    from gitflow_harness.learning.report import LearningReport
    from gitflow_harness.report.model import ReportContext
    from gitflow_harness.store.events import Event

ID = "learning"


class LearningDetector:
    """Streams subagent events, then reads pills and requests at `finish`.

    `ctx.extra["now"]` (an aware datetime) replaces the clock, for reproducible reports.
    """

    id = ID
    types = TYPES

    def __init__(self, ctx: ReportContext | None = None) -> None:
        self._collector = Collector()

    def observe(self, event: Event) -> None:
        self._collector.observe(event)

    def finish(self, ctx: ReportContext) -> DetectorResult:
        from gitflow_harness.learning.report import analyze, lesson_to_dict

        now = ctx.extra.get("now")
        if not isinstance(now, dt.datetime):
            now = dt.datetime.now(dt.UTC)
        ws = ctx.workspace
        report = analyze(ws.repo, ws.config, self._collector, now=now)
        findings = tuple(findings_of(report))
        notes = []
        if report.records.unattributed:
            notes.append(
                f"{report.records.unattributed} loop-back(s) could not be attributed "
                "(no dispatch among their graph targets within 24 h)"
            )
        if report.problems:
            notes.append(
                f"{report.problems} pill or request file(s) cannot be read "
                "(`gfh pills check`, `gfh requests check`)"
            )
        unmeasured = sum(
            1 for lesson in report.lessons for r in lesson.readings if r.kind == "not measurable"
        )
        if unmeasured:
            notes.append(f"{unmeasured} lesson reading(s) not measurable (`gfh learn` says why)")
        considered = len(report.records.rounds)
        status: Status
        if findings:
            status = "fired"
        elif not report.catalog.pills and not considered:
            status = "insufficient-evidence"
        else:
            status = "quiet"
        breakdown = {"lessons": [lesson_to_dict(lesson) for lesson in report.lessons]}
        return DetectorResult(ID, status, considered, findings, tuple(notes), breakdown)


def findings_of(report: LearningReport) -> list[Finding]:
    """Return one finding per overdue role, owed filing, open request, relapse and reading."""
    out = []
    for load in report.overdue:
        since = f"its newest lesson ({load.newest_lesson})" if load.newest_lesson else "ever"
        out.append(
            Finding(
                ID,
                f"role {load.role}",
                "attention",
                f"{load.role} work was sent back {load.since_lesson} time(s) since {since} "
                f"within {report.days} days, and no lesson was captured.",
                {
                    "loop_backs": load.loop_backs,
                    "since_lesson": load.since_lesson,
                    "rounds": load.rounds,
                    "sent_back": load.sent_back,
                    "newest_lesson": load.newest_lesson,
                    "days": report.days,
                },
                f"Write down what keeps sending it back: `gfh pills new {load.role} SLUG "
                "--trigger TEXT`, or `gfh pills bump` the lesson that recurred.",
            )
        )
    for item in report.owed:
        out.append(
            Finding(
                ID,
                f"pill {item.pill.key}",
                "attention",
                f"A {item.kind} is owed: {item.describe()}.",
                {
                    "occurrences": item.pill.occurrences,
                    "kind": item.kind,
                    "reopens": item.reopens.id if item.reopens else None,
                },
                "Run `gfh learn --check` and commit the request it files.",
            )
        )
    for req in report.open_requests:
        out.append(
            Finding(
                ID,
                f"request {req.id}",
                "info",
                f"Request for {req.pill} is open since {req.date}"
                + (f", reopening {req.reopens}." if req.reopens else "."),
                {"pill": req.pill, "occurrences": req.occurrences, "date": req.date.isoformat()},
                f"Review it: `gfh requests answer {req.id} --in PATH` or "
                f"`gfh requests decline {req.id} --why TEXT`.",
            )
        )
    for relapse in report.relapses:
        came_back = (
            f"Retired lesson {relapse.pill.key} came back {relapse.grown} time(s) after its "
            f"rule in {relapse.closed.rule_in} was committed"
        )
        evidence: dict[str, object] = {
            "grown": relapse.grown,
            "closed": relapse.closed.id,
            "rule_in": relapse.closed.rule_in,
        }
        declined = relapse.declined
        if declined is None:
            out.append(
                Finding(
                    ID,
                    f"pill {relapse.pill.key}",
                    "attention",
                    f"{came_back}.",
                    evidence,
                    "Revise the rule: the reopening request says since when it stopped holding.",
                )
            )
            continue
        out.append(
            Finding(
                ID,
                f"pill {relapse.pill.key}",
                "info",
                f"{came_back}; its reopening {declined.id} was declined ({declined.declined}).",
                {**evidence, "declined": declined.id},
                "The decision stands; if the lesson keeps recurring, `gfh learn --check` files "
                "a new reopening.",
            )
        )
    tones: dict[str, Tone] = {"lower": "good", "higher": "attention", "unclear": "info"}
    for lesson in report.lessons:
        advice = {
            "lower": "Keep it; when it is stable, graduate it into a way.",
            "higher": "The lesson did not help: rewrite its rule or trigger.",
            "unclear": "Keep collecting rounds; the intervals still overlap.",
        }
        if not lesson.pill.active:  # retired: its request was answered by a rule already
            advice["lower"] = "It graduated already: keep the rule that answered it."
            advice["higher"] = "The lesson did not help: revise the rule that answered it."
        for r in lesson.readings:
            if r.kind == "not measurable" or r.before is None or r.after is None:
                continue
            out.append(
                Finding(
                    ID,
                    f"lesson {r.pill} ({r.role})",
                    tones[r.kind],
                    f"Loop-backs of {r.role} after lesson {r.pill}: {r.kind} "
                    f"(before {r.before}, after {r.after}, model {r.model}).",
                    {
                        "reading": r.kind,
                        "before": r.before.to_dict(),
                        "after": r.after.to_dict(),
                        "model": r.model,
                    },
                    advice[r.kind],
                )
            )
    return out
