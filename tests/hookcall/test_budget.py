"""The budget of one hook call: past it, the call fails open, answered and recorded."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from gitflow_harness.hookcall import budget
from gitflow_harness.hookcall import model as ev
from tests.agent import kit
from tests.helpers import CliRunner, read_events


def stall(ctx: Any) -> None:
    """A context source that never returns and swallows every ordinary exception."""
    while True:
        try:
            time.sleep(0.05)
        except Exception:
            continue


def test_a_source_that_never_returns_is_cut_off_at_the_budget(
    repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If a context source stalls (and even catches `Exception`), then the call still ends at
    its budget: exit 0, the neutral answer, one stderr line, a `hook.error` naming the budget."""
    kit.plug(monkeypatch, [ev.PROMPT], "tests.hookcall.test_budget:stall")
    data = kit.payload("claude", "UserPromptSubmit", repo)
    result = kit.hook(gfh, "claude", "UserPromptSubmit", data, env={budget.VARIABLE: "0.5"})
    assert result.code == 0
    assert result.out == ""
    assert result.err.splitlines() == [
        "gfh hook claude UserPromptSubmit: the call ran past its 0.5 s budget "
        "($GFH_HOOK_BUDGET_S); let through"
    ]
    [error] = [e for e in read_events(repo) if e["type"] == "hook.error"]
    assert error["data"]["error"] == (
        "BudgetExceeded: the call ran past its 0.5 s budget ($GFH_HOOK_BUDGET_S)"
    )
    assert budget.remaining() is None  # disarmed once the call is over


def test_a_hook_whose_stdin_never_ends_answers_at_the_budget(repo: Path) -> None:
    """If the host never closes stdin, then the real hook process still answers neutrally,
    exits 0 and records the `hook.error` once the budget is spent."""
    proc = hook_process(repo, "claude", "UserPromptSubmit")
    assert proc.stdin is not None
    proc.stdin.write('{"session_id": "s1", ')  # and never the rest
    proc.stdin.flush()
    out, err = _wait_keeping_stdin_open(proc)
    assert proc.returncode == 0
    assert out == ""
    assert "ran past its 0.5 s budget" in err
    assert "Traceback" not in err
    [error] = [e for e in read_events(repo) if e["type"] == "hook.error"]
    assert error["data"]["error"].startswith("BudgetExceeded: ")


HANG_S = 120  # far past the half-second budget: only a hook that never ends gets here


def _wait_keeping_stdin_open(proc: subprocess.Popen[str]) -> tuple[str, str]:
    assert proc.stdout is not None
    assert proc.stderr is not None
    try:
        proc.wait(timeout=HANG_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError("the hook outlived its budget by far: it hangs") from None
    return proc.stdout.read(), proc.stderr.read()


@pytest.mark.parametrize(("value", "expected"), [("", 20.0), ("x", 20.0), ("-1", 20.0), ("3", 3.0)])
def test_the_budget_comes_from_the_environment_when_it_is_a_positive_number(
    value: str, expected: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(budget.VARIABLE, value)
    assert budget.budget_s() == expected


def test_a_mistyped_hook_whose_stdin_never_ends_still_records_its_error(repo: Path) -> None:
    """If the hook command is wrong and the host never closes stdin, then the call still ends
    at its budget, says what to fix and records the `hook.error` in the process's repository."""
    proc = hook_process(repo, "claud", "Stop")
    out, err = _wait_keeping_stdin_open(proc)
    assert proc.returncode == 0
    assert out == ""
    assert "unknown adapter 'claud'" in err
    [error] = [e for e in read_events(repo) if e["type"] == "hook.error"]
    assert error["data"]["error"].startswith("UsageError: unknown adapter")


def hook_process(repo: Path, *args: str) -> subprocess.Popen[str]:
    """A real `gfh hook …` process in `repo` with a half-second budget, its stdin left open."""
    return subprocess.Popen(
        [sys.executable, "-m", "gitflow_harness", "hook", *args],
        cwd=repo,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, budget.VARIABLE: "0.5"},
    )
