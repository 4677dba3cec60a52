"""Whole Claude Code sessions, end to end: the real CLI, the hooks `gfh init` wrote, a scripted
model on loopback. What reached the model is read from the recorded requests; what gfh made of
the session, from its event log."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import read_events, write
from tests.hosts import claude
from tests.hosts.conftest import gfh_cli, scratch_repo
from tests.hosts.model import ModelServer, Reply, Request, call, say

pytestmark = pytest.mark.slow

BOX_TOP = "┌─ gfh"
FEEDBACK = "Stop hook feedback"


def tool_results(request: Request) -> list[str]:
    """The text of every tool result the request carries, oldest first."""
    found: list[str] = []
    for message in request.body.get("messages", []):
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                inner = block.get("content")
                if isinstance(inner, list):
                    inner = "".join(
                        part.get("text", "") for part in inner if isinstance(part, dict)
                    )
                found.append(str(inner))
    return found


def reply_with_box(request: Request) -> Reply:
    """The model's closing reply: the status box `gfh status --end-turn` printed, shown whole."""
    boxes = [text for text in tool_results(request) if BOX_TOP in text]
    assert boxes, "no status box in any tool result"
    box = boxes[-1][boxes[-1].index(BOX_TOP) :]
    return say(f"Here is where things stand.\n\n{box}")


def ritual(task: str = "check the tree") -> list[Any]:
    """The end-of-turn ritual as the model performs it: task, status, the box in the reply."""
    return [
        call("Bash", command=f'gfh task set "{task}"'),
        call("Bash", command="gfh status --end-turn"),
        reply_with_box,
    ]


def verdicts(repo: Path) -> list[dict[str, Any]]:
    return [e["data"] for e in read_events(repo) if e["type"] == "stop.verdict"]


def ritual_evidence(repo: Path) -> dict[str, Any]:
    """The numbers of `gfh report`'s stop-ritual finding."""
    report = json.loads(gfh_cli(repo, "report", "--json").stdout)
    finding = next(f for f in report["findings"] if f["detector"] == "stop-ritual")
    return dict(finding["evidence"])


def feedback_requests(model: ModelServer) -> list[Request]:
    return [r for r in model.conversation if r.count(FEEDBACK)]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return scratch_repo(tmp_path / "project", "claude")


def test_a_tool_turn_that_completes_the_ritual_is_allowed(
    claude_command: Path, anthropic: ModelServer, repo: Path
) -> None:
    anthropic.script(call("Bash", command="ls"), *ritual())
    run = claude.run(claude_command, repo, anthropic.url, "look around")
    assert run.code == 0, run.stderr
    assert [v["decision"] for v in verdicts(repo)] == ["allow"]
    assert verdicts(repo)[0]["tool_turn"] is True
    assert not feedback_requests(anthropic)
    session = f"claude:{run.session_id}"
    kinds = {e["type"] for e in read_events(repo) if e["session"] == session}
    assert {"turn.started", "coord.task_changed", "coord.status_observed"} <= kinds


def test_a_turn_that_repairs_after_one_block_is_counted_repaired(
    claude_command: Path, anthropic: ModelServer, repo: Path
) -> None:
    anthropic.script(call("Bash", command="ls"), say("Looked."), *ritual())
    run = claude.run(claude_command, repo, anthropic.url, "look around")
    assert run.code == 0, run.stderr
    assert [v["decision"] for v in verdicts(repo)] == ["block", "allow"]
    (blocked,) = feedback_requests(anthropic)[:1]
    assert "[gfh stop] rule=status" in blocked.text
    assert ritual_evidence(repo)["repaired"] == 1


def test_a_turn_that_never_complies_is_let_go_after_max_blocks(
    claude_command: Path, anthropic: ModelServer, repo: Path
) -> None:
    """If the agent never completes the ritual, then gfh blocks it `ritual.max_blocks` times
    (3 by default), each time saying how many tries remain, and then lets the turn end itself,
    recorded: the host's own cap (9 blocks in Claude Code 2.1.332) is never reached."""
    anthropic.script(call("Bash", command="ls"))  # then "Done." to every request
    run = claude.run(claude_command, repo, anthropic.url, "look around")
    assert run.code == 0, run.stderr
    decisions = [(v["decision"], v["reason"]) for v in verdicts(repo)]
    assert [d for d, _ in decisions] == ["block", "block", "block", "fail_open"]
    assert decisions[-1][1] == "remediation_exhausted"
    assert len(feedback_requests(anthropic)) == 3
    last = feedback_requests(anthropic)[-1]
    assert "0 of 3 tries left" in last.text
    evidence = ritual_evidence(repo)
    assert (evidence["ended_by_gfh"], evidence["ended_by_host"]) == (1, 0)


