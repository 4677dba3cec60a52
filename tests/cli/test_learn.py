from __future__ import annotations

from pathlib import Path

import pytest
from freezegun import freeze_time

from gitflow_harness import git
from gitflow_harness.store.events import EventLog
from tests.cli.test_pills import put
from tests.helpers import CliRunner
from tests.helpers import git as run_git


@pytest.fixture(autouse=True)
def frozen() -> object:
    with freeze_time("2026-11-30T12:00:00Z") as clock:
        yield clock


def record_rounds(repo: Path, role: str, verdicts: list[str]) -> None:
    log = EventLog(git.discover(repo).common_dir)
    for verdict in verdicts:
        log.record(
            "subagent.stopped",
            {"role": role, "agent": "a1", "verdict": verdict, "model": "m"},
            surface="hook",
            branch="main",
            session="claude:s",
        )


def test_check_files_then_finds_nothing(repo: Path, gfh: CliRunner) -> None:
    put(repo, occurrences="3")
    first = gfh("learn", "--check")
    assert first.code == 1
    assert first.out == (
        "filed requests/2026-11-30-implementer__parser.md "
        "(request: implementer/parser recurred 3 times)\n"
    )
    assert first.err == (
        "review the request file(s) and commit them with your change (this check fails until "
        "git tracks them): git add requests/2026-11-30-implementer__parser.md && git commit\n"
    )
    # Nothing new is owed, but the request is not added yet: a second commit cannot slip by.
    second = gfh("learn", "--check")
    assert second.code == 1
    assert second.out == (
        "requests/2026-11-30-implementer__parser.md: filed earlier, not added to git yet\n"
    )
    assert "git add requests/2026-11-30-implementer__parser.md" in second.err
    assert gfh("learn", "--check", "--json").json() == {
        "filed": [],
        "not_added": ["requests/2026-11-30-implementer__parser.md"],
        "not_filed": [],
    }
    run_git(repo, "add", "requests")
    third = gfh("learn", "--check")
    assert (third.code, third.out) == (0, "nothing owed\n")


def test_check_json(repo: Path, gfh: CliRunner) -> None:
    put(repo, occurrences="3")
    result = gfh("learn", "--check", "--json")
    assert result.code == 1
    assert result.json() == {
        "filed": [
            {
                "path": "requests/2026-11-30-implementer__parser.md",
                "pill": "implementer/parser",
                "kind": "request",
                "reopens": None,
            }
        ],
        "not_added": [],
        "not_filed": [],
    }


def test_the_filed_request_quotes_the_recorded_evidence(repo: Path, gfh: CliRunner) -> None:
    put(repo, occurrences="3", date="2026-11-29", last_seen="2026-11-29")
    record_rounds(repo, "implementer", ["FAIL", "DONE", "FAIL"])
    gfh("learn", "--check")
    text = (repo / "requests/2026-11-30-implementer__parser.md").read_text()
    assert (
        "- implementer in the last 14 days: 3 round(s), 2 sent back; 2 loop-back(s), 2 since "
        "its newest lesson\n- verify (implementer): not measurable: only 0 before and 3 after "
        "the lesson on m (5 needed on each side within 14 days)\n"
    ) in text


def test_report_names_an_overdue_role(repo: Path, gfh: CliRunner) -> None:
    record_rounds(repo, "implementer", ["FAIL", "FAILED", "BLOCKED", "UNCLEAR"])
    result = gfh("learn")
    assert result.code == 0
    assert (
        "  implementer: 4 round(s), 3 sent back; 3 loop-back(s), no lesson yet  "
        "OVERDUE: capture a lesson" in result.out.splitlines()
    )
    assert "Roles (last 14 days): rounds, those sent back, and the loop-back verdicts" in (
        result.out
    )
    data = gfh("learn", "--json", "--days", "3").json()
    assert data["overdue"] == ["implementer"]
    assert data["days"] == 3
    assert data["rounds"] == 4
    assert set(data) >= {"roles", "owed", "open_requests", "relapsed", "lessons"}


def test_report_of_an_empty_repository(repo: Path, gfh: CliRunner) -> None:
    result = gfh("learn")
    assert result.code == 0
    assert result.out.splitlines()[0] == (
        "Learning: 0 pill(s), 0 request(s), 0 subagent round(s) recorded, 0 loop-back(s)"
    )


def test_report_shows_a_lesson_and_its_reading(repo: Path, gfh: CliRunner) -> None:
    put(repo, date="2026-11-29", last_seen="2026-11-29")
    result = gfh("learn")
    assert (
        "  implementer/parser [active, x1] injected: unknown (no subagent starts recorded, "
        "so no injection can be counted)" in result.out
    )
    assert "    verify implementer: not measurable: no implementer rounds recorded" in result.out


def test_days_must_be_positive(repo: Path, gfh: CliRunner) -> None:
    result = gfh("learn", "--days", "0")
    assert result.code == 2


