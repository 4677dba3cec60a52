"""`gfh pills check`: every rule of every pill, in one pass over the files and one over history."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from gitflow_harness import git
from gitflow_harness.learning import citations
from gitflow_harness.learning.pills import Catalog, check_rules, load_catalog

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitflow_harness.store.schema import Problem

FAILING = frozenset({"error", "warning"})


def check_pills(repo: git.Repo, root: str, *, today: dt.date) -> tuple[Catalog, list[Problem]]:
    """Return the catalog of the pills under `root` (`[paths] pills`) and every problem of every
    pill, sorted by file and line."""
    top = Path(repo.worktree())
    catalog = load_catalog(top, root)
    problems = list(catalog.problems)
    cited = citations.start(catalog.pills, repo, top)  # git walks the history meanwhile
    with git.reaped(cited):
        for pill in catalog.pills:
            problems.extend(check_rules(pill, today=today, root_rel=catalog.root_rel))
    problems.extend(cited())
    problems.sort(key=lambda p: (p.path, p.line or 0))
    return catalog, problems


def failing(problems: list[Problem]) -> list[Problem]:
    """Return the problems that fail a check (errors and warnings; notes inform)."""
    return [p for p in problems if p.severity in FAILING]
