"""What `gfh learn` answers, as data: the learning report, and filing what is owed.

The MCP server returns these as they are. `Filing.to_dict` is the object `gfh learn --check
--json` prints (cli/learn.py builds its own; tests/mcp holds the two together).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gitflow_harness.learning.graduation import Filed
    from gitflow_harness.learning.report import LearningReport
    from gitflow_harness.workspace import Workspace


@dataclass(frozen=True, slots=True)
class Filing:
    """What `gfh learn --check` did: the requests it filed, and those filed earlier that git
    does not track yet."""

    filed: list[Filed]
    waiting: list[str]

    @property
    def owed(self) -> bool:
        """True while anything is filed and not yet in git: the check fails until it is."""
        return bool(self.filed or self.waiting)

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
        }


def check(ws: Workspace, *, today: dt.date, now: dt.datetime) -> Filing:
    """File the requests and reopenings that are owed; list those not yet added to git."""
    from gitflow_harness.learning.graduation import file_owed, not_added
    from gitflow_harness.learning.report import evidence

    filed = file_owed(
        ws.repo, ws.config, today=today, evidence=evidence(ws.repo, ws.config, ws.log, now=now)
    )
    new = {f.rel for f in filed}
    return Filing(filed, [rel for rel in not_added(ws.repo, ws.config) if rel not in new])


def report(ws: Workspace, *, now: dt.datetime, days: int | None = None) -> LearningReport:
    """Return the learning report (`to_dict` is its `--json` object)."""
    from gitflow_harness.learning.report import analyze, collect

    return analyze(ws.repo, ws.config, collect(ws.log), now=now, days=days)
