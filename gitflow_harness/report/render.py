"""The report as text (80 columns) or markdown (to paste into a pull request)."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any, Final

from gitflow_harness.report.model import DetectorResult, Finding
from gitflow_harness.report.runner import Report

WIDTH: Final = 80


def text(report: Report, *, width: int = WIDTH, title: str = "gfh report") -> str:
    """Render `report` for a terminal, every line at most `width` columns."""
    out: list[str] = []
    out += _fill(f"{title} · {read_line(report)}", width)
    out.append("")
    name_width = max((len(r.id) for r in report.results), default=8) + 2
    out.append(f"{'detector'.ljust(name_width)}{'status'.ljust(23)}considered")
    for r in report.results:
        out.append(f"{r.id.ljust(name_width)}{r.status.ljust(23)}{r.considered}")
    for finding in report.findings:
        out.append("")
        out += _fill(f"{finding.detector} · {finding.subject} · {finding.tone}", width)
        out += _fill(finding.observed, width, indent="  ")
        out += _fill("evidence: " + _evidence_text(finding.evidence), width, indent="  ")
        out += _fill("next: " + finding.next_step, width, indent="  ", hang="        ")
    notes = [(r.id, n) for r in report.results for n in r.notes]
    if notes:
        out.append("")
        out.append("notes:")
        for detector, note in notes:
            out += _fill(f"{detector}: {note}", width, indent="  ", hang="    ")
    for part in report.repositories:
        out += ["", text(part.report, width=width, title=f"repository {part.label}")]
    return "\n".join(out)


def markdown(report: Report, *, title: str = "gfh report") -> str:
    """Render `report` as GitHub-flavoured markdown."""
    out = [f"## {md(title)}", "", f"_{md(read_line(report))}_", ""]
    out += markdown_table(report.results)
    for finding in report.findings:
        out += markdown_finding(finding)
    out += markdown_notes(report.results)
    for part in report.repositories:
        out += ["", markdown(part.report, title=f"repository {part.label}")]
    return "\n".join(out)


def markdown_table(results: Sequence[DetectorResult]) -> list[str]:
    """The table of detectors: status and what each considered."""
    out = ["| detector | status | considered |", "|---|---|---:|"]
    out += [f"| `{r.id}` | {r.status} | {r.considered} |" for r in results]
    return out


def markdown_finding(finding: Finding) -> list[str]:
    """One finding: its heading, what was observed, its evidence as a table, the next step."""
    out = ["", f"### {md(finding.subject)} ({finding.detector}, {finding.tone})", ""]
    out += [md(finding.observed), ""]
    keys = list(finding.evidence)
    out.append("| " + " | ".join(k.replace("_", " ") for k in keys) + " |")
    out.append("|" + "---:|" * len(keys))
    out.append("| " + " | ".join(md(value_text(finding.evidence[k])) for k in keys) + " |")
    out += ["", f"**Next step:** {md(finding.next_step)}"]
    return out


def markdown_notes(results: Sequence[DetectorResult]) -> list[str]:
    """Every detector's notes, folded away in a `<details>`."""
    notes = [(r.id, n) for r in results for n in r.notes]
    if not notes:
        return []
    out = ["", "<details><summary>Notes</summary>", ""]
    out += [f"- `{detector}`: {md(note)}" for detector, note in notes]
    return [*out, "", "</details>"]


def read_line(report: Report) -> str:
    """What the read of the log saw: events, and the lines it skipped."""
    stats = report.stats
    line = f"{stats.events:,} events read"
    if report.repositories:
        count = len(report.repositories)
        line += f" in {count} repositor{'y' if count == 1 else 'ies'}"
    if report.since:
        line += f" since {report.since}"
    if stats.skipped:
        line += (
            f"; {stats.skipped:,} lines skipped ({stats.foreign:,} foreign, {stats.torn:,} torn)"
        )
    else:
        line += "; no lines skipped"
    return line


def _evidence_text(evidence: dict[str, Any]) -> str:
    return " · ".join(f"{k.replace('_', ' ')} {value_text(v)}" for k, v in evidence.items())


def value_text(value: object) -> str:
    """Return one evidence value as text; a breakdown (a mapping of counts) as `name n, name n`."""
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items())
    return str(value)


def _fill(content: str, width: int, *, indent: str = "", hang: str | None = None) -> list[str]:
    return textwrap.wrap(
        content,
        width=width,
        initial_indent=indent,
        subsequent_indent=hang if hang is not None else indent,
        break_long_words=True,
        break_on_hyphens=False,
    ) or [indent.rstrip()]


def md(value: str) -> str:
    """Escape `value` for a markdown table cell or paragraph."""
    # Pipes would end a table cell; angle brackets would open HTML.
    return value.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
