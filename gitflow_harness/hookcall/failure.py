"""How a hook call names what went wrong, for its stderr line and the events it records.

Never by an error's message, which may quote payload text, except gfh's own errors about its
files: their message holds only a path and the fix.
"""

from __future__ import annotations

import os


def own_message(exc: BaseException) -> str | None:
    """The first line of gfh's own error about its files (the configuration, the event log, the
    state directory), whose message holds only a path and the fix; None for any other error."""
    from gitflow_harness.errors import ConfigError
    from gitflow_harness.hookcall.budget import BudgetExceeded
    from gitflow_harness.store.eventwrite import LogWriteError
    from gitflow_harness.store.state import StateDirError

    if isinstance(exc, ConfigError | LogWriteError | StateDirError):
        return exc.message.splitlines()[0]
    if isinstance(exc, BudgetExceeded):
        return str(exc)
    return None


def describe(exc: BaseException) -> str:
    """Name an error by class and where it was raised — never by its message, which may quote
    payload text — except gfh's own errors about its files (the configuration, the event log,
    the state directory), whose message holds only a path and the fix."""
    own = own_message(exc)
    if own is not None:
        return f"{type(exc).__name__}: {own}"
    where = "?"
    tb = exc.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        marker = filename.replace(os.sep, "/").rfind("gitflow_harness/")
        if marker >= 0:
            where = f"{filename.replace(os.sep, '/')[marker:]}:{tb.tb_lineno}"
        tb = tb.tb_next
    return f"{type(exc).__name__} at {where}"
