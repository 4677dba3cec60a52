"""The HTML report in a real headless Chromium: its DOM, its console, screenshots."""

from __future__ import annotations

import re
import struct
import zlib
from pathlib import Path

import pytest

from gitflow_harness.report.detectors import factories
from tests import chromium
from tests.helpers import CliRunner
from tests.report.conftest import Seeder, seed_every_detector

pytestmark = pytest.mark.slow

IDS = [make.id for make in factories()]  # type: ignore[attr-defined]
SIZES = ((360, 1600), (1280, 1600))  # a phone's width and a desktop's


@pytest.fixture
def page(repo: Path, seed: Seeder, gfh: CliRunner, tmp_path: Path) -> Path:
    seed_every_detector(repo, seed)
    out = tmp_path / "report.html"
    result = gfh("report", "--format", "html", "--output", str(out))
    assert result.code == 0, result.err
    return out


def profile(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"chromium-{name}"
    path.mkdir()
    return path


def test_the_browser_builds_every_section_with_no_console_message(
    page: Path, tmp_path: Path
) -> None:
    done = chromium.run(page, profile(tmp_path, "dom"), "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    assert chromium.console(done.stderr) == []
    dom = done.stdout
    sections = re.findall(r'<section id="(d-[a-z-]+)"', dom)
    assert sections == [f"d-{i}" for i in IDS]
    charts = re.findall(r"<svg[^>]*class=\"chart\"[^>]*>\s*<title", dom)
    assert len(charts) >= 8
    assert len(re.findall(r'<title id="svg-t', dom)) == len(charts)
    assert "<script" not in dom


def test_the_console_check_sees_an_error(tmp_path: Path) -> None:
    """If a page logs to its console, then the check reports it (so its silence above means
    something)."""
    bad = tmp_path / "bad.html"
    bad.write_text(
        '<!DOCTYPE html><html lang="en"><body><script>console.error("broken")</script>'
        "</body></html>",
        encoding="utf-8",
    )
    done = chromium.run(bad, profile(tmp_path, "bad"), "--dump-dom")
    assert any("broken" in line for line in chromium.console(done.stderr))


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_screenshots_narrow_and_wide_are_not_blank(
    page: Path, tmp_path: Path, width: int, height: int
) -> None:
    shot = tmp_path / f"shot-{width}.png"
    done = chromium.run(
        page,
        profile(tmp_path, f"shot-{width}"),
        f"--window-size={width},{height}",
        f"--screenshot={shot}",
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert chromium.console(done.stderr) == []
    size, colours, ink = png_summary(shot.read_bytes())
    assert size == (width, height)
    assert colours >= 6  # text, bars of several patterns, rules: not one flat colour
    assert ink > 0.02  # a share of the pixels is not the white background


def png_summary(data: bytes) -> tuple[tuple[int, int], int, float]:
    """Return a PNG's size, how many distinct colours it has, and the share of pixels that are
    not white. Reads 8-bit RGB or RGBA, as Chromium writes it."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        chunks.append((data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]))
        pos += 12 + length
    width, height, depth, kind = struct.unpack(">IIBB", chunks[0][1][:10])
    assert depth == 8
    assert kind in (2, 6)
    channels = 3 if kind == 2 else 4
    raw = zlib.decompress(b"".join(body for name, body in chunks if name == b"IDAT"))
    stride = width * channels
    previous = bytearray(stride)
    colours: set[bytes] = set()
    inked = 0
    for y in range(height):
        start = y * (stride + 1)
        line = unfilter(raw[start], bytearray(raw[start + 1 : start + 1 + stride]), previous,
                        channels)  # fmt: skip
        if y % 4 == 0:  # every fourth row is enough to tell a picture from a blank
            pixels = [bytes(line[x : x + 3]) for x in range(0, stride, channels)]
            colours.update(pixels)
            inked += sum(1 for p in pixels if p != b"\xff\xff\xff")
        previous = line
    return (width, height), len(colours), inked / (width * ((height + 3) // 4))


def unfilter(kind: int, line: bytearray, previous: bytearray, bpp: int) -> bytearray:
    """Undo one PNG scanline filter (None, Sub, Up, Average, Paeth)."""
    for i in range(len(line)):
        left = line[i - bpp] if i >= bpp else 0
        up = previous[i]
        corner = previous[i - bpp] if i >= bpp else 0
        if kind == 1:
            line[i] = (line[i] + left) & 0xFF
        elif kind == 2:
            line[i] = (line[i] + up) & 0xFF
        elif kind == 3:
            line[i] = (line[i] + (left + up) // 2) & 0xFF
        elif kind == 4:
            p = left + up - corner
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
            guess = left if pa <= pb and pa <= pc else up if pb <= pc else corner
            line[i] = (line[i] + guess) & 0xFF
    return line
