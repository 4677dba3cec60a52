"""Firing dynamics: curve math and engagement state. Pure: no I/O, no clock, no project imports.

Ticks are non-negative integers the caller supplies (tokens, turns or seconds: the engine does
not know which). See DESIGN §6 and docs/ways.md.
"""

from __future__ import annotations

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
    "simulate",
]
