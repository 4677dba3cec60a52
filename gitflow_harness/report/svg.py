"""Inline SVG pictures for the HTML report: stacked bars, a curve with its events, intervals.

Each function returns one `<svg>` element as text, scaled to its container (a `viewBox`, no
fixed size), named by a `<title>` and described by a `<desc>` that says the numbers in words
(`key` makes their ids unique in the page). Parts are told apart by pattern and label as well
as by colour: the page's `DEFS` hold the patterns every picture refers to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Final

from gitflow_harness.ways.plot import short

WIDTH: Final = 480  # the viewBox's width; the page scales it to the column
LABEL: Final = 14  # height of a label line
BAR: Final = 16  # height of a bar
GAP: Final = 8
FLOOR_LINE: Final = 'stroke="#b07a12" stroke-width="1.5" stroke-dasharray="6 3"'
EDGES: Final = {0.0: "tick start", 1.0: "tick end"}  # an axis's end labels stay inside it
MARK_LINE: Final = 'stroke="#3465a4" stroke-width="1.2" stroke-dasharray="2 3"'

# Each kind of part: its fill (a colour and, for most, a pattern over it) and its legend mark.
STYLES: Final = {
    "good": "url(#gfh-solid-good)",
    "bad": "url(#gfh-hatch-bad)",
    "muted": "url(#gfh-dots-muted)",
    "info": "url(#gfh-cross-info)",
    "warn": "url(#gfh-hatch-warn)",
}
DEFS: Final = """<svg width="0" height="0" aria-hidden="true" focusable="false" class="defs">
<defs>
<pattern id="gfh-solid-good" width="6" height="6" patternUnits="userSpaceOnUse">
<rect width="6" height="6" fill="#2f7d4f"/></pattern>
<pattern id="gfh-hatch-bad" width="6" height="6" patternUnits="userSpaceOnUse"
 patternTransform="rotate(45)"><rect width="6" height="6" fill="#b3412e"/>
<line x1="0" y1="0" x2="0" y2="6" stroke="#fff" stroke-width="2"/></pattern>
<pattern id="gfh-dots-muted" width="6" height="6" patternUnits="userSpaceOnUse">
<rect width="6" height="6" fill="#8a8f98"/><circle cx="3" cy="3" r="1.3" fill="#fff"/></pattern>
<pattern id="gfh-cross-info" width="6" height="6" patternUnits="userSpaceOnUse">
<rect width="6" height="6" fill="#3465a4"/>
<path d="M0 3H6M3 0V6" stroke="#fff" stroke-width="1"/></pattern>
<pattern id="gfh-hatch-warn" width="6" height="6" patternUnits="userSpaceOnUse"
 patternTransform="rotate(-45)"><rect width="6" height="6" fill="#b07a12"/>
