"""Branch updates that git remembers and no event recorded.

An agent (or a person) who runs `git merge main` or `git rebase main` itself, with no
`gfh-record-update` hook installed, leaves no `git.update` event, but git's reflog of the
branch keeps the step. The report reads it so such an update censors an episode that would
otherwise read as "not followed". Its session is unknown, so it never counts as followed.

Whether a step brought the trunk in is decided exactly as the hook decides it
(`workflow.trunk_steps`), with the trunk's tips as the trunk's own reflogs say they were when
the step ran, from one `git rev-list` per step. Steps are judged lazily, only when they fall
inside an episode being settled.

A reflog lives as long as its branch: `gfh accept` deletes the branch and its reflog with it.
Where the reflog does not reach back to the firing (the branch is gone, or was deleted and made
again), the commits the events recorded answer instead, since they outlive the branch (a
fast-forward `accept` puts them in the trunk): the trunk came in when a tip the trunk had
during the episode is in the history of the candidate's commit, not in the firing's, and not
in that of any commit a recorded update left the branch at. When the trunk stood still, the
events' own readings of how far behind the branch was answer without git. The other questions
wait in a bounded batch and are put to git together, so a report over many deleted branches
does not pay a git call for each: one checks which of the commits git still has, and only
those are asked about, one `git rev-list` each. A commit git no longer has leaves the
episode's history unreadable.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from collections.abc import Collection, Mapping
from datetime import UTC, datetime
from typing import Any, Final, Generic, Literal, TypeVar

from gitflow_harness import git
from gitflow_harness.errors import GfhError
from gitflow_harness.store.events import format_at, parse_at
from gitflow_harness.workflow.trunk_steps import ADDS_ONE_COMMIT, Step, examined, trunk_came_in

BRANCHES_KEPT: Final = 256  # branches whose reflog stays read; more are read again on demand
ANCESTRY_KEPT: Final = 65_536  # ancestry answers kept before the cache starts over
WAITING_KEPT: Final = 512  # questions for ancestry that wait before they are put to git
_DAWN: Final = ""  # before every time
_HEX: Final = frozenset("0123456789abcdef")

# What git history says about an episode's window:
NOTHING: Final = "nothing"  # no update of the trunk that no event recorded
UNRECORDED: Final = "unrecorded"  # an update of the trunk that no event recorded
UNREADABLE: Final = "unreadable"  # the history can no longer be read
Verdict = Literal["nothing", "unrecorded", "unreadable"]
Ticket = TypeVar("Ticket")


class _Entry:
    """One step of a branch's reflog, judged at most once."""

    __slots__ = ("held", "judged", "step", "when")

    def __init__(self, when: str, step: Step, held: frozenset[str]) -> None:
        self.when = when  # "YYYY-MM-DDTHH:MM:SS" UTC: reflogs keep whole seconds
        self.step = step
        self.held = held  # commits the branch held from this step on, within the same second
        self.judged: tuple[str, bool] | None = None  # (trunk, brought it in), once judged


class _Reflog:
    """A branch's reflog, oldest first, with its times for bisection: the steps that may bring
    something in (`entries`), and when it began."""

    __slots__ = ("entries", "opening", "since", "times")

    def __init__(self, entries: list[_Entry], since: str, opening: frozenset[str]) -> None:
        self.entries = entries
        self.times = [e.when for e in entries]
        self.since = since  # the second of its first entry ("": it has none)
        self.opening = opening  # the commits the branch held within that second

    def reaches(self, second: str, head: str | None) -> bool:
        """True when the reflog goes back to the event of the second `second` that saw the
        branch at `head`: it began before that second, or within it at `head` (a branch
        deleted and made again under the same name within that second has a reflog that
        begins there too, without the old branch's commit)."""
        if not self.since or self.since > second:
            return False
        return self.since < second or head is None or head in self.opening


_NO_REFLOG: Final = _Reflog([], "", frozenset())


