"""Run gate commands with their output streamed live, and summarise each run."""

from __future__ import annotations

import io
import os
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from gitflow_harness.errors import GfhError

CHUNK = 8192


@dataclass(frozen=True, slots=True)
class Console:
    """Where a verb's live output goes: the gate commands' own output, and one-line notes.

    The CLI passes stdout for text output and stderr under `--json` (stdout then carries exactly
    one JSON object). A stream with a real file descriptor is handed to the child as it is, so a
    person watching a long test run sees it live, colours and progress bars included.
    """

    stream: IO[str]
    note: Callable[[str], None]


@dataclass(frozen=True, slots=True)
class CommandRun:
    """How one gate command went."""

    stage: str  # "prepare" | "test"
    command: str
    exit_code: int
    duration_ms: int

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "command": self.command,
            "exit_code": self.exit_code,
            "duration_ms": self.duration_ms,
        }


def run_commands(
    stage: str, commands: Sequence[str], *, cwd: Path, console: Console
) -> list[CommandRun]:
    """Run `commands` in order through the shell in `cwd`, stopping at the first failure."""
    runs: list[CommandRun] = []
    for command in commands:
        console.note(f"[{stage}] $ {command}")
        start = time.perf_counter()
        code = _run_one(command, cwd, console)
        elapsed = int((time.perf_counter() - start) * 1000)
        run = CommandRun(stage, command, code, elapsed)
        runs.append(run)
        seconds = f"{elapsed / 1000:.1f} s"
        if run.ok:
            console.note(f"[{stage}] ok: `{command}` ({seconds})")
        else:
            console.note(f"[{stage}] FAILED: `{command}` exited {code} ({seconds})")
            break
    return runs


def _run_one(command: str, cwd: Path, console: Console) -> int:
    env = {**os.environ, "GFH_GATE": "1"}
    fd = _fileno(console.stream)
    proc: subprocess.Popen[bytes] | None = None
    try:
        if fd is not None:
            console.stream.flush()
            # Child stderr stays stderr; under --json (fd 2) both streams go to stderr.
            proc = subprocess.Popen(
                command,
                shell=True,
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=fd,
                stderr=None if fd == 1 else fd,
            )
            return proc.wait()
        # No file descriptor (an in-process caller capturing text): copy the output as it comes.
        proc = subprocess.Popen(
            command,
            shell=True,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        stdout = proc.stdout
        assert isinstance(stdout, io.BufferedReader)
        while chunk := stdout.read1(CHUNK):
            console.stream.write(chunk.decode("utf-8", errors="replace"))
        return proc.wait()
    except KeyboardInterrupt:
        if proc is not None:
            proc.terminate()
            proc.wait()
        raise GfhError(f"interrupted while running `{command}`; no gate result recorded") from None
    except OSError as exc:
        raise GfhError(f"cannot run `{command}` in {cwd}: {exc.strerror}") from None


def _fileno(stream: IO[str]) -> int | None:
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None
