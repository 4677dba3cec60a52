"""Branch updates that git remembers and no event recorded.

An agent (or a person) who runs `git merge main` or `git rebase main` itself, with no
post-merge / post-rewrite hook installed, leaves no `git.update` event, but git's reflog of the
branch keeps the merge or rebase. The report reads it so such an update censors an episode that
would otherwise read as "not followed". Its session is unknown, so it never counts as followed.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from datetime import datetime
from typing import NamedTuple

from gitflow_harness import git
from gitflow_harness.errors import GfhError
from gitflow_harness.store.events import parse_at


class Update(NamedTuple):
    """A merge or rebase of the trunk in a branch's reflog."""

    when: datetime  # whole seconds, as the reflog keeps them
    sha: str  # the branch's commit after it
    held: frozenset[str]  # commits the branch held from it on, within the same second


_REBASE_FINISH = re.compile(r"^(?:rebase|pull)\b[^:]*\(finish\): \S+ onto ([0-9a-f]{7,64})\s*$")


class GitEvidence:
    """The trunk updates in branches' reflogs, read lazily, once per (branch, trunk)."""

    def __init__(self, repo: git.Repo | None) -> None:
        self.repo = repo
        self._cache: dict[tuple[str, str], list[Update]] = {}
        self._ancestry: dict[tuple[str, str], bool] = {}
        self._branches: set[str] | None = None  # read once: a deleted branch has no reflog

    def updates(self, branch: str, trunk: str) -> list[Update]:
        """Return every merge or rebase of `trunk` into `branch`, newest first."""
        key = (branch, trunk)
        if key not in self._cache:
            self._cache[key] = self._read(branch, trunk)
        return self._cache[key]

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
        start_at, start_head = start
        end_at, end_head = end
        first = parse_at(start_at).replace(microsecond=0)
        last = parse_at(end_at)
        last_second = last.replace(microsecond=0)
        for when, sha, held in self.updates(branch, trunk):
            if sha in recorded or when < first or when > last:
                continue
            # Reflog times have whole seconds. Within the second of an event, an update came
            # before the event when the event saw a commit the branch held from the update on
            # (the reflog's order), or one whose history has the update's commit. The reflog
            # is needed beside ancestry: a later rebase drops a merge from the history.
            if when == first and start_head is not None and self._before(sha, held, start_head):
                continue
            if (
                when == last_second
                and end_head is not None
                and not self._before(sha, held, end_head)
            ):
                continue
            return True
        return False

    def _before(self, sha: str, held: frozenset[str], head: str) -> bool:
        return head in held or self._reaches(sha, head)

    def _reaches(self, sha: str, head: str) -> bool:
        key = (sha, head)
        if key not in self._ancestry:
            assert self.repo is not None
            try:
                self._ancestry[key] = git.is_ancestor(self.repo, sha, head)
            except GfhError:
                self._ancestry[key] = False
        return self._ancestry[key]

    def _read(self, branch: str, trunk: str) -> list[Update]:
        assert self.repo is not None
        try:
            if self._branches is None:
                self._branches = git.local_branches(self.repo)
            if branch not in self._branches:
                return []
            entries = git.reflog(self.repo, f"refs/heads/{branch}")
        except GfhError:
            return []
        found: list[Update] = []
        second: datetime | None = None
        held: set[str] = set()  # the commits of this second's entries so far (newest first)
        for i, entry in enumerate(entries):
            if entry.when != second:
                second, held = entry.when, set()
            held.add(entry.sha)
            before = entries[i + 1].sha if i + 1 < len(entries) else None
            if self._is_trunk_update(entry.message, before, trunk):
                found.append(Update(entry.when, entry.sha, frozenset(held)))
        return found

    def _is_trunk_update(self, message: str, before: str | None, trunk: str) -> bool:
        action, _, _ = message.partition(":")
        words = action.split()
        if not words:
            return False
        if words[0] in ("merge", "pull") and "(finish)" not in action and "--rebase" not in words:
            # "merge main: Merge made by the 'ort' strategy.", "pull origin main: Fast-forward"
            return any(_names_trunk(w, trunk) for w in words[1:])
        match = _REBASE_FINISH.match(message)
        if match is None:
            return False
        onto = match.group(1)
        # A rebase counts when it brought in trunk commits the branch did not have; an
        # interactive rebase onto the branch's own history does not.
        assert self.repo is not None
        try:
            if not git.is_ancestor(self.repo, onto, trunk):
                return False
            return before is None or not git.is_ancestor(self.repo, onto, before)
        except GfhError:
            return False


def _names_trunk(word: str, trunk: str) -> bool:
    return word in (trunk, f"refs/heads/{trunk}") or word.endswith(f"/{trunk}")
