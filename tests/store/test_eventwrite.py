"""The write half of the event log: ids, timestamps and lines exactly as the envelope says."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from freezegun import freeze_time

from gitflow_harness.store.events import EventLog, parse_at
from gitflow_harness.store.eventwrite import (
    EventTooLarge,
    append_event,
    encode_line,
    envelope,
    new_id,
    now_at,
)


def test_ids_are_random_version_4_uuids_in_hex() -> None:
    ids = {new_id() for _ in range(1000)}
    assert len(ids) == 1000
    for value in list(ids)[:50]:
        parsed = uuid.UUID(hex=value)
        assert (parsed.version, parsed.variant) == (4, uuid.RFC_4122)
        assert parsed.hex == value


def test_now_at_is_rfc3339_utc_with_milliseconds() -> None:
    with freeze_time("2026-11-30T09:15:02.123999Z"):
        assert now_at() == "2026-11-30T09:15:02.123Z"
    with freeze_time("2026-01-01T00:00:00Z"):
        assert now_at() == "2026-01-01T00:00:00.000Z"
        assert parse_at(now_at()).isoformat() == "2026-01-01T00:00:00+00:00"


def test_appended_events_are_read_back_by_the_reader(tmp_path: Path) -> None:
    written = append_event(
        tmp_path,
        "tool.requested",
        {"tool": "Edit", "phase": "post"},
        surface="hook",
        session="claude:s",
        branch="main",
    )
    [event] = EventLog(tmp_path).read()
    assert event.to_dict() == written


def test_unknown_surfaces_and_oversized_lines_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="surface"):
        envelope("x", {}, surface="tty", session=None, branch=None)
    with pytest.raises(EventTooLarge):
        encode_line(envelope("x", {"b": "x" * 20000}, surface="hook", session=None, branch=None))
    line = encode_line(envelope("x", {"t": "é"}, surface="hook", session=None, branch=None))
    assert json.loads(line)["data"] == {"t": "é"}
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
