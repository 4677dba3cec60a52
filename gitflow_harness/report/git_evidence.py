"""Branch updates that git remembers and no event recorded.

An agent (or a person) who runs `git merge main` or `git rebase main` itself, with no
`gfh-record-update` hook installed, leaves no `git.update` event, but git's reflog of the
branch keeps the step. The report reads it so such an update censors an episode that would
otherwise read as "not followed". Its session is unknown, so it never counts as followed.

Whether a step brought the trunk in is decided exactly as the hook decides it
(`workflow.trunk_steps`), with the trunk's tips as the trunk's own reflogs say they were when
the step ran. Steps are judged lazily, only when they fall inside an episode being settled.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from collections.abc import Collection
from datetime import UTC, datetime
from typing import Final

from gitflow_harness import git
from gitflow_harness.errors import GfhError
from gitflow_harness.store.events import format_at, parse_at
from gitflow_harness.workflow.trunk_steps import ADDS_ONE_COMMIT, Step, trunk_came_in

BRANCHES_KEPT: Final = 256  # branches whose reflog stays read; more are read again on demand
ANCESTRY_KEPT: Final = 65_536  # ancestry answers kept before the cache starts over
_DAWN: Final = ""  # before every time


class _Entry:
    """One step of a branch's reflog, judged at most once."""

    __slots__ = ("held", "judged", "step", "when")

    def __init__(self, when: str, step: Step, held: frozenset[str]) -> None:
        self.when = when  # "YYYY-MM-DDTHH:MM:SS" UTC: reflogs keep whole seconds
        self.step = step
        self.held = held  # commits the branch held from this step on, within the same second
        self.judged: tuple[str, bool] | None = None  # (trunk, brought it in), once judged


class _Reflog:
    """A branch's reflog, oldest first, with its times for bisection."""

    __slots__ = ("entries", "times")

    def __init__(self, entries: list[_Entry]) -> None:
        self.entries = entries
        self.times = [e.when for e in entries]


_NO_REFLOG: Final = _Reflog([])


class _TrunkHistory:
    """Where each trunk ref (local, remotes' copies) pointed, from its reflog, oldest first."""

    def __init__(self, refs: list[tuple[str, list[git.ReflogEntry]]], current: list[str]) -> None:
        self._refs: list[tuple[list[str], list[str]]] = []
        for (_ref, entries), sha in zip(refs, current, strict=True):
            if not entries:  # no reflog for this ref: all we know is where it is now
                self._refs.append(([_DAWN], [sha]))
                continue
            ordered = entries[::-1]  # oldest first: within one second, the order written
            ordered.sort(key=lambda e: e.when)
            self._refs.append(([_stamp(e.when) for e in ordered], [e.sha for e in ordered]))

    def tips_at(self, when: str) -> list[str]:
        """The tips the trunk had at `when`: what each ref held coming into that second, and
        every value it took within it (reflog times have whole seconds)."""
        tips: list[str] = []
        for times, shas in self._refs:
            lo = bisect.bisect_left(times, when)
            hi = bisect.bisect_right(times, when)
            if lo > 0:
                tips.append(shas[lo - 1])
            tips.extend(shas[lo:hi])
        return tips


