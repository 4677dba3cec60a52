"""One verb run, as both surfaces share it: refusals, delivered hints, the event."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from gitflow_harness.hints import hint
from gitflow_harness.workflow.commands import Console
from gitflow_harness.workflow.result import VerbData, VerbResult
from gitflow_harness.workflow.run import run_verb
from gitflow_harness.workspace import Workspace
from tests.helpers import read_events


def _guarded(ws: Workspace, console: Console) -> VerbResult:
    return VerbResult(
        "status", "ok", VerbData(), hints=(hint("ensure-main-worktree-first", trunk="main"),)
    )


@pytest.mark.parametrize(("surface", "shown"), [("cli", False), ("mcp", True)])
def test_agent_only_hints_reach_an_mcp_caller_without_a_session(
    repo: Path, surface: str, shown: bool
) -> None:
    """If no session is known, then a CLI run may be a person's and drops agent-only hints,
    while an MCP call is always an agent's host calling: it gets them."""
    console = Console(io.StringIO(), lambda line: None)
    run = run_verb("status", _guarded, console=console, flags=[], surface=surface)
    assert run.error is None
    assert bool(run.shown) is shown
    [event] = read_events(repo)
    assert event["surface"] == surface
    assert event["data"]["hint_ids"] == (["ensure-main-worktree-first"] if shown else [])


def test_a_run_outside_a_repository_is_refused_and_not_recorded(tmp_path: Path) -> None:
    console = Console(io.StringIO(), lambda line: None)
    run = run_verb("status", _guarded, console=console, flags=[], surface="cli", directory=tmp_path)
    assert run.error is not None
    assert run.envelope()["outcome"] == "refused"
