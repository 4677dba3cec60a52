"""Postchecks: a way's `postcheck.sh` asks for the way to fire after a tool ran (DESIGN §6).

Each gets the hook payload on stdin and runs with the repository root as its working directory,
its output discarded, killed (with everything it started) at `ways.postcheck_timeout_s`. Exit 0
requests firing through the same gate as every other lane. Only a postcheck tracked by git at
HEAD runs, so checking out an untrusted branch cannot run new code through the hook. Several run
in parallel.

`$GFH_WAY_STATE` names the way's own hand-off directory in the session's state: a postcheck may
leave a finding there for its macro. The runtime keeps it bounded: entries older than the TTL
go, then the oldest until at most `HANDOFF_MAX_ENTRIES` entries and `HANDOFF_MAX_BYTES` remain.
It is never an input to the firing decision.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from gitflow_harness.agent.context import HookContext

HANDOFF = "handoff"
HANDOFF_MAX_ENTRIES = 32
HANDOFF_MAX_BYTES = 256 * 1024
HANDOFF_TTL_S = 24 * 3600

REQUESTED = "requested"  # exit 0: fire, through the gate
QUIET = "quiet"  # any other exit
TIMEOUT = "timeout"  # killed at the timeout
UNTRACKED = "untracked"  # not tracked at HEAD: never run
FAILED = "failed"  # could not be started

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


class Postcheck:
    """One way's postcheck: the way id and the script, repo-relative (POSIX)."""

    __slots__ = ("path", "way")

    def __init__(self, way: str, path: str) -> None:
        self.way = way
        self.path = path

    def __repr__(self) -> str:
        return f"Postcheck({self.way!r}, {self.path!r})"


class Result:
    """What became of one postcheck."""

    __slots__ = ("code", "status", "way")

    def __init__(self, way: str, status: str, code: int | None = None) -> None:
        self.way = way
        self.status = status
        self.code = code

    def __repr__(self) -> str:
        return f"Result({self.way!r}, {self.status}, code={self.code})"


def handoff_dir(session_directory: Path, way: str, *, create: bool = True) -> Path:
    """Return the way's hand-off directory inside a session directory (0700)."""
    name = _UNSAFE.sub("_", way.replace("/", "__"))[:120] or "_"
    path = session_directory / HANDOFF / name
    if create:
        from gitflow_harness.store.fsutil import ensure_private_dir

        ensure_private_dir(path)
    return path


def prune_handoff(
    directory: Path,
    *,
    max_entries: int = HANDOFF_MAX_ENTRIES,
    max_bytes: int = HANDOFF_MAX_BYTES,
    ttl_s: float = HANDOFF_TTL_S,
    now: float | None = None,
) -> int:
    """Bound a hand-off directory: drop expired entries, then the oldest over the caps."""
    now = time.time() if now is None else now
    entries: list[tuple[float, int, str]] = []
    try:
        scan = list(os.scandir(directory))
    except OSError:
        return 0
    removed = 0
    for entry in scan:
        try:
            mtime = entry.stat(follow_symlinks=False).st_mtime
            size = _size(entry)
        except OSError:
            continue
        if now - mtime > ttl_s:
            _remove(entry.path)
            removed += 1
        else:
            entries.append((mtime, size, entry.path))
    entries.sort()
    total = sum(size for _, size, _ in entries)
    while entries and (len(entries) > max_entries or total > max_bytes):
        _, size, path = entries.pop(0)
        _remove(path)
        total -= size
        removed += 1
    return removed


def run_postchecks(
    top: Path,
    checks: Sequence[Postcheck],
    payload: bytes,
    *,
    timeout_s: float,
    session: str | None,
    session_directory: Path | None,
) -> list[Result]:
    """Run the tracked postchecks in parallel; return one result per check, in order."""
    from gitflow_harness import git

    tracked = git.tracked_at_head_many(top, [c.path for c in checks])
    results: dict[int, Result] = {}
    running: list[tuple[int, subprocess.Popen[bytes], Path | None]] = []
    feeders: list[threading.Thread] = []
    for index, check in enumerate(checks):
        if check.path not in tracked:
            results[index] = Result(check.way, UNTRACKED)
            continue
        handoff = None
        env = dict(os.environ)
        env["GFH_WAY"] = check.way
        if session:
            env["GFH_SESSION"] = session
        if session_directory is not None:
            handoff = handoff_dir(session_directory, check.way)
            prune_handoff(handoff)
            env["GFH_WAY_STATE"] = str(handoff)
        argv = script_argv(top / check.path)
        try:
            proc = subprocess.Popen(
                argv,
                cwd=top,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # its own process group: the timeout kills all of it
            )
        except OSError:
            results[index] = Result(check.way, FAILED)
            continue
        feeder = threading.Thread(target=feed_stdin, args=(proc, payload), daemon=True)
        feeder.start()
        feeders.append(feeder)
        running.append((index, proc, handoff))
    deadline = time.monotonic() + max(0.0, timeout_s)
    for index, proc, handoff in running:
        way = checks[index].way
        try:
            code = proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            results[index] = Result(way, REQUESTED if code == 0 else QUIET, code)
        except subprocess.TimeoutExpired:
            results[index] = Result(way, TIMEOUT)
        kill_group(proc)
        if handoff is not None:
            prune_handoff(handoff)
    for feeder in feeders:
        feeder.join(timeout=1.0)
    return [results[i] for i in range(len(checks))]


def run_for(ctx: HookContext, checks: Sequence[Postcheck]) -> list[Result]:
    """Run postchecks for a hook call: its payload, its session, the configured timeout."""
    if ctx.repo is None or not checks:
        return [Result(c.way, UNTRACKED) for c in checks]
    ways = ctx.config().get("ways", {})
    timeout = ways.get("postcheck_timeout_s", 5.0) if isinstance(ways, dict) else 5.0
    return run_postchecks(
        ctx.repo.top,
        checks,
        ctx.event.raw,
        timeout_s=float(timeout),
        session=ctx.session,
        session_directory=ctx.store.directory if ctx.store is not None else None,
    )


def script_argv(script: Path) -> list[str]:
    """Return how to run a way's script: directly when it is executable and names its
    interpreter (`#!`), else with `sh`, as a shell would run a script without one."""
    if os.access(script, os.X_OK):
        try:
            with open(script, "rb") as fh:
                if fh.read(2) == b"#!":
                    return [str(script)]
        except OSError:
            pass
    return ["sh", str(script)]


def feed_stdin(proc: subprocess.Popen[bytes], payload: bytes) -> None:
    """Write the hook payload to a script's stdin and close it (for a thread: it may block)."""
    stdin = proc.stdin
    if stdin is None:
        return
    try:
        stdin.write(payload)
    except (BrokenPipeError, OSError, ValueError):
        pass  # the postcheck did not read its stdin: its choice
    finally:
        with contextlib.suppress(BrokenPipeError, OSError, ValueError):
            stdin.close()


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill what the postcheck left running (it may have exited, its children may not have)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def _size(entry: os.DirEntry[str]) -> int:
    if entry.is_dir(follow_symlinks=False):
        total = 0
        for root, _dirs, files in os.walk(entry.path):
            for name in files:
                with contextlib.suppress(OSError):
                    total += os.lstat(os.path.join(root, name)).st_size
        return total
    return entry.stat(follow_symlinks=False).st_size


def _remove(path: str) -> None:
    import shutil

    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            os.unlink(path)
