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
    path = state_home() / "crash" / f"{stamp}-{os.getpid()}.txt"
    text = f"gfh {__version__} command: {command}\n\n" + "".join(
        traceback.format_exception(type(exc), exc, exc.__traceback__)
    )
    try:
        write_private(path, text)
    except OSError:
        return "(could not be written)"
    return path
