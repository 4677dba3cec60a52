from __future__ import annotations

from pathlib import Path

import pytest
from freezegun import freeze_time

from tests.helpers import CliRunner, commit
from tests.helpers import git as run_git
from tests.learning.conftest import pill_text


@pytest.fixture(autouse=True)
def frozen() -> object:
    with freeze_time("2026-11-30T12:00:00Z") as clock:
        yield clock


def put(repo: Path, key: str = "implementer/parser", **fields: str | None) -> Path:
    path = repo / "pills" / f"{key}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(pill_text(key, **fields), encoding="utf-8")
    return path


def test_check_passes_and_summarises(repo: Path, gfh: CliRunner) -> None:
    put(repo)
    result = gfh("pills", "check")
    assert (result.code, result.out, result.err) == (
        0,
        "1 pill(s) in pills/: 0 problem(s), 0 note(s)\n",
        "",
    )


def test_check_fails_with_one_line_per_problem(repo: Path, gfh: CliRunner) -> None:
    put(repo, last_seen="2026-12-25")
    put(repo, "implementer/retired-here", status="retired")
    result = gfh("pills", "check")
    assert result.code == 1
    lines = result.out.splitlines()
    assert lines[0].startswith("pills/implementer/parser.md:7: error: last_seen 2026-12-25 is in")
    assert lines[1].startswith("pills/implementer/retired-here.md:5: note: retired but outside")
    assert result.err == "2 pill(s) in pills/: 1 problem(s), 1 note(s)\n"


def test_check_quiet_prints_only_failures(repo: Path, gfh: CliRunner) -> None:
    put(repo, status="retired")
    assert gfh("pills", "check", "--quiet").out == ""
    put(repo, "implementer/bad", occurrences="0")
    result = gfh("pills", "check", "-q")
    assert result.code == 1
    assert result.out == (
        "pills/implementer/bad.md:8: error: occurrences: expected an integer >= 1, got 0\n"
    )


def test_check_json(repo: Path, gfh: CliRunner) -> None:
    put(repo, occurrences="0")
    result = gfh("pills", "check", "--json")
    assert result.code == 1
    assert result.json() == {
        "pills": 0,
        "ok": False,
        "problems": [
            {
                "path": "pills/implementer/parser.md",
                "line": 8,
                "severity": "error",
                "message": "occurrences: expected an integer >= 1, got 0",
            }
        ],
    }


def test_bump_changes_two_lines_and_says_when_graduation_is_owed(
    repo: Path, gfh: CliRunner
) -> None:
    path = put(repo, occurrences="2", last_seen="2026-11-02")
    before = path.read_text()
    result = gfh("pills", "bump", "implementer-parser")
    assert result.code == 0
    assert result.out == (
        "pills/implementer/parser.md: occurrences 3 (was 2), last_seen 2026-11-30\n"
        "request: implementer/parser recurred 3 times: `gfh learn --check` files it\n"
    )
    assert path.read_text() == before.replace("occurrences: 2", "occurrences: 3").replace(
        "last_seen: 2026-11-02", "last_seen: 2026-11-30"
    )


def test_bump_with_a_date_and_json(repo: Path, gfh: CliRunner) -> None:
    put(repo)
    result = gfh("pills", "bump", "pills/implementer/parser.md", "--date", "2026-11-20", "--json")
    assert result.json() == {
        "pill": "implementer/parser",
        "path": "pills/implementer/parser.md",
        "occurrences": 2,
        "last_seen": "2026-11-20",
        "owed": None,
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("nothing",), "gfh: no pill named 'nothing'"),
        (("implementer/parser", "--date", "2026-12-01"), "gfh: --date 2026-12-01 is in the future"),
    ],
)
def test_bump_refusals_exit_2_with_one_line(
    repo: Path, gfh: CliRunner, args: tuple[str, ...], message: str
) -> None:
    put(repo)
    result = gfh("pills", "bump", *args)
    assert result.code == 2
    assert result.err.startswith(message)
    assert result.err.count("\n") == 1


def test_bump_of_a_pill_that_does_not_parse_says_why(repo: Path, gfh: CliRunner) -> None:
    put(repo, occurrences="many")
    result = gfh("pills", "bump", "implementer/parser")
    assert result.code == 1
    assert result.err == (
        "gfh: pills/implementer/parser.md:8: error: occurrences: expected an integer >= 1, "
        "got 'many' (a string) (fix it, then run again)\n"
    )


def test_new_then_new_again_is_refused(repo: Path, gfh: CliRunner) -> None:
    result = gfh(
        "pills", "new", "reviewer", "naming", "--trigger", "naming things", "--severity", "high"
    )
    assert result.code == 0
    assert result.out.startswith("wrote pills/reviewer/naming.md")
    assert gfh("pills", "check").code == 1  # an empty template is not a lesson yet
    again = gfh("pills", "new", "reviewer", "naming", "--trigger", "x")
    assert again.code == 1
    assert "already holds pill reviewer/naming" in again.err


def test_index_prints_the_lessons_and_nothing_for_a_role_without(
    repo: Path, gfh: CliRunner
) -> None:
    put(repo, trigger="editing the parser")
    result = gfh("pills", "index", "implementer")
    assert result.code == 0
    assert result.out.splitlines()[-1] == (
        "- [medium] implementer-parser: editing the parser (pills/implementer/parser.md)"
    )
    empty = gfh("pills", "index", "planner")
    assert (empty.code, empty.out, empty.err) == (0, "", "no active lesson applies to planner\n")


