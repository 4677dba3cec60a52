"""Macros: a way's `macro.sh` writes text that goes before or after its body when it fires.

A macro runs only for a way that is about to be delivered, and only if git tracks it at HEAD
(like a postcheck: checking out an untrusted branch cannot run new code through the hook). It
gets the hook payload on stdin, the repository root as working directory, and in its
environment `GFH_WAY`, `GFH_SESSION`, `GFH_WAY_STATE` (the way's hand-off directory, where its
postcheck may have left a finding) and, for a ProgressiveStaircase, `GFH_SALIENCE` (the step's
salience). Several run in parallel; each is killed with everything it started at
`ways.postcheck_timeout_s`. What it prints on exit 0 is used; a failure, a timeout or more than
`MAX_OUTPUT` bytes leave the body alone. Its output goes to the agent only, never to disk.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time

from gitflow_harness.agent.postcheck import (
    feed_stdin,
    handoff_dir,
    kill_group,
    prune_handoff,
    script_argv,
)

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from gitflow_harness.agent.context import HookContext

MAX_OUTPUT = 64 * 1024  # more than any host takes as context: a macro this loud is broken


class Macro:
    """One way's macro: the way id, the script (repo-relative, POSIX), and its step's salience."""

    __slots__ = ("path", "salience", "way")

    def __init__(self, way: str, path: str, salience: float | None = None) -> None:
        self.way = way
        self.path = path
        self.salience = salience

    def __repr__(self) -> str:
        return f"Macro({self.way!r}, {self.path!r}, salience={self.salience})"


def run_macros(
    top: Path,
    macros: Sequence[Macro],
    payload: bytes,
    *,
    timeout_s: float,
    session: str | None,
    session_directory: Path | None,
) -> dict[str, str]:
    """Run the tracked macros in parallel; return way id -> what it printed (exit 0 only)."""
    from gitflow_harness import git

    tracked = git.tracked_at_head_many(top, [m.path for m in macros])
    running: list[tuple[Macro, subprocess.Popen[bytes], _Reader, Path | None]] = []
    for macro in macros:
        if macro.path not in tracked:
            continue
        env = dict(os.environ)
        env["GFH_WAY"] = macro.way
        env.pop("GFH_SALIENCE", None)
        if macro.salience is not None:
            env["GFH_SALIENCE"] = f"{macro.salience:g}"
        if session:
            env["GFH_SESSION"] = session
        handoff = None
        if session_directory is not None:
            handoff = handoff_dir(session_directory, macro.way)
            prune_handoff(handoff)
            env["GFH_WAY_STATE"] = str(handoff)
        argv = script_argv(top / macro.path)
        try:
            proc = subprocess.Popen(
                argv,
                cwd=top,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # its own process group: the timeout kills all of it
            )
        except OSError:
            continue
        threading.Thread(target=feed_stdin, args=(proc, payload), daemon=True).start()
        reader = _Reader(proc)
        reader.start()
        running.append((macro, proc, reader, handoff))
    deadline = time.monotonic() + max(0.0, timeout_s)
    out: dict[str, str] = {}
    for macro, proc, reader, handoff in running:
        try:
            code: int | None = proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            code = None
        kill_group(proc)
        reader.join(timeout=1.0)
        if code == 0 and reader.data is not None:
            out[macro.way] = reader.data.decode("utf-8", "replace")
        if handoff is not None:
            prune_handoff(handoff)
    return out


def run_for(ctx: HookContext, macros: Sequence[Macro]) -> dict[str, str]:
    """Run macros for a hook call: its payload, its session, the configured timeout."""
    if ctx.repo is None or not macros:
        return {}
    ways = ctx.config().get("ways", {})
    timeout = ways.get("postcheck_timeout_s", 5.0) if isinstance(ways, dict) else 5.0
    return run_macros(
        ctx.repo.top,
        macros,
        ctx.event.raw,
        timeout_s=float(timeout),
        session=ctx.session,
        session_directory=ctx.store.directory if ctx.store is not None else None,
    )


class _Reader(threading.Thread):
    """Reads a macro's stdout up to `MAX_OUTPUT` bytes; `data` stays None past that."""

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
            # Closing the pipe stops a macro that prints on and on: it gets SIGPIPE.
            with contextlib.suppress(OSError, ValueError):
                stream.close()
        if len(data) <= MAX_OUTPUT:
            self.data = data
