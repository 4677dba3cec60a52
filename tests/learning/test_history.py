"""Pill dates are local dates: event and commit times are read in the local time zone."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterator

import pytest

from gitflow_harness.learning.history import end_of, local_date, start_of

UTC = dt.UTC


@pytest.fixture
def zone(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], None]]:
    def use(name: str) -> None:
        # POSIX zone strings, not zoneinfo names: nothing to install for them.
        monkeypatch.setenv("TZ", name)
        time.tzset()

    yield use
    monkeypatch.undo()
    time.tzset()


def test_a_moment_falls_on_the_local_date(zone: Callable[[str], None]) -> None:
    moment = dt.datetime(2026, 11, 30, 6, 0, tzinfo=UTC)
    zone("WEST+12")  # POSIX: 12 hours behind UTC, still the evening before
    assert local_date(moment) == dt.date(2026, 11, 29)
    zone("EAST-14")  # 14 hours ahead of UTC: the afternoon of that day
    assert local_date(moment) == dt.date(2026, 11, 30)
    zone("UTC0")
    assert local_date(dt.datetime(2026, 11, 30, 23, 59, tzinfo=UTC)) == dt.date(2026, 11, 30)


def test_a_local_day_starts_and_ends_at_local_midnight(zone: Callable[[str], None]) -> None:
    zone("WEST+12")
    day = dt.date(2026, 11, 30)
    assert start_of(day) == dt.datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    assert start_of(day) < end_of(day) < start_of(day) + dt.timedelta(days=1)
    assert local_date(end_of(day)) == day
