"""The process entry point: what it readies for a call that runs once and exits."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

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
        "def report():\n"
        "    print(gc.isenabled(), seen, flush=True)\n"
        "m.end = (lambda e: lambda code: (report(), e(code)))(m.end)\n"
        "sys.argv = ['gfh', *sys.argv[1:]]\n"
        "try:\n"
        "    m.main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "report()\n"
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


def test_a_quick_process_ends_with_its_code_and_all_its_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If a hook or `status` runs as its own process (which skips the interpreter's shutdown),
    then it exits with the code and writes every byte of output an in-process call gives."""
    monkeypatch.chdir(tmp_path)  # not a repository: `status` fails, as a command fails
    env = {**os.environ, "GFH_STATE_HOME": str(tmp_path / "state")}
    runner = CliRunner()
    for args, stdin in ((("status",), ""), (("hook", "claude", "Stop"), "{}")):
        expected = runner(*args, stdin=stdin)
        proc = subprocess.run(
            [sys.executable, "-m", "gitflow_harness", *args],
            cwd=tmp_path,
            env=env,
            input=stdin,
            capture_output=True,
            text=True,
            check=False,
        )
        assert (proc.returncode, proc.stdout, proc.stderr) == (
            expected.code,
            expected.out,
            expected.err,
        )
    assert expected.code == 0  # the hook fails open
