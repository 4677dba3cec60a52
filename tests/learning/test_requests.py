from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from gitflow_harness import git
from gitflow_harness.errors import UsageError
from gitflow_harness.learning.request_names import request_id
from gitflow_harness.learning.request_rules import check_rules
from gitflow_harness.learning.requests import again_of, candidates, load_ledger, resolve
from tests.helpers import commit, write
from tests.learning.test_graduation import check, put_request

TODAY = dt.date(2026, 11, 30)
RULE = "hooks/ways/implementer/parser/parser.md"


def problems(repo: Path) -> list[str]:
    ledger = load_ledger(repo, "requests")
    found = [*ledger.problems, *check_rules(ledger, git.discover(repo), today=TODAY)]
    return [str(p) for p in found]


CLOSED: dict[str, Any] = {"status": "closed", "rule_in": RULE, "answered_in": "HEAD"}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({}, None),
        ({"status": "declined", "declined": "not now"}, None),
        (CLOSED, None),
        ({"rule_in": RULE}, "an open request has no rule_in; remove it or set the status"),
        (
            {"status": "closed", "rule_in": RULE},
            "a closed request needs answered_in: answer it with "
            "`gfh requests answer 2026-11-20-implementer__parser --in PATH`",
        ),
        ({**CLOSED, "rule_in": "nowhere.md"}, "rule_in 'nowhere.md': no such file"),
        ({**CLOSED, "rule_in": "loose.md"}, "rule_in 'loose.md' is not tracked by git"),
        (
            {**CLOSED, "rule_in": "/etc/passwd"},
            "rule_in '/etc/passwd': give a path relative to the repository's top",
        ),
        ({**CLOSED, "rule_in": "../../x"}, "rule_in '../../x': must stay inside the repository"),
        (
            {"rule_in": "../x", "reopens": "2026-11-20-implementer__parser.md"},
            "rule_in '../x': must stay inside the repository",
        ),
        ({**CLOSED, "rule_in": f"./{RULE}"}, None),
        ({**CLOSED, "answered_in": "not-a-sha"}, "answered_in 'not-a-sha' is not a commit id"),
        ({**CLOSED, "answered_in": "abc1234"}, "answered_in 'abc1234': no such commit here"),
        ({**CLOSED, "declined": "x"}, "a closed request was answered, not declined"),
        ({"status": "declined"}, "a declined request says why"),
        ({"status": "declined", "declined": "x", "answered_in": "abc1234"}, "has no answered_in"),
        ({"status": "maybe"}, "status: expected one of 'open', 'closed', 'declined'"),
        ({"kind": "note"}, "kind: expected one of 'harness-request'"),
        ({"occurrences": 0}, "occurrences: expected an integer >= 1, got 0"),
        ({"core": "0.1.0"}, "core: expected a mapping"),
        ({"core": {"ways": "abc"}}, "expected core.gfh"),
        ({"date": "2026-11-03"}, "date 2026-11-03 is not the date its file name begins with"),
        (
            {"reopens": "2026-01-01-gone.md", "rule_in": RULE},
            "reopens '2026-01-01-gone.md', which is not in",
        ),
        (
            {"pill": "reviewer/x"},
            "names pill 'reviewer/x' but its file is not named for it: expected "
            "2026-11-20-reviewer__x.md (or with -again, -again-N)",
        ),
    ],
)
def test_request_rules_per_status(repo: Path, fields: dict[str, Any], message: str | None) -> None:
    commit(repo, "rule", {RULE: "rule\n"})
    write(repo, "loose.md", "untracked\n")
    put_request(repo, "2026-11-20-implementer__parser.md", **fields)
    found = problems(repo)
    if message is None:
        assert found == []
    else:
        assert len(found) == 1, found
        assert message in found[0]
        assert found[0].startswith("requests/2026-11-20-implementer__parser.md:")


def test_an_open_reopening_may_name_the_rule_that_did_not_hold(repo: Path) -> None:
    commit(repo, "rule", {RULE: "rule\n"})
    put_request(repo, "2026-11-10-implementer__parser.md", **CLOSED)
    put_request(
        repo,
        "2026-11-20-implementer__parser.md",
        rule_in=RULE,
        reopens="2026-11-10-implementer__parser.md",
        occurrences=4,
    )
    assert problems(repo) == []


