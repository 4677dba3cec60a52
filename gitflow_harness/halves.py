"""Work in two processes: a forked child does one part while this process does the other.

A load that finds hundreds of way files no cache knows (the first load of a ways tree on a
machine) is all CPU: reading and checking each file's frontmatter, about 0.3 ms a way. The
files are independent, so the call forks once and the child works through the second half
while the parent works through the first, as `git` spreads its own work over the cores
(`index.threads`, `checkout.workers`). A report over a long log does the same with its
detectors (`report/runner.py`). The child sends what it made back through a pipe (in `marshal`
unless the caller names another codec) and ends with `os._exit`: it writes no file, flushes no
stream of the parent's and runs no exit handler. It lives as long as its part takes and no
longer.

It forks only where that is sound and pays: on Linux (macOS's system libraries may start
threads of their own, which makes a fork without exec unsafe there, and Windows has no fork),
with a second CPU to run on and not taken (the load average under the CPUs but half of one),
and in a process with no other thread (a thread holding a lock at the fork would leave the
child's copy of it held for ever). Anything that goes wrong with the
child (it cannot be started, it dies, it sends something unreadable) costs only time: the
parent does the child's half itself.
"""

from __future__ import annotations

import marshal
import os
import sys

TYPE_CHECKING = False  # see firing/curves.py: no `typing` import at run time
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, BinaryIO, TypeVar

    T = TypeVar("T")

MIN_ITEMS = 64  # fewer are done in one process: the fork and the pages it copies cost ms


def available() -> bool:
    """True when this process may fork a child to share its work with."""
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return False  # pragma: no cover - the suite runs on Linux
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return False
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - Linux has it
        cpus = os.cpu_count() or 1
    if cpus < 2:
        return False
    try:
        busy = os.getloadavg()[0]
    except OSError:  # pragma: no cover - Linux has it
        return True
    # A child pays only where a CPU is idle for it: on a machine already that busy, the fork's
    # own cost and the child's copied pages made the load slower (measured on two cores).
    return busy < cpus - 0.5


def in_halves(
    items: Sequence[T],
    mine: Callable[[Sequence[T]], None],
    theirs: Callable[[Sequence[T]], object],
    take: Callable[[Sequence[T], object], bool],
    ready: Callable[[], object] | None = None,
) -> None:
    """Work through `items`: `mine` does a part in this process; `theirs` does a part in a
    child and returns what `take` is given back in this process (a value `marshal` writes),
    `take` returning False when what came back cannot be used. `ready` runs before the fork
    (what both processes need, done once). Where no child can be used, `mine` does all of it."""
    if len(items) < MIN_ITEMS or not available():
        mine(items)
        return
    half = split_at(len(items))
    share(items[:half], items[half:], mine, theirs, take, ready=ready)


def share(
    first: Sequence[T],
    second: Sequence[T],
    mine: Callable[[Sequence[T]], None],
    theirs: Callable[[Sequence[T]], object],
    take: Callable[[Sequence[T], object], bool],
    *,
    ready: Callable[[], object] | None = None,
    dumps: Callable[[Any], bytes] = marshal.dumps,
    loads: Callable[[bytes], object] = marshal.loads,
) -> None:
    """`mine(first)` here while a child runs `theirs(second)`, whose answer (written with
    `dumps`, read with `loads`) `take` is given; where the child cannot be started `mine` does
    both parts at once, and where it fails or `take` refuses its answer, `mine(second)` after.
    The caller has checked that a child may be used (`available`)."""
    if ready is not None:
        ready()
    child = _start(second, theirs, dumps)
    if child is None:
        mine([*first, *second])
        return
    pid, reader = child
    with open(reader, "rb") as pipe:
        try:
            mine(first)
            answer = _collect(pid, pipe, loads)
        except BaseException:
            _stop(pid)  # this process is going (its budget, an error): the child goes too
            raise
    if answer is _NOTHING or not take(second, answer):
        mine(second)


_NOTHING = object()


def split_at(count: int) -> int:
    """How many of `count` items this process does: a little under half, for it has the
    work's end to do after its own part (the child's results to take, the caches to write),
    about a tenth of a half's work."""
    return count * 47 // 100


def _start(
    items: Sequence[T], theirs: Callable[[Sequence[T]], object], dumps: Callable[[Any], bytes]
) -> tuple[int, int] | None:
    """Fork the child that runs `theirs(items)`; return its pid and the pipe's read end."""
    try:
        reader, writer = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(reader)
        os.close(writer)
        return None
    if pid == 0:  # pragma: no cover - the child: coverage sees the same calls in the parent
        code = 1
        try:
            os.close(reader)
            data = dumps(theirs(items))
            with open(writer, "wb", closefd=True) as out:
                out.write(data)
            code = 0
        except BaseException:  # whatever it was, the parent does this half itself
            pass
        os._exit(code)
    os.close(writer)
    return pid, reader


def _collect(pid: int, pipe: BinaryIO, loads: Callable[[bytes], object]) -> object:
    """Read the child's answer to its end and wait for it; `_NOTHING` when it failed."""
    chunks = []
    while chunk := pipe.read(1 << 16):
        chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        return _NOTHING
    try:
        return loads(b"".join(chunks))
    except Exception:  # (marshal: EOFError, ValueError, TypeError; pickle: more)
        return _NOTHING


def _stop(pid: int) -> None:
    """Kill the child and reap it."""
    import contextlib
    import signal

    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.waitpid(pid, 0)
