"""The SubagentStart source that injects the starting role's lessons index (docs/learning.md).

The role is the subagent's agent type. With `graph.stages` configured only those roles get
their index; without, every role with active lessons does. The index is what
`gfh pills index ROLE` prints: one line per active lesson, pointing at the pill's file. A host
whose subagent start takes no context (Cursor) gets none: a later event would reach another
context.
"""

from __future__ import annotations

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitflow_harness.agent.context import HookContext
    from gitflow_harness.hookcall.model import Offer


def source(ctx: HookContext) -> list[Offer]:
    """Offer the lessons index of the subagent's role, when it has one."""
    role = ctx.event.role
    if ctx.repo is None or role is None or not ctx.deliverable:
        return []
    from gitflow_harness.hookcall.model import Offer
    from gitflow_harness.learning.index import subagent_context

    # The session's copy of the configuration: parsing the file again would cost ~10 ms.
    config = ctx.config()
    pills, stages = config["paths"]["pills"], config["graph"]["stages"]
    text = subagent_context(ctx.repo.top, pills, stages, role).strip()
    return [Offer(text)] if text else []
