from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from gitflow_harness.demo import Demo, demo_env
from tests.helpers import CliRunner, read_events


@pytest.mark.slow  # the whole demo: every chapter, real git and pre-commit
def test_demo_runs_and_cleans_up(gfh: CliRunner, tmp_path: Path) -> None:
    result = gfh("demo")
    assert result.code == 0, result.err
    assert "== A repository, a trunk, a feature worktree" in result.out
    assert "events, 0 foreign, 0 torn" in result.out
    assert "the scratch world was removed" in result.out


@pytest.mark.slow  # the whole demo: every chapter, real git and pre-commit
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


def _demo(root: Path, lines: list[str]) -> Demo:
    demo = Demo(root=root, echo=lines.append, env=demo_env(root))
    demo.repo.mkdir(parents=True)
    demo.git("init", "-q", "-b", "main")
    demo.git("commit", "-q", "--allow-empty", "-m", "start")
    return demo


def test_a_shown_command_is_quoted_so_it_can_be_copied(tmp_path: Path) -> None:
    lines: list[str] = []
    demo = _demo(tmp_path, lines)
    demo.gfh("task", "set", "tidy the parser", env={"GFH_SESSION": "claude:s-1"})
    assert lines[0] == "$ gfh task set 'tidy the parser'"


def test_a_shown_command_keeps_stderr_in_order_with_stdout(tmp_path: Path) -> None:
    """If a gate command writes to stderr, then the demo shows it where it happened: inside the
    gate's lines, before gfh's verdict and hint, not after them."""
    lines: list[str] = []
    demo = _demo(tmp_path, lines)
    # The script spells the word apart so that only its output, not the command line, holds it.
    script = "import sys; sys.stderr.write('BO' + 'OM\\n'); sys.exit(1)"
    command = f"{shlex.quote(sys.executable)} -c {shlex.quote(script)}"
    demo.write(".gitflow-harness.toml", f"[gate]\ntest = [{json.dumps(command)}]\n")
    proc = demo.gfh("test")
    assert proc.returncode == 1
    out = "\n".join(lines)
    order = [out.index(s) for s in ("[test] $ ", "BOOM", "[test] FAILED", "hint: ")]
    assert order == sorted(order), out


def test_a_hidden_command_keeps_its_streams_apart(tmp_path: Path) -> None:
    lines: list[str] = []
    demo = _demo(tmp_path, lines)
    proc = demo.gfh("ways", "show", "no-such-way", show=False)
    assert proc.returncode != 0
    assert proc.stdout == ""
    assert "no-such-way" in proc.stderr
    assert lines == []
