"""Process entry point: `gfh` and `python -m gitflow_harness`."""

from __future__ import annotations

import sys
from collections.abc import Sequence

HELP = frozenset({"-h", "--help"})


def main(argv: Sequence[str] | None = None) -> int:
    """Run one gfh command and return its exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["hook"] and not HELP.intersection(args[1:]):
        # The hook runs on every tool call of an agent: skip Click (~15 ms to import) and go
        # straight to the runtime, which checks the arguments itself and fails open on bad ones
        # (a usage error's exit 2 would block the agent). Only `gfh hook --help` takes Click.
        from gitflow_harness.agent.runtime import main as hook

        return hook(*args[1:])
    if args[:1] == ["status"]:
        # Run at the end of every turn: arguments `cli/status.py` recognises skip Click too,
        # through the same error boundary; anything else is Click's to parse or refuse.
        from gitflow_harness.cli import guarded
        from gitflow_harness.cli.status import parse, show

        flags = parse(args[1:])
        if flags is not None:
            return guarded(lambda: show(**flags), args)
    from gitflow_harness.cli import run

    return run(args)
