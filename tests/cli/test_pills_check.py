"""`gfh pills check` without Click: the same output, errors and exit codes as through Click."""

from __future__ import annotations

from pathlib import Path

import pytest
from freezegun import freeze_time

from gitflow_harness.cli import flags
from gitflow_harness.cli.pills_check import FLAGS
from tests.cli.test_pills import put
from tests.helpers import CliRunner, same_both_ways

ARGS = [[], ["--json"], ["-q"], ["--quiet", "--json"], ["--json", "-q", "--quiet"]]


@pytest.fixture(autouse=True)
def frozen() -> object:
    with freeze_time("2026-11-30T12:00:00Z") as clock:
        yield clock


@pytest.mark.parametrize(
    ("args", "given"),
    [
        ([], {"as_json": False, "quiet": False}),
        (["-q"], {"as_json": False, "quiet": True}),
        (["--quiet", "--json"], {"as_json": True, "quiet": True}),
        (["-qq"], None),
        (["--help"], None),
        (["pills/x.md"], None),
    ],
)
def test_only_the_flags_of_pills_check_skip_click(
    args: list[str], given: dict[str, bool] | None
) -> None:
    assert flags(args, FLAGS) == given


@pytest.mark.parametrize("args", ARGS, ids=" ".join)
def test_pills_with_and_without_problems_show_the_same_either_way(
    repo: Path, gfh: CliRunner, args: list[str]
) -> None:
    put(repo)
    assert same_both_ways(gfh, "pills", "check", *args).code == 0
    put(repo, "implementer/retired-here", status="retired")
    put(repo, "implementer/bad", occurrences="0")
    put(repo, "reviewer/late", last_seen="2026-12-25")
    result = same_both_ways(gfh, "pills", "check", *args)
    assert result.code == 1
    assert "occurrences: expected an integer >= 1, got 0" in result.out


@pytest.mark.parametrize(
    ("arg", "code"), [("--bogus", 2), ("extra", 2), ("--help", 0), ("-h", 0), ("-qq", 0)]
)
def test_what_the_fast_path_does_not_know_is_clicks(
    repo: Path, gfh: CliRunner, arg: str, code: int
) -> None:
    """If an argument is not one of the flags, then Click parses it: its help, its usage
    error, and what it accepts that the fast path leaves to it (`-qq`)."""
    put(repo)
    result = same_both_ways(gfh, "pills", "check", arg)
    assert result.code == code
    if arg != "-qq":
        usage = result.out if code == 0 else result.err
        assert usage.startswith("Usage: gfh pills check [OPTIONS]")


def test_outside_a_repository_fails_the_same_either_way(
    tmp_path: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = same_both_ways(gfh, "pills", "check", "-q")
    assert result.code == 2
    assert result.err.startswith("gfh: not a git repository")


def test_the_configured_folder_is_read_and_a_change_to_it_seen(repo: Path, gfh: CliRunner) -> None:
    """`[paths] pills` comes from the configuration's shared cache, which a changed file
    replaces: the next check reads the new folder."""
    put(repo)
    (repo / "lessons").mkdir()
    config = repo / ".gitflow-harness.toml"
    config.write_text('[paths]\npills = "lessons"\n')
    result = same_both_ways(gfh, "pills", "check")
    assert (result.code, result.out) == (0, "0 pill(s) in lessons/: 0 problem(s), 0 note(s)\n")
    from gitflow_harness.hookcall.settings import cache_file

    found = cache_file(repo)
    assert found is not None
    kept = Path(found)
    assert kept.is_file()  # read through the cache the hook's sessions share
    config.write_text('[paths]\npills = "pills"\n')
    result = same_both_ways(gfh, "pills", "check")
    assert (result.code, result.out) == (0, "1 pill(s) in pills/: 0 problem(s), 0 note(s)\n")


def test_a_malformed_configuration_is_one_line_either_way(repo: Path, gfh: CliRunner) -> None:
    put(repo)
    (repo / ".gitflow-harness.toml").write_text("[paths\n")
    result = same_both_ways(gfh, "pills", "check", "-q")
    assert result.code == 2
    assert result.err.startswith("gfh: ")
    assert ".gitflow-harness.toml" in result.err
    assert len(result.err.splitlines()) == 1


def test_a_configuration_cache_that_cannot_be_written_is_passed_by(
    repo: Path, gfh: CliRunner
) -> None:
    from gitflow_harness.hookcall.settings import cache_file

    put(repo)
    (repo / ".gitflow-harness.toml").write_text('[paths]\npills = "pills"\n')
    found = cache_file(repo)
    assert found is not None
    path = Path(found)
    path.mkdir(parents=True)
    result = same_both_ways(gfh, "pills", "check")
    assert (result.code, result.out) == (0, "1 pill(s) in pills/: 0 problem(s), 0 note(s)\n")
