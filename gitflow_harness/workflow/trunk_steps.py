"""Did one step of a branch bring the trunk in? One answer, for the git hook and the report.

A step is one entry of the branch's reflog: git's message for it, the commit the branch was at
before and the commit it moved to. It brought the trunk in when a tip of the trunk at that
moment (the local trunk, or a remote's copy of it) is reachable after the step and was not
before it. The decision reads ancestry, never names: `git merge feature/main` merges the trunk
only if it makes a trunk tip reachable, and a merge that stopped on conflicts and was finished
with `git commit` (`commit (merge): …`) counts like any merge.

The post-merge / post-rewrite / post-commit hook asks right after the step, with the trunk's
tips as they are; the report asks later, with the tips the trunk's reflogs say it had then.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final

# Steps that put one new commit on top of the branch (or replace its last one): by construction
# they cannot make anything reachable that was not before, so they are not examined. Most of a
# branch's reflog is these, and skipping them keeps a hook after every commit cheap.
ADDS_ONE_COMMIT: Final = frozenset(
    {
        "commit",
        "commit (amend)",
        "commit (initial)",
        "commit (cherry-pick)",
        "cherry-pick",
        "revert",
    }
)


@dataclass(frozen=True, slots=True)
class Step:
    """One move of a branch: git's reflog message, and the commits before and after it."""

    message: str  # e.g. "merge main: Merge made by the 'ort' strategy."
    before: str | None  # None when unknown (the branch's first entry, an expired reflog)
    after: str

    @property
    def action(self) -> str:
        """The command as git logged it, flags included: "merge main", "commit (merge)"."""
        return self.message.partition(":")[0].strip()

    @property
    def via(self) -> str:
        """How a step that brought the trunk in did it: `pull`, `rebase`, or `merge`.

        `merge` also names a merge commit finished by hand and any other move that took in
        trunk commits (a fast-forward, a reset onto the trunk).
        """
        word = self.action.split(" ", 1)[0]
        return word if word in ("pull", "rebase") else "merge"

    @property
    def verb(self) -> str:
        """The step's command word, for messages: "merge", "commit", "rebase", "reset"."""
        return self.action.split(" ", 1)[0] or "step"


Reaches = Callable[[str, str], bool]  # reaches(ancestor, descendant)


def examined(step: Step) -> bool:
    """True when `step` could bring the trunk in, so that `trunk_came_in` looks at its tips: a
    move from a known commit to another that is not one of `ADDS_ONE_COMMIT`."""
    return (
        step.before is not None
        and step.after != step.before
        and (step.action not in ADDS_ONE_COMMIT)
    )


def trunk_came_in(step: Step, tips: Iterable[str], reaches: Reaches) -> str | None:
    """Return the trunk tip `step` made reachable (the newest when several did), or None.

    `tips` are the trunk's tips when the step ran; `reaches(a, d)` says whether commit `a` is
    an ancestor of (or equal to) commit `d`.
    """
    if not examined(step):
        return None
    assert step.before is not None
    before, after = step.before, step.after
    came_in = [
        tip for tip in dict.fromkeys(tips) if reaches(tip, after) and not reaches(tip, before)
    ]
    if not came_in:
        return None
    newest = came_in[0]
    for tip in came_in[1:]:
        # Tips that diverged (a remote's copy ahead of a local trunk with its own commits):
        # keep the first, the local trunk when it is one of them.
        if reaches(newest, tip):
            newest = tip
    return newest
