"""Seed the event log with host-shaped events at chosen times, then run the report."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from gitflow_harness.store.events import EventLog, format_at, make_event
from tests.helpers import CliRunner
from tests.workflow.conftest import feature, session  # noqa: F401 - shared scenes

A = "claude:session-a"
B = "cursor:session-b"


class Seeder:
    """Append events one second apart, shaped as the verbs write them."""

    def __init__(self, repo: Path, start: datetime | None = None) -> None:
        self.log = EventLog(repo / ".git")
        self.now = start or datetime(2026, 11, 2, 9, 0, tzinfo=UTC)

    def event(
        self,
        type: str,
        data: dict[str, Any],
        *,
        who: str | None = A,
        surface: str = "cli",
        branch: str | None = "feature/x",
    ) -> None:
        self.now += timedelta(seconds=1)
        self.log.append(
            make_event(
                type, data, surface=surface, session=who, branch=branch, at=format_at(self.now)
            )
        )

    def verb(
        self,
        verb: str,
        hints: tuple[str, ...] = (),
        *,
        gate: str | None = None,
        clean: bool = True,
        trunk: str = "main",
        outcome: str | None = None,
        head: str = "a" * 40,
        **envelope: Any,
    ) -> None:
        data: dict[str, Any] = {
            "verb": verb,
            "outcome": outcome or ("ok" if gate != "red" else "failed"),
            "hint_ids": list(hints),
            "trunk": trunk,
            "clean": clean,
            "head": head,
            "tree": "b" * 40,
            "ahead": 0,
            "behind": 0,
            "duration_ms": 12,
            "flags": [],
        }
        if verb in ("test", "done"):
            data["gate"] = gate
        if verb == "done":
            data["probe"] = False
        self.event("verb", data, **envelope)


@pytest.fixture
def seed(repo: Path) -> Seeder:
    return Seeder(repo)


def report(gfh: CliRunner, *args: str) -> dict[str, Any]:
    result = gfh("report", "--json", *args)
    assert result.code == 0, result.err
    return result.json()  # type: ignore[no-any-return]


def family(doc: dict[str, Any], name: str) -> dict[str, int]:
    [finding] = [
        f
        for f in doc["findings"]
        if f["detector"] == "hint-follow-through" and f["subject"] == name
    ]
    return finding["evidence"]  # type: ignore[no-any-return]


def detector(doc: dict[str, Any], name: str) -> dict[str, Any]:
    [found] = [d for d in doc["detectors"] if d["id"] == name]
    return found


# (kind, tick, suppressed because) of a way's events; (adapter, decision, rule) of Stops
WAY_EVENTS = (("first", 100, None), ("refire", 400, "salience"), ("refire", 1300, None),
              ("refire", 1350, "budget"))  # fmt: skip
STOPS = (("claude", "block", "box"), ("claude", "allow", None), ("cursor", "fail_open", None),
         ("codex", "allow", "status"))  # fmt: skip


def seed_every_detector(repo: Path, seed: Seeder) -> None:
    """Give every detector something to report: hints followed and not, a branch that skips
    `prepare`, a measured lesson, Stop verdicts of three hosts, a way firing over its curve,
    hook errors."""
    from tests.learning.conftest import local, pill_text, stopped
    from tests.ways.conftest import write_way

    for _ in range(4):  # branch-update: 0/3/1
        seed.verb("status", ("status-branch-behind",), who=A)
    seed.verb("update", who=B, surface="mcp")
    seed.verb("done", ("gate-failure-test",), gate="red")  # red-gate-remedy: fired once
    for gate in ("red", "red", "green", "green"):  # skipped-prepare on feature/loop
        seed.verb("done", gate=gate, branch="feature/loop")
    pill = repo / "pills" / "implementer" / "parser.md"
    pill.parent.mkdir(parents=True)
    pill.write_text(pill_text(date="2026-11-10", last_seen="2026-11-10"), encoding="utf-8")
    for day, verdict in (("2026-11-05", "FAIL"), ("2026-11-15", "DONE")):
        for i in range(5):
            seed.log.append(stopped(local(day, 9, i), "implementer", verdict))
            seed.log.append(stopped(local(day, 10, i), "reviewer", "DONE"))
    curve = "curve: {type: Exponential, half_life: 1000}\n"
    write_way(repo / "hooks" / "ways", "docs/notes", "description: notes\n" + curve)
    for kind, tick, reason in WAY_EVENTS:
        data = {"way": "docs/notes", "trigger": "prompt", "tick": tick, "axis": "tokens"}
        data |= {"kind": kind, "salience": 0.5} | ({"reason": reason} if reason else {})
        seed.event("way.suppressed" if reason else "way.fired", data, surface="hook")
    for adapter, decision, rule in STOPS:
        data = {"adapter": adapter, "decision": decision, "rule": rule, "reason": "no-prompt"}
        data |= {"enforced": adapter != "codex", "tool_turn": True, "turn": 1}
        data |= {"remediation": False, "continuation": False}
        seed.event("stop.verdict", data, who=f"{adapter}:s", surface="hook")
    for adapter, event in (("claude", "PostToolUse"), ("codex", "Stop")):
        data = {"adapter": adapter, "event": event, "error": "NoSession: no session id"}
        seed.event("hook.error", data, who=None, surface="hook")
