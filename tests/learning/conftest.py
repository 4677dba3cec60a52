"""Builders for pills, requests and subagent events, on real repositories."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import pytest

from gitflow_harness.store.events import Event, format_at, make_event

BODY = (
    "\n## What went wrong\n\nIt broke.\n\n## Rule\n\nDo not break it.\n\n"
    "## Why\n\nBecause.\n\n## How to apply\n\nCheck first.\n"
)


def pill_text(key: str = "implementer/parser", body: str = BODY, **fields: str | None) -> str:
    """Return a pill file: `fields` are raw YAML values (None drops a field)."""
    folder, slug = key.split("/")
    values: dict[str, str | None] = {
        "id": f"{folder}-{slug}",
        "applies_to": f"[{folder}]" if folder != "shared" else "[implementer, reviewer]",
        "severity": "medium",
        "status": "active",
        "date": "2026-11-01",
        "last_seen": "2026-11-02",
        "occurrences": "1",
        "trigger": "editing the parser",
        "citations": "[]",
        "source": "a review",
    }
    values.update(fields)
    lines = [f"{k}: {v}" for k, v in values.items() if v is not None]
    return "---\n" + "\n".join(lines) + "\n---\n" + body


def local(day: dt.date | str, hour: int = 12, minute: int = 0) -> dt.datetime:
    """Return an aware datetime at a local wall-clock time (the zone pill dates use)."""
    if isinstance(day, str):
        day = dt.date.fromisoformat(day)
    return dt.datetime.combine(day, dt.time(hour, minute)).astimezone()


def stopped(
    at: dt.datetime,
    role: str,
    verdict: str | None = None,
    *,
    session: str | None = "claude:s1",
    model: str | None = "model-a",
) -> Event:
    data: dict[str, object] = {"role": role, "agent": f"{role}-agent", "verdict": verdict}
    if model is not None:
        data["model"] = model
    return make_event(
        "subagent.stopped", data, surface="hook", session=session, branch="main", at=format_at(at)
    )


def started(at: dt.datetime, role: str, *, session: str | None = "claude:s1") -> Event:
    return make_event(
        "subagent.started",
        {"role": role, "agent": f"{role}-agent"},
        surface="hook",
        session=session,
        branch="main",
        at=format_at(at),
    )


@pytest.fixture
def put_pill(repo: Path) -> Callable[..., Path]:
    """Write a pill into the repository (not committed)."""

    def put(key: str = "implementer/parser", *, under: str = "", **fields: str | None) -> Path:
        path = repo / "pills" / under / f"{key}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(pill_text(key, **fields), encoding="utf-8")
        return path

    return put