def test_tidy_dry_run_moves_nothing_then_tidy_moves(repo: Path, gfh: CliRunner) -> None:
    put(repo, status="retired")
    commit(repo, "pill", {})
    dry = gfh("pills", "tidy", "--dry-run")
    assert (
        dry.out == "would move pills/implementer/parser.md -> pills/retired/implementer/parser.md\n"
    )
    assert (repo / "pills/implementer/parser.md").exists()
    done = gfh("pills", "tidy", "--json")
    assert done.json() == {
        "dry_run": False,
        "moves": [
            {
                "from": "pills/implementer/parser.md",
                "to": "pills/retired/implementer/parser.md",
                "git": True,
            }
        ],
    }
    assert "R  pills/implementer/parser.md" in run_git(repo, "status", "--porcelain")
    assert gfh("pills", "tidy").out == "every pill is where its status says\n"


def test_outside_a_repository_is_a_usage_error(
    tmp_path: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = gfh("pills", "check")
    assert result.code == 2
    assert result.err.startswith("gfh: not a git repository")


def test_an_impossible_date_is_one_problem_and_leaves_the_other_pills_working(
    repo: Path, gfh: CliRunner
) -> None:
    """If one pill has a date no calendar has, then `check` names its file and line, and the
    index, the report and `learn --check` go on with every other pill."""
    put(repo, "implementer/bad", date="2026-02-30", trigger="the bad one")
    put(repo, occurrences="3", trigger="editing the parser")
    check = gfh("pills", "check")
    assert check.code == 1
    assert check.out == (
        "pills/implementer/bad.md:6: error: date: '2026-02-30' is not a calendar date "
        "(day is out of range for month)\n"
    )
    assert check.err == "1 pill(s) in pills/: 1 problem(s), 0 note(s)\n"
    index = gfh("pills", "index", "implementer")
    assert (index.code, index.out.splitlines()[-1]) == (
        0,
        "- [medium] implementer-parser: editing the parser (pills/implementer/parser.md)",
    )
    assert "bad" not in index.out
    report = gfh("learn")
    assert report.code == 0
    assert "1 file(s) cannot be read" in report.out
    filed = gfh("learn", "--check")
    assert filed.code == 1
    assert filed.out.startswith("filed requests/2026-11-30-implementer__parser.md ")


@pytest.mark.parametrize(
    "args",
    [
        ("pills", "new", "implementer", "a", "--trigger", "t"),
        ("pills", "check"),
        ("pills", "index", "implementer"),
        ("pills", "bump", "a"),
        ("pills", "tidy"),
        ("learn",),
        ("learn", "--check"),
    ],
)
def test_a_file_where_the_pills_folder_belongs_is_a_layout_error(
    repo: Path, gfh: CliRunner, args: tuple[str, ...]
) -> None:
    """If `paths.pills` names a file, then every pills command says so in one line, exit 2,
    rather than crashing or reporting an empty, passing folder."""
    (repo / "pills").write_text("x\n")
    result = gfh(*args)
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        "gfh: pills is a file, but paths.pills = 'pills' names a folder there: move the file "
        "away or set paths.pills in .gitflow-harness.toml\n"
    )
    assert (repo / "pills").read_text() == "x\n"


def test_a_file_in_the_way_of_a_configured_or_a_role_folder_is_named(
    repo: Path, gfh: CliRunner
) -> None:
    (repo / ".gitflow-harness.toml").write_text('[paths]\npills = "docs/pills"\n')
    (repo / "docs").write_text("x\n")
    nested = gfh("pills", "check")
    assert nested.code == 2
    assert nested.err.startswith("gfh: docs is a file, but paths.pills = 'docs/pills' names")
    (repo / "docs").unlink()
    (repo / "docs/pills").mkdir(parents=True)
    (repo / "docs/pills/implementer").write_text("x\n")
    role = gfh("pills", "new", "implementer", "a", "--trigger", "t")
    assert role.code == 2
    assert role.err == (
        "gfh: docs/pills/implementer is a file, but implementer's pills go in a folder there: "
        "move the file away\n"
    )


def test_tidy_refuses_when_a_file_stands_where_retired_pills_go(repo: Path, gfh: CliRunner) -> None:
    put(repo, status="retired")
    (repo / "pills/retired").write_text("x\n")
    result = gfh("pills", "tidy")
    assert result.code == 2
    assert result.err == (
        "gfh: pills/retired is a file, but the pill moves into a folder there: move the file away\n"
    )
    assert (repo / "pills/implementer/parser.md").exists()


def test_check_refuses_a_name_too_long_to_become_a_request_file(repo: Path, gfh: CliRunner) -> None:
    """If a pill's name would make a request file name past 255 bytes (with room for
    `-again-999`), then `pills check` says so and by how much to shorten it."""
    long_key = "implementer/" + "x" * 225
    put(repo, long_key)
    put(repo, "implementer/" + "y" * 200)  # fits: 10 + 1 + 13 + 200 + 10 + 3 = 237 bytes
    result = gfh("pills", "check")
    assert result.code == 1
    assert result.out.splitlines() == [
        f"pills/{long_key}.md:1: error: the name is too long to become a request file "
        "(`requests/<YYYY-MM-DD>-<name>-again-N.md` would take up to 262 bytes, over the 255 a "
        "file name may have): shorten the slug by 7 bytes"
    ]


def test_new_refuses_a_slug_too_long_to_become_a_request_file(repo: Path, gfh: CliRunner) -> None:
    result = gfh("pills", "new", "implementer", "x" * 240, "--trigger", "always")
    assert result.code == 2
    [line] = result.err.splitlines()
    assert line.startswith(f"gfh: pill implementer/{'x' * 240}: the name is too long")
    assert not (repo / "pills").exists() or not list((repo / "pills").rglob("*.md"))
