from __future__ import annotations

import pytest

from gitflow_harness.demo import run_demo, ways


@pytest.mark.slow
def test_the_ways_chapter_runs_every_command_on_a_scratch_repository() -> None:
    lines: list[str] = []
    assert run_demo(None, lines.append, only=[ways.run]) == 0
    out = "\n".join(lines)
    # Only the lint of the old way file fails (exit 1: it has errors); migrate then fixes it.
    assert out.count("(exit") == 1
    assert "$ gfh ways lint   (exit 1)" in out
    for expected in (
        "$ gfh ways list",
        "0.50 ┤┄",
        "* tick     60000  step",
        "tick      9000  refractory",
        "+curve: {type: Exponential, half_life: 20000}  # from the old format",
        "fixed: removed unknown field 'colour'",
        "retuned 2 way(s)",
        "curve          Exponential half_life=90000 (axis: tokens)",
    ):
        assert expected in out
