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
    # It shows the configuration `gfh init --pre-commit` really writes, not a made-up remote.
    assert "example.invalid" not in out
    assert "$ gfh init --pre-commit" in out
    assert "      - repo: local" in out
    assert "entry: 'gfh git-hook record-update'" in out
    # It says who runs the stage hooks: the demo, standing in for pre-commit.
    assert "git runs the post-merge hook" not in out
    assert (
        out.count(
            "(pre-commit's post-merge stage runs this; the demo runs the same command "
            "directly, with the variables pre-commit sets)"
        )
        == 2
    )
    assert (
        out.count("(at `git push origin feature/parser`, pre-commit's pre-push stage runs this;")
        == 2
    )
    assert "gfh git.update: recorded: feature/parser took in main at " in out
    assert "the merge brought no new commits of main into feature/parser" in out
    assert "$ gfh git-hook gate-push   (exit 1)" in out
    assert "gfh: refusing to push feature/parser: its tree " in out
    assert "is green (block-red): push allowed" in out
    [update] = [e for e in read_events(keep / "project") if e["type"] == "git.update"]
    assert (update["surface"], update["session"]) == ("git", precommit.SESSION)
