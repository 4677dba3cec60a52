"""A way's scripts, `postcheck.sh` and `macro.sh`: which may run, and the one way they run.

**Only committed content runs.** A script runs when HEAD's tree holds it as a regular file and
the file in the working tree is, byte for byte, the blob committed there: one `git ls-tree` for
every script of the hook call, then each file is hashed as git hashes a blob. A new script, a
staged one, an uncommitted edit of a tracked one, or a symlink never runs. What this guarantees
is that nothing runs which HEAD does not hold; checking out a branch that commits a script moves
HEAD, and that script then runs, like the branch's code would.

**Running.** Each script gets the hook payload on stdin, the repository root as its working
directory, and `GFH_WAY`, `GFH_SESSION` and `GFH_WAY_STATE` (the way's hand-off directory) in
its environment. The scripts of one call run in parallel, each in its own process group.
`ways.postcheck_timeout_s` is the budget of all the scripts of a hook call together: the macros
that run after the postchecks get what the postchecks left (and none start once it is spent),
and none outlives what remains of the call's own budget (`budget`). Stderr is discarded; stdout
too, unless the caller reads it (up to `MAX_OUTPUT` bytes).

**Killing.** At the deadline, or once a script exited, what it started is killed: its process
group, and on Linux every descendant, also one that left the group with `setsid` (`reaper`).

**Hand-offs.** `$GFH_WAY_STATE` is the way's own directory in the session state, where a
postcheck may leave its macro a finding. The runtime bounds it before and after each run:
entries older than the TTL go, then the oldest until at most `HANDOFF_MAX_ENTRIES` entries and
`HANDOFF_MAX_BYTES` remain. It is never an input to the firing decision.
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

from gitflow_harness.git.tree import UNTRACKED, committed
from gitflow_harness.ways.reaper import Reaper, descendants

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from gitflow_harness.agent.context import HookContext

HANDOFF = "handoff"
HANDOFF_MAX_ENTRIES = 32
HANDOFF_MAX_BYTES = 256 * 1024
HANDOFF_TTL_S = 24 * 3600
CALL_RESERVE_S = 2.0  # of the call's budget, kept to answer and record after the scripts
MAX_OUTPUT = 64 * 1024  # more than any host takes as context: a script this loud is broken

# What became of a script.
EXITED = "exited"  # ran to its end: see the exit code
TIMEOUT = "timeout"  # killed at the deadline
FAILED = "failed"  # could not be started
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


class Script:
    """One way's script: the way id, the script (repo-relative, POSIX) and extra environment."""

    __slots__ = ("env", "path", "way")

    def __init__(self, way: str, path: str, env: Mapping[str, str] | None = None) -> None:
        self.way = way
        self.path = path
        self.env = dict(env or {})

    def __repr__(self) -> str:
        return f"Script({self.way!r}, {self.path!r})"


class Run:
    """What became of one script: its status, exit code and (when read) what it printed."""

    __slots__ = ("code", "output", "status", "way")

    def __init__(
        self, way: str, status: str, code: int | None = None, output: bytes | None = None
    ) -> None:
        self.way = way
        self.status = status
        self.code = code
        self.output = output  # None when not read, or past MAX_OUTPUT

    def __repr__(self) -> str:
        return f"Run({self.way!r}, {self.status}, code={self.code})"


