"""`hint-follow-through`: are hints followed? Episodes per family, from the log and git.

Every delivered firing of a hint in a family opens an episode. Later events are candidates:
evidence the family's rule names as following the advice, or as ending the chance to. A
candidate's correlation with the firing decides what it means:
- same session (whatever the surfaces): it settles the episode, followed or not followed;
- either session unknown, or different sessions on different surfaces: unknown, the episode
  is censored;
- different sessions on the same surface: another agent's work, skipped.
A firing with no session, or no branch where the rule needs one, is censored at once; so is an
episode still open when history ends. Merges and rebases of the trunk found in a branch's reflog
that no event recorded censor the episodes they fall in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from gitflow_harness.hints import FAMILIES, HINTS, FollowThrough
from gitflow_harness.report.git_evidence import GitEvidence
from gitflow_harness.report.model import DetectorResult, Finding, ReportContext
from gitflow_harness.store.events import Event

THRESHOLD: Final = 3  # resolved episodes a family needs before it is reported

# (fired_at, head then, trunk, branch) of an open episode
Episode = tuple[str, str | None, str | None, str | None]
# family -> scope (branch, or None) -> firing surface -> firing session -> open episodes
OpenEpisodes = dict[str | None, dict[str, dict[str, list[Episode]]]]


@dataclass(slots=True)
class Tally:
    """The episodes of one family."""

    fired: int = 0
    followed: int = 0
    not_followed: int = 0
    censored: int = 0
    by_git: int = 0  # of `censored`: by reflog evidence
    by_hint: dict[str, int] = field(default_factory=dict)

    @property
    def resolved(self) -> int:
        return self.followed + self.not_followed

    def evidence(self) -> dict[str, int]:
        return {
            "fired": self.fired,
            "followed": self.followed,
            "not_followed": self.not_followed,
            "censored": self.censored,
        }


class HintFollowThrough:
    """Measure, per hint family, how often the advice was followed."""

    id = "hint-follow-through"

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
        self._git_families = [r.family for r in families.values() if "git.update" in r.follow]
        self._git = GitEvidence(ctx.workspace.repo)

    # -- streaming -------------------------------------------------------------------------

    def observe(self, event: Event) -> None:
        kind = event.type
        if kind == "verb":
            data = event.data
            verb = data.get("verb")
            if type(verb) is not str:
                return
            kinds = ["verb:" + verb]
            trunk = data.get("trunk")
            if data.get("clean") is False and trunk is not None and event.branch == trunk:
                kinds.append("dirty-trunk")
            ids = data.get("hint_ids")
            fired = [h for h in ids if type(h) is str] if type(ids) is list and ids else ()
            if verb == "update":
                self._note_update(event)
        elif kind == "git.update":
            kinds = ["git.update"]
            fired = ()
            self._note_update(event)
        else:
            return
        families = {rule.family for hid in fired if (rule := self._members.get(hid)) is not None}
        settled: set[str] = set()
        for k in kinds:
            for rule in self._follows.get(k, ()):
                if rule.family not in settled:
                    settled.add(rule.family)
                    self._candidate(rule, event, followed=True)
        for k in [*kinds, *(["refire"] if families else [])]:
            for rule in self._ends.get(k, ()):
                if rule.family in settled or (k == "refire" and rule.family not in families):
                    continue
                settled.add(rule.family)
                self._candidate(rule, event, followed=False)
        for hid in fired:
            rule = self._members.get(hid)
            if rule is not None:
                self._fire(rule, hid, event)

    def _note_update(self, event: Event) -> None:
        head = event.data.get("head")
        branch = event.branch
        if branch is None or type(head) is not str:
            return
        if any(branch in self._open[family] for family in self._git_families):
            self._recorded.setdefault(branch, set()).add(head)

    def _fire(self, rule: FollowThrough, hint_id: str, event: Event) -> None:
        tally = self._tally[rule.family]
        tally.fired += 1
        tally.by_hint[hint_id] = tally.by_hint.get(hint_id, 0) + 1
        scope = event.branch if rule.same_branch else None
        if event.session is None or (rule.same_branch and _missing(scope)):
            tally.censored += 1
            return
        episode = (event.at, _str(event.data.get("head")), _str(event.data.get("trunk")), scope)
        by_surface = self._open[rule.family].setdefault(scope, {})
        by_surface.setdefault(event.surface, {}).setdefault(event.session, []).append(episode)

    def _candidate(self, rule: FollowThrough, event: Event, *, followed: bool) -> None:
        scope = event.branch if rule.same_branch else None
        if rule.same_branch and _missing(scope):
            return  # a candidate without a branch is about no branch's episodes
        opened = self._open[rule.family]
        by_surface = opened.get(scope)
        if not by_surface:
            return
        tally = self._tally[rule.family]
        session = event.session
        for surface in list(by_surface):
            sessions = by_surface[surface]
            if session is not None:
                mine = sessions.pop(session, None)
                for episode in mine or ():
                    self._settle(rule, tally, episode, event, followed)
            if session is None or surface != event.surface:
                # Unknown correlation with every other session's episodes: censored.
                tally.censored += sum(len(eps) for eps in sessions.values())
                sessions.clear()
            if not sessions:
                del by_surface[surface]
        if not by_surface:
            del opened[scope]
            if scope is not None and not any(scope in self._open[f] for f in self._git_families):
                self._recorded.pop(scope, None)

    def _settle(
        self, rule: FollowThrough, tally: Tally, episode: Episode, event: Event, followed: bool
    ) -> None:
        fired_at, head, trunk, branch = episode
        if "git.update" in rule.follow and branch is not None:
            recorded = self._recorded.get(branch, ())
            end = (event.at, _str(event.data.get("head")))
            if self._git.unrecorded_between(branch, trunk, (fired_at, head), end, recorded):
                tally.censored += 1
                tally.by_git += 1
                return
        if followed:
            tally.followed += 1
        else:
            tally.not_followed += 1

    # -- the verdict -----------------------------------------------------------------------

    def finish(self, ctx: ReportContext) -> DetectorResult:
        for name, opened in self._open.items():
            still = sum(
                len(eps) for s in opened.values() for ss in s.values() for eps in ss.values()
            )
            self._tally[name].censored += still
            opened.clear()
        findings: list[Finding] = []
        notes: list[str] = []
        for name, tally in self._tally.items():
            rule = self._families[name]
            if tally.resolved >= THRESHOLD:
                findings.append(self._finding(rule, tally))
            elif tally.fired:
                notes.append(
                    f"{name}: {tally.resolved} resolved of {tally.fired} fired "
                    f"({THRESHOLD} needed to report)"
                )
        touched = sum(t.by_git for t in self._tally.values())
        notes.append(
            f"git history: {touched} episode(s) censored by merges or rebases of the trunk "
            "that no event recorded"
        )
        considered = max((t.resolved for t in self._tally.values()), default=0)
        return DetectorResult(
            self.id,
            "fired" if findings else "insufficient-evidence",
            considered,
            tuple(findings),
            tuple(notes),
        )

    def _finding(self, rule: FollowThrough, tally: Tally) -> Finding:
        members = ", ".join(f"{hid} ×{n}" for hid, n in sorted(tally.by_hint.items()))
        observed = (
            f"{rule.family} hints fired {tally.fired} times ({members}): {tally.followed} "
            f"followed, {tally.not_followed} not followed, {tally.censored} censored"
        )
        if tally.by_git:
            observed += f" ({tally.by_git} by git history)"
        if tally.not_followed == 0:
            tone: Any = "good"
            step = f"Nothing to change: every resolved episode was followed ({rule.remedy})."
        else:
            tone = "attention"
            step = (
                f"{tally.not_followed} of {tally.resolved} resolved episodes were not followed: "
                f"make the advice easier to act on ({rule.remedy}), or add a way that repeats "
                "it where it is ignored."
            )
        return Finding(self.id, rule.family, tone, observed + ".", tally.evidence(), step)


def _str(value: Any) -> str | None:
    return value if type(value) is str else None


def _missing(branch: str | None) -> bool:
    return branch is None or branch == "HEAD"
