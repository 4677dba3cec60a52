"""Codex in the loop: real `codex exec` sessions in a repository set up by `gfh init --adapter
codex`, answered by the scripted Responses API on loopback.

Each test is one headless session. What reached the model is read from the requests Codex sent,
what gfh recorded from the event log, and how each hook ended from what Codex printed.
"""

from __future__ import annotations

import os
import shlex
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import git, read_events
from tests.hosts import codex
from tests.hosts.conftest import scratch_repo
from tests.hosts.model import ModelServer, Reply, Request, call, say
from tests.hosts.responses import SHELL

pytestmark = pytest.mark.slow

# The gfh the hooks run, by its full path: a tool run through a login shell (Codex's default for
# `exec_command`) gets the login profile's PATH, which need not hold this interpreter's `gfh`.
GFH = shlex.quote(str(Path(sys.executable).parent / "gfh"))
# A prompt that matches no starter way's `prompt` or `keywords` lane.
PROMPT = "Have a look around, please."


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return scratch_repo(tmp_path / "repo", "codex")


def session(command: Path, repo: Path, server: ModelServer, prompt: str = PROMPT) -> codex.Run:
    """One headless Codex session; it must end on its own and use up the script."""
    run = codex.run(command, repo, server.url, prompt)
    assert run.code == 0, run.stderr
    assert server.pending == 0, f"the session ended early:\n{run.stderr}"
    return run


def shell(cmd: str, **options: Any) -> Reply:
    """The model runs `cmd` through Codex's shell tool."""
    return call(SHELL, cmd=cmd, **options)


def heading(repo: Path, way: str) -> str:
    """The first heading of a way's body: what marks its text in a request."""
    text = (repo / "hooks" / "ways" / way / f"{Path(way).name}.md").read_text(encoding="utf-8")
    body = text.split("\n---\n", 1)[1]
    return next(line for line in body.splitlines() if line.startswith("# "))


def ours(repo: Path, run: codex.Run, type_: str) -> list[dict[str, Any]]:
    """The session's events of one type."""
    me = f"codex:{run.session_id}"
    return [e for e in read_events(repo) if e["type"] == type_ and e["session"] == me]


def not_completed(run: codex.Run) -> list[tuple[str, str]]:
    return [hook for hook in run.hooks if hook[1] != "Completed"]


def test_session_start_context_reaches_the_first_request(
    codex_command: Path, responses: ModelServer, repo: Path
) -> None:
    responses.script(say("Hello."))
    run = session(codex_command, repo, responses)

    assert [e for e, _ in run.hooks] == ["SessionStart", "UserPromptSubmit", "Stop"]
    assert not_completed(run) == []
    first = responses.conversation[0]
    assert first.count("[ensure-main-worktree-first]") == 1
    assert first.count(heading(repo, "workflow/branch-first")) == 1
    assert first.count(heading(repo, "workflow/end-of-turn")) == 1


def test_a_way_a_command_matched_reaches_the_model_with_that_commands_output(
    codex_command: Path, responses: ModelServer, repo: Path
) -> None:
    responses.script(
        shell("git commit --allow-empty -q -m one"),
        shell("git log --oneline -1"),
        say("Committed."),
    )
    run = session(codex_command, repo, responses)

    assert run.statuses("PreToolUse") == ["Completed", "Completed"]
    assert run.statuses("PostToolUse") == ["Completed", "Completed"]
    commit_messages = heading(repo, "git/commit-messages")
    # Matched after the commit ran (PostToolUse): it comes in the very next request, beside the
    # commit's output, and once only (the next command's request still holds it once).
    after_commit, after_log = responses.conversation[1], responses.conversation[2]
    assert after_commit.count(commit_messages) == 1
    assert after_log.count(commit_messages) == 1
    fired = {e["data"]["way"]: e["data"] for e in ours(repo, run, "way.fired")}
    assert fired["git/commit-messages"]["trigger"] == "command"


