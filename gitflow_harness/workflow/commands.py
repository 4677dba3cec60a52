"""Run gate commands with their output streamed live, and summarise each run."""

from __future__ import annotations

import io
import os
import re
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from gitflow_harness.errors import GfhError
from gitflow_harness.workflow.run import Console as Console  # declared there, named here

# Not `typing.TYPE_CHECKING`: `gfh status` does not import typing (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any, Final, NamedTuple
else:
    from gitflow_harness.records import NamedTuple

CHUNK = 8192
# The shell's exit codes for a program it could not run: not executable, not found.
UNRUNNABLE: Final = frozenset({126, 127})
# Words a command can start with that are the shell's own, not a program on PATH.
SHELL_WORDS: Final = frozenset(
    {
        "!", ".", ":", "[", "{", "alias", "builtin", "case", "cd", "command", "eval", "exec",
        "exit", "export", "false", "for", "if", "read", "return", "set", "source", "test",
        "time", "true", "ulimit", "umask", "unset", "until", "while",
    }
)  # fmt: skip
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


# A NamedTuple, not a dataclass: every verb imports this module, and a frozen dataclass
# costs about five times as much to define (~0.5 ms each on these machines).
class CommandRun(NamedTuple):
    """How one gate command went."""

    stage: str  # "prepare" | "test"
    command: str
    exit_code: int
    duration_ms: int
    # The module a `python -m MODULE` command named that its interpreter cannot import: the
    # environment lacks it (a venv's python shadowing the one that has it), not the tree.
    missing_module: str | None = None

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    @property
    def unrunnable(self) -> bool:
        """True when the shell could not run a program (126: not executable, 127: not found),
        or the interpreter has no module the command runs (`No module named …`).

        The command then said nothing about the tree: the environment is missing a tool.
        """
        return self.exit_code in UNRUNNABLE or self.missing_module is not None

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
        missing = None
        if code not in (0, *UNRUNNABLE):
            missing = missing_module(command, cwd)
        run = CommandRun(stage, command, code, elapsed, missing)
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


_PYTHON = re.compile(r"python[0-9.]*")
# Exits 3 when the module cannot be found: a code the interpreter itself never uses for that.
_PROBE = (
    "import importlib.util, sys\n"
    "try:\n    found = importlib.util.find_spec(sys.argv[1]) is not None\n"
    "except (ImportError, ValueError):\n    found = False\n"
    "sys.exit(0 if found else 3)\n"
)


def missing_module(command: str, cwd: Path) -> str | None:
    """For a failed `python… -m MODULE …`, the module (its top-level package) that interpreter
    cannot import, else None. Asked after the run, of the same interpreter, so the command's
    own output streams live and untouched."""
    import shlex  # here: only a failed gate command needs it

    try:
        words = shlex.split(command)
    except ValueError:
        return None
    words = [w for w in words if not _ASSIGNMENT.match(w)] if words else []
    if len(words) < 3 or not _PYTHON.fullmatch(os.path.basename(words[0])):
        return None
    if "-m" not in words[1:-1]:
        return None
    module = words[words.index("-m", 1) + 1].split(".")[0]
    try:
        probe = subprocess.run(
            [words[0], "-c", _PROBE, module],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return module if probe.returncode == 3 else None


def unrunnable_program(run: CommandRun, cwd: Path) -> tuple[str, str]:
    """Name what could not be run in an `unrunnable` command, and say what went wrong.

    The program is the command's first word (after `NAME=value` assignments) when that word
    itself cannot be run; otherwise the failure came from something the command runs, and the
    whole command is named.
    """
    if run.missing_module is not None:
        return _first_word(run.command) or run.command, f"has no module {run.missing_module}"
    first = _first_word(run.command)
    if first is not None and first not in SHELL_WORDS and not _runnable(first, cwd):
        return first, "was not found" if run.exit_code == 127 else "could not be executed"
    if run.exit_code == 127:
        return run.command, "could not find a program it runs"
    return run.command, "could not execute a program it runs"


def _first_word(command: str) -> str | None:
    import shlex  # here: only a failed gate command needs it

    try:
        words = shlex.split(command)
    except ValueError:  # unbalanced quotes: the shell will say so; guess from the spaces
        words = command.split()
    return next((w for w in words if not _ASSIGNMENT.match(w)), None)


def _runnable(program: str, cwd: Path) -> bool:
    if "/" in program:
        path = cwd / program
        return path.is_file() and os.access(path, os.X_OK)
    import shutil

    return shutil.which(program) is not None