def run_scripts(
    top: Path,
    scripts: Sequence[Script],
    payload: bytes,
    *,
    timeout_s: float,
    session: str | None,
    session_directory: Path | None,
    read_output: bool = False,
) -> list[Run]:
    """Run the committed scripts in parallel until the deadline; return one `Run` per script,
    in order. With no time left, none starts (each is a `TIMEOUT`)."""
    allowed = committed(top, [s.path for s in scripts])
    runs: dict[int, Run] = {}
    running: list[tuple[int, subprocess.Popen[bytes], _Reader | None, Path | None]] = []
    deadline = time.monotonic() + max(0.0, timeout_s)
    reaper = Reaper()
    try:
        for index, script in enumerate(scripts):
            content = allowed[script.path]
            if not isinstance(content, bytes):
                runs[index] = Run(script.way, content)
                continue
            if timeout_s <= 0:
                runs[index] = Run(script.way, TIMEOUT)
                continue
            env = dict(os.environ)
            env.pop("GFH_SALIENCE", None)  # only a staircase's macro is told one
            env["GFH_WAY"] = script.way
            if session:
                env["GFH_SESSION"] = session
            handoff = None
            if session_directory is not None:
                handoff = handoff_dir(session_directory, script.way)
                prune_handoff(handoff)
                env["GFH_WAY_STATE"] = str(handoff)
            env.update(script.env)
            reaper.start()
            try:
                proc = subprocess.Popen(
                    script_argv(top / script.path, content),
                    cwd=top,
                    env=env,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE if read_output else subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,  # its own process group: the deadline kills all of it
                )
            except OSError:
                runs[index] = Run(script.way, FAILED)
                continue
            reaper.track(proc)
            threading.Thread(target=feed_stdin, args=(proc, payload), daemon=True).start()
            reader = _Reader(proc) if read_output else None
            if reader is not None:
                reader.start()
            running.append((index, proc, reader, handoff))
        for index, proc, reader, handoff in running:
            way = scripts[index].way
            try:
                code = proc.wait(timeout=max(0.0, deadline - time.monotonic()))
                runs[index] = Run(way, EXITED, code)
            except subprocess.TimeoutExpired:
                runs[index] = Run(way, TIMEOUT)
            kill_group(proc)
            if reader is not None:
                reader.join(timeout=1.0)
                runs[index].output = reader.data
            if handoff is not None:
                prune_handoff(handoff)
    finally:
        # Also when the call's budget interrupts the wait: nothing a script started outlives it.
        for _, proc, _, _ in running:
            kill_group(proc, wait=False)
        reaper.finish()
        for _, proc, _, _ in running:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
    return [runs[i] for i in range(len(scripts))]


def run_for(ctx: HookContext, scripts: Sequence[Script], *, read_output: bool = False) -> list[Run]:
    """Run scripts for a hook call: its payload, its session, and what is left of the call's
    script budget (`ways.postcheck_timeout_s` for all its scripts together)."""
    if ctx.repo is None or not scripts:
        return [Run(s.way, UNTRACKED) for s in scripts]
    now = time.monotonic()
    if ctx.scripts_deadline is None:
        ctx.scripts_deadline = now + float(ctx.setting("ways", "postcheck_timeout_s"))
    timeout_s = ctx.scripts_deadline - now
    from gitflow_harness.hookcall.budget import remaining

    left = remaining()
    if left is not None:
        # Leave the call time to answer and record once its scripts are killed.
        timeout_s = min(timeout_s, left - CALL_RESERVE_S)
    return run_scripts(
        Path(ctx.repo.top),
        scripts,
        ctx.event.raw,
        timeout_s=timeout_s,
        session=ctx.session,
        session_directory=Path(ctx.store.directory) if ctx.store is not None else None,
        read_output=read_output,
    )


def script_argv(script: Path, content: bytes) -> list[str]:
    """Return how to run a script: directly when it is executable and names its interpreter
    (`#!`), else with `sh`, as a shell would run a script without one."""
    if content.startswith(b"#!") and os.access(script, os.X_OK):
        return [str(script)]
    return ["sh", str(script)]


def feed_stdin(proc: subprocess.Popen[bytes], payload: bytes) -> None:
    """Write the hook payload to a script's stdin and close it (for a thread: it may block)."""
    stdin = proc.stdin
    if stdin is None:
        return
    try:
        stdin.write(payload)
    except (BrokenPipeError, OSError, ValueError):
        pass  # the script did not read its stdin: its choice
    finally:
        with contextlib.suppress(BrokenPipeError, OSError, ValueError):
            stdin.close()


def kill_group(proc: subprocess.Popen[bytes], *, wait: bool = True) -> None:
    """Kill what the script left running (it may have exited, its children may not have):
    its process group, and every descendant still in its tree (walked only while the script
    is not reaped: a reaped pid may name another process by now; its orphans are the
    reaper's)."""
    for pid in descendants([proc.pid]) if proc.returncode is None else ():
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    if wait:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)


# -- hand-offs --------------------------------------------------------------------------------


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


# -- helpers ----------------------------------------------------------------------------------


class _Reader(threading.Thread):
    """Reads a script's stdout up to `MAX_OUTPUT` bytes; `data` stays None past that."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        super().__init__(daemon=True)
        self.proc = proc
        self.data: bytes | None = None

    def run(self) -> None:
        stream = self.proc.stdout
        if stream is None:
            return
        try:
            data = stream.read(MAX_OUTPUT + 1)
        except (OSError, ValueError):
            return
        finally:
            # Closing the pipe stops a script that prints on and on: it gets SIGPIPE.
            with contextlib.suppress(OSError, ValueError):
                stream.close()
        if len(data) <= MAX_OUTPUT:
            self.data = data


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
