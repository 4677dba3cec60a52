"""Full reports of unexpected errors, kept out of the user's terminal."""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Sequence
from pathlib import Path

from gitflow_harness import __version__


def write_crash_report(exc: BaseException, argv: Sequence[str]) -> Path | str:
    """Write the traceback of `exc` to an owner-only file and return where it is.

    Only the command name is recorded, never its arguments: they may carry task text.
    """
    from gitflow_harness.store.fsutil import write_private
    from gitflow_harness.store.state import state_home

    command = argv[0] if argv else "(none)"
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    path = os.path.join(state_home(), "crash", f"{stamp}-{os.getpid()}.txt")
    text = f"gfh {__version__} command: {command}\n\n" + "".join(
        traceback.format_exception(type(exc), exc, exc.__traceback__)
    )
    for detail in _details(exc):
        text += f"\n{detail.rstrip()}\n"
    try:
        write_private(path, text)
    except OSError:
        return "(could not be written)"
    return path


def _details(exc: BaseException) -> list[str]:
    """The details (a failing program's whole output) of `exc` and of the errors it came from."""
    from gitflow_harness.errors import GfhError

    found: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, GfhError):
            detail = current.details()
            if detail:
                found.append(detail)
        current = current.__cause__ or current.__context__
    return found