def test_a_reopening_without_the_rule_that_did_not_hold_is_a_problem(repo: Path) -> None:
    commit(repo, "rule", {RULE: "rule\n"})
    put_request(repo, "2026-11-10-implementer__parser.md", **CLOSED)
    put_request(
        repo,
        "2026-11-20-implementer__parser.md",
        reopens="2026-11-10-implementer__parser.md",
        occurrences=4,
    )
    [found] = problems(repo)
    assert found.startswith("requests/2026-11-20-implementer__parser.md:")
    assert "a reopening names, in rule_in, the rule that did not hold" in found


def test_a_declined_reopening_keeps_the_rule_it_named(repo: Path) -> None:
    """If a reopening is declined, then its rule_in (the rule that did not hold) stays: it is
    what `gfh requests decline` leaves, and it must pass the check."""
    commit(repo, "rule", {RULE: "rule\n"})
    put_request(repo, "2026-11-10-implementer__parser.md", **CLOSED)
    put_request(
        repo,
        "2026-11-20-implementer__parser.md",
        status="declined",
        declined="the rule stays",
        rule_in=RULE,
        reopens="2026-11-10-implementer__parser.md",
        occurrences=4,
    )
    assert problems(repo) == []


def test_one_open_request_per_pill(repo: Path) -> None:
    put_request(repo, "2026-11-10-implementer__parser.md")
    put_request(repo, "2026-11-20-implementer__parser.md")
    put_request(repo, "2026-11-20-implementer__other.md", pill="implementer/other")
    assert problems(repo) == [
        "requests/2026-11-20-implementer__parser.md:3: error: pill implementer/parser already "
        "has an open request (2026-11-10-implementer__parser); one open request per pill: "
        "decline or remove this one"
    ]


def test_the_later_filing_of_one_day_is_the_extra_open_request(repo: Path) -> None:
    """By filing order, not file name: `…-again.md` sorts before `….md` but was filed after."""
    put_request(repo, "2026-11-20-implementer__parser.md")
    put_request(repo, "2026-11-20-implementer__parser-again.md")
    [found] = problems(repo)
    assert found.startswith("requests/2026-11-20-implementer__parser-again.md:3: error: ")
    assert "already has an open request (2026-11-20-implementer__parser)" in found


def test_a_badly_named_file_is_a_problem(repo: Path) -> None:
    put_request(repo, "parser-request.md")
    assert problems(repo) == [
        "requests/parser-request.md:1: error: the file name must be <YYYY-MM-DD>-<name>.md"
    ]


def test_ids_resolve_exactly_by_path_or_by_a_unique_prefix(repo: Path) -> None:
    put_request(repo, "2026-11-10-implementer__parser.md")
    put_request(repo, "2026-11-10-implementer__parser-again.md", status="declined", declined="x")
    put_request(repo, "2026-11-20-reviewer__naming.md", pill="reviewer/naming")
    requests = load_ledger(repo, "requests").requests
    assert resolve(requests, "2026-11-10-implementer__parser").id == (
        "2026-11-10-implementer__parser"
    )
    assert resolve(requests, "requests/2026-11-20-reviewer__naming.md").id == (
        "2026-11-20-reviewer__naming"
    )
    assert resolve(requests, "2026-11-2").id == "2026-11-20-reviewer__naming"
    with pytest.raises(UsageError) as err:
        resolve(requests, "2026-11-10")
    assert str(err.value) == (
        "'2026-11-10' matches several requests: 2026-11-10-implementer__parser, "
        "2026-11-10-implementer__parser-again; give more of the id"
    )
    assert err.value.exit_code == 2
    with pytest.raises(UsageError, match="no request 'nope'"):
        resolve(requests, "nope")


def test_requests_sort_by_date_then_again_count(repo: Path) -> None:
    for name in (
        "2026-11-10-implementer__parser-again-2.md",
        "2026-11-10-implementer__parser.md",
        "2026-11-10-implementer__parser-again-10.md",
        "2026-11-10-implementer__parser-again.md",
    ):
        put_request(repo, name, date="2026-11-10", status="declined", declined="x")
    ledger = load_ledger(repo, "requests")
    assert [
        r.id.removeprefix("2026-11-10-implementer__parser")
        for r in ledger.for_pill("implementer/parser")
    ] == ["", "-again", "-again-2", "-again-10"]


