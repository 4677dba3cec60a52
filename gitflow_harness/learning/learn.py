"""What `gfh learn` answers, as data: the learning report, and filing what is owed.

The CLI renders them and the MCP server returns them as they are: `Checked.to_dict` is the
object `gfh learn --check --json` prints, and each surface's text comes from `Checked.lines`.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gitflow_harness.learning.graduation import Filed, NotFiled, Owed
    from gitflow_harness.learning.report import LearningReport
    from gitflow_harness.workspace import Workspace


# NamedTuples, not dataclasses: a frozen dataclass costs about five times as much to define
# (~0.5 ms each on these machines), on every run of the commands that import this module.
class Checked(NamedTuple):
    """What `gfh learn --check` did: the requests it filed, those filed earlier that git does
    not track yet, and the owed ones it could not file (one bad pill never stops the rest)."""

    filed: list[Filed]
    waiting: list[str]
    failed: list[NotFiled]

    @property
    def owed(self) -> bool:
        """True while anything is filed and not yet in git, or could not be filed: the check
        fails until it is."""
        return bool(self.filed or self.waiting or self.failed)

    def lines(self) -> list[str]:
        """What was filed and what waits, one line each ("nothing owed" when neither)."""
        out = [f"filed {f.rel} ({f.owed.describe()})" for f in self.filed]
        out += [f"{rel}: filed earlier, not added to git yet" for rel in self.waiting]
        return out or ([] if self.failed else ["nothing owed"])

    def problems(self) -> list[str]:
        """One line per owed request that could not be filed."""
        return [f.problem for f in self.failed]

    def to_dict(self) -> dict[str, Any]:
        """Return the `--json` object."""
        return {
            "filed": [
                {
                    "path": f.rel,
                    "pill": f.owed.pill.key,
                    "kind": f.owed.kind,
                    "reopens": f"{f.owed.reopens.id}.md" if f.owed.reopens else None,
                }
                for f in self.filed
            ],
            "not_added": self.waiting,
            "not_filed": [
                {"pill": f.owed.pill.key, "path": f.owed.pill.rel, "problem": f.problem}
                for f in self.failed
            ],
        }


def check(ws: Workspace, *, today: dt.date, now: dt.datetime) -> Checked:
    """File the requests and reopenings that are owed; list those not yet added to git."""
    from gitflow_harness.learning.graduation import file_owed, not_added

    def lines_for(due: Sequence[Owed]) -> dict[str, list[str]]:
        # The report's modules are imported only when something is owed (~20 ms).
        from gitflow_harness.learning.report import evidence

        return evidence(ws.repo, ws.config, ws.log, now=now)(due)

    filing = file_owed(ws.repo, ws.config, today=today, evidence=lines_for)
    new = {f.rel for f in filing.filed}
    waiting = [rel for rel in not_added(ws.repo, ws.config) if rel not in new]
    return Checked(filing.filed, waiting, filing.failed)


def report(ws: Workspace, *, now: dt.datetime, days: int | None = None) -> LearningReport:
    """Return the learning report (`to_dict` is its `--json` object)."""
    from gitflow_harness.learning.report import analyze, collect

    return analyze(ws.repo, ws.config, collect(ws.log), now=now, days=days)
