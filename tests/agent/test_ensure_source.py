"""`ensure` at session start: its hint is the session's opening context, its run a `verb` event."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agent import kit
from tests.helpers import CliRunner, git, read_events, write

CLAUDE = "claude:7f3c9d2e-1b4a-4c55-9a61-2f0d8e6b1a90"


def _verbs(repo: Path) -> list[dict[str, object]]:
    return [e for e in read_events(repo) if e["type"] == "verb"]


def test_in_the_main_checkout_the_hint_opens_the_session_and_is_recorded(
    repo: Path, gfh: CliRunner
) -> None:
    result = kit.hook(gfh, "claude", "SessionStart", kit.payload("claude", "SessionStart", repo))
    assert result.code == 0
    assert kit.context(result) == (
        "hint: you are in the main checkout on main: before changing anything, run "
        "`gfh start NAME` and work in the worktree it prints  [ensure-main-worktree-first]"
    )
    [verb] = _verbs(repo)
    assert (verb["surface"], verb["session"], verb["branch"]) == ("hook", CLAUDE, "main")
    data = verb["data"]
    assert isinstance(data, dict)
    assert (data["verb"], data["outcome"], data["hint_ids"]) == (
        "ensure",
        "ok",
        ["ensure-main-worktree-first"],
    )
    assert data["trunk"] == "main"
    assert data["clean"] is True


def test_in_a_worktree_nothing_is_said_and_the_run_is_still_recorded(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    worktree = tmp_path / "feature"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(worktree))
    data = kit.payload("claude", "SessionStart", worktree)
    result = kit.hook(gfh, "claude", "SessionStart", data)
    assert (result.code, result.out) == (0, "")
    [verb] = _verbs(repo)
    assert verb["branch"] == "feature"
    assert verb["data"]["hint_ids"] == []  # type: ignore[index]


def test_cursor_and_codex_get_the_hint_with_their_session_env(repo: Path, gfh: CliRunner) -> None:
    cursor = kit.hook(gfh, "cursor", "sessionStart", kit.payload("cursor", "sessionStart", repo))
    assert cursor.json()["env"] == {"GFH_SESSION": "cursor:c-5b1e"}
    assert cursor.json()["additional_context"].endswith("[ensure-main-worktree-first]")
    codex = kit.hook(gfh, "codex", "SessionStart", kit.payload("codex", "SessionStart", repo))
    specific = codex.json()["hookSpecificOutput"]
    assert specific["additionalContext"].endswith("[ensure-main-worktree-first]")
    assert [v["session"] for v in _verbs(repo)] == ["cursor:c-5b1e", "codex:0199a7c2-codex"]


def test_a_hint_the_host_never_received_is_not_recorded_as_delivered(
    repo: Path, gfh: CliRunner
) -> None:
    """If the budget leaves no room for the hint, then it is not shown and its `verb` event,
    recorded all the same (ensure ran), claims no hint."""
    write(repo, ".gitflow-harness.toml", "[ways]\nbudget_chars = 10\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a small budget")
    result = kit.hook(gfh, "claude", "SessionStart", kit.payload("claude", "SessionStart", repo))
    assert result.out == ""
    [verb] = _verbs(repo)
    assert verb["data"]["verb"] == "ensure"
    assert verb["data"]["hint_ids"] == []


@pytest.mark.parametrize("when", ["starting", "finishing"])
def test_when_ensure_fails_the_session_still_gets_its_env_and_its_ways(
    repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    """If `ensure` breaks, as it starts or as it finishes after the ways pass, then the hook
    says so in one line and a hook.error, and the session still gets its environment and its
    session_start ways."""
    from gitflow_harness.workflow import ensure

    def bug() -> None:
        raise RuntimeError("a bug in ensure")

    def broken(ws: object) -> object:
        if when == "starting":
            bug()
        return bug

    monkeypatch.setattr(ensure, "begin", broken)
    kit.way(repo, "opening", "when:\n  session_start: true\n" + kit.EXPONENTIAL, "Hello.")
    result = kit.hook(gfh, "cursor", "sessionStart", kit.payload("cursor", "sessionStart", repo))
    assert result.code == 0
    env = {"GFH_SESSION": "cursor:c-5b1e"}
    assert result.json() == {"env": env, "additional_context": "Hello."}
    [line] = result.err.splitlines()
    assert line.startswith("gfh hook cursor sessionStart: internal error (RuntimeError at ")
    [error] = [e for e in read_events(repo) if e["type"] == "hook.error"]
    assert error["data"]["error"].startswith("RuntimeError at gitflow_harness/")
    assert "a bug" not in error["data"]["error"]
    assert _verbs(repo) == []


def test_a_broken_configuration_still_lets_the_session_correlate(
    repo: Path, gfh: CliRunner
) -> None:
    write(repo, ".gitflow-harness.toml", "[ways]\nfloor = 'high'\n")
    result = kit.hook(gfh, "cursor", "sessionStart", kit.payload("cursor", "sessionStart", repo))
    assert result.code == 0
    assert result.json() == {"env": {"GFH_SESSION": "cursor:c-5b1e"}}
    [line] = result.err.splitlines()
    assert line.startswith("gfh hook cursor sessionStart: ")
    assert ".gitflow-harness.toml:2: ways.floor: " in line
    assert "internal error" not in line


def test_a_branch_name_that_is_not_utf8_is_ensured_and_logged(repo: Path, gfh: CliRunner) -> None:
    git(repo, "checkout", "-q", "-b", "caf\udce9")  # the byte 0xe9, not UTF-8
    result = kit.hook(gfh, "claude", "SessionStart", kit.payload("claude", "SessionStart", repo))
    assert (result.code, result.err) == (0, "")
    assert kit.context(result) is None  # a branch off the trunk: nothing to hint
    [verb] = _verbs(repo)
    assert verb["branch"] == "caf\ufffd"  # logged as valid UTF-8
    data = verb["data"]
    assert isinstance(data, dict)
    assert data["outcome"] == "ok"


def _logging_git(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A PATH whose `git` notes each of its invocations, then runs the real git."""
    import os
    import shutil

    real = shutil.which("git")
    assert real is not None
    bin_dir, log = tmp_path / "bin", tmp_path / "git-calls.log"
    bin_dir.mkdir()
    shim = bin_dir / "git"
    shim.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real}" "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}, log


