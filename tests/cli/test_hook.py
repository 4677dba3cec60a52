"""`gfh hook` through Click (help, odd argument shapes) reaches the same runtime."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

from gitflow_harness.cli import run
from tests.agent import kit
from tests.helpers import CliRunner, read_events


def test_the_click_command_runs_the_same_runtime(repo: Path) -> None:
    data = json.dumps(kit.payload("claude", "PostToolUse.Edit", repo))
    old = sys.stdin
    sys.stdin = io.StringIO(data)
    try:
        assert run(["hook", "claude", "PostToolUse"]) == 0
    finally:
        sys.stdin = old
    assert [e["data"] for e in read_events(repo)] == [{"tool": "Edit", "phase": "post"}]


def test_a_missing_event_fails_open_on_both_paths(gfh: CliRunner) -> None:
    """A hook command missing its event exits 0 (a host reads 2 as "block"), whether it reaches
    the runtime directly or through Click."""
    result = gfh("hook", "claude")
    assert result.code == 0
    assert result.err.startswith("gfh hook: missing EVENT after the adapter")
    old = sys.stdin
    sys.stdin = io.StringIO("{}")
    try:
        with contextlib.redirect_stderr(io.StringIO()) as err:
            assert run(["hook", "claude"]) == 0
    finally:
        sys.stdin = old
    assert err.getvalue() == result.err