def test_a_turn_the_host_ends_over_gfhs_head_is_reported_ended_by_the_host(
    claude_command: Path, anthropic: ModelServer, repo: Path
) -> None:
    """If gfh's bound is set past the host's own cap, then Claude Code 2.1.332 ends the turn
    itself after 9 blocks, and its SessionEnd tells the report that the turn ended unrepaired,
    by the host — not "9 blocked, 0 repaired" and nothing more."""
    with (repo / ".gitflow-harness.toml").open("a", encoding="utf-8") as config:
        config.write("\n[ritual]\nmax_blocks = 20\n")
    anthropic.script(call("Bash", command="ls"))  # then "Done." to every request
    run = claude.run(claude_command, repo, anthropic.url, "look around")
    assert run.code == 0, run.stderr
    assert [v["decision"] for v in verdicts(repo)] == ["block"] * 9
    assert "session.ended" in [e["type"] for e in read_events(repo)]
    evidence = ritual_evidence(repo)
    assert (evidence["blocked"], evidence["repaired"]) == (9, 0)
    assert (evidence["ended_by_host"], evidence["ended_by_gfh"], evidence["pending"]) == (1, 0, 0)


NOTES_WAY = """---
description: Notes need a date line
when:
  files: ["notes/*.txt"]
curve:
  type: Exponential
  half_life: 2000
---
NOTES-WAY-BODY: start every notes file with a date line.
"""


def test_a_way_matching_a_write_fires_once_then_again_when_its_curve_says(
    claude_command: Path, anthropic: ModelServer, repo: Path
) -> None:
    """If a way matches a real Write, then its body reaches the next model request once; a
    second match 500 tokens later is suppressed (salience still above the floor); a third match
    past the refire delta (2001 tokens at half-life 2000) shows it again — the ticks being the
    context positions the host itself wrote to its transcript."""
    write(repo, "hooks/ways/notes/dated/dated.md", NOTES_WAY)
    anthropic.script(
        call("Write", tokens=1_000, file_path=str(repo / "notes/a.txt"), content="a\n"),
        call("Write", tokens=1_500, file_path=str(repo / "notes/b.txt"), content="b\n"),
        call("Write", tokens=5_000, file_path=str(repo / "notes/c.txt"), content="c\n"),
        *ritual(),
    )
    run = claude.run(claude_command, repo, anthropic.url, "take notes")
    assert run.code == 0, run.stderr
    marker = "NOTES-WAY-BODY"
    counts = [r.count(marker) for r in anthropic.conversation[:4]]
    assert counts == [0, 1, 1, 2]
    events = [e for e in read_events(repo) if e["data"].get("way") == "notes/dated"]
    seen = [(e["type"], e["data"].get("kind"), e["data"]["tick"]) for e in events]
    assert seen == [
        ("way.fired", "first", 1_000),
        ("way.suppressed", "refire", 1_500),
        ("way.fired", "refire", 5_000),
    ]
    assert events[1]["data"]["reason"] == "salience"


def test_a_tracked_postcheck_fires_after_a_real_write_grows_a_file(
    claude_command: Path, anthropic: ModelServer, repo: Path
) -> None:
    long_file = "".join(f"line {i}\n" for i in range(600))
    anthropic.script(
        call("Write", file_path=str(repo / "big.py"), content=long_file),
        *ritual(),
    )
    run = claude.run(claude_command, repo, anthropic.url, "write it")
    assert run.code == 0, run.stderr
    after_write = anthropic.conversation[1]
    assert after_write.count("# Keep files small") == 1
    assert after_write.count("`big.py` now has 600 lines.") == 1
    fired = [e["data"] for e in read_events(repo) if e["type"] == "way.fired"]
    assert {"way": "code/file-size", "trigger": "postcheck"}.items() <= next(
        f for f in fired if f["way"] == "code/file-size"
    ).items()


def test_session_start_context_reaches_the_first_request(
    claude_command: Path, anthropic: ModelServer, repo: Path
) -> None:
    anthropic.script(say("Hello."))
    run = claude.run(claude_command, repo, anthropic.url, "hi")
    assert run.code == 0, run.stderr
    first = anthropic.conversation[0]
    assert first.count("[ensure-main-worktree-first]") == 1
    assert first.count("# Work on a branch, in a worktree") == 1  # workflow/branch-first
    assert first.count("# End every turn with the gfh ritual") == 1  # workflow/end-of-turn


def test_a_subagent_gets_its_roles_lessons_index_in_its_first_request(
    claude_command: Path, anthropic: ModelServer, repo: Path
) -> None:
    """Claude Code 2.1.332 runs the `Agent` tool in the background: the subagent's requests race
    the main chain's, and its end comes back as a `<task-notification>` prompt."""
    gfh_cli(repo, "pills", "new", "Explore", "search-first", "--trigger", "before searching")
    brief = "Find the README."
    anthropic.answer_when(lambda request: request.opens_with(brief), say("Found it."))
    anthropic.script(
        call("Agent", description="look", prompt=brief, subagent_type="Explore"),
        *ritual(),
    )
    run = claude.run(claude_command, repo, anthropic.url, "find the readme")
    assert run.code == 0, run.stderr
    [subagent] = [r for r in anthropic.conversation if r.opens_with(brief)]
    assert subagent.count("Lessons learned for the Explore role") == 1
    assert subagent.count("Explore-search-first") == 1
    main_chain = [r for r in anthropic.conversation if r is not subagent]
    assert not any(r.count("Lessons learned for the Explore role") for r in main_chain)
    roles = [e["data"]["role"] for e in read_events(repo) if e["type"].startswith("subagent.")]
    assert roles == ["Explore", "Explore"]
    # Wherever the notification landed (inside the turn, or after it as a turn of its own),
    # no turn was blocked for it.
    assert "block" not in [v["decision"] for v in verdicts(repo)]


