"""`python -m bench NAME --record` replaces only the sections of the benchmarks it ran."""

from __future__ import annotations

from pathlib import Path

from bench.__main__ import recorded_sections, write_results
from bench.runner import Measurement


def case(name: str, ratio: float) -> Measurement:
    return Measurement(name, "python -c pass", ratio * 0.01, 0.01)


def test_recording_one_benchmark_keeps_the_others(tmp_path: Path) -> None:
    path = tmp_path / "RESULTS.md"
    write_results([("cli", "The CLI.", [case("gfh --version", 2.0)]),
                   ("hook", "The hook.", [case("PostToolUse", 1.5)])], path)  # fmt: skip
    write_results([("hook", "The hook, again.", [case("PostToolUse", 1.25)])], path)

    sections = recorded_sections(path.read_text(encoding="utf-8"))
    assert list(sections) == ["cli", "hook"]
    assert "2.00x" in sections["cli"]
    assert "The CLI." in sections["cli"]
    assert "1.25x" in sections["hook"]
    assert "1.50x" not in sections["hook"]
    assert "The hook, again." in sections["hook"]
    assert all("\nRecorded " in text for text in sections.values())


def test_a_results_file_without_sections_is_replaced_by_the_run(tmp_path: Path) -> None:
    path = tmp_path / "RESULTS.md"
    path.write_text("# Benchmark results\n\nnothing yet\n", encoding="utf-8")
    write_results([("status", "Status.", [case("gfh status", 9.0)])], path)
    text = path.read_text(encoding="utf-8")
    assert list(recorded_sections(text)) == ["status"]
    assert "nothing yet" not in text
