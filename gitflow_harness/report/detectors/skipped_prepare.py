"""`skipped-prepare`: a branch judged by `done` again and again, red, with no `prepare` run.

Only `done` runs that judged the tree count; a refused `done` (an unchanged red tree, a branch
without the trunk) and one whose gate program could not run (gate null) judged nothing.

Kept apart from hint follow-through on purpose: it needs no hint to have fired, and it reads a
habit (iterating with the whole gate) rather than the answer to one piece of advice.
"""

from __future__ import annotations

from typing import Final

from gitflow_harness.report.model import DetectorResult, Finding, ReportContext, Status
from gitflow_harness.store.events import Event

MIN_DONE: Final = 4
MIN_RED: Final = 2


class SkippedPrepare:
    """Find branches with >= 4 `done` runs of the gate, >= 2 of them red, and no `prepare`."""

    id = "skipped-prepare"
    types = frozenset({"verb"})

    def __init__(self, ctx: ReportContext) -> None:
        # branch -> [done runs, red done runs, prepare runs]
        self._branches: dict[str, list[int]] = {}

    def observe(self, event: Event) -> None:
        # Unpacked once: a tuple's fields by name cost a lookup each, on every `verb` event.
        _id, _at, kind, _surface, _session, branch, data = event
        if kind != "verb" or branch is None:
            return
        verb = data.get("verb")
        if verb == "done":
            # A refused `done` ran nothing (its `gate` is the tree's earlier verdict), and one
            # whose gate program could not run gave no verdict (gate null): neither is a run of
            # the gate, red or otherwise.
            gate = data.get("gate")
            if gate is None or data.get("outcome") == "refused":
                return
            counts = self._counts(branch)
            counts[0] += 1
            if gate == "red":
                counts[1] += 1
        elif verb == "prepare":
            self._counts(branch)[2] += 1

    def _counts(self, branch: str) -> list[int]:
        counts = self._branches.get(branch)
        if counts is None:
            counts = self._branches[branch] = [0, 0, 0]
        return counts

    def finish(self, ctx: ReportContext) -> DetectorResult:
        eligible = {b: c for b, c in self._branches.items() if c[0] >= MIN_DONE}
        findings = tuple(
            Finding(
                self.id,
                branch,
                "attention",
                f"{branch} ran `gfh done` {done} times, {red} of them red, and never "
                "`gfh prepare`.",
                {"done": done, "red": red, "prepare": prepare},
                "Iterate with `gfh prepare` (and `gfh test`) until they pass, then run "
                "`gfh done` once: a red `done` repeats every check to learn what one stage "
                "already said.",
            )
            for branch, (done, red, prepare) in sorted(eligible.items())
            if red >= MIN_RED and prepare == 0
        )
        status: Status
        if findings:
            status = "fired"
        elif eligible:
            status = "quiet"
        else:
            status = "insufficient-evidence"
        return DetectorResult(self.id, status, len(eligible), findings)