class _Question(Generic[Ticket]):
    """An episode's window, waiting to be judged from ancestry."""

    __slots__ = ("end", "first", "last", "recorded", "start", "ticket", "trunk")

    def __init__(
        self,
        ticket: Ticket,
        trunk: str,
        window: tuple[str, str],
        heads: tuple[str, str],
        recorded: tuple[str, ...],
    ) -> None:
        self.ticket = ticket
        self.trunk = trunk
        self.first, self.last = window
        self.start, self.end = heads
        self.recorded = recorded


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

    def tips_during(self, first: str, last: str, end: str) -> set[str]:
        """Every tip the trunk had from the second `first` to the second `last`: what each ref
        held coming into `first` and every value it took up to `last`. A value taken within
        `last` that is `end` (the branch's commit then) is left out: it is the branch that went
        into the trunk (a fast-forward `accept`), not the trunk into the branch."""
        tips: set[str] = set()
        for times, shas in self._refs:
            lo = bisect.bisect_left(times, first)
            hi = bisect.bisect_right(times, last)
            within = max(lo, bisect.bisect_left(times, last))
            if lo > 0 and (times[lo - 1] != _DAWN or shas[lo - 1] != end):
                tips.add(shas[lo - 1])  # (no reflog: where the ref is now, maybe `end` itself)
            tips.update(shas[lo:within])
            tips.update(sha for sha in shas[within:hi] if sha != end)
        return tips

    def steady(self, first: str, last: str) -> str | None:
        """The one commit every trunk ref held from before the second `first` through the
        second `last`; None when a ref moved in that time, the refs differ, or a ref has no
        reflog to vouch for where it was."""
        held: str | None = None
        for times, shas in self._refs:
            lo = bisect.bisect_left(times, first)
            if lo == 0 or times[lo - 1] == _DAWN or lo != bisect.bisect_right(times, last):
                return None
            if held is None:
                held = shas[lo - 1]
            elif shas[lo - 1] != held:
                return None
        return held

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


