"""The report as one self-contained HTML page: every detector's section, with pictures.

No script and nothing fetched: the styles are inline, the pictures inline SVG (`report/svg.py`),
and every picture has a table of the same numbers beside it, so the page reads without them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from html import escape
from typing import Any, Final

from gitflow_harness.report import svg
from gitflow_harness.report.model import DetectorResult, Finding
from gitflow_harness.report.render import read_line, value_text
from gitflow_harness.report.runner import Report

STYLE: Final = """
:root { color-scheme: light; --ink: #1d1f23; --muted: #5b616b; --rule: #d5d8dd; }
* { box-sizing: border-box; }
body { margin: 0 auto; padding: 1rem; max-width: 60rem; color: var(--ink); background: #fff;
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
h1 { font-size: 1.6rem; margin: 0 0 .25rem; }
h2 { font-size: 1.3rem; margin: 2rem 0 .25rem; border-bottom: 2px solid var(--rule); }
h3 { font-size: 1.05rem; margin: 1rem 0 .25rem; }
code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .9em; }
nav ul { display: flex; flex-wrap: wrap; gap: .25rem 1rem; padding: 0; list-style: none; }
.status { color: var(--muted); margin: 0; }
.finding { border-left: 4px solid var(--rule); padding: 0 0 0 .75rem; margin: 1rem 0; }
.finding.attention { border-left: 4px double #b3412e; }
.finding.good { border-left: 4px solid #2f7d4f; }
.finding.info { border-left: 4px dotted #3465a4; }
.tone { font-size: .8rem; font-weight: 600; text-transform: uppercase; letter-spacing: .04em;
  border: 1px solid currentColor; border-radius: 3px; padding: 0 .3rem; margin-left: .4rem; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: .5rem 0; font-size: .9rem; }
th, td { border: 1px solid var(--rule); padding: .2rem .5rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
caption { text-align: left; color: var(--muted); font-size: .85rem; }
figure { margin: 1rem 0; }
figcaption { color: var(--muted); font-size: .9rem; }
svg.chart { display: block; width: 100%; max-width: 40rem; height: auto; }
svg.chart text { font-size: 11px; fill: var(--ink); }
svg.chart text.in-bar { fill: #fff; font-weight: 700; stroke: #1d1f23; stroke-width: 3px;
  paint-order: stroke; }
svg.chart text.tick { font-size: 10px; fill: var(--muted); }
svg.defs { position: absolute; }
"""
# The style of each suppression reason on a way's curve (`svg.STYLES`).
REASON_STYLES: Final = {"salience": "info", "refractory": "warn", "budget": "bad"}
POLICY: Final = "default-src 'none'; style-src 'unsafe-inline'"
SAMPLES: Final = 240  # points of a declared curve drawn across its span

Picture = Callable[[DetectorResult, str], list[str]]


def html(report: Report) -> str:
    """Render `report` as one HTML document."""
    sections = [_section(result) for result in report.results]
    nav = "".join(
        f'<li><a href="#{_anchor(r.id)}">{escape(r.id)}</a> ({escape(r.status)})</li>'
        for r in report.results
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        # Nothing may load or run, whatever a value in the page says: styles are inline.
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>gfh report</title><style>{STYLE}</style></head><body>"
        + svg.DEFS
        + f"<header><h1>gfh report</h1><p>{escape(read_line(report))}</p></header>"
        + f'<nav aria-label="Detectors"><ul>{nav}</ul></nav><main>'
        + "".join(sections)
        + "</main></body></html>\n"
    )


def _section(result: DetectorResult) -> str:
    anchor = _anchor(result.id)
    out = [
        f'<section id="{anchor}" class="detector" aria-labelledby="{anchor}-h">',
        f'<h2 id="{anchor}-h">{escape(result.id)}</h2>',
        f'<p class="status">status <strong>{escape(result.status)}</strong> · considered '
        f"{result.considered}</p>",
    ]
    out += PICTURES.get(result.id, _no_picture)(result, anchor)
    out += [_finding(f) for f in result.findings]
    if result.notes:
        out.append("<h3>Notes</h3><ul>")
        out += [f"<li>{_prose(n)}</li>" for n in result.notes]
        out.append("</ul>")
    out.append("</section>")
    return "".join(out)


def _finding(finding: Finding) -> str:
    keys = list(finding.evidence)
    head = "".join(f'<th scope="col">{escape(k.replace("_", " "))}</th>' for k in keys)
    cells = "".join(f"<td>{escape(value_text(finding.evidence[k]))}</td>" for k in keys)
    return (
        f'<article class="finding {escape(finding.tone)}">'
        f'<h3>{escape(finding.subject)}<span class="tone">{escape(finding.tone)}</span></h3>'
        f"<p>{_prose(finding.observed)}</p>"
        f'<div class="scroll"><table><caption>Evidence</caption><tr>{head}</tr>'
        f"<tr>{cells}</tr></table></div>"
        f"<p><strong>Next step:</strong> {_prose(finding.next_step)}</p></article>"
    )


def _no_picture(result: DetectorResult, anchor: str) -> list[str]:
    return []


# -- pictures, one function per detector ------------------------------------------------------


def _follow_through(result: DetectorResult, anchor: str) -> list[str]:
    families: Mapping[str, Mapping[str, int]] = result.breakdown.get("families", {})
    if not families:
        return ["<p>No hint of a family fired: nothing to draw.</p>"]
    bars = [
        svg.Bar(
            name,
            (
                svg.Part("followed", t["followed"], "good"),
                svg.Part("not followed", t["not_followed"], "bad"),
                svg.Part("censored", t["censored"], "muted"),
            ),
            t["fired"],
        )
        for name, t in families.items()
    ]
    why = sorted({k for t in families.values() for k in t if k.startswith("censored_")})
    columns = ["fired", "followed", "not_followed", "censored", "resolved", *why]
    rows = [(name, [t.get(c, 0) for c in columns]) for name, t in families.items()]
    threshold = result.breakdown.get("threshold", "?")
    return [
        _figure(
            svg.bars(f"{anchor}-bars", "Hint follow-through per family", bars, unit="fired"),
            "Episodes per hint family: followed, not followed and censored, of those fired. "
            f"A family is reported as a finding from {threshold} resolved episodes.",
        ),
        _table(
            "Episodes per family, and why the censored ones were",
            ["family", *(_label(c) for c in columns)],
            rows,
        ),
    ]


def _skipped_prepare(result: DetectorResult, anchor: str) -> list[str]:
    if not result.findings:
        return []
    bars = [
        svg.Bar(
            f.subject,
            (
                svg.Part("red", f.evidence["red"], "bad"),
                svg.Part("not red", f.evidence["done"] - f.evidence["red"], "good"),
            ),
            f.evidence["done"],
        )
        for f in result.findings
    ]
    return [
        _figure(
            svg.bars(f"{anchor}-bars", "Gate runs of `gfh done` per branch", bars, unit="done"),
            "Branches that ran `gfh done` again and again, red, and never `gfh prepare`.",
        )
    ]


def _learning(result: DetectorResult, anchor: str) -> list[str]:
    lessons: list[dict[str, Any]] = result.breakdown.get("lessons", [])
    if not lessons:
        return ["<p>No lesson yet: no reading to draw.</p>"]
    out = []
    for i, lesson in enumerate(lessons):
        for j, reading in enumerate(lesson["verify"]):
            name = f"lesson {lesson['pill']} ({reading['role']})"
            if reading["before"] is None or reading["after"] is None:
                out.append(
                    f"<h3>{escape(name)}</h3><p>Not measurable: {_prose(reading['reason'])}.</p>"
                )
                continue
            rows = _interval_rows(reading)
            out.append(f"<h3>{escape(name)}: {escape(reading['reading'])}</h3>")
            out.append(
                _figure(
                    svg.intervals(f"{anchor}-{i}-{j}", f"Loop-back rate around {name}", rows),
                    f"Share of {reading['role']} rounds sent back, before and after the lesson "
                    f"(model {reading['model']}), with 95% Wilson intervals; the control stages "
                    "below it over the same days. A change is called only when the intervals "
                    "do not overlap.",
                )
            )
            out.append(
                _table(
                    "Rounds sent back, before and after the lesson",
                    ["side", "sent back", "rounds", "low", "high"],
                    [(r.label, [r.k, r.n, f"{r.low:.3f}", f"{r.high:.3f}"]) for r in rows],
                )
            )
    return out


def _interval_rows(reading: Mapping[str, Any]) -> list[svg.Interval]:
    style = {"lower": "good", "higher": "bad"}.get(reading["reading"], "info")
    sides: list[tuple[str, Mapping[str, Any] | None, str]] = [
        (f"{reading['role']} before", reading["before"], "muted"),
        (f"{reading['role']} after", reading["after"], style),
    ]
    for stage, pair in reading["control"].items():
        sides += [(f"{stage} before", pair["before"], "muted")]
        sides += [(f"{stage} after", pair["after"], "muted")]
    return [
        svg.Interval(label, s["k"], s["n"], s["low"], s["high"], st)
        for label, s, st in sides
        if s is not None
    ]


def _stop_ritual(result: DetectorResult, anchor: str) -> list[str]:
    adapters: Mapping[str, Mapping[str, int]] = result.breakdown.get("adapters", {})
    if not adapters:
        return []
    verdicts = [
        svg.Bar(
            name,
            (
                svg.Part("allowed", a["allowed"], "good"),
                svg.Part("blocked", a["blocked"], "bad"),
                svg.Part("would block (observe only)", a["would_block"], "warn"),
                svg.Part("failed open", a["fail_open"], "muted"),
            ),
            a["allowed"] + a["blocked"] + a["would_block"] + a["fail_open"],
        )
        for name, a in adapters.items()
    ]
    turns = [
        svg.Bar(
            name,
            (
                svg.Part("repaired after a block", a["repaired"], "good"),
                svg.Part("ended unrepaired", a["ended_unrepaired"], "bad"),
                svg.Part("still blocked (pending)", a["pending"], "info"),
            ),
            a["evaluated"],
        )
        for name, a in adapters.items()
    ]
    reasons: Mapping[str, int] = result.breakdown.get("fail_open_by_reason", {})
    total = sum(reasons.values())
    out = [
        _figure(
            svg.bars(f"{anchor}-verdicts", "Stop verdicts per adapter", verdicts, unit="verdicts"),
            "Every Stop verdict per adapter: allowed, blocked, allowed with a rule that would "
            "have blocked (adapters that only observe), failed open.",
        ),
        _figure(
            svg.bars(
                f"{anchor}-turns", "How blocked turns ended, per adapter", turns, unit="turns"
            ),
            "Of the turns evaluated per adapter: repaired after a block, ended unrepaired "
            "(by gfh's bound or by the host), still blocked at the end of the log; the dashed "
            "rest were never blocked.",
        ),
    ]
    columns = ["evaluated", "allowed", "blocked", "would_block", "repaired", "ended_unrepaired",
               "pending", "fail_open"]  # fmt: skip
    out.append(
        _table(
            "Stop outcomes per adapter",
            ["adapter", *(_label(c) for c in columns)],
            [(name, [a[c] for c in columns]) for name, a in adapters.items()],
        )
    )
    if reasons:
        bars = [svg.Bar(r, (svg.Part(r, n, "muted"),), total) for r, n in reasons.items()]
        out.append(
            _figure(
                svg.bars(f"{anchor}-fail-open", "Fail-opens by reason", bars, unit="fail-opens"),
                "Why Stops failed open (the turn was let through unjudged or past the bound).",
            )
        )
    return out


def _way_firing(result: DetectorResult, anchor: str) -> list[str]:
    from gitflow_harness.firing.curves import curve_from_dict
    from gitflow_harness.ways.plot import mark_legend, marks

    ways: Mapping[str, Mapping[str, Any]] = result.breakdown.get("ways", {})
    if not ways:
        return ["<p>No way fired or was suppressed: nothing to draw.</p>"]
    floor = float(result.breakdown["floor"])
    out = []
    for i, (way, data) in enumerate(ways.items()):
        out.append(f"<h3>{escape(way)}</h3>")
        declared = data["declared"]
        series = [("fired", "good", tuple(data["placed"].get("fired", ())))]
        series += [
            (f"suppressed: {reason}", REASON_STYLES.get(reason, "muted"), tuple(bins))
            for reason, bins in data["placed"].items()
            if reason != "fired"
        ]
        series = [s for s in series if s[2]]
        if declared is None:
            out.append("<p>No way of this id is declared now: no curve to draw.</p>")
        else:
            curve = curve_from_dict(declared["curve"])
            span = int(declared["span"])
            refires = marks(curve, floor)
            samples = tuple(
                (span * k / SAMPLES, curve.salience_at(span * k // SAMPLES))
                for k in range(SAMPLES + 1)
            )
            picture = svg.Curve(
                declared["axis"], span, samples, floor, tuple(refires), tuple(series)
            )
            caption = (
                f"{curve.describe()} on {declared['axis']}, floor {floor:g}"
                + (f"; {mark_legend(curve, refires)}" if refires else "")
                + ". Below: the fires and suppressions placed at their distance from the "
                "session's previous fire (a staircase: its episode's first)."
            )
            out.append(
                _figure(svg.curve(f"{anchor}-{i}", f"{way}: curve and events", picture), caption)
            )
        counts = [(f"fired: {k}", n) for k, n in data["fired"].items()]
        counts += [(f"suppressed: {k}", n) for k, n in data["suppressed"].items()]
        counts += [(f"not placed: {_label(k)}", n) for k, n in data["unplaced"].items()]
        out.append(_table(f"{way}: events", ["what", "count"], [(k, [n]) for k, n in counts]))
    return out


def _hook_errors(result: DetectorResult, anchor: str) -> list[str]:
    if not result.findings:
        return []
    total = result.considered
    bars = [
        svg.Bar(f.subject, (svg.Part(f.subject, f.evidence["errors"], "bad"),), total)
        for f in result.findings
    ]
    return [
        _figure(
            svg.bars(
                f"{anchor}-bars", "Hook calls that failed open, by reason", bars, unit="errors"
            ),
            "Each reason's share of the hook errors; its finding lists the hooks.",
        )
    ]


PICTURES: Final[dict[str, Picture]] = {
    "hint-follow-through": _follow_through,
    "skipped-prepare": _skipped_prepare,
    "learning": _learning,
    "stop-ritual": _stop_ritual,
    "way-firing": _way_firing,
    "hook-errors": _hook_errors,
}


# -- pieces -----------------------------------------------------------------------------------


def _figure(picture: str, caption: str) -> str:
    return f"<figure>{picture}<figcaption>{_prose(caption)}</figcaption></figure>"


def _table(caption: str, head: list[str], rows: Iterable[tuple[str, list[Any]]]) -> str:
    th = "".join(f'<th scope="col">{escape(h)}</th>' for h in head)
    body = "".join(
        f'<tr><th scope="row">{escape(name)}</th>'
        + "".join(f"<td>{escape(str(v))}</td>" for v in values)
        + "</tr>"
        for name, values in rows
    )
    return (
        f'<div class="scroll"><table><caption>{escape(caption)}</caption>'
        f"<tr>{th}</tr>{body}</table></div>"
    )


_CODE = re.compile(r"`([^`]+)`")


def _prose(text: str) -> str:
    """Escape `text`, and set what it quotes in backticks as code."""
    return _CODE.sub(r"<code>\1</code>", escape(text))


def _label(key: str) -> str:
    return key.replace("_", " ")


def _anchor(detector: str) -> str:
    return "d-" + re.sub(r"[^a-z0-9-]", "-", detector.lower())
