"""The registry of detectors `gfh report` runs, in report order.

Each entry is "module:attribute" naming a factory: a callable that takes the `ReportContext` and
returns a `Detector` (a detector class whose `__init__` takes the context is one). Entries are
imported only when a report runs. A capability adds its detector with one line here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Final

from gitflow_harness.report.model import Detector, ReportContext

DetectorFactory = Callable[[ReportContext], Detector]

DETECTORS: Final[tuple[str, ...]] = (
    "gitflow_harness.report.detectors.follow_through:HintFollowThrough",
    "gitflow_harness.report.detectors.skipped_prepare:SkippedPrepare",
    "gitflow_harness.learning.detector:LearningDetector",
    "gitflow_harness.ritual.detector:StopRitual",
    "gitflow_harness.ways.detector:WayFiring",
    "gitflow_harness.report.detectors.hook_errors:HookErrors",
)


def factories() -> list[DetectorFactory]:
    """Import and return every registered detector factory, in order."""
    found: list[DetectorFactory] = []
    for entry in DETECTORS:
        module_name, attr = entry.split(":")
        found.append(getattr(importlib.import_module(module_name), attr))
    return found