<line x1="0" y1="0" x2="0" y2="6" stroke="#fff" stroke-width="1.5"/></pattern>
</defs></svg>"""


@dataclass(frozen=True, slots=True)
class Part:
    """One segment of a bar: what it counts, how many, and its style (a key of `STYLES`)."""

    label: str
    value: int
    style: str


@dataclass(frozen=True, slots=True)
class Bar:
    """One bar: its label, its parts, and the denominator it is drawn against."""

    label: str
    parts: tuple[Part, ...]
    total: int


@dataclass(frozen=True, slots=True)
class Interval:
    """A share k/n with its 95 % interval, drawn on 0..1."""

    label: str
    k: int
    n: int
    low: float
    high: float
    style: str


@dataclass(frozen=True, slots=True)
class Curve:
    """A declared curve sampled over its span, and what happened at each slice of it."""

    axis: str
    span: int
    samples: tuple[tuple[float, float], ...]  # (delta, salience)
    floor: float
    marks: tuple[int, ...]
    series: tuple[tuple[str, str, tuple[int, ...]], ...]  # (label, style, count per slice)


def bars(key: str, title: str, bars: Sequence[Bar], *, unit: str) -> str:
    """Stacked horizontal bars, each part labelled with its count, each bar with `n of total`."""
    legend, legend_height = _legend([(p.label, p.style) for b in bars for p in b.parts])
    row = LABEL + BAR + GAP
    height = legend_height + row * len(bars) + GAP
    body = [legend]
    y = legend_height + GAP
    for bar in bars:
        shown = sum(p.value for p in bar.parts)
        body.append(_text(0, y + LABEL - 3, f"{bar.label}: {shown} of {bar.total} {unit}", "label"))
        x = 0.0
        scale = WIDTH / max(bar.total, shown, 1)
        for part in bar.parts:
            if part.value <= 0:
                continue
            w = part.value * scale
            body.append(
                f'<rect x="{x:.1f}" y="{y + LABEL}" width="{w:.1f}" height="{BAR}" '
                f'fill="{STYLES[part.style]}" stroke="#222" stroke-width="0.5">'
                f"<title>{escape(f'{bar.label}: {part.label} {part.value} of {bar.total}')}</title>"
                "</rect>"
            )
            if w >= 8 * len(str(part.value)):
                body.append(_text(x + w / 2, y + LABEL + BAR - 4, str(part.value), "in-bar"))
            x += w
        if bar.total > shown:
            body.append(
                f'<rect x="{x:.1f}" y="{y + LABEL}" width="{WIDTH - x:.1f}" height="{BAR}" '
                'fill="none" stroke="#222" stroke-width="0.5" stroke-dasharray="2 2"/>'
            )
        y += row
    words = "; ".join(
        f"{b.label}: " + ", ".join(f"{p.label} {p.value}" for p in b.parts) + f" of {b.total}"
        for b in bars
    )
    return _svg(key, title, words or "nothing to draw", height, body)


def intervals(key: str, title: str, rows: Sequence[Interval]) -> str:
    """Each share as a point between its interval's ends, on one axis from 0 to 1."""
    # Each label on its own line above its interval, so a long stage name never runs off.
    left, plot = 8, WIDTH - 16
    row = LABEL + 16
    top = 6
    height = top + row * len(rows) + 24
    body = [
        f'<line x1="{left + plot * t:.1f}" y1="{top}" x2="{left + plot * t:.1f}" '
        f'y2="{height - 20}" stroke="#ccc" stroke-width="0.5"/>'
        + _text(left + plot * t, height - 6, f"{t:.2f}", EDGES.get(t, "tick"))
        for t in (0.0, 0.25, 0.5, 0.75, 1.0)
    ]
    for i, r in enumerate(rows):
        y = top + row * i + LABEL + 8
        p = r.k / r.n if r.n else 0.0
        x0, x1, xp = (left + plot * v for v in (r.low, r.high, p))
        body.append(_text(0, y - 10, f"{r.label} {r.k}/{r.n}", "label"))
        words = f"{r.label}: {r.k} of {r.n}, 95% interval {r.low:.3f} to {r.high:.3f}"
        body.append(
            f'<g><title>{escape(words)}</title><line x1="{x0:.1f}" y1="{y}" x2="{x1:.1f}" '
            f'y2="{y}" stroke="#222" stroke-width="2"/>'
            f'<line x1="{x0:.1f}" y1="{y - 5}" x2="{x0:.1f}" y2="{y + 5}" stroke="#222"/>'
            f'<line x1="{x1:.1f}" y1="{y - 5}" x2="{x1:.1f}" y2="{y + 5}" stroke="#222"/>'
            f'<rect x="{xp - 5:.1f}" y="{y - 5}" width="10" height="10" '
            f'fill="{STYLES[r.style]}" stroke="#222"/></g>'
        )
    words = "; ".join(f"{r.label} {r.k} of {r.n} [{r.low:.3f}, {r.high:.3f}]" for r in rows)
    return _svg(key, title, words or "nothing to draw", height, body)


