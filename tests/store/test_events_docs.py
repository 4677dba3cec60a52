"""docs/events.md names every event type gfh writes and every field of each type's `data`.

The fields are checked against events real runs wrote: one agent session driven through the
hooks and the command line touches every type, and the documented fields of each type must be
exactly the ones its events carry.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from tests.agent import kit
from tests.helpers import ROOT, CliRunner, commit, git, read_events

DOC = (ROOT / "docs" / "events.md").read_text(encoding="utf-8")
SESSION = "claude:7f3c9d2e-1b4a-4c55-9a61-2f0d8e6b1a90"

# A call that appends an event, with its type as a string literal: `log.record("verb", …)`,
# `make_event("turn.completed", …)`, `append_event(common_dir, "hook.error", …)`.
_EMIT = re.compile(
    r"\b(?:record|make_event|append_event)\(\s*(?:[\w.]+,\s*)?\"([a-z_]+(?:\.[a-z_]+)?)\"\s*,"
)


def documented() -> dict[str, set[str]]:
    """Each type of the "Types and data" section with the fields its table lists."""
    section = DOC.split("\n## Types and data\n", 1)[1].split("\n## ", 1)[0]
    out: dict[str, set[str]] = {}
    for block in section.split("\n### ")[1:]:
        heading, body = block.split("\n", 1)
        match = re.fullmatch(r"`([a-z_.]+)`", heading.strip())
        assert match, f"unexpected heading {heading!r}"
        out[match.group(1)] = set(re.findall(r"^\| `([a-z_]+)` \|", body, re.MULTILINE))
    return out


def emitted_in_code() -> set[str]:
    """Every event type a call in the package appends."""
    found: set[str] = set()
    for path in (ROOT / "gitflow_harness").rglob("*.py"):
        found.update(_EMIT.findall(path.read_text(encoding="utf-8")))
    return found


def test_the_envelope_lists_the_documented_types() -> None:
    row = next(line for line in DOC.splitlines() if line.startswith("| `type` |"))
    assert set(re.findall(r"`([a-z_]+\.?[a-z_]*)`", row.split("|")[3])) == set(documented())


def test_every_type_the_code_writes_is_documented_and_no_other() -> None:
    assert emitted_in_code() == set(documented())


def _session(repo: Path, gfh: CliRunner) -> None:
    """One agent session on a feature branch that writes every type of event."""
    commit(repo, "configure the gate", {".gitflow-harness.toml": '[gate]\ntest = ["true"]\n'})
    kit.way(repo, "parser", "when:\n  prompt: '\\bparser\\b'\n" + kit.EXPONENTIAL)
    kit.way(repo, "broken", "when:\n  keywords: [parser]\nredisclose: 3\n")  # a hook.error
    git(repo, "checkout", "-q", "-b", "feature/x")
    env = {"GFH_SESSION": SESSION}

    def hook(event: str, fixture: str | None = None, **fields: object) -> None:
        data = kit.payload("claude", fixture or event, repo, **fields)
        assert kit.hook(gfh, "claude", event, data).code in (0, 2)

    hook("SessionStart")  # verb (ensure)
    hook("UserPromptSubmit")  # turn.started, way.fired, hook.error
    hook("PostToolUse", "PostToolUse.Edit")  # tool.requested
    hook("SubagentStart")
    hook("SubagentStop")
    hook("Stop")  # turn.completed, stop.verdict (a block)
    hook("UserPromptSubmit")  # way.suppressed: still present at the next turn
    assert gfh("status", "--end-turn", env=env).code == 0  # coord.status_observed
    assert gfh("task", "set", "fix the parser", env=env).code == 0  # coord.task_changed
    assert gfh("test", env=env).code == 0  # verb with a gate
    assert gfh("done", env=env).code == 0  # verb with a gate and a probe
    git(repo, "checkout", "-q", "main")
    commit(repo, "on the trunk", {"trunk.txt": "x\n"})
    git(repo, "checkout", "-q", "feature/x")
    assert gfh("update", env=env).code == 0  # git.update
    hook("Stop")
    hook("SessionEnd")  # session.ended


def test_the_fields_of_each_type_are_the_fields_real_events_carry(
    repo: Path, gfh: CliRunner
) -> None:
    _session(repo, gfh)
    seen: dict[str, set[str]] = defaultdict(set)
    for event in read_events(repo):
        seen[event["type"]].update(event["data"])
    assert set(seen) == set(documented()), "a run that writes every type"
    for type_, fields in documented().items():
        assert seen[type_] == fields, type_
