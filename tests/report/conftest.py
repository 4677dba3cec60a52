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
