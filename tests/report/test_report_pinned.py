"""The whole `--json` report over a generated log of every event type, pinned.

The log is seeded, the repository's history has fixed dates (so its commits have fixed names),
and sessions come and go over several days: hints fire and are followed, ignored, censored by
the horizon, by `accept`, by merges and rebases that no event recorded. Any change to how the
report reads the log or judges it that moves one number shows here. The learning detector reads
the wall clock and its own files, so it is left out.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from gitflow_harness.store.events import format_at
from tests.helpers import CliRunner, git

PINNED = Path(__file__).resolve().parent / "pinned" / "report.json"
START = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
BRANCHES = ("feature/a", "feature/b", "feature/c", "gone/d")
HINTS = ("status-branch-behind", "gate-failure-test", "gate-failure-prepare")


def _dated(repo: Path, when: datetime, *args: str) -> str:
    stamp = f"@{int(when.timestamp())} +0000"
    return git(repo, *args, env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})


def history(repo: Path, rng: random.Random) -> list[str]:
    """Give the trunk and three live branches a week of commits, merges of the trunk and
    rebases onto it; return the commits made, for the events to name."""
    made: list[str] = []
    when = START
    for branch in BRANCHES[:3]:
        _dated(repo, when, "branch", branch, "main")
    for step in range(40):
        when += timedelta(minutes=rng.randrange(20, 400))
        branch = rng.choice(BRANCHES[:3])
        roll = rng.random()
        if roll < 0.3:
            _dated(repo, when, "switch", "-q", "main")
            _dated(repo, when, "commit", "-q", "--allow-empty", "-m", f"trunk {step}")
        elif roll < 0.7:
            _dated(repo, when, "switch", "-q", branch)
            _dated(repo, when, "commit", "-q", "--allow-empty", "-m", f"{branch} {step}")
        elif roll < 0.9:
            _dated(repo, when, "switch", "-q", branch)
            _dated(repo, when, "merge", "-q", "--no-ff", "-m", f"merge main {step}", "main")
        else:
            _dated(repo, when, "switch", "-q", branch)
            _dated(repo, when, "rebase", "-q", "main")
        made.append(git(repo, "rev-parse", "HEAD").strip())
    _dated(repo, when, "switch", "-q", "main")
    return made


def _data(kind: str, rng: random.Random, commits: list[str]) -> dict[str, Any]:
    pick = rng.choice
    if kind == "verb":
        verb = pick(["status", "status", "update", "prepare", "test", "done", "start", "accept"])
        gate = pick(["green", "red", None]) if verb in ("test", "done") else None
        data: dict[str, Any] = {
            "verb": verb,
            "outcome": pick(["ok", "ok", "ok", "failed", "refused"]),
            "hint_ids": [pick(HINTS)] if rng.random() < 0.3 else [],
            "trunk": "main",
            "clean": rng.random() < 0.7,
            "head": pick(commits),
            "tree": "b" * 40,
            "ahead": rng.randrange(3),
            "behind": pick([0, 0, 1, 2]),
            "duration_ms": rng.randrange(5, 400),
            "flags": [],
        }
        if verb in ("test", "done"):
            data["gate"] = gate
        if verb == "done":
            data["probe"] = False
        return data
    way: dict[str, Any] = {"way": pick(["shared/testing", "shared/git"]), "trigger": "prompt"}
    way |= {"tick": rng.randrange(2000), "axis": "tokens", "kind": pick(["first", "refire"])}
    way["salience"] = rng.random()
    obs = {"value": True, "observed": True}
    by_kind: dict[str, dict[str, Any]] = {
        "git.update": {"via": pick(["merge", "rebase"]), "trunk": "main", "onto": pick(commits),
                       "head": pick(commits)},
        "turn.started": {"turn": rng.randrange(1, 50), "stop_remediation": False},
        "turn.completed": {"turn": rng.randrange(1, 50), "continued": False,
                           "ritual": {"status_box": obs, "status_box_strict": obs},
                           "tool_call_count": obs},
        "coord.task_changed": {"state": "set", "fingerprint": "c" * 64},
        "coord.status_observed": {"status": "end_turn_checked"},
        "tool.requested": {"tool": pick(["Edit", "Bash"]), "phase": pick(["pre", "post"])},
        "way.fired": way,
        "way.suppressed": way | {"reason": pick(["salience", "refractory", "budget"])},
        "subagent.started": {"role": "implementer"},
        "subagent.stopped": {"role": "implementer"},
        "session.ended": {},
        "stop.verdict": {"adapter": pick(["claude", "cursor"]),
                         "decision": pick(["allow", "block"]),
                         "rule": pick(["box", "status", None])},
        "hook.error": {"adapter": "claude", "event": "Stop",
                       "error": pick(["NoSession: none", "ValueError at x.py:1"])},
    }  # fmt: skip
    return by_kind[kind]


KINDS = ("verb",) * 12 + ("tool.requested",) * 8 + (
    "git.update", "turn.started", "turn.completed", "coord.task_changed",
    "coord.status_observed", "way.fired", "way.suppressed", "subagent.started",
    "subagent.stopped", "session.ended", "stop.verdict", "hook.error",
)  # fmt: skip


def generate(repo: Path, rng: random.Random, commits: list[str], count: int) -> None:
    """Write `count` events over a week and a half, sessions coming and going, some quiet for
    more than a day, a few lines torn or foreign, into two monthly files."""
    sessions = [f"claude:{n}" for n in range(6)]
    branch_of = {s: rng.choice(BRANCHES) for s in sessions}
    when = START
    lines: dict[str, list[str]] = {}
    for n in range(count):
        when += timedelta(seconds=rng.randrange(1, 900) * (60 if rng.random() < 0.003 else 1))
        if rng.random() < 0.02:
            new = f"claude:{len(branch_of)}"
            sessions[rng.randrange(len(sessions))] = new
            branch_of[new] = rng.choice(BRANCHES)
        session: str | None = rng.choice(sessions) if rng.random() < 0.97 else None
        kind = rng.choice(KINDS)
        envelope = {
            "schema": 1,
            "id": f"{n:032x}",
            "at": format_at(when),
            "type": kind,
            "surface": "mcp" if rng.random() < 0.05 else "cli",
            "session": session,
            "branch": "main" if session is None else branch_of[session],
            "data": _data(kind, rng, commits),
        }
        line = json.dumps(envelope, separators=(",", ":"))
        roll = rng.random()
        if roll < 0.002:
            line = line[: len(line) // 2]  # torn
        elif roll < 0.004:
            line = '{"other": "tool"}'  # foreign
        lines.setdefault(format_at(when)[:7], []).append(line + "\n")
    events = repo / ".git" / "gitflow-harness" / "events"
    events.mkdir(parents=True, exist_ok=True)
    for month, written in lines.items():
        (events / f"{month}.jsonl").write_text("".join(written), encoding="utf-8")


def pinned_report(repo: Path, gfh: CliRunner) -> dict[str, Any]:
    rng = random.Random(5)
    generate(repo, rng, history(repo, rng), 6000)
    result = gfh("report", "--json")
    assert result.code == 0, result.err
    doc: dict[str, Any] = result.json()
    doc["detectors"] = [d for d in doc["detectors"] if d["id"] != "learning"]
    doc["findings"] = [f for f in doc["findings"] if f["detector"] != "learning"]
    return doc


def test_the_report_over_a_log_of_every_type_is_unchanged(repo: Path, gfh: CliRunner) -> None:
    doc = pinned_report(repo, gfh)
    assert doc == json.loads(PINNED.read_text(encoding="utf-8"))
    follow = next(d for d in doc["detectors"] if d["id"] == "hint-follow-through")
    families = follow["breakdown"]["families"]
    # The log reaches every way an episode ends, so the pin covers each of them.
    for why in ("followed", "not_followed", "censored_session_quiet", "censored_git_history"):
        assert sum(f[why] for f in families.values()) > 0, why
    assert doc["log"]["torn"]
    assert doc["log"]["foreign"]
