"""Firing dynamics: curve math and engagement state. Pure: no I/O, no clock, no project imports.

Ticks are non-negative integers the caller supplies (tokens, turns or seconds: the engine does
not know which). See docs/ways.md.
"""

from __future__ import annotations

# The engine's names, imported when first used: the ways index (on the hook's hot path) needs
# only the curves, and each module here costs import time on every tool call.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitflow_harness.firing.curves import (
        CURVES,
        ActionPotential,
        Curve,
        CurveError,
        Exponential,
        Flat,
        ProgressiveStaircase,
        Tick,
        TickDelta,
        curve_from_dict,
        curve_from_list,
    )
    from gitflow_harness.firing.engagement import (
        FIRST,
        KINDS,
        REFIRE,
        REFRACTORY,
        STEP,
        SUPPRESSED,
        Decision,
        EngagementState,
        simulate,
    )

_ENGAGEMENT = frozenset(
    {
        "FIRST",
        "KINDS",
        "REFIRE",
        "REFRACTORY",
        "STEP",
        "SUPPRESSED",
        "Decision",
        "EngagementState",
        "simulate",
    }
)


def __getattr__(name: str) -> object:
    from gitflow_harness import import_module  # not `importlib`'s: a hook call asks this

    module = "engagement" if name in _ENGAGEMENT else "curves"
    try:
        return getattr(import_module(f"gitflow_harness.firing.{module}"), name)
    except AttributeError:
        raise AttributeError(f"module 'gitflow_harness.firing' has no attribute {name!r}") from None


__all__ = [
    "CURVES",
    "FIRST",
    "KINDS",
    "REFIRE",
    "REFRACTORY",
    "STEP",
    "SUPPRESSED",
    "ActionPotential",
    "Curve",
    "CurveError",
    "Decision",
    "EngagementState",
    "Exponential",
    "Flat",
    "ProgressiveStaircase",
    "Tick",
    "TickDelta",
    "curve_from_dict",
    "curve_from_list",
    "simulate",
]
