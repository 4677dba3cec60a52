from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness.demo import learning, run_demo


@pytest.mark.slow
def test_the_learning_chapter_graduates_answers_and_reopens_a_lesson(tmp_path: Path) -> None:
    lines: list[str] = []
    keep = tmp_path / "world"
    assert run_demo(keep, lines.append, only=[learning.run]) == 0
    out = "\n".join(lines)
    assert "OVERDUE: capture a lesson" in out
    assert "    filed requests/" in out
    assert (
        "-implementer__frontmatter-crlf.md (request: implementer/frontmatter-crlf recurred 3" in out
    )
    assert "retired; git mv pills/implementer/frontmatter-crlf.md -> pills/retired/" in out
    assert "-implementer__frontmatter-crlf-again.md (reopening: implementer/frontmatter-crlf" in out
    assert "verify implementer: lower: before 6/6 [0.610, 1.000], after 3/11" in out
    assert "(exit 2)" not in out
    assert "internal error" not in out
    requests = sorted(p.name for p in (keep / "project" / "requests").glob("*.md"))
    assert len(requests) == 2
    assert sum(name.endswith("-implementer__frontmatter-crlf-again.md") for name in requests) == 1
    assert (keep / "project/pills/retired/implementer/frontmatter-crlf.md").exists()
