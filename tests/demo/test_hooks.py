"""The hooks chapter of `gfh demo` runs for real and shows what it claims."""

from __future__ import annotations

import pytest

from gitflow_harness.demo import foundation, hooks, run_demo


@pytest.mark.slow
def test_the_hooks_chapter_runs_a_session_through_the_real_cli() -> None:
    lines: list[str] = []
    assert run_demo(None, lines.append, only=[foundation.run, hooks.run]) == 0
    text = "\n".join(lines)
    assert "created   .claude/settings.json (10 hook(s) added)" in text
    assert "export GFH_SESSION='claude:5d0c2a4e-demo'" in text
    # After the compaction the context restarts at 9000; the tick carries on from 31000.
    assert "context position now 9000; the tokens tick reads 31000" in text
    assert '"verdict":"REJECTED"' in text
    assert "turns=3" in text
    assert "fix the parser" not in text.split("What the log kept")[1]
    # The ways at work: fire, stay quiet while fresh, fire again once faded, and after a
    # compaction; the postcheck way after the failed run; the reviewer's way at its start. The
    # ritual's way, which init copies with the enforcing Stop hook, opens each context.
    decisions = [line.strip() for line in lines if line.strip().startswith(("fired", "suppr"))]
    assert [d.split(":")[-1].strip() for d in decisions] == [
        "first",
        "first",
        "salience",
        "salience",
        "first",
        "first",
        "refire",
        "first",
        "first",
    ]
    assert "fired      workflow/end-of-turn (session, tick 0, salience 0.00): first" in text
    assert "fired      demo/red-tests (postcheck, tick 24500" in text
    assert "fired      demo/review-checklist (subagent, tick 24500" in text
    assert "fired      demo/parser-notes (prompt, tick 31000, salience 0.00): first" in text
    assert text.count("| # Parser notes") == 3
    assert "[ensure-main-worktree-first]" in text
    assert "internal error" not in text