def test_stop_is_observed_and_never_blocks(
    codex_command: Path, responses: ModelServer, repo: Path
) -> None:
    responses.script(shell("git status --short"), say("Nothing to do."))  # no ritual at all
    run = session(codex_command, repo, responses)

    assert run.statuses("Stop") == ["Completed"]  # one Stop: the turn ended there
    assert len(responses.conversation) == 2  # and nothing was sent back to the model
    # All Codex asked for, offline: the conversation's two turns, nothing else (no /v1/models).
    assert [(r.method, r.path) for r in responses.requests] == [("POST", "/v1/responses")] * 2
    [verdict] = ours(repo, run, "stop.verdict")
    assert verdict["data"]["adapter"] == "codex"
    assert verdict["data"]["decision"] == "allow"
    assert verdict["data"]["enforced"] is False
    assert verdict["data"]["rule"] == "status"  # what it would have blocked on: rule 1 of 3
    assert verdict["data"]["tool_turn"] is True


def _echo_box(request: Request) -> Reply:
    """The model's reply: the status box the last `gfh status --end-turn` printed."""
    outputs = [
        str(item.get("output", ""))
        for item in request.body.get("input", [])
        if item.get("type") == "function_call_output"
    ]
    lines = next((o for o in reversed(outputs) if "┌─ gfh" in o), "").splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("┌─ gfh")), len(lines))
    box = [line for line in lines[start:] if line.startswith(("┌", "│", "└"))]
    return say("Where things stand:\n\n" + "\n".join(box))


def test_the_cli_the_agent_runs_shares_the_hooks_session(
    codex_command: Path, responses: ModelServer, repo: Path
) -> None:
    responses.script(
        shell(f'{GFH} task set "x"'),  # `login` omitted: a login shell
        shell(f"{GFH} status --end-turn", login=False),
        _echo_box,
    )
    run = session(codex_command, repo, responses)

    me = f"codex:{run.session_id}"
    events = read_events(repo)
    sessions = {s: {e["session"] for e in events if e["surface"] == s} for s in ("hook", "cli")}
    assert sessions == {"hook": {me}, "cli": {me}}
    cli = [e["type"] for e in events if e["surface"] == "cli"]
    assert cli.count("coord.task_changed") == 1
    assert cli.count("coord.status_observed") == 1
    # With the ritual's evidence in the session, the Stop finds nothing missing.
    [verdict] = ours(repo, run, "stop.verdict")
    assert (verdict["data"]["decision"], verdict["data"]["rule"]) == ("allow", None)


def _files(root: Path) -> Iterator[Path]:
    return (p for p in root.rglob("*") if p.is_file())


def test_no_prompt_tool_output_or_reply_text_reaches_a_file_gfh_writes(
    codex_command: Path, responses: ModelServer, repo: Path
) -> None:
    canary = f"canary-{uuid.uuid4().hex}"
    responses.script(
        shell(f"echo {canary}-output >/dev/null; echo {canary}"),
        shell("git commit --allow-empty -q -m canary-free"),  # a way fires on this one
        say(f"It printed {canary}."),
    )
    run = session(codex_command, repo, responses, prompt=f"{PROMPT} Remember {canary}.")

    # The canary went everywhere a hook could see it: the prompt (UserPromptSubmit), the tool's
    # input (PreToolUse, PostToolUse), its output (PostToolUse) and the reply (Stop).
    assert responses.conversation[0].count(canary) == 1
    assert responses.conversation[1].count(f"{canary}\n") == 1  # the tool's output
    assert f"It printed {canary}." in run.stdout
    for type_ in ("turn.started", "tool.requested", "way.fired", "stop.verdict"):
        assert ours(repo, run, type_), type_
    common = Path(git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip())
    written = [*_files(common / "gitflow-harness"), *_files(Path(os.environ["GFH_STATE_HOME"]))]
    assert any(p.suffix == ".jsonl" for p in written)
    assert any(p.name == "runtime.json" for p in written)
    leaks = [str(p) for p in written if canary.encode() in p.read_bytes()]
    assert leaks == []
