from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness.workflow.commands import CommandRun, Console, run_commands, unrunnable_program

FOUND_NOT = "could not find a program it runs"


def run(command: str, code: int) -> CommandRun:
    return CommandRun("prepare", command, code, 0)


@pytest.mark.parametrize(
    ("command", "code", "named", "problem"),
    [
        ("no-such-tool-7c1 run --all-files", 127, "no-such-tool-7c1", "was not found"),
        ("CI=1 LANG=C no-such-tool-7c1 -q", 127, "no-such-tool-7c1", "was not found"),
        ("./not-executable.sh", 126, "./not-executable.sh", "could not be executed"),
        # The first word runs: what was missing is something the command itself runs.
        ("sh -c no-such-tool-7c1", 127, "sh -c no-such-tool-7c1", FOUND_NOT),
        ("sh ./x.sh", 126, "sh ./x.sh", "could not execute a program it runs"),
        # The shell's own words are not programs to install.
        ("cd sub && no-such-tool-7c1", 127, "cd sub && no-such-tool-7c1", FOUND_NOT),
        ("no-such-tool-7c1 'unbalanced", 127, "no-such-tool-7c1", "was not found"),
    ],
)  # fmt: skip
def test_unrunnable_program_names_what_to_install(
    tmp_path: Path, command: str, code: int, named: str, problem: str
) -> None:
    (tmp_path / "not-executable.sh").write_text("#!/bin/sh\n")
    assert unrunnable_program(run(command, code), tmp_path) == (named, problem)


def test_exit_126_and_127_are_unrunnable_and_other_failures_are_not(tmp_path: Path) -> None:
    notes: list[str] = []
    console = Console(open("/dev/null", "w"), notes.append)  # noqa: SIM115
    try:
        missing, denied, failing = (
            run_commands("test", [c], cwd=tmp_path, console=console)[0]
            for c in ("no-such-tool-7c1", "/dev/null", "exit 1")
        )
    finally:
        console.stream.close()
    assert (missing.exit_code, missing.unrunnable) == (127, True)
    assert (denied.exit_code, denied.unrunnable) == (126, True)
    assert (failing.exit_code, failing.unrunnable) == (1, False)


def test_a_failed_python_m_command_is_probed_for_its_module_and_others_are_not(
    tmp_path: Path,
) -> None:
    import sys

    from gitflow_harness.workflow.commands import missing_module

    python = sys.executable
    assert missing_module(f"{python} -m gfh_no_such_module_xyz -q", tmp_path) == (
        "gfh_no_such_module_xyz"
    )
    assert missing_module(f"{python} -m pytest -q", tmp_path) is None  # there: a real failure
    assert missing_module("make test", tmp_path) is None
    assert missing_module(f"{python} tests/run.py", tmp_path) is None
