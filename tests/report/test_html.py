from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from gitflow_harness.report.detectors import factories
from gitflow_harness.report.html import html
from gitflow_harness.report.model import DetectorResult, Finding
from gitflow_harness.report.runner import Report
from gitflow_harness.store.events import ReadStats
from tests.helpers import CliRunner
from tests.report.conftest import Seeder, seed_every_detector

IDS = [make.id for make in factories()]  # type: ignore[attr-defined]


@dataclass
class Page(HTMLParser):
    """What the structure tests look at: sections, pictures and anything that would load."""

    sections: dict[str, list[str]] = field(default_factory=dict)  # id -> tags inside it
    svgs: list[dict[str, str | None]] = field(default_factory=list)
    svg_titles: int = 0
    scripts: int = 0
    loads: list[str] = field(default_factory=list)  # src/href values that are not anchors
    text: list[str] = field(default_factory=list)
    _section: str | None = None
    _in_svg: int = 0
    _first_in_svg: bool = False

    def __post_init__(self) -> None:
        HTMLParser.__init__(self)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        if tag == "section":
            self._section = attr.get("id") or ""
            self.sections[self._section] = []
        elif self._section is not None:
            self.sections[self._section].append(tag)
        if tag == "script":
            self.scripts += 1
        if tag == "svg" and "chart" in (attr.get("class") or ""):
            self.svgs.append(attr)
            self._in_svg += 1
        if self._first_in_svg:
            self.svg_titles += tag == "title"  # the picture's name comes first
        self._first_in_svg = tag == "svg"
        for name in ("src", "href", "xlink:href", "action", "data"):
            value = attr.get(name)
            if value is not None and not value.startswith("#"):
                self.loads.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag == "section":
            self._section = None
        if tag == "svg" and self._in_svg:
            self._in_svg -= 1

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(document: str) -> Page:
    page = Page()
    page.feed(document)
    page.close()
    return page


def test_every_detector_has_a_section_and_every_picture_names_itself(
    repo: Path, seed: Seeder, gfh: CliRunner
) -> None:
    seed_every_detector(repo, seed)
    result = gfh("report", "--format", "html")
    assert result.code == 0, result.err
    document = result.out
    assert document.startswith("<!DOCTYPE html>")
    page = parse(document)
    assert list(page.sections) == [f"d-{i}" for i in IDS]
    for tags in page.sections.values():
        assert "h2" in tags
    # A picture where one reads better: every detector with something to draw has one.
    pictured = [s for s, tags in page.sections.items() if "svg" in tags]
    assert pictured == [f"d-{i}" for i in IDS]
    assert len(page.svgs) >= 8
    assert page.svg_titles == len(page.svgs)
    for svg in page.svgs:
        assert svg.get("role") == "img"
        assert svg.get("aria-label")
        assert svg.get("aria-labelledby")
        assert "width" not in svg
        assert "height" not in svg
    # Self-contained: no script, nothing to load, no address to reach.
    assert page.scripts == 0
    assert page.loads == []
    assert not re.search(r"https?://", document)
    assert "default-src 'none'" in document  # and the page forbids it besides


def test_numbers_keep_their_denominators_and_what_was_censored(
    repo: Path, seed: Seeder, gfh: CliRunner
) -> None:
    seed_every_detector(repo, seed)
    page = parse(gfh("report", "--format", "html").out)
    text = " ".join(page.text)
    # branch-update: 4 fired, 3 not followed, 1 censored (its session unknown to the update)
    assert "branch-update: 4 of 4 fired" in text
    assert "censored unknown correlation" in text
    assert "red-gate-remedy: 1 of 1 fired" in text  # below the threshold, still drawn
    # Stops per adapter, each against its own count
    assert "claude: 2 of 2 verdicts" in text
    assert "cursor: 1 of 1 verdicts" in text
    assert "Fail-opens by reason" in text
    # the lesson's sides and the control stage, with their intervals
    assert "implementer before 5/5" in text
    assert "implementer after 0/5" in text
    assert "reviewer before 0/5" in text
    # the way: its curve, its floor, what was placed and what was not
    assert "Exponential half_life=1000 on tokens, floor 0.5; refires at 1001" in text
    assert "not placed: first fire" in text
    assert "feature/loop: 4 of 4 done" in text
    assert "NoSession: 2 of 2 errors" in text


def test_text_is_escaped_and_quoted_code_is_set_as_code() -> None:
    finding = Finding("d", "<b>x</b>", "attention", "run `gfh <update>` & see", {"k": "<v>"}, "no")
    report = Report(
        (DetectorResult("d", "fired", 1, (finding,), ("a <note>",)),), ReadStats(), None
    )
    document = html(report)
    assert "<b>x</b>" not in document
    assert "&lt;b&gt;x&lt;/b&gt;" in document
    assert "<code>gfh &lt;update&gt;</code> &amp; see" in document
    assert "<td>&lt;v&gt;</td>" in document
    assert "<li>a &lt;note&gt;</li>" in document
    page = parse(document)
    assert list(page.sections) == ["d-d"]  # a detector with no picture of its own: text only
    assert page.svgs == []


def test_an_empty_log_still_shows_every_detector(repo: Path, gfh: CliRunner) -> None:
    page = parse(gfh("report", "--format", "html").out)
    assert list(page.sections) == [f"d-{i}" for i in IDS]
    text = " ".join(page.text)
    assert "0 events read" in text
    assert "No hint of a family fired: nothing to draw." in text
    assert "No way fired or was suppressed: nothing to draw." in text


def test_what_cannot_be_drawn_says_why() -> None:
    """If a lesson's reading cannot be measured, a way is no longer declared or nothing was
    placed on a way's curve, then the page says so where the picture would be."""
    lesson = {"pill": "implementer/parser", "verify": [
        {"role": "implementer", "reading": "not measurable", "reason": "only `2 before`",
         "model": None, "before": None, "after": None, "control": {}},
    ]}  # fmt: skip
    curve = {"curve": {"type": "Flat", "suppression": 10}, "axis": "turns", "span": 20,
             "refire_delta": 10}  # fmt: skip
    empty = {"fired": {"first": 1}, "suppressed": {}, "unplaced": {"first_fire": 1},
             "placed": {}}  # fmt: skip
    ways = {"gone": {**empty, "declared": None}, "kept": {**empty, "declared": curve}}
    adapters = {"claude": dict.fromkeys(("evaluated", "allowed", "blocked", "would_block",
                "repaired", "ended_unrepaired", "pending", "fail_open"), 1)}  # fmt: skip
    results = (
        DetectorResult("learning", "quiet", 0, breakdown={"lessons": [lesson]}),
        DetectorResult(
            "way-firing", "fired", 2, breakdown={"floor": 0.5, "bins": 20, "ways": ways}
        ),
        DetectorResult("stop-ritual", "fired", 1, breakdown={"adapters": adapters}),
    )
    document = html(Report(results, ReadStats(), None))
    assert "Not measurable: only <code>2 before</code>." in document
    assert "No way of this id is declared now: no curve to draw." in document
    assert "no fire or suppression placed" in document
    assert "Flat suppression=10 on turns" in document
    assert "Fail-opens by reason" not in document  # none to draw
    assert document.count('class="chart"') == 3  # the curve kept, and the two Stop pictures
