"""`ensure`: the session-start check that work starts on a branch, not in the main checkout.

Run by the SessionStart hook: its one hint is delivered outside the result envelope (as the
session's opening context), through the supplemental accumulator of `gitflow_harness.hints`.
The entry point drains it, delivers it, and records it in the `verb` event.
"""

from __future__ import annotations

from dataclasses import dataclass

from gitflow_harness import hints
from gitflow_harness.workflow.facts import Facts
from gitflow_harness.workflow.result import VerbData, VerbResult
from gitflow_harness.workspace import Workspace


@dataclass(frozen=True, slots=True)
class EnsureData(VerbData):
    location: str  # "worktree" | "main"
    branch: str | None
    trunk: str | None
    on_trunk: bool
    clean: bool


def ensure(ws: Workspace) -> VerbResult:
    """Check where a session starts; in the main checkout on the trunk, queue the
    `ensure-main-worktree-first` hint (outside the envelope)."""
    repo = ws.repo
    repo.worktree()
    facts = Facts(ws)
    main_on_trunk = not repo.linked and facts.on_trunk
    if main_on_trunk:
        hints.supplement(hints.hint("ensure-main-worktree-first", trunk=facts.trunk))
    snapshot = facts.snapshot()
    data = EnsureData(
        location="worktree" if repo.linked else "main",
        branch=facts.head.branch,
        trunk=facts.trunk,
        on_trunk=facts.on_trunk,
        clean=snapshot["clean"],
    )
    where = "a worktree" if repo.linked else "the main checkout"
    return VerbResult(
        "ensure",
        "ok",
        data,
        facts=snapshot,
        message=f"{where}, on {facts.head.branch or 'a detached HEAD'}",
    )
