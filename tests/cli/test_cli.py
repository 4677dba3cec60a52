from __future__ import annotations

import re
import stat
import sys
from pathlib import Path

import click
import pytest

from gitflow_harness import __version__
from gitflow_harness.cli.group import COMMANDS, cli
from tests.helpers import ROOT, CliRunner, run_gfh, unmeasured_env


def _all_command_paths(*, leaves_only: bool = False) -> list[list[str]]:
    paths: list[list[str]] = []
    ctx = click.Context(cli)

    def walk(group: click.Group, prefix: list[str]) -> None:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None, name
            is_group = isinstance(command, click.Group)
            if not (leaves_only and is_group):
                paths.append([*prefix, name])
            if isinstance(command, click.Group):
                walk(command, [*prefix, name])

    walk(cli, [])
    return paths


def test_top_level_help_lists_every_command(gfh: CliRunner) -> None:
    result = gfh("--help")
    assert result.code == 0
    for name in COMMANDS:
        assert re.search(rf"^  {name}\b", result.out, re.MULTILINE), name


@pytest.mark.parametrize("path", _all_command_paths(), ids=" ".join)
def test_every_command_has_help(gfh: CliRunner, path: list[str]) -> None:
    result = gfh(*path, "--help")
    assert result.code == 0, result.err
    assert result.out.startswith(f"Usage: gfh {' '.join(path)}")
    assert result.err == ""


def test_version_in_process(gfh: CliRunner) -> None:
    assert gfh("--version").out == f"gfh {__version__}\n"


def test_python_m_version_in_a_subprocess(tmp_path: Path) -> None:
    proc = run_gfh("--version", cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout == f"gfh {__version__}\n"


def test_unknown_command_is_a_usage_error(gfh: CliRunner) -> None:
    result = gfh("frobnicate")
    assert result.code == 2
    assert "No such command 'frobnicate'" in result.err


def test_bad_option_is_a_usage_error(gfh: CliRunner) -> None:
    result = gfh("events", "tail", "-n", "many")
    assert result.code == 2
    assert "'many' is not a valid integer" in result.err


def test_unexpected_error_prints_one_line_and_writes_a_report(
    repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch, hermetic: Path
) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr("gitflow_harness.workspace.load_config", boom)
    result = gfh("events", "tail", "-n", "777")
    assert result.code == 1
    assert result.out == ""
    match = re.fullmatch(
        r"gfh: internal error: RuntimeError: boom \(full report: (.+)\)\n", result.err
    )
    assert match, result.err
    report = Path(match.group(1))
    assert report.parent == hermetic / "gfh-state" / "crash"
    assert stat.S_IMODE(report.stat().st_mode) == 0o600
    text = report.read_text()
    assert "command: events" in text
    assert "777" not in text  # arguments may carry task text: never recorded
    assert "RuntimeError: boom" in text
    assert "Traceback" in text


def _documented_commands() -> set[str]:
    """Commands named in docs headings: `gfh pills bump PILL [--date D]` gives "pills bump"."""
    span = re.compile(r"`gfh ([a-z][a-z -]*?)(?= [A-Z\[<.-]|`)")
    found: set[str] = set()
    for page in (ROOT / "docs").glob("*.md"):
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.startswith("#"):
                found.update(span.findall(line))
    return found


def test_documented_commands_exist() -> None:
    """If a docs page has a `gfh X` heading, then X is a real command, and every command has one."""
    documented = _documented_commands()
    real = {" ".join(p) for p in _all_command_paths()}
    leaves = {" ".join(p) for p in _all_command_paths(leaves_only=True)}
    assert documented <= real, documented - real
    assert leaves <= documented, f"commands missing from docs/: {sorted(leaves - documented)}"


def test_json_output_is_one_object_except_events_tail() -> None:
    """If a command prints --json, then it prints an object (as `--json`'s help says), except
    `events tail`, whose list of envelopes docs/cli.md names as the one exception."""
    lists = []
    for path in sorted((ROOT / "gitflow_harness" / "cli").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(r"echo_json\(\s*(.)", text):
            if match.group(1) == "[":
                lists.append(f"{path.name}:{text.count(chr(10), 0, match.start()) + 1}")
    assert [where.split(":")[0] for where in lists] == ["events.py"], lists


def test_spine_does_not_import_heavy_modules(tmp_path: Path) -> None:
    """If `gfh --version` runs, then GitPython, yaml, frontmatter and filelock stay unimported."""
    import subprocess

    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "gitflow_harness", "--version"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
        env=unmeasured_env(),
    )
    imported = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in proc.stderr.splitlines()}
    assert imported.isdisjoint({"git", "yaml", "frontmatter", "filelock"})
    assert "gitflow_harness" in imported


def test_a_git_failure_is_one_line_and_verbose_adds_gits_own_words(
    repo: Path, gfh: CliRunner
) -> None:
    """If git fails under a command, then the default is gfh's one line; with `-v` the
    command, exit code and git's whole stderr follow it."""
    (repo / ".git" / "index").write_bytes(b"garbage\n")
    quiet = gfh("status")
    assert quiet.code == 1
    [line] = quiet.err.splitlines()
    assert line.startswith("gfh: `git status ")
    assert line.endswith("index file smaller than expected")
    loud = gfh("-v", "status")
    assert loud.code == 1
    lines = loud.err.splitlines()
    assert lines[0] == line
    assert lines[1].startswith("command: git status ")
    assert "exit code: 128" in lines
    assert lines[lines.index("stderr:") + 1].endswith("index file smaller than expected")
    assert gfh("--verbose", "status").err == loud.err
    assert gfh("status").err == quiet.err  # not carried over to the next run


def test_a_crash_report_carries_the_git_failure_it_came_from(
    repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If an unexpected error follows a git failure, then the crash report holds git's
    command, exit code and whole stderr."""
    from gitflow_harness import git as gitmod

    def broken(*args: object, **kwargs: object) -> None:
        try:
            gitmod.run(["rev-parse", "--verify", "no-such-ref-xyz"], cwd=repo)
        except gitmod.GitError:
            raise RuntimeError("lost its way") from None

    monkeypatch.setattr("gitflow_harness.workspace.load_config", broken)
    result = gfh("events", "tail")
    match = re.search(r"\(full report: (.+)\)", result.err)
    assert match, result.err
    text = Path(match.group(1)).read_text()
    assert "command: git rev-parse --verify no-such-ref-xyz" in text
    assert "exit code: 128" in text
    assert "fatal: Needed a single revision" in text
