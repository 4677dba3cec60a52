"""When files changed in git, from one history walk shared by every question about pills.

Questions about many files (did a cited file change after its pill's date? when was a lesson
committed on the day it names?) are answered from one `git log --name-only` stream that starts
at the oldest date any of them cares about, never one `git log` per file.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field

from gitflow_harness import git


@dataclass(frozen=True, slots=True)
class ChangeTimes:
    """Commit times (aware datetimes, newest first) of the paths asked about."""

    times: dict[str, list[dt.datetime]] = field(default_factory=dict)
    walked: bool = False  # False when there was nothing to ask or no history to walk

    def changed_after(self, path: str, day: dt.date) -> dt.datetime | None:
        """Return the newest commit time of `path` on a local date after `day`, or None."""
        moments = self.times.get(path)
        if not moments:
            return None
        newest = max(moments)  # not trusting log order: committer clocks can be skewed
        return newest if local_date(newest) > day else None

    def committed_on(self, path: str, day: dt.date) -> dt.datetime | None:
        """Return the newest commit time of `path` on local date `day`, or None."""
        same_day = [m for m in self.times.get(path, ()) if local_date(m) == day]
        return max(same_day) if same_day else None


def local_date(moment: dt.datetime) -> dt.date:
    """Return the date of an aware datetime in the local time zone (the one pill dates use)."""
    return moment.astimezone().date()


def start_of(day: dt.date) -> dt.datetime:
    """Return local midnight at the start of `day`, as an aware datetime."""
    return dt.datetime.combine(day, dt.time()).astimezone()


def end_of(day: dt.date) -> dt.datetime:
    """Return the last microsecond of local `day`, as an aware datetime."""
    return dt.datetime.combine(day, dt.time.max).astimezone()


def walk(repo: git.Repo, paths: Iterable[str], since: dt.date | None) -> ChangeTimes:
    """Collect the commit times of `paths` since the local date `since`, in one history walk."""
    wanted = set(paths)
    if not wanted or since is None:
        return ChangeTimes()
    times: dict[str, list[dt.datetime]] = {}
    for when, changed in git.commits_touching(repo, start_of(since) - dt.timedelta(days=1)):
        for path in changed:
            if path in wanted:
                times.setdefault(path, []).append(when)
    return ChangeTimes(times=times, walked=True)
