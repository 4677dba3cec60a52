from __future__ import annotations

from pathlib import Path

from tests.helpers import CliRunner, read_events


def test_demo_runs_and_cleans_up(gfh: CliRunner, tmp_path: Path) -> None:
    result = gfh("demo")
    assert result.code == 0, result.err
    assert "== A repository, a trunk, a feature worktree" in result.out
    assert "events, 0 foreign, 0 torn" in result.out
    assert "the scratch world was removed" in result.out


def test_demo_keep_leaves_a_real_repository(gfh: CliRunner, tmp_path: Path) -> None:
    keep = tmp_path / "world"
    result = gfh("demo", "--keep", str(keep))
    assert result.code == 0, result.err
    events = read_events(keep / "project")
    assert len(events) >= 3
    assert {e["surface"] for e in events} <= {"cli", "hook", "git"}
    assert (keep / "project.worktrees" / "feature-parser" / ".git").is_file()


def test_demo_refuses_a_non_empty_keep_dir(gfh: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "occupied").mkdir()
    (tmp_path / "occupied" / "file").write_text("x")
    result = gfh("demo", "--keep", str(tmp_path / "occupied"))
    assert result.code == 2
    assert "is not empty" in result.err
