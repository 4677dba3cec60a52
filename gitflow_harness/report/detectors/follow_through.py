"""`hint-follow-through`: are hints followed? Episodes per family, from the log and git.

Every delivered firing of a hint in a family opens an episode. Later events are candidates:
evidence the family's rule names as following the advice, or as ending the chance to. A
candidate's correlation with the firing decides what it means:
- same session (whatever the surfaces): it settles the episode, followed or not followed;
- either session unknown, or different sessions on different surfaces: unknown, the episode
  is censored;
- different sessions on the same surface: another agent's work, skipped.
A refused run follows nothing (it did nothing), though it still ends a chance. A firing with no
session, or no branch where the rule needs one, is censored at once; so is an episode still
open when history ends, and history ends for a session that shows no event for the horizon.
Merges and rebases of the trunk found in a branch's git history that no event recorded (its
reflog; where that no longer reaches back, the ancestry of the commits the events recorded)
censor the episodes they fall in, and so does a history that can no longer be read. History
ends for a branch that `gfh accept` deleted: its open episodes are censored then.

What the detector keeps is bounded by the sessions with open episodes seen within the
horizon, and at most one open record per (family, branch, session, surface), beside a
bounded batch of questions waiting for git: memory follows the activity of one day, not the
length of the log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Final

from gitflow_harness.hints import FAMILIES, HINTS, FollowThrough
from gitflow_harness.report.detectors.episodes import HORIZON, Open, Tally, verdict
from gitflow_harness.report.git_evidence import (
    NOTHING,
    UNREADABLE,
    UNRECORDED,
    GitEvidence,
    Verdict,
)
from gitflow_harness.report.model import DetectorResult, ReportContext
from gitflow_harness.store.events import Event, format_at, parse_at

SWEEP_EVERY: Final = HORIZON / 4  # how often (in log time) idle sessions are looked for
# A line stamped more than this after the log's time is ahead of it: alone, it does not move
# the log's time (another writer's clock may be days ahead).
AHEAD: Final = HORIZON / 4


# scope -> firing surface -> firing session -> its open episodes, per family
OpenEpisodes = dict[str | None, dict[str, dict[str, Open]]]
# What an event is a candidate for: (verb, refused, dirty trunk, families it fires) of a
# `verb` event, or GIT_UPDATE; and the plan for it, (rule, followed, the family's open
# episodes) per family it settles.
PlanKey = tuple[str, bool, bool, tuple[str, ...]]
Plan = tuple[tuple[FollowThrough, bool, OpenEpisodes], ...]
GIT_UPDATE: Final[PlanKey] = ("", False, False, ("git.update",))
# What an episode waiting for git's answer settles as: (family, episodes, followed)
Ticket = tuple[str, int, bool]


class HintFollowThrough:
    """Measure, per hint family, how often the advice was followed."""

    id = "hint-follow-through"
    # It reads every event (a session shows itself by any), the `data` of these alone.
    data_types = frozenset({"verb", "git.update"})
    # It sees every event of the log: slots keep each attribute read on that path cheap.
    __slots__ = (
        "_ahead", "_ahead_of", "_at_risk", "_ends", "_families", "_follows", "_git",
        "_git_open", "_leap", "_look", "_members", "_next_sweep", "_now", "_open", "_plans",
        "_present", "_recorded", "_same_branch", "_tally", "_verbs",
    )  # fmt: skip

    def __init__(
        self, ctx: ReportContext, families: Mapping[str, FollowThrough] = FAMILIES
    ) -> None:
        self._families = families
        self._members = {
            hid: d.follow_through
            for hid, d in HINTS.items()
            if d.follow_through is not None and d.follow_through.family in families
        }
        self._tally = {name: Tally() for name in families}
        self._open: dict[str, OpenEpisodes] = {name: {} for name in families}
        # session -> when it was last seen, for sessions that opened episodes since the last
        # sweep or still have some open: what the horizon is measured from
        self._present: dict[str, str] = {}
        self._now = ""  # the log's time: the latest time of a line not ahead of it
        self._look = ""  # log time of the next look for idle sessions ("": at once)
        self._next_sweep = ""  # `_look`, or "" while a leap of the log's time waits
        self._at_risk = ""  # sessions last seen before this may pass the horizon before then
        self._ahead = ""  # lines stamped after this are ahead of the log's time ...
        self._ahead_of = ""  # ... when the log's time is this
        # A line ahead of the log's time, waiting for another to confirm it: its session, its
        # time, and when the same session alone confirms it (a horizon later)
        self._leap: tuple[str, str, str] | None = None
        self._plans: dict[PlanKey, Plan] = {}
        # the verbs some family's rule names (as `verb:NAME`)
        self._verbs = {
            k.removeprefix("verb:")
            for rule in families.values()
            for k in (*rule.follow, *rule.end)
            if k.startswith("verb:")
        }
        # evidence kind -> the rules it follows / ends
        self._follows: dict[str, list[FollowThrough]] = {}
        self._ends: dict[str, list[FollowThrough]] = {}
        for rule in families.values():
            for kind in rule.follow:
                self._follows.setdefault(kind, []).append(rule)
            for kind in rule.end:
                self._ends.setdefault(kind, []).append(rule)
        # branch -> commits that recorded updates left it at, kept only while the branch has
        # open episodes of a family that reads git history (memory must not grow with the log)
        self._recorded: dict[str, set[str]] = {}
        self._git_open = [
            self._open[r.family] for r in families.values() if "git.update" in r.follow
        ]
        self._git: GitEvidence[Ticket] = GitEvidence(ctx.workspace.repo)
        self._verbs.add("accept")  # it ends the episodes of the branch it deletes
        self._same_branch = [r.family for r in families.values() if r.same_branch]

    # -- streaming -------------------------------------------------------------------------

    def observe(self, event: Event) -> None:
        self.observe_chunk((event,))

    def observe_chunk(self, events: Sequence[Event]) -> None:
        # Every event is seen (a session shows itself by any event), so this loop is lean: what
        # it reads of the detector is held in locals, read again after a call that changes it
        # (only `_clock` and a censor change them; `_verb` adds to `_present` in place).
        now, next_sweep, present = self._now, self._next_sweep, self._present
        at_risk, look = self._at_risk, self._look
        for event in events:
            _id, at, kind, _surface, session, branch, data = event
            # `seen`: the log's time, or the session's own for a line ahead of it
            if at >= next_sweep:
                self._clock(at, session)
                now, next_sweep, present = self._now, self._next_sweep, self._present
                at_risk, look = self._at_risk, self._look
                seen = at if at > now else now
            elif at > now:
                self._now = now = seen = at
            else:
                seen = now
            if session is not None:
                last = present.get(session)
                if last is not None:
                    if (last < at_risk or seen >= look) and _quiet_for_the_horizon(last, seen):
                        # Quiet for longer than the horizon, and back before a sweep noticed.
                        self._present = present = self._censor({session})
                    elif seen > last:
                        present[session] = seen
            if kind == "verb":
                self._verb(event, branch, data)
            elif kind == "git.update":
                self._note_update(event)
                for rule, followed, by_scope in self._plan(GIT_UPDATE):
                    scope = branch if rule.same_branch else None
                    by_surface = by_scope.get(scope)
                    if by_surface:
                        self._candidate(rule, event, followed, scope, by_surface)

    def _verb(self, event: Event, branch: str | None, data: dict[str, Any]) -> None:
        verb = data.get("verb")
        if type(verb) is not str:
            return
        ids = data.get("hint_ids")
        clean = data.get("clean")
        if not ids and clean is not False and verb not in self._verbs:
            return  # most `status` runs: no family hears of them
        outcome = data.get("outcome")
        if verb == "accept" and outcome == "ok" and branch is not None:
            self._branch_deleted(branch)
        dirty = clean is False and branch is not None and branch == data.get("trunk")
        fired: list[tuple[FollowThrough, str]] = []
        if ids and type(ids) is list:
            members = self._members
            fired = [(rule, h) for h in ids if type(h) is str and (rule := members.get(h))]
        if not fired:
            refired: tuple[str, ...] = ()
        elif len(fired) == 1:
            refired = (fired[0][0].family,)
        else:
            refired = tuple(sorted({rule.family for rule, _ in fired}))
        # An `update` is not noted as a recorded update here: one that integrated something
        # wrote a `git.update` (noted as it was read) before this event, and one that found
        # the trunk already in ("already") integrated nothing, so its commit may be a merge
        # that no event recorded.
        key = (verb, outcome == "refused", dirty, refired)
        plan = self._plans.get(key)
        for rule, followed, by_scope in self._plan(key) if plan is None else plan:
            # A rule about a branch never opens an episode without one (or on a detached
            # HEAD), so a candidate without a branch finds nothing.
            scope = branch if rule.same_branch else None
            by_surface = by_scope.get(scope)
            if by_surface:
                self._candidate(rule, event, followed, scope, by_surface)
        for rule, hint_id in fired:
            self._fire(rule, hint_id, event)

    def _plan(self, key: PlanKey) -> Plan:
        """The families an event is a candidate for, and whether it follows or ends each.

        `key` is (verb, refused, dirty trunk, families it fires), or `GIT_UPDATE`. A refused run
        did nothing: it follows no advice (an update refused on a dirty tree integrated
        nothing), though it still ends a chance (a refused `done` is the next `done`). A family
        is settled once per event, `follow` before `end`. Keys are few: each plan is worked out
        once.
        """
        plan = self._plans.get(key)
        if plan is not None:
            return plan
        refired: tuple[str, ...] = ()
        if key == GIT_UPDATE:
            follows = ends = ["git.update"]
        else:
            verb, refused, dirty, refired = key
            follows = ([] if refused else [f"verb:{verb}"]) + (["dirty-trunk"] if dirty else [])
            ends = [f"verb:{verb}", *follows, *(["refire"] if refired else [])]
        found: list[tuple[FollowThrough, bool, OpenEpisodes]] = []
        settled: set[str] = set()
        for k in follows:
            for rule in self._follows.get(k, ()):
                if rule.family not in settled:
                    settled.add(rule.family)
                    found.append((rule, True, self._open[rule.family]))
        for k in ends:
            for rule in self._ends.get(k, ()):
                if rule.family in settled or (k == "refire" and rule.family not in refired):
                    continue
                settled.add(rule.family)
                found.append((rule, False, self._open[rule.family]))
        plan = self._plans[key] = tuple(found)
        return plan

    def _note_update(self, event: Event) -> None:
        head = event.data.get("head")
        branch = event.branch
        if branch is None or type(head) is not str:
            return
        for opened in self._git_open:
            if branch in opened:
                self._recorded.setdefault(branch, set()).add(head)
                return

    def _fire(self, rule: FollowThrough, hint_id: str, event: Event) -> None:
        tally = self._tally[rule.family]
        tally.fired += 1
        tally.by_hint[hint_id] = tally.by_hint.get(hint_id, 0) + 1
        scope = event.branch if rule.same_branch else None
        session = event.session
        if session is None or (rule.same_branch and _missing(scope)):
            tally.censored += 1
            tally.by_unknown += 1
            return
        by_scope = self._open[rule.family]
        by_surface = by_scope.get(scope)
        if by_surface is None:
            by_surface = by_scope[scope] = {}
        sessions = by_surface.get(event.surface)
        if sessions is None:
            sessions = by_surface[event.surface] = {}
        episode = sessions.get(session)
        if episode is not None:
            episode.count += 1
            return
        data = event.data
        at = event.at
        sessions[session] = Open(at, _str(data.get("head")), _str(data.get("trunk")), data)
        present = self._present
        if session not in present:
            now = self._now
            present[session] = at if at > now else now

    def _candidate(
        self,
        rule: FollowThrough,
        event: Event,
        followed: bool,
        scope: str | None,
        by_surface: dict[str, dict[str, Open]],
    ) -> None:
        """Settle, censor or skip the open episodes of `rule`'s family in `scope`."""
        family = rule.family
        tally = self._tally[family]
        session = event.session
        for surface in list(by_surface):
            sessions = by_surface[surface]
            if session is not None:
                mine = sessions.pop(session, None)
                if mine is not None:
                    self._settle(rule, tally, mine, scope, event, followed)
            if session is None or surface != event.surface:
                # Unknown correlation with every other session's episodes: censored.
                unknown = sum(episode.count for episode in sessions.values())
                tally.censored += unknown
                tally.by_unknown += unknown
                sessions.clear()
            if not sessions:
                del by_surface[surface]
        if not by_surface:
            self._close_scope(family, scope)

    def _settle(
        self,
        rule: FollowThrough,
        tally: Tally,
        episode: Open,
        branch: str | None,
        event: Event,
        followed: bool,
    ) -> None:
        n = episode.count
        found: Verdict | None = NOTHING
        if "git.update" in rule.follow and branch is not None:
            found = self._git.judge(
                (rule.family, n, followed),
                branch,
                episode.trunk,
                (episode.fired_at, episode.head, episode.behind),
                (event.at, event.data),
                self._recorded.get(branch, ()),
            )
        if found is None:  # it waits for the commits' ancestry, asked of git in batches
            if self._git.due:
                self._answered(self._git.answers())
            return
        _count(tally, n, followed, found)

    def _answered(self, answers: list[tuple[Ticket, Verdict]]) -> None:
        for (family, n, followed), found in answers:
            _count(self._tally[family], n, followed, found)

    def _branch_deleted(self, branch: str) -> None:
        """`gfh accept` deleted `branch`: the history of its open episodes ended with it (a
        branch of the same name made later is another branch), so they are censored."""
        for family in self._same_branch:
            by_surface = self._open[family].get(branch)
            if by_surface:
                n = sum(e.count for sessions in by_surface.values() for e in sessions.values())
                tally = self._tally[family]
                tally.censored += n
                tally.by_accept += n
                self._close_scope(family, branch)

    # -- the horizon -----------------------------------------------------------------------

    def _clock(self, at: str, session: str | None) -> None:
        """Keep the log's time for a line at or after the next look for idle sessions (or any
        line while a leap waits), and look when it is time.

        Writers' clocks differ, so no single line sets the log's time. A line stamped at most
        `AHEAD` after it moves it on; a line further ahead waits, and the log's time leaps to
        it only when a line of another session is ahead too with no line at the old time
        between, or when the same session has stayed ahead, alone, for the horizon (then
        every other writer was quiet that long). A line of no session says nothing of time.
        """
        now = self._now
        if now != self._ahead_of:
            self._ahead, self._ahead_of = _later(now, AHEAD), now
        if not self._ahead or at <= self._ahead:
            if at > now:
                self._now = now = at
            if self._leap is not None:  # the log's time goes on where it was: no leap
                self._leap = None
                self._next_sweep = self._look
            if now >= self._look:
                self._sweep(now)
            return
        until = _later(at, HORIZON)
        if session is None or not until:  # (a line whose time is not a time says nothing)
            return
        leap = self._leap
        if leap is None:
            self._leap = (session, at, until)
            self._next_sweep = ""  # every line now says whether the leap holds
            return
        who, when, alone_until = leap
        if session == who and at < alone_until:
            return
        self._leap = None
        self._now = now = at if session == who else min(when, at)
        self._sweep(now)

    def _sweep(self, now: str) -> None:
        """Censor the open episodes of every session quiet for the horizon before `now`, and
        forget the sessions that have no open episode left.

        It visits every open episode, once per `SWEEP_EVERY` of log time: an episode stays open
        at most for the horizon after its session's last event, so each is visited a bounded
        number of times. A session that comes back between two sweeps after more than the
        horizon is caught as it comes back (`observe`), so the horizon is exact.
        """
        moment = _moment(now)
        if moment is None:
            return  # not a time: it cannot say that anything ended
        self._next_sweep = self._look = format_at(moment + SWEEP_EVERY)
        self._at_risk = format_at(moment + SWEEP_EVERY - HORIZON)
        cutoff = format_at(moment - HORIZON)
        self._present = self._censor({s for s, last in self._present.items() if last < cutoff})

    def _censor(self, ended: set[str]) -> dict[str, str]:
        """Censor every open episode of the `ended` sessions; return the last-seen times of the
        sessions that still have open episodes."""
        present = self._present
        alive: dict[str, str] = {}
        for family, by_scope in self._open.items():
            tally = self._tally[family]
            for scope in list(by_scope):
                by_surface = by_scope[scope]
                for surface in list(by_surface):
                    sessions = by_surface[surface]
                    for session in list(sessions):
                        if session in ended:
                            count = sessions.pop(session).count
                            tally.censored += count
                            tally.by_horizon += count
                        else:
                            alive[session] = present.get(session, "")
                    if not sessions:
                        del by_surface[surface]
                if not by_surface:
                    self._close_scope(family, scope)
        return alive

    def _close_scope(self, family: str, scope: str | None) -> None:
        self._open[family].pop(scope, None)
        if scope is None or scope not in self._recorded:
            return
        for opened in self._git_open:
            if scope in opened:
                return
        del self._recorded[scope]

    # -- the verdict -----------------------------------------------------------------------

    def finish(self, ctx: ReportContext) -> DetectorResult:
        self._answered(self._git.answers())
        for name, opened in self._open.items():
            still = sum(e.count for s in opened.values() for ss in s.values() for e in ss.values())
            self._tally[name].censored += still
            self._tally[name].by_end += still
            opened.clear()
        self._present.clear()
        return verdict(self.id, self._families, self._tally)


def _count(tally: Tally, n: int, followed: bool, found: Verdict) -> None:
    """Count `n` settled episodes: as git history says, else followed or not followed."""
    if found == UNRECORDED:
        tally.censored += n
        tally.by_git += n
    elif found == UNREADABLE:
        tally.censored += n
        tally.by_unreadable += n
    elif followed:
        tally.followed += n
    else:
        tally.not_followed += n


def _str(value: Any) -> str | None:
    return value if type(value) is str else None


def _quiet_for_the_horizon(last: str, at: str) -> bool:
    then, now = _moment(last), _moment(at)
    return then is not None and now is not None and now - then > HORIZON


def _moment(at: str) -> datetime | None:
    """The moment `at` names, or None when it names none (or no time zone)."""
    try:
        moment = parse_at(at)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def _later(at: str, by: timedelta) -> str:
    """The time `by` after `at`, as events write times; "" when `at` is not a time."""
    moment = _moment(at)
    return "" if moment is None else format_at(moment + by)


def _missing(branch: str | None) -> bool:
    return branch is None or branch == "HEAD"
