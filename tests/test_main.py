"""The process entry point: what it readies for a call that runs once and exits."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

from tests.helpers import CliRunner


def test_a_callers_own_process_keeps_its_garbage_collector(tmp_path: Path) -> None:
    """If `main` is called in-process with arguments (a caller, a test), then the caller's
    garbage collector is left as it was, for the hook and `status` alike."""
    runner = CliRunner()
    assert gc.isenabled()
    runner("hook", "claude", "Stop", stdin="{}")
    runner("status", "--json")
    assert gc.isenabled()


def test_a_hook_process_runs_without_the_cyclic_collector(tmp_path: Path) -> None:
    """If gfh runs as its own process for a hook, then the cyclic collector is off for the
    call (it would pass 5 to 15 times and free nothing the exit does not); a command that
    takes Click keeps it."""
    probe = (
        "import gc, sys\n"
        "import gitflow_harness.main as m\n"
        "seen = []\n"
        "m.quick = (lambda q: lambda: (q(), seen.append(gc.isenabled())))(m.quick)\n"
        "sys.argv = ['gfh', *sys.argv[1:]]\n"
        "try:\n"
        "    m.main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(gc.isenabled(), seen)\n"
    )

    def run(*args: str) -> str:
        proc = subprocess.run(
            [sys.executable, "-c", probe, *args],
            cwd=tmp_path,
            input="{}",
            capture_output=True,
            text=True,
            check=False,
        )
        return proc.stdout.strip().splitlines()[-1]

    assert run("hook", "claude", "Stop") == "False [False]"
    assert run("--version") == "True []"
