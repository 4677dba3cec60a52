"""The records behind `hint-follow-through`: open episodes, tallies, and the verdict.

The detector (`follow_through.py`) streams the log and keeps these; at the end of the log the
tallies become its findings and notes here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Final

from gitflow_harness.hints import FollowThrough
from gitflow_harness.report.model import DetectorResult, Finding

THRESHOLD: Final = 3  # resolved episodes a family needs before it is reported
# A session that shows no event for this long (in log time) has ended: its open episodes are
# censored then, as they would be at the end of the log. It bounds what the report keeps by the
# sessions active within the horizon, not by every session the log ever saw.
HORIZON: Final = timedelta(hours=24)


class Open:
    """The open episodes of one (family, scope, surface, session).

    The rules allow one at a time there, except in a family without a `refire` end
    (main-worktree-first), whose repeated firings wait together: they are counted, and all
    settle with the first one's window.
    """

    __slots__ = ("behind", "count", "fired_at", "head", "trunk")

    def __init__(
        self, fired_at: str, head: str | None, trunk: str | None, data: Mapping[str, Any]
    ) -> None:
        self.count = 1
        self.fired_at = fired_at
        self.head = head  # the branch's commit when it fired
        self.trunk = trunk
        behind = data.get("behind")  # commits of the trunk the branch lacked then, when known
        self.behind = behind if type(behind) is int else None


@dataclass(slots=True)
class Tally:
    """The episodes of one family."""

    fired: int = 0
    followed: int = 0
    not_followed: int = 0
    censored: int = 0
    by_git: int = 0  # of `censored`: an update of the trunk that no event recorded
    by_unreadable: int = 0  # of `censored`: the branch's history could no longer be read
    by_accept: int = 0  # of `censored`: still open when `gfh accept` deleted the branch
    by_horizon: int = 0  # of `censored`: the session went quiet for the horizon
    by_unknown: int = 0  # of `censored`: no session or branch at the firing, or unknown correlation
    by_end: int = 0  # of `censored`: still open when the log ended
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

    def breakdown(self) -> dict[str, int]:
        """The evidence, with the censored episodes by why they were censored."""
        censored_by = {
            "unknown_correlation": self.by_unknown,
            "git_history": self.by_git,
            "unreadable_history": self.by_unreadable,
            "branch_accepted": self.by_accept,
            "session_quiet": self.by_horizon,
            "log_ended": self.by_end,
        }
        return {
            **self.evidence(),
            "resolved": self.resolved,
            **{f"censored_{why}": n for why, n in censored_by.items()},
        }


def verdict(
    detector: str, families: Mapping[str, FollowThrough], tallies: Mapping[str, Tally]
) -> DetectorResult:
    """Turn the tallies of every family into the detector's result."""
    findings: list[Finding] = []
    notes: list[str] = []
    for name, tally in tallies.items():
        if tally.resolved >= THRESHOLD:
            findings.append(_finding(detector, families[name], tally))
        elif tally.fired:
            notes.append(
                f"{name}: {tally.resolved} resolved of {tally.fired} fired "
                f"({THRESHOLD} needed to report)"
            )
    for name, tally in tallies.items():
        if tally.by_horizon:
            notes.append(
                f"{name}: {tally.by_horizon} episode(s) censored after their session went "
                f"quiet for {HORIZON // timedelta(hours=1)} h"
            )
    for name, tally in tallies.items():
        if tally.by_accept:
            notes.append(
                f"{name}: {tally.by_accept} episode(s) censored when `gfh accept` deleted "
                "their branch"
            )
    touched = sum(t.by_git for t in tallies.values())
    notes.append(
        f"git history: {touched} episode(s) censored by merges or rebases of the trunk "
        "that no event recorded"
    )
    lost = sum(t.by_unreadable for t in tallies.values())
    if lost:
        notes.append(
            f"git history: {lost} episode(s) censored because their branch's history could "
            "no longer be read (no reflog back to the firing, and git lacks the events' commits)"
        )
    considered = max((t.resolved for t in tallies.values()), default=0)
    return DetectorResult(
        detector,
        "fired" if findings else "insufficient-evidence",
        considered,
        tuple(findings),
        tuple(notes),
        {
            "threshold": THRESHOLD,
            "families": {name: t.breakdown() for name, t in tallies.items() if t.fired},
        },
    )


def _finding(detector: str, rule: FollowThrough, tally: Tally) -> Finding:
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
    return Finding(detector, rule.family, tone, observed + ".", tally.evidence(), step)