@pytest.mark.parametrize(("adapter", "event"), kit.SESSION_STARTS)
def test_a_session_start_process_asks_its_git_status_before_the_runtime_loads(
    repo: Path, tmp_path: Path, adapter: str, event: str
) -> None:
    """If a host runs the SessionStart hook in the session's directory, then the `git status`
    `ensure` needs is started first thing (`early.py`) and taken: one `git status` in all,
    asked from the current directory (the runtime's own would name the worktree with -C), and
    the hint is the same."""
    import json

    from tests.helpers import run_gfh

    env, log = _logging_git(tmp_path)
    data = kit.payload(adapter, event, repo)
    proc = run_gfh("hook", adapter, event, cwd=repo, stdin=json.dumps(data), env=env)
    assert proc.returncode == 0, proc.stderr
    assert "[ensure-main-worktree-first]" in proc.stdout
    statuses = [line for line in log.read_text().splitlines() if " status " in f" {line} "]
    assert len(statuses) == 1
    assert statuses[0].startswith("status --porcelain=v2")
    [verb] = _verbs(repo)
    assert verb["data"]["clean"] is True  # type: ignore[index]


def test_the_early_status_names_every_hosts_session_start_event() -> None:
    """The session-start names `main.py` starts `git status` early for are the hosts' own."""
    import importlib

    from gitflow_harness.agent.runtime import ADAPTERS
    from gitflow_harness.hookcall.model import SESSION_START
    from gitflow_harness.main import SESSION_START_EVENTS

    names = set()
    for module in ADAPTERS.values():
        events = importlib.import_module(module).EVENTS
        names |= {name for name, kind in events.items() if kind == SESSION_START}
    assert names == SESSION_START_EVENTS
