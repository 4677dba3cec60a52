"""The output path: budget the offers, write them, and only then record what was delivered.

Under the session lock: offers are re-checked against the freshest state (a way's offer that a
parallel call's fire withdrew is recorded as `way.suppressed`), the budget keeps first
fires before refires, the host's output is written to stdout in full and flushed, and only then
are fires committed and recorded (`way.fired`), budget cuts recorded (`way.suppressed` with
reason `budget`) and the state saved. If the write fails, the exception leaves the lock with
nothing committed, no fire or cut recorded and the state as it was.

Where the host cannot take context at this event (Cursor outside `sessionStart`, Codex outside
SessionStart and PreToolUse), the offers of ways wait as `pending` way ids (never their text)
for the next event that can.
"""

from __future__ import annotations

from gitflow_harness.hookcall.model import CONTEXT_SEPARATOR

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from gitflow_harness.agent.context import HookContext
    from gitflow_harness.hookcall.model import Offer, Outcome, Rendered
    from gitflow_harness.hookcall.session import RuntimeState

MAX_PENDING = 64


def select(offers: Sequence[Offer], budget: int) -> tuple[list[Offer], list[Offer]]:
    """Split offers into delivered and cut: first fires claim the budget before the rest.

    What is delivered keeps the sources' order; the joined text (separators included) is at
    most `budget` characters.
    """
    order = sorted(range(len(offers)), key=lambda i: (not offers[i].first, i))
    chosen: set[int] = set()
    used = 0
    for i in order:
        cost = len(offers[i].text) + (len(CONTEXT_SEPARATOR) if chosen else 0)
        if used + cost <= budget:
            chosen.add(i)
            used += cost
    kept = [o for i, o in enumerate(offers) if i in chosen]
    cut = [o for i, o in enumerate(offers) if i not in chosen]
    return kept, cut


def emit(
    ctx: HookContext,
    outcome: Outcome,
    offers: Sequence[Offer],
    write: Callable[[str], None],
) -> Rendered:
    """Deliver `outcome` (with what fits of `offers`) to the host; return what was written."""
    offers = [o for o in offers if o.text]
    if not offers and not ctx.observed and not _has_pending(ctx):
        return _write(ctx, outcome, write)
    store = ctx.store
    lock = store.update() if store is not None else _Unlocked()
    with lock as state:
        ctx.replay(state)
        live = []
        for offer in offers:
            if offer.check is None or offer.check(state):
                live.append(offer)
            elif offer.way is not None:
                # A parallel call of the session fired it meanwhile: the match still happened.
                ctx.record(
                    "way.suppressed",
                    {"way": offer.way, **(offer.fired or {}), "reason": offer.reason or "salience"},
                )
        if not ctx.deliverable:
            _defer(ctx, state, live)
            return _write(ctx, outcome, write)
        _consume_pending(ctx, state)
        kept, cut = select(live, _budget(ctx))
        outcome.context.extend(o.text for o in kept)
        rendered = _write(ctx, outcome, write)
        # Delivered in full: from here on, what was shown is committed and recorded.
        for offer in kept:
            if offer.commit is not None:
                offer.commit(state)
            if offer.way is not None:
                ctx.record("way.fired", {"way": offer.way, **(offer.fired or {})})
        for offer in cut:
            if offer.cut is not None:
                offer.cut(state)
            if offer.way is not None:
                ctx.record(
                    "way.suppressed", {"way": offer.way, **(offer.fired or {}), "reason": "budget"}
                )
        return rendered


def _write(ctx: HookContext, outcome: Outcome, write: Callable[[str], None]) -> Rendered:
    rendered: Rendered = ctx.adapter.render(ctx.event, outcome)
    if rendered.stdout:
        write(rendered.stdout)
    return rendered


def _budget(ctx: HookContext) -> int:
    budget = int(ctx.setting("ways", "budget_chars"))  # validated (>= 0) when it was cached
    return min(budget, int(ctx.adapter.MAX_CONTEXT))


def _has_pending(ctx: HookContext) -> bool:
    # Only a host that defers has anything waiting, consumed where context goes out.
    if ctx.store is None or not ctx.deliverable or not ctx.adapter.DEFERS:
        return False
    return bool(ctx.state.get("pending"))


def _defer(ctx: HookContext, state: RuntimeState, offers: Sequence[Offer]) -> None:
    items = state.get("pending")
    pending: list[Any] = items if isinstance(items, list) else []
    for offer in offers:
        if offer.way is None:
            continue  # only ways can be re-offered later; other context is for this moment
        item = {"source": offer.source, "way": offer.way, "trigger": offer.trigger}
        if item not in pending:
            pending.append(item)
    state["pending"] = pending[-MAX_PENDING:]


def _consume_pending(ctx: HookContext, state: RuntimeState) -> None:
    seen = ctx.state.get("pending")
    if not isinstance(seen, list) or not seen:
        return
    current = state.get("pending")
    if isinstance(current, list):
        state["pending"] = [item for item in current if item not in seen]


class _Unlocked:
    """A call with no session: the state it works on is its own, fresh and unsaved."""

    def __enter__(self) -> RuntimeState:
        return {}

    def __exit__(self, *exc: object) -> None:
        return None