class GitEvidence(Generic[Ticket]):
    """The trunk updates in branches' reflogs, read lazily and judged only when asked about;
    and, where a branch's reflog does not reach back far enough, in its commits' ancestry."""

    def __init__(self, repo: git.Repo | None) -> None:
        self.repo = repo
        self._reflogs: OrderedDict[str, _Reflog] = OrderedDict()
        self._trunks: dict[str, _TrunkHistory] = {}
        self._ancestry: dict[tuple[str, str], bool] = {}
        self._branches: set[str] | None = None  # read once: a deleted branch has no reflog
        self._waiting: list[_Question[Ticket]] = []

    def judge(
        self,
        ticket: Ticket,
        branch: str,
        trunk: str | None,
        start: tuple[str, str | None, int | None],
        end: tuple[str, Mapping[str, Any]],
        recorded: Collection[str],
    ) -> Verdict | None:
        """What git says of `branch` after the firing `start` and before the event `end`: was
        there a trunk update that no event recorded (`recorded`: the commits recorded updates
        left the branch at)? The firing is `(at, head, behind)`: its time, the branch's commit
        then, and how many commits of `trunk` the branch lacked then, when known; the event is
        its time and its `data` (which may say the same).

        None when the answer must come from ancestry: the question waits with its `ticket`
        until `answers` (call it once `due`, and at the end).
        """
        if trunk is None or self.repo is None:
            return NOTHING
        start_at, start_head, start_behind = start
        end_at, data = end
        head = data.get("head")
        end_head = head if type(head) is str else None
        first, last = _second(start_at), _second(end_at)
        if first is None or last is None:
            return NOTHING  # a time the log cannot vouch for: no window to look in
        reflog = self._reflog(branch)
        if reflog.reaches(first, start_head):
            found = self._in_reflog(reflog, trunk, first, last, start_head, end_head, recorded)
            return UNRECORDED if found else NOTHING
        # The reflog says nothing of the firing's time: the branch is gone, or is another one
        # of the same name. The commits the events recorded still tell what came in.
        if start_head is None or end_head is None:
            return UNREADABLE
        if end_head == start_head or end_head in recorded:
            # The branch did not move, or stands where a recorded update left it: whatever
            # came in, a recorded update brought (or the ancestry could not tell otherwise).
            return NOTHING
        tip = self._trunk(trunk).steady(first, last)
        end_behind = data.get("behind")  # measured against the same trunk, or not at all
        if tip is not None and type(end_behind) is int and data.get("trunk") == trunk:
            # The trunk stood still at `tip`, and the events measured the branch against it.
            if end_behind > 0:
                return NOTHING  # the trunk's only tip is still not in the branch
            if start_behind and not recorded:
                return UNRECORDED  # it came in since the firing, and nothing recorded it
        self._waiting.append(
            _Question(ticket, trunk, (first, last), (start_head, end_head), tuple(recorded))
        )
        return None

    @property
    def due(self) -> bool:
        """True when enough questions wait that they should be put to git now."""
        return len(self._waiting) >= WAITING_KEPT

    def answers(self) -> list[tuple[Ticket, Verdict]]:
        """Judge every waiting question from ancestry; return each ticket with its verdict."""
        waiting, self._waiting = self._waiting, []
        if not waiting:
            return []
        shas = {sha for q in waiting for sha in (q.start, q.end, *q.recorded)}
        known = self._commits(shas)
        out: list[tuple[Ticket, Verdict]] = []
        for q in waiting:
            if q.start not in known or q.end not in known:
                out.append((q.ticket, UNREADABLE))
            else:
                out.append((q.ticket, self._by_ancestry(q, known)))
        return out

    def _in_reflog(
        self,
        reflog: _Reflog,
        trunk: str,
        first: str,
        last: str,
        start_head: str | None,
        end_head: str | None,
        recorded: Collection[str],
    ) -> bool:
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

    def _by_ancestry(self, q: _Question[Ticket], known: set[str]) -> Verdict:
        """A tip the trunk had during the window that the end's history has and neither the
        start's nor any recorded update's: the trunk came in, and no event recorded it."""
        tips = self._trunk(q.trunk).tips_during(q.first, q.last, q.end)
        tips.discard(q.start)
        if not tips:
            return NOTHING
        revs = [q.end, f"^{q.start}", *(f"^{r}" for r in q.recorded if r in known)]
        out = self._ask(["rev-list", "--stdin"], revs)
        if out is None:
            return UNREADABLE
        return UNRECORDED if not tips.isdisjoint(out.split()) else NOTHING

    def _commits(self, shas: set[str]) -> set[str]:
        """The commits among `shas` that git has (one `git cat-file` for them all)."""
        if self.repo is None:
            return set()
        try:
            return git.commits_among(self.repo, (sha for sha in shas if _is_sha(sha)))
        except GfhError:
            return set()

    def _ask(self, args: list[str], lines: list[str]) -> str | None:
        """Run a git command that reads `lines` on stdin; its output, or None when git could
        not answer."""
        assert self.repo is not None
        try:
            proc = git.run(
                args,
                cwd=self.repo.top or self.repo.git_dir,
                input="\n".join(lines) + "\n",
                check=False,
            )
        except GfhError:
            return None
        return proc.stdout if proc.returncode == 0 else None

    def _trunk_in(self, entry: _Entry, trunk: str) -> bool:
        if entry.judged is None or entry.judged[0] != trunk:
            tips = self._trunk(trunk).tips_at(entry.when)
            entry.judged = (trunk, self._came_in(entry.step, tips))
        return entry.judged[1]

    def _came_in(self, step: Step, tips: list[str]) -> bool:
        """Whether `trunk_came_in` finds a tip of `tips` that `step` brought in, asked of git
        once: a tip came in when it is reachable from the step's commit and not from the one
        before, that is when `git rev-list AFTER ^BEFORE` lists it (one process for every tip,
        where each tip asked on its own costs two `git merge-base --is-ancestor`). Where git
        cannot list them, each tip is asked on its own, as `trunk_came_in` does."""
        if not examined(step) or not tips:
            return False
        assert step.before is not None
        between = self._ask(["rev-list", "--stdin"], [step.after, f"^{step.before}"])
        if between is None:
            return trunk_came_in(step, tips, self._reaches) is not None
        return not set(between.split()).isdisjoint(tips)

    def _before(self, sha: str, held: frozenset[str], head: str) -> bool:
        return head in held or (_is_sha(head) and self._reaches(sha, head))

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
        # The loop ended on the second of the entry written first, with the commits of that
        # second's entries in `held`: when the reflog began, and where the branch was then.
        return _Reflog(entries, second or "", frozenset(held))

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


def _is_sha(text: str) -> bool:
    """True for a full commit name (SHA-1 or SHA-256, lower-case hex): what events record."""
    return len(text) in (40, 64) and _HEX.issuperset(text)


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
