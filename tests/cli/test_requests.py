from __future__ import annotations

from pathlib import Path

import pytest
from freezegun import freeze_time

from tests.cli.test_pills import put
from tests.helpers import CliRunner, commit
from tests.helpers import git as run_git

RULE = "hooks/ways/implementer/parser/parser.md"


@pytest.fixture(autouse=True)
def frozen() -> object:
    with freeze_time("2026-11-30T12:00:00Z") as clock:
        yield clock


@pytest.fixture
def filed(repo: Path, gfh: CliRunner) -> str:
    put(repo, occurrences="3")
    assert gfh("learn", "--check").code == 1
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "request")
    return "2026-11-30-implementer__parser"


def test_list_and_json(repo: Path, gfh: CliRunner, filed: str) -> None:
    assert gfh("requests", "list").out == f"{filed}  open      implementer/parser x3\n"
    listed = gfh("requests", "list", "--json").json()
    assert list(listed) == ["requests"]  # one object, like every other --json
    [entry] = listed["requests"]
    assert set(entry) == {
        "id",
        "path",
        "status",
        "date",
        "pill",
        "occurrences",
        "target",
        "rule_in",
        "answered_in",
        "declined",
        "reopens",
    }
    assert entry["id"] == filed
    assert entry["status"] == "open"
    assert entry["target"] == "hooks/ways/implementer/"
    assert gfh("requests", "list", "--status", "closed").out == "no closed requests\n"


def test_answer_through_the_cli(repo: Path, gfh: CliRunner, filed: str) -> None:
    missing = gfh("requests", "answer", filed, "--in", RULE)
    assert missing.code == 1
    assert missing.err == f"gfh: {RULE}: no such file; write and commit the rule first\n"
    commit(repo, "rule", {RULE: "rule\n"})
    sha = run_git(repo, "log", "-1", "--format=%h", "--", RULE).strip()
    result = gfh("requests", "answer", "2026", "--in", RULE)
    assert result.code == 0
    assert result.out == (
        f"requests/{filed}.md: closed, rule in {RULE} ({sha})\n"
        "implementer/parser: retired; git mv pills/implementer/parser.md -> "
        "pills/retired/implementer/parser.md\n"
        "commit both changes together\n"
    )
    again = gfh("requests", "answer", filed, "--in", RULE)
    assert again.code == 1
    assert again.err.startswith(f"gfh: {filed} is already closed: answered in {sha}")
    check = gfh("requests", "check")
    assert check.code == 0


def test_answer_from_a_subdirectory_takes_paths_relative_to_it(
    repo: Path, gfh: CliRunner, filed: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit(repo, "rule", {RULE: "rule\n"})
    monkeypatch.chdir(repo / "hooks" / "ways")
    result = gfh("requests", "answer", filed, "--in", "implementer/parser/parser.md", "--json")
    assert result.code == 0
    assert result.json()["rule_in"] == RULE


def test_an_ambiguous_prefix_lists_the_candidates_and_exits_2(
    repo: Path, gfh: CliRunner, filed: str
) -> None:
    put(repo, "implementer/pipeline", occurrences="3")
    gfh("learn", "--check")
    result = gfh("requests", "decline", "2026-11-30-implementer__p", "--why", "no")
    assert result.code == 2
    assert result.err == (
        "gfh: '2026-11-30-implementer__p' matches several requests: "
        "2026-11-30-implementer__parser, 2026-11-30-implementer__pipeline; give more of the id\n"
    )


def test_decline_and_check(repo: Path, gfh: CliRunner, filed: str) -> None:
    result = gfh("requests", "decline", filed, "--why", "too specific")
    assert (result.code, result.out) == (
        0,
        f"requests/{filed}.md: declined; implementer/parser stays active\n",
    )
    assert "declined: too specific" in gfh("requests", "list").out
    assert gfh("requests", "check").code == 0


def test_a_reopening_says_and_keeps_its_pill_retired_through_a_decline(
    repo: Path, gfh: CliRunner, filed: str
) -> None:
    """If a reopening is filed and declined, then neither its body nor the decline says the
    pill is active: it was retired by the answer and stays retired."""
    commit(repo, "rule", {RULE: "rule\n"})
    assert gfh("requests", "answer", filed, "--in", RULE).code == 0
    commit(repo, "answer", {})
    assert gfh("pills", "bump", "implementer/parser").code == 0
    assert gfh("learn", "--check").code == 1
    reopening = f"{filed}-again"
    body = (repo / "requests" / f"{reopening}.md").read_text()
    assert "Commit the revised rule, then close this request (the pill stays retired):" in body
    assert "Or decline it, saying why (the pill stays retired):" in body
    assert "stays active" not in body
    assert "(the pill is retired)" not in body
    result = gfh("requests", "decline", reopening, "--why", "the rule is right")
    assert (result.code, result.out) == (
        0,
        f"requests/{reopening}.md: declined; implementer/parser stays retired\n",
    )
    assert (repo / "pills/retired/implementer/parser.md").exists()
    assert gfh("requests", "check").code == 0


def test_check_fails_on_a_bad_request(repo: Path, gfh: CliRunner, filed: str) -> None:
    path = repo / "requests" / f"{filed}.md"
    path.write_text(path.read_text().replace("status: open", "status: closed"))
    result = gfh("requests", "check", "--json")
    assert result.code == 1
    [problem] = result.json()["problems"]
    assert problem["message"].startswith("a closed request needs rule_in and answered_in")


@pytest.mark.parametrize(
    "args", [("learn", "--check"), ("requests", "list"), ("requests", "check"), ("learn",)]
)
def test_a_file_where_the_requests_folder_belongs_is_a_layout_error(
    repo: Path, gfh: CliRunner, args: tuple[str, ...]
) -> None:
    """If `paths.requests` names a file, then the requests commands say so in one line, exit 2:
    nothing is filed over it and no empty ledger passes."""
    put(repo, occurrences="3")
    (repo / "requests").write_text("y\n")
    result = gfh(*args)
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        "gfh: requests is a file, but paths.requests = 'requests' names a folder there: move "
        "the file away or set paths.requests in .gitflow-harness.toml\n"
    )
    assert (repo / "requests").read_text() == "y\n"


def test_list_lines_up_its_columns_and_keeps_each_request_on_one_line(
    repo: Path, gfh: CliRunner, filed: str
) -> None:
    """If requests of different id lengths are listed, and a decline's reason has a line
    break, then each request is one line and the columns start at the same place."""
    assert gfh("requests", "decline", filed, "--why", "too specific\nfor now").code == 0
    put(repo, "reviewer/a-much-longer-lesson-name", occurrences="3")
    assert gfh("learn", "--check").code == 1
    lines = gfh("requests", "list").out.splitlines()
    assert len(lines) == 2
    assert (
        len(
            {
                line.index(" open ") if " open " in line else line.index(" declined ")
                for line in lines
            }
        )
        == 1
    )
    assert "too specific for now" in lines[0]
