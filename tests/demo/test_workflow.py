from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness.demo import foundation, run_demo, workflow


@pytest.mark.slow
def test_workflow_chapter_runs_the_verbs_for_real(tmp_path: Path) -> None:
    lines: list[str] = []
    keep = tmp_path / "world"
    assert run_demo(keep, lines.append, only=[foundation.run, workflow.run]) == 0
    out = "\n".join(lines)
    assert "[ensure-main-worktree-first]" in out
    assert "│ branch   feature/frontmatter · 1 behind main · 0 ahead" in out
    assert "feature/frontmatter: merged main" in out
    assert "[gate-failure-test]" in out
    assert "[done-unchanged-tree-red]" in out
    assert "receipt written" in out
    assert "deleted branch feature/frontmatter" in out
    assert "hint-follow-through · branch-update · attention" in out
    assert "1 by git history" in out
    project = keep / "project"
    assert (project / "src" / "parser.py").read_text().count("strip()") == 1
    assert not (keep / "project.worktrees" / "feature-frontmatter").exists()
