"""Killing everything a way script started, also what left its process group (Linux).

A script runs in its own process group, but a descendant may leave it with `setsid`, and one
whose parent exited is re-parented away from the script's tree. While scripts run, `Reaper`
makes the hook process a child subreaper (`PR_SET_CHILD_SUBREAPER`), so such orphans are
re-parented to it rather than to init; `finish` walks `/proc` for the descendants of the scripts
and the new children of the hook process, kills them, reaps the orphans, and walks again until
none is left. Elsewhere (no `/proc`) only the process group is killed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Sequence


class Reaper:
    """Makes the hook process a child subreaper while scripts run (Linux), then kills and reaps
    every orphan re-parented to it and every descendant of the scripts it tracked."""

    def __init__(self) -> None:
        self.started = False
        self.was: int | None = None
        self.before: set[int] = set()
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self) -> None:
        """Become a subreaper (once), remembering the children this process already had."""
        if self.started:
            return
        self.started = True
        self.before = set(_children(os.getpid()))
        self.was = _set_subreaper(1)

    def track(self, proc: subprocess.Popen[bytes]) -> None:
        """Count `proc` as a script whose descendants must not outlive the run."""
        self.procs.append(proc)

    def finish(self) -> None:
        """Kill and reap what the scripts left, then stop being a subreaper."""
        if not self.started:
            return
        ours = {proc.pid for proc in self.procs}
        for _ in range(_KILL_ROUNDS):
            # A script already reaped is left out: its pid may name another process by now.
            running = [proc.pid for proc in self.procs if proc.returncode is None]
            orphans = [p for p in _children(os.getpid()) if p not in self.before | ours]
            orphans = [p for p in orphans if not _reaped(p)]
            alive = [p for p in descendants([*running, *orphans]) if _alive(p)]
            if not alive and not orphans:
                break
            for pid in alive:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)  # let the kills land before the next look
        if self.was == 0:
            _set_subreaper(0)


_KILL_ROUNDS = 8


def _set_subreaper(value: int) -> int | None:
    """Set PR_SET_CHILD_SUBREAPER on this process; return what it was (None off Linux)."""
    if not os.path.isdir("/proc/self/task"):
        return None
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        was = ctypes.c_int(0)
        libc.prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(was), 0, 0, 0)
        if libc.prctl(_PR_SET_CHILD_SUBREAPER, value, 0, 0, 0) != 0:
            return None
        return was.value
    except (OSError, AttributeError):
        return None


_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37


def _children(pid: int) -> list[int]:
    """The child processes of `pid` (Linux `/proc`); [] where that cannot be read."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    out: list[int] = []
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", encoding="ascii") as fh:
                out.extend(int(p) for p in fh.read().split())
        except (OSError, ValueError):
            continue
    return out


def descendants(roots: Sequence[int]) -> list[int]:
    """`roots` and every process below them, parents before children."""
    seen: list[int] = []
    todo = list(roots)
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.append(pid)
        todo.extend(_children(pid))
    return seen


def _reaped(pid: int) -> bool:
    """Reap `pid` if it is a child of ours that finished; True once it is gone."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return done == pid


def _alive(pid: int) -> bool:
    """True while `pid` runs (a zombie has finished)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rpartition(")")[2].split()[0] != "Z"
    except (OSError, IndexError):
        return False