def curve(key: str, title: str, c: Curve) -> str:
    """The declared salience over ticks since a fire, with the floor, the refire marks and
    a histogram below it of the fires and suppressions placed at each slice (the last slice,
    drawn apart, holds what came later than the span)."""
    left, top, tall, later = 34, 8, 110, 30
    plot = WIDTH - left - 8 - later - 6
    band_top, band = top + tall + 26, 60
    base = band_top + band
    styles = [("salience (declared)", "line"), (f"floor {c.floor:g}", "floor")]
    styles += [("may fire again", "mark")] if c.marks else []
    styles += [(label, style) for label, style, _ in c.series]
    legend, legend_height = _legend(styles, top=base + 22)
    height = base + 22 + legend_height

    def x_of(delta: float) -> float:
        return left + plot * min(1.0, delta / c.span)

    def y_of(value: float) -> float:
        return top + tall * (1.0 - min(1.0, max(0.0, value)))

    path = " ".join(
        f"{'M' if i == 0 else 'L'}{x_of(d):.1f} {y_of(s):.1f}" for i, (d, s) in enumerate(c.samples)
    )
    body = [
        f'<rect x="{left}" y="{top}" width="{plot}" height="{tall}" fill="none" stroke="#999" '
        'stroke-width="0.5"/>',
        _text(left - 4, top + 4, "1", "tick end"),
        _text(left - 4, top + tall + 4, "0", "tick end"),
        f'<line x1="{left}" y1="{y_of(c.floor):.1f}" x2="{left + plot}" y2="{y_of(c.floor):.1f}"'
        f" {FLOOR_LINE}/>",
        f'<path d="{path}" fill="none" stroke="#222" stroke-width="2"/>',
        f'<line x1="{left}" y1="{base}" x2="{left + plot + 6 + later}" y2="{base}" '
        'stroke="#999" stroke-width="0.5"/>',
        _text(left + plot + 6 + later / 2, base + 14, "later", "tick"),
        _text(left + plot, base + 14, f"{c.axis} since the fire", "tick end"),
    ]
    body += [
        f'<line x1="{x_of(m):.1f}" y1="{top}" x2="{x_of(m):.1f}" y2="{base}" {MARK_LINE}/>'
        for m in c.marks
        if m <= c.span
    ]
    for i in range(5):
        anchor = {0: "tick start", 4: "tick end"}.get(i, "tick")
        body.append(_text(x_of(c.span * i // 4), top + tall + 16, short(c.span * i // 4), anchor))
    slices = max((len(counts) for _, _, counts in c.series), default=1) - 1
    peak = max((sum(s[2][i] for s in c.series) for i in range(slices + 1)), default=0)
    if not peak:
        body.append(
            _text(left + plot / 2, base - band / 2, "no fire or suppression placed", "tick")
        )
    else:
        body.append(_text(left - 4, band_top + 8, str(peak), "tick end"))
    for i in range(slices + 1 if peak else 0):
        x, w = (
            (left + plot + 6, later) if i == slices else (left + plot * i / slices, plot / slices)
        )
        where = f"later than {c.span}" if i == slices else _slice(i, slices, c.span)
        y = float(base)
        for label, style, counts in c.series:
            n = counts[i]
            if not n:
                continue
            h = band * n / peak
            y -= h
            body.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(w - 1, 1):.1f}" height="{h:.1f}" '
                f'fill="{STYLES[style]}" stroke="#222" stroke-width="0.5">'
                f"<title>{escape(f'{label}: {n} at {where} {c.axis}')}</title></rect>"
            )
    body.append(legend)
    counts_words = "; ".join(f"{label} {sum(counts)}" for label, _, counts in c.series)
    words = (
        f"salience from 1 at a fire down over {short(c.span)} {c.axis}; floor {c.floor:g}"
        + (f"; may fire again at {', '.join(str(m) for m in c.marks)}" if c.marks else "")
        + (f"; placed: {counts_words}" if counts_words else "; nothing placed")
    )
    return _svg(key, title, words, height, body)


def _legend(items: Sequence[tuple[str, str]], *, top: int = 0) -> tuple[str, int]:
    """A legend, one entry a line: a swatch (or a line sample) and its label; and its height."""
    seen: dict[str, str] = {}
    for label, style in items:
        seen.setdefault(label, style)
    out = []
    for i, (label, style) in enumerate(seen.items()):
        y = top + LABEL * i
        if style == "line":
            mark = (
                f'<line x1="0" y1="{y + 7}" x2="14" y2="{y + 7}" stroke="#222" stroke-width="2"/>'
            )
        elif style in ("floor", "mark"):
            line = FLOOR_LINE if style == "floor" else MARK_LINE
            mark = f'<line x1="0" y1="{y + 7}" x2="14" y2="{y + 7}" {line}/>'
        else:
            mark = (
                f'<rect x="0" y="{y + 2}" width="14" height="10" fill="{STYLES[style]}" '
                'stroke="#222" stroke-width="0.5"/>'
            )
        out.append(mark + _text(20, y + 11, label, "legend"))
    return '<g class="legend">' + "".join(out) + "</g>", LABEL * len(seen)


def _svg(key: str, title: str, words: str, height: float, body: Sequence[str]) -> str:
    """The `<svg>` element; `key` makes its title's and description's ids unique in the page."""
    n = escape(key)
    return (
        f'<svg class="chart" viewBox="0 0 {WIDTH} {height:.0f}" role="img" '
        f'aria-labelledby="svg-t{n} svg-d{n}" aria-label="{escape(title)}" '
        ">"
        f'<title id="svg-t{n}">{escape(title)}</title><desc id="svg-d{n}">{escape(words)}</desc>'
        + "".join(body)
        + "</svg>"
    )


def _text(x: float, y: float, content: str, cls: str) -> str:
    words = cls.split()
    anchor = ' text-anchor="middle"' if cls in ("in-bar", "tick") else ""
    for side in ("start", "end"):
        if side in words:
            anchor = f' text-anchor="{side}"'
    return f'<text x="{x:.1f}" y="{y:.1f}" class="{cls}"{anchor}>{escape(content)}</text>'


def _slice(i: int, slices: int, span: int) -> str:
    return f"{span * i // slices}–{span * (i + 1) // slices}"
