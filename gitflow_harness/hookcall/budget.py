"""The time budget of one hook call: past it, the call stops where it is and fails open.

The hosts kill a hook that runs too long (gfh's hook settings give each 30 s) and then show the
agent nothing, record nothing. So the call sets its own alarm well before that: `SIGALRM` from
`setitimer` in the hook process, no thread. When it rings, `BudgetExceeded` unwinds the call
(a `BaseException`, so no `except Exception` of a context source swallows it and goes on), and
the runtime's fail-open boundary writes the neutral answer and a `hook.error`. Where there is
no `setitimer` (Windows) or the call is not on the main thread, there is no alarm.
"""

from __future__ import annotations

import os
import time

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

DEFAULT_S = 20.0  # under the 30 s `gfh init` gives every hook entry, with room to answer
VARIABLE = "GFH_HOOK_BUDGET_S"

_deadline: float | None = None


class BudgetExceeded(BaseException):  # not Exception: no source's `except Exception` may go on
    """The hook call ran past its budget."""

    def __init__(self, budget_s: float) -> None:
        super().__init__(f"the call ran past its {budget_s:g} s budget (${VARIABLE})")
        self.budget_s = budget_s


def budget_s() -> float:
    """Return the call's budget in seconds: `$GFH_HOOK_BUDGET_S` when it is a positive number,
    else `DEFAULT_S`."""
    try:
        value = float(os.environ.get(VARIABLE, ""))
    except ValueError:
        return DEFAULT_S
    return value if 0 < value < 3600 else DEFAULT_S


def remaining() -> float | None:
    """Seconds left of the running call's budget, or None when no budget is armed."""
    return None if _deadline is None else max(0.0, _deadline - time.monotonic())


def arm() -> Callable[[], None]:
    """Start the budget; return the function that stops it and restores the previous handler.

    The alarm rings once: its handler stops the timer before it raises, so the fail-open that
    follows runs without a second interruption."""
    global _deadline
    signal = _signals()
    seconds = budget_s()
    _deadline = time.monotonic() + seconds
    if not hasattr(signal, "setitimer"):  # pragma: no cover - Windows
        return _forget

    def ring(signum: int, frame: Any) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        raise BudgetExceeded(seconds)

    try:
        previous = signal.signal(signal.SIGALRM, ring)
    except ValueError:  # not the main thread: only the main thread may set a handler
        return _forget
    signal.setitimer(signal.ITIMER_REAL, seconds)

    def disarm() -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        _forget()

    return disarm


def _signals() -> Any:
    """The C module `signal` is built on: the same functions and numbers, without the enums
    `signal` makes of them on import (~1 ms of every hook call); `signal` where there is none."""
    try:
        return __import__("_signal")
    except ImportError:  # pragma: no cover - an interpreter without it
        import signal

        return signal


def _forget() -> None:
    global _deadline
    _deadline = None
