"""The hooks chapter of `gfh demo` runs for real and shows what it claims."""

from __future__ import annotations

import pytest

from gitflow_harness.demo import foundation, hooks, run_demo


@pytest.mark.slow
def test_the_hooks_chapter_runs_a_session_through_the_real_cli() -> None:
    lines: list[str] = []
    assert run_demo(None, lines.append, only=[foundation.run, hooks.run]) == 0
    text = "\n".join(lines)
    assert "created   .claude/settings.json (9 hook(s) added)" in text
    assert "export GFH_SESSION='claude:5d0c2a4e-demo'" in text
    assert "the tokens tick reads 40000" in text
    assert '"verdict":"REJECTED"' in text
    assert "turns=2" in text
    assert "fix the parser" not in text.split("What the log kept")[1]