@pytest.mark.parametrize("slug", ["crash-again", "crash-again-2", "again", "x-again-again"])
def test_a_request_gfh_filed_for_a_slug_ending_in_again_checks_clean(
    repo: Path, put_pill: Any, slug: str
) -> None:
    """If a pill's slug itself ends in `-again` or `-again-N`, then the request gfh files for
    it is accepted by `requests check`: filing and checking read names the same way."""
    put_pill(f"implementer/{slug}", occurrences="3")
    [filed] = check(repo)
    assert filed.rel == f"requests/2026-11-30-implementer__{slug}.md"
    assert problems(repo) == []
    [request] = load_ledger(repo, "requests").requests
    assert request.order == (TODAY, 0, request.id)


def test_requests_of_x_and_of_x_again_on_one_day_keep_apart(repo: Path, put_pill: Any) -> None:
    """If pill `x` is asked again the day pill `x-again` is first asked, then the two names
    collide; the second is filed under the next free name, and both check clean."""
    put_pill("implementer/x", occurrences="3")
    put_pill("implementer/x-again", occurrences="3")
    put_request(
        repo,
        "2026-11-30-implementer__x.md",
        pill="implementer/x",
        date="2026-11-30",
        status="declined",
        declined="not yet",
    )
    put_request(
        repo,
        "2026-11-30-implementer__x-again.md",
        pill="implementer/x",
        date="2026-11-30",
        occurrences=6,
    )
    [filed] = check(repo)
    assert filed.rel == "requests/2026-11-30-implementer__x-again-again.md"
    assert problems(repo) == []
    ledger = load_ledger(repo, "requests")
    assert [r.id for r in ledger.for_pill("implementer/x")] == [
        "2026-11-30-implementer__x",
        "2026-11-30-implementer__x-again",
    ]
    [mine] = ledger.for_pill("implementer/x-again")
    assert mine.order == (TODAY, 1, "2026-11-30-implementer__x-again-again")


def test_request_names_and_again_counts_are_one_rule() -> None:
    names = candidates(TODAY, "implementer/x-again")
    first = [next(names) for _ in range(4)]
    assert first == [
        "2026-11-30-implementer__x-again.md",
        "2026-11-30-implementer__x-again-again.md",
        "2026-11-30-implementer__x-again-again-2.md",
        "2026-11-30-implementer__x-again-again-3.md",
    ]
    for again, name in enumerate(first):
        assert again_of(name.removesuffix(".md"), "implementer/x-again") == again
        assert request_id(TODAY, "implementer/x-again", again) == name.removesuffix(".md")
    assert again_of("2026-11-30-implementer__x-again", "implementer/x") == 1
    assert again_of("2026-11-30-implementer__x-again-1", "implementer/x") is None
    assert again_of("2026-11-30-implementer__x-again-02", "implementer/x") is None
    assert again_of("2026-11-30-implementer__y", "implementer/x") is None
    assert again_of("implementer__x", "implementer/x") is None


def test_the_one_open_request_error_names_the_first_by_order_not_the_file_itself(
    repo: Path,
) -> None:
    """If two open requests of a pill share a day, then the later one (`-again`, which sorts
    first by file name) is the one flagged, and the message names the earlier one."""
    put_request(repo, "2026-11-20-implementer__parser.md")
    put_request(repo, "2026-11-20-implementer__parser-again.md")
    assert problems(repo) == [
        "requests/2026-11-20-implementer__parser-again.md:3: error: pill implementer/parser "
        "already has an open request (2026-11-20-implementer__parser); one open request per "
        "pill: decline or remove this one"
    ]


def test_rule_files_outside_the_repository_are_each_reported_on_their_line(repo: Path) -> None:
    """If closed requests name rule files outside the repository, then each is a problem on
    its `rule_in` line and the check goes on to the others (git is never asked about them)."""
    commit(repo, "rule", {RULE: "rule\n"})
    put_request(repo, "2026-11-20-implementer__a.md", pill="implementer/a", **CLOSED)
    put_request(
        repo, "2026-11-20-implementer__b.md", pill="implementer/b", **{**CLOSED, "rule_in": "/x"}
    )
    put_request(
        repo, "2026-11-20-implementer__c.md", pill="implementer/c", **{**CLOSED, "rule_in": "../y"}
    )
    put_request(repo, "2026-12-25-implementer__d.md", pill="implementer/d")
    assert problems(repo) == [
        "requests/2026-11-20-implementer__b.md:11: error: rule_in '/x': give a path relative to "
        "the repository's top",
        "requests/2026-11-20-implementer__c.md:11: error: rule_in '../y': must stay inside the "
        "repository",
        "requests/2026-12-25-implementer__d.md:4: error: date 2026-12-25 is in the future "
        "(today is 2026-11-30)",
    ]
