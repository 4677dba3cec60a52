from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness.demo import learning, run_demo
from tests.helpers import read_events


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
    assert "verify implementer: lower: before 6/6 [0.610, 1.000], after 3/12" in out
    # The rounds after the answer's commit read as after it on every run, even when they start
    # within the second git stamped the commit with.
    assert "loop-back(s), 1 since implementer/frontmatter-crlf" in out
    assert "implementer/frontmatter-crlf [retired, x4] injected: in 10 dispatch(es)" in out
    # Today's rounds went through the real hook, which showed the starting subagent its lessons.
    assert (
        "SubagentStart implementer (a-1) -> additionalContext:\n"
        "    | Lessons learned for the implementer role (1 lesson). When a trigger matches\n"
    ) in out
    assert "    | - [high] implementer-frontmatter-crlf: editing the frontmatter parser" in out
    assert (
        "SubagentStart implementer (a-3) -> additionalContext:\n"
        "    | (nothing: no active lesson applies)\n"
    ) in out
    live = [
        (e["type"], e["data"]["role"], e["data"].get("verdict"), e["data"].get("model"))
        for e in read_events(keep / "project")
        if e["type"].startswith("subagent.") and e["session"] == f"claude:{learning.LIVE_SESSION}"
    ]
    stops = [entry for entry in live if entry[0] == "subagent.stopped"]
    reviews = ("APPROVED", "REJECTED", "APPROVED")
    assert [(role, verdict) for _, role, verdict, _ in stops] == [
        pair for review in reviews for pair in (("implementer", "DONE"), ("reviewer", review))
    ]
    assert {model for *_, model in stops} == {learning.MODEL}
    assert len(live) == 2 * len(stops)
    assert "(exit 2)" not in out
    assert "internal error" not in out
    requests = sorted(p.name for p in (keep / "project" / "requests").glob("*.md"))
    assert len(requests) == 2
    assert sum(name.endswith("-implementer__frontmatter-crlf-again.md") for name in requests) == 1
    assert (keep / "project/pills/retired/implementer/frontmatter-crlf.md").exists()