def test_nothing_but_tokens_leaves_the_log(repo: Path, gfh: CliRunner) -> None:
    """If learning read anything beyond role, verdict and model, the canary would surface."""
    canary = "CANARY-7f3e-the-subagent-said-this"
    log = EventLog(git.discover(repo).common_dir)
    for _ in range(3):
        log.record(
            "subagent.stopped",
            {"role": "implementer", "agent": "a", "verdict": "FAIL", "message": canary},
            surface="hook",
            branch="main",
            session="claude:s",
        )
    put(repo, occurrences="3", date="2026-11-29", last_seen="2026-11-29")
    outputs = [gfh("learn", "--json"), gfh("learn"), gfh("learn", "--check")]
    assert all(canary not in r.out + r.err for r in outputs)
    assert canary not in (repo / "requests/2026-11-30-implementer__parser.md").read_text()


def test_lower_case_verdicts_in_the_configuration_still_count(repo: Path, gfh: CliRunner) -> None:
    """If the configuration spells a verdict in lower case, then the upper-cased token the hook
    records still counts as a loop-back and still follows its graph edge."""
    (repo / ".gitflow-harness.toml").write_text(
        '[learning]\nloop_back = ["failed"]\n\n'
        '[graph]\nstages = ["implementer", "reviewer"]\n'
        '[graph.loops.reviewer]\nRejected = ["implementer"]\n',
        encoding="utf-8",
    )
    record_rounds(repo, "implementer", ["DONE"])
    record_rounds(repo, "reviewer", ["REJECTED"])
    record_rounds(repo, "tester", ["FAILED", "FAILED"])
    data = gfh("learn", "--json").json()
    assert data["loop_backs"] == 3
    roles = {r["role"]: r["loop_backs"] for r in data["roles"]}
    assert roles == {"implementer": 1, "reviewer": 0, "tester": 2}


def test_the_report_lists_a_relapse_whose_reopening_was_declined_as_declined(
    repo: Path, gfh: CliRunner
) -> None:
    from tests.helpers import commit
    from tests.learning.test_graduation import put_request

    commit(repo, "rule", {"hooks/ways/r/r.md": "rule\n"})
    put(repo, "implementer/back", occurrences="5", status="retired")
    common = {"pill": "implementer/back", "rule_in": "hooks/ways/r/r.md"}
    put_request(
        repo,
        "2026-11-01-implementer__back.md",
        status="closed",
        answered_in="abc1234",
        **common,
    )
    put_request(
        repo,
        "2026-11-05-implementer__back.md",
        status="declined",
        declined="keep the rule",
        reopens="2026-11-01-implementer__back.md",
        occurrences=5,
        **common,
    )
    [relapsed] = gfh("learn", "--json").json()["relapsed"]
    assert relapsed["declined"] == "2026-11-05-implementer__back"
    assert (
        "  implementer/back: +2 since 2026-11-01-implementer__back (rule in hooks/ways/r/r.md); "
        "its reopening 2026-11-05-implementer__back was declined"
    ) in gfh("learn").out.splitlines()


def test_loop_backs_with_no_round_behind_them_are_said_apart_from_the_rounds(
    repo: Path, gfh: CliRunner
) -> None:
    """If a role is charged loop-backs with no round of its own behind them, then the report
    does not read them as a share of its rounds: it counts them apart."""
    (repo / ".gitflow-harness.toml").write_text(
        '[graph]\nstages = ["implementer", "reviewer"]\n'
        '[graph.loops.reviewer]\nREJECTED = ["implementer"]\n',
        encoding="utf-8",
    )
    record_rounds(repo, "reviewer", ["REJECTED", "REJECTED"])
    lines = gfh("learn").out.splitlines()
    assert (
        "  implementer: 0 round(s), 0 sent back; 2 loop-back(s) (2 with no round of its own), "
        "no lesson yet"
    ) in lines
    [implementer, _] = gfh("learn", "--json").json()["roles"]
    assert (implementer["rounds"], implementer["sent_back"], implementer["loop_backs"]) == (0, 0, 2)
    assert implementer["loop_backs_without_round"] == 2


def test_days_beyond_a_century_are_a_usage_error(repo: Path, gfh: CliRunner) -> None:
    result = gfh("learn", "--days", "100000000")
    assert result.code == 2
    assert "100000000 is not in the range 1<=x<=36500" in result.err


def test_a_pill_whose_name_cannot_be_a_request_file_never_stops_the_others(
    repo: Path, gfh: CliRunner
) -> None:
    """If one owed pill's name is too long for a request file, then the other owed pills are
    filed all the same, and the long one is reported in one line naming its file."""
    long_key = "implementer/" + "x" * 240
    put(repo, occurrences="3")
    put(repo, long_key, occurrences="3")
    result = gfh("learn", "--check")
    assert result.code == 1
    assert result.out == (
        "filed requests/2026-11-30-implementer__parser.md "
        "(request: implementer/parser recurred 3 times)\n"
    )
    [*_, last] = result.err.splitlines()
    assert last.startswith(f"gfh: pills/{long_key}.md: not filed: the name is too long")
    assert "Traceback" not in result.err
    assert sorted(p.name for p in (repo / "requests").glob("*.md")) == [
        "2026-11-30-implementer__parser.md"
    ]
    assert gfh("learn", "--check", "--json").json()["not_filed"] == [
        {
            "pill": long_key,
            "path": f"pills/{long_key}.md",
            "problem": f"pills/{long_key}.md: not filed: "
            + gfh("pills", "check").out.split(": error: ", 1)[1].splitlines()[0],
        }
    ]
