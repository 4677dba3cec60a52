"""Process entry point: `gfh` and `python -m gitflow_harness`."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run one gfh command and return its exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) == 3 and args[0] == "hook" and not any(a.startswith("-") for a in args[1:]):
        # The hook runs on every tool call of an agent: skip Click (~15 ms to import) and go
        # straight to the runtime. `gfh hook --help` and malformed calls take the Click path.
        from gitflow_harness.agent.runtime import main as hook

        return hook(args[1], args[2])
    from gitflow_harness.cli import run

    return run(args)
