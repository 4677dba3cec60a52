"""When files changed in git, from one history walk shared by every question about pills.

Questions about many files (did a cited file change after its pill's date? when was a lesson
committed on the day it names?) are answered from one `git log --name-only` stream that starts
at the oldest date any of them cares about, never one `git log` per file.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping

from gitflow_harness import MappingProxyType, git
from gitflow_harness.learning.pills import Pill, Place

# Not `typing.TYPE_CHECKING`: `gfh pills check` does not import typing (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gitflow_harness.records import NamedTuple


# NamedTuples, not dataclasses: `gfh pills check` runs on every commit that touches a pill, and
# importing dataclasses costs it more than defining these.
class ChangeTimes(NamedTuple):
    """Commit times (aware datetimes, newest first) of the paths asked about."""

    times: Mapping[str, list[dt.datetime]] = MappingProxyType({})

    def changed_after(self, path: str, day: dt.date) -> dt.datetime | None:
        """Return the newest commit time of `path` on a local date after `day`, or None."""
        moments = self.times.get(path)
        if not moments:
            return None
        newest = max(moments)  # not trusting log order: committer clocks can be skewed
        return newest if local_date(newest) > day else None

    def on(self, paths: Iterable[str], day: dt.date) -> list[dt.datetime]:
        """Return the commit times of any of `paths` on local date `day`."""
        return [m for p in paths for m in self.times.get(p, ()) if local_date(m) == day]


class PillMoments(NamedTuple):
    """Place a lesson in time: when it was learned, last seen, and retired, from its commits.

    A pill is looked up at its home path and under retired/, since retiring moves it. A day with
    no commit of the pill (it is not committed yet, or was committed later) counts as the end of
    that day: an uncommitted lesson settles every loop-back of its day. Git keeps commit times
    to the second, so a commit counts as the end of its second: events of that second came first.
    """

    changes: ChangeTimes
    root_rel: str

    def paths(self, pill: Pill) -> tuple[str, str]:
        return pill_paths(pill, self.root_rel)

    def learned(self, pill: Pill) -> dt.datetime:
        """The first commit of the pill on its `date`, else the end of that day."""
        found = self.changes.on(self.paths(pill), pill.date)
        return _end_of_second(min(found)) if found else end_of(pill.date)

    def seen(self, pill: Pill) -> dt.datetime:
        """The last commit of the pill on its `last_seen` day, else the end of that day."""
        found = self.changes.on(self.paths(pill), pill.last_seen)
        return _end_of_second(max(found)) if found else end_of(pill.last_seen)

    def retired(self, pill: Pill) -> dt.datetime | None:
        """When a retired pill arrived under retired/ (its first commit there), if known."""
        if pill.active:
            return None
        found = self.changes.times.get(self.paths(pill)[1])
        return _end_of_second(min(found)) if found else None


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
    return ChangeTimes(times=times)


def pill_paths(pill: Pill, root_rel: str) -> tuple[str, str]:
    """Return a pill's home path and its path under retired/ (repo-relative)."""
    folder, slug = pill.place.folder, pill.place.slug
    return (
        Place(folder, slug, retired=False).rel(root_rel),
        Place(folder, slug, retired=True).rel(root_rel),
    )


def _end_of_second(moment: dt.datetime) -> dt.datetime:
    return moment + dt.timedelta(microseconds=999_999)
