"""The SessionStart source that runs the workflow's `ensure` and delivers its hint first.

`ensure` checks where the session starts: in the main checkout on the trunk it queues the
`ensure-main-worktree-first` hint, outside its result envelope. This source drains it and offers
it as the session's opening context. It starts `ensure` and answers with what finishes it, so
the session's ways pass runs while `ensure`'s `git status` does (`runtime.collect`). The `verb`
event (surface `hook`, this session) is recorded once the answer was written: with the hint it
delivered, or with none when there was none. It costs a few git calls, once per session start;
anything that goes wrong is reported by the runtime as an internal error while the other
sources still deliver. The workspace is built from what the hook knows already: the repository
`agent/repo.py` found and the trunk of the session's cached configuration.
"""

from __future__ import annotations

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from gitflow_harness.agent.context import HookContext
    from gitflow_harness.hookcall.model import Offer


def source(ctx: HookContext) -> list[Offer] | Callable[[], list[Offer]]:
    """Start `ensure` in the session's worktree; return what offers its hint and records the
    run, called once the other sources were asked (its `git status` runs meanwhile)."""
    if ctx.repo is None:
        return []
    import time

    from gitflow_harness import git, hints
    from gitflow_harness.workflow.ensure import begin
    from gitflow_harness.workspace import Workspace

    started = time.perf_counter()
    hints.drain()  # whatever an earlier run in this process left is not this run's to deliver
    found = ctx.repo
    repo = git.repo_at(found.top, found.git_dir, found.common_dir)
    # The hook's own discovery and cached configuration: no `git rev-parse`, no TOML parsed.
    trunk = str(ctx.setting("repository", "trunk"))
    finish = begin(Workspace(repo, surface="hook", trunk=trunk))
    spent = time.perf_counter() - started

    def offers() -> list[Offer]:
        from gitflow_harness.hookcall.model import Offer
        from gitflow_harness.workflow.record import verb_data

        resumed = time.perf_counter()
        result = finish()
        shown = hints.deliverable((*result.hints, *hints.drain()), agent=True)
        # What the verb cost the call: its two parts, not the other sources' work between.
        duration_ms = int((spent + time.perf_counter() - resumed) * 1000)

        def record(delivered: tuple[Any, ...]) -> None:
            # Surface `hook`, this session, the branch the hook found: as every event of the
            # call.
            ctx.record("verb", verb_data(result, duration_ms=duration_ms, delivered=delivered))

        if not shown:
            record(())
            return []
        text = "\n".join(f"hint: {h.text}  [{h.id}]" for h in shown)
        # The verb ran either way: recorded with the hints delivered, or none when the budget
        # cut its line.
        return [Offer(text, commit=lambda state: record(shown), cut=lambda state: record(()))]

    return offers
