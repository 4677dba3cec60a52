from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness.demo import foundation, precommit, run_demo
from tests.helpers import read_events


@pytest.mark.slow
def test_precommit_chapter_records_the_merge_and_gates_the_push(tmp_path: Path) -> None:
    lines: list[str] = []
    keep = tmp_path / "world"
    assert run_demo(keep, lines.append, only=[foundation.run, precommit.run]) == 0
    out = "\n".join(lines)
    assert "gfh git.update: recorded: feature/parser took in main at " in out
    assert "the merge brought no new commits of main into feature/parser" in out
    assert "$ gfh git-hook gate-push   (exit 1)" in out
    assert "gfh: refusing to push feature/parser: its tree " in out
    assert "is green (block-red): push allowed" in out
    [update] = [e for e in read_events(keep / "project") if e["type"] == "git.update"]
    assert (update["surface"], update["session"]) == ("git", precommit.SESSION)