class GitEvidence:
    """The trunk updates in branches' reflogs, read lazily and judged only when asked about."""

    def __init__(self, repo: git.Repo | None) -> None:
        self.repo = repo
        self._reflogs: OrderedDict[str, _Reflog] = OrderedDict()
        self._trunks: dict[str, _TrunkHistory] = {}
        self._ancestry: dict[tuple[str, str], bool] = {}
        self._branches: set[str] | None = None  # read once: a deleted branch has no reflog

    def unrecorded_between(
        self,
        branch: str,
        trunk: str | None,
        start: tuple[str, str | None],
        end: tuple[str, str | None],
        recorded: Collection[str],
    ) -> bool:
        """True when the reflog shows a trunk update of `branch` after the event `start` and
        before the event `end` (each `(at, head)`: its time and the branch's commit then) that
        no event recorded (`recorded`: the commits recorded updates left the branch at)."""
        if trunk is None or self.repo is None:
            return False
        reflog = self._reflog(branch)
        if not reflog.entries:
            return False
        start_at, start_head = start
        end_at, end_head = end
        first, last = _second(start_at), _second(end_at)
        if first is None or last is None:
            return False  # a time the log cannot vouch for: no window to look in
        lo = bisect.bisect_left(reflog.times, first)
        hi = bisect.bisect_right(reflog.times, last)
        for entry in reflog.entries[lo:hi]:
            if entry.step.after in recorded or not self._trunk_in(entry, trunk):
                continue
            # Reflog times have whole seconds. Within the second of an event, an update came
            # before the event when the event saw a commit the branch held from the update on
            # (the reflog's order), or one whose history has the update's commit. The reflog
            # is needed beside ancestry: a later rebase drops a merge from the history.
            sha, held = entry.step.after, entry.held
            if (
                entry.when == first
                and start_head is not None
                and self._before(sha, held, start_head)
            ):
                continue
            if (
                entry.when == last
                and end_head is not None
                and not self._before(sha, held, end_head)
            ):
                continue
            return True
        return False

    def _trunk_in(self, entry: _Entry, trunk: str) -> bool:
        if entry.judged is None or entry.judged[0] != trunk:
            tips = self._trunk(trunk).tips_at(entry.when)
            entry.judged = (trunk, trunk_came_in(entry.step, tips, self._reaches) is not None)
        return entry.judged[1]

    def _before(self, sha: str, held: frozenset[str], head: str) -> bool:
        return head in held or self._reaches(sha, head)

    def _reaches(self, ancestor: str, descendant: str) -> bool:
        key = (ancestor, descendant)
        known = self._ancestry.get(key)
        if known is None:
            assert self.repo is not None
            if len(self._ancestry) >= ANCESTRY_KEPT:
                self._ancestry.clear()  # memory must not grow with the log
            try:
                known = git.is_ancestor(self.repo, ancestor, descendant)
            except GfhError:
                known = False
            self._ancestry[key] = known
        return known

    def _reflog(self, branch: str) -> _Reflog:
        found = self._reflogs.get(branch)
        if found is not None:
            self._reflogs.move_to_end(branch)
            return found
        assert self.repo is not None
        if self._branches is None:
            try:
                self._branches = git.local_branches(self.repo)
            except GfhError:
                self._branches = set()
        if branch not in self._branches:
            return _NO_REFLOG  # deleted long ago, most of them: nothing to read or keep
        found = self._read(branch)
        self._reflogs[branch] = found
        if len(self._reflogs) > BRANCHES_KEPT:
            self._reflogs.popitem(last=False)
        return found

    def _read(self, branch: str) -> _Reflog:
        assert self.repo is not None
        try:
            newest_first = git.reflog(self.repo, f"refs/heads/{branch}")
        except GfhError:
            return _NO_REFLOG
        entries: list[_Entry] = []
        second: str | None = None
        held: set[str] = set()  # the commits of this second's entries so far (newest first)
        for i, entry in enumerate(newest_first):
            when = _stamp(entry.when)
            if when != second:
                second, held = when, set()
            held.add(entry.sha)
            before = newest_first[i + 1].sha if i + 1 < len(newest_first) else None
            step = Step(entry.message, before, entry.sha)
            if before is not None and step.action not in ADDS_ONE_COMMIT:
                # Only steps that could bring something in are kept: most of a reflog is
                # commits, and a branch with none of the rest needs no look at all.
                entries.append(_Entry(when, step, frozenset(held)))
        entries.reverse()
        entries.sort(key=lambda e: e.when)  # stable: only a clock set back reorders anything
        return _Reflog(entries)

    def _trunk(self, trunk: str) -> _TrunkHistory:
        found = self._trunks.get(trunk)
        if found is None:
            assert self.repo is not None
            try:
                tips = git.trunk_tips(self.repo, trunk)
                refs = [(ref, git.reflog(self.repo, ref)) for ref, _sha in tips]
            except GfhError:
                tips, refs = [], []
            found = self._trunks[trunk] = _TrunkHistory(refs, [sha for _ref, sha in tips])
        return found


def _stamp(moment: datetime) -> str:
    """A reflog time as the second it names, comparable with an event's `at` cut to 19."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")


def _second(at: str) -> str | None:
    """The second of an event's `at` ("YYYY-MM-DDTHH:MM:SS"), or None if it is not a time.

    gfh writes `at` as RFC 3339 UTC with milliseconds and `Z`, so that is a slice; anything
    else is parsed once, the slow way.
    """
    if len(at) == 24 and at[19] == "." and at[23] == "Z":
        return at[:19]
    try:
        return format_at(parse_at(at))[:19]
    except ValueError:
        return None
