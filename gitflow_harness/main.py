"""Process entry point: `gfh` and `python -m gitflow_harness`."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run one gfh command and return its exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    from gitflow_harness.cli import run

    return run(args)