def test_compaction_ends_every_ways_episode(
    claude_command: Path, anthropic: ModelServer, repo: Path
) -> None:
    """If the context is compacted (headless: `/compact` in a resumed session), then the text
    gfh injected left the context, and a way matched after it is shown again as a first fire,
    though its curve alone would have kept it quiet."""
    write(repo, "hooks/ways/notes/dated/dated.md", NOTES_WAY)
    anthropic.script(
        call("Write", tokens=1_000, file_path=str(repo / "notes/a.txt"), content="a\n"),
        *ritual(),
    )
    first = claude.run(claude_command, repo, anthropic.url, "take notes")
    assert first.code == 0, first.stderr
    resume = ("--resume", first.session_id)
    compact = claude.run(claude_command, repo, anthropic.url, "/compact", args=resume)
    assert compact.code == 0, compact.stderr
    anthropic.script(
        call("Write", tokens=1_200, file_path=str(repo / "notes/b.txt"), content="b\n"),
        *ritual(),
    )
    again = claude.run(claude_command, repo, anthropic.url, "more notes", args=resume)
    assert again.code == 0, again.stderr
    fired = [
        e["data"]["kind"]
        for e in read_events(repo)
        if e["type"] == "way.fired" and e["data"]["way"] == "notes/dated"
    ]
    assert fired == ["first", "first"]
    # The host summarises through agents of its own: stops with an empty type, never started.
    stopped = [e["data"]["role"] for e in read_events(repo) if e["type"] == "subagent.stopped"]
    assert stopped
    assert set(stopped) == {None}
    assert not [e for e in read_events(repo) if e["type"] == "subagent.started"]
    transcript = claude.transcript(Path(os.environ["HOME"]), first)
    assert any(line.get("subtype") == "compact_boundary" for line in transcript)


def test_without_claude_env_file_every_gfh_call_is_still_correlated(
    claude_command: Path, anthropic: ModelServer, repo: Path
) -> None:
    """If SessionStart gets no `CLAUDE_ENV_FILE` (so `GFH_SESSION` never reaches the tools),
    then the CLI learns its session from `CLAUDE_CODE_SESSION_ID`, which Claude Code exports to
    every tool: the task is set, the status is seen, and the turn is allowed unblocked."""
    settings = repo / ".claude" / "settings.json"
    text = settings.read_text(encoding="utf-8").replace(
        '"gfh hook claude SessionStart"', '"env -u CLAUDE_ENV_FILE gfh hook claude SessionStart"'
    )
    settings.write_text(text, encoding="utf-8")
    anthropic.script(call("Bash", command="ls"), *ritual())
    run = claude.run(claude_command, repo, anthropic.url, "look around")
    assert run.code == 0, run.stderr
    session = f"claude:{run.session_id}"
    cli = [e for e in read_events(repo) if e["surface"] == "cli"]
    assert cli, "the agent's gfh calls recorded nothing"
    assert {e["session"] for e in cli} == {session}
    assert [v["decision"] for v in verdicts(repo)] == ["allow"]
    assert not feedback_requests(anthropic)


CANARY = "CANARY-7f3a9c-DO-NOT-STORE"


def test_no_prompt_tool_output_or_reply_text_reaches_a_file_gfh_writes(
    claude_command: Path, anthropic: ModelServer, repo: Path
) -> None:
    anthropic.script(
        call("Bash", command=f"echo {CANARY}-output"),
        call("Write", file_path=str(repo / "notes/x.txt"), content=f"{CANARY}-input\n"),
        call("Bash", command='gfh task set "keep notes"'),  # the task text is state, by design
        call("Bash", command="gfh status --end-turn"),
        lambda request: say(f"{CANARY}-reply\n\n" + reply_with_box(request).text),
    )
    run = claude.run(claude_command, repo, anthropic.url, f"{CANARY}-prompt")
    assert run.code == 0, run.stderr
    assert any(r.count(f"{CANARY}-output") for r in anthropic.conversation)  # it was there
    written = [
        *(repo / ".git" / "gitflow-harness").rglob("*"),
        *Path(os.environ["GFH_STATE_HOME"]).rglob("*"),
    ]
    files = [p for p in written if p.is_file()]
    assert files
    leaks = [str(p) for p in files if CANARY.encode() in p.read_bytes()]
    assert not leaks
