"""The report as text (80 columns) or markdown (to paste into a pull request)."""

from __future__ import annotations

import textwrap
from typing import Any, Final

from gitflow_harness.report.runner import Report

WIDTH: Final = 80


def text(report: Report, *, width: int = WIDTH, title: str = "gfh report") -> str:
    """Render `report` for a terminal, every line at most `width` columns."""
    out: list[str] = []
    out += _fill(f"{title} · {_read_line(report)}", width)
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
    out = [f"## {_md(title)}", "", f"_{_md(_read_line(report))}_", ""]
    out += ["| detector | status | considered |", "|---|---|---:|"]
    for r in report.results:
        out.append(f"| `{r.id}` | {r.status} | {r.considered} |")
    for finding in report.findings:
        out += ["", f"### {_md(finding.subject)} ({finding.detector}, {finding.tone})", ""]
        out += [_md(finding.observed), ""]
        keys = list(finding.evidence)
        out.append("| " + " | ".join(k.replace("_", " ") for k in keys) + " |")
        out.append("|" + "---:|" * len(keys))
        out.append("| " + " | ".join(_md(_value(finding.evidence[k])) for k in keys) + " |")
        out += ["", f"**Next step:** {_md(finding.next_step)}"]
    notes = [(r.id, n) for r in report.results for n in r.notes]
    if notes:
        out += ["", "<details><summary>Notes</summary>", ""]
        out += [f"- `{detector}`: {_md(note)}" for detector, note in notes]
        out += ["", "</details>"]
    for part in report.repositories:
        out += ["", markdown(part.report, title=f"repository {part.label}")]
    return "\n".join(out)


def _read_line(report: Report) -> str:
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
    return " · ".join(f"{k.replace('_', ' ')} {_value(v)}" for k, v in evidence.items())


def _value(value: object) -> str:
    """One evidence value as text; a breakdown (a mapping of counts) as `name n, name n`."""
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


def _md(value: str) -> str:
    # Pipes would end a table cell; angle brackets would open HTML.
    return value.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
