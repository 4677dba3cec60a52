"""`ensure`: the session-start check that work starts on a branch, not in the main checkout.

Run by the SessionStart hook: its one hint is delivered outside the result envelope (as the
session's opening context), through the supplemental accumulator of `gitflow_harness.hints`.
The entry point drains it, delivers it, and records it in the `verb` event. The hook loads this
module, so its record is a `__slots__` one, not a dataclass (`workflow/result.py`).
"""

from __future__ import annotations

from gitflow_harness import hints
from gitflow_harness.workflow.facts import Facts
from gitflow_harness.workflow.result import VerbData, VerbResult

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from gitflow_harness.workspace import Workspace


class EnsureData(VerbData):
    """Where the session starts."""

    __slots__ = ("branch", "clean", "location", "on_trunk", "trunk")
    _fields = ("location", "branch", "trunk", "on_trunk", "clean")

    def __init__(
        self, location: str, branch: str | None, trunk: str | None, on_trunk: bool, clean: bool
    ) -> None:
        self.location = location  # "worktree" | "main"
        self.branch = branch
        self.trunk = trunk
        self.on_trunk = on_trunk
        self.clean = clean


def ensure(ws: Workspace) -> VerbResult:
    """Check where a session starts; in the main checkout on the trunk, queue the
    `ensure-main-worktree-first` hint (outside the envelope)."""
    return begin(ws)()


def begin(ws: Workspace) -> Callable[[], VerbResult]:
    """Start `ensure`: its git processes run while the caller works on (the SessionStart hook
    runs its ways pass meanwhile); return what finishes it, as `ensure` does."""
    repo = ws.repo
    repo.worktree()
    facts = Facts(ws)
    reading = facts.start()  # first: its git processes run at once

    def finish() -> VerbResult:
        reading()
        snapshot = facts.snapshot()
        main_on_trunk = not repo.linked and facts.on_trunk
        if main_on_trunk:
            hints.supplement(hints.hint("ensure-main-worktree-first", trunk=facts.trunk))
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

    return finish
