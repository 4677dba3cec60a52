from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from gitflow_harness.learning.request_rules import (
    STATUS_RULES,
    RequestRule,
    RuleContext,
    closed_answered,
    closed_commit_exists,
    closed_not_declined,
    closed_rule_committed,
    dated_as_named,
    declined_says_why,
    declined_unanswered,
    named_for_its_pill,
    not_in_the_future,
    one_open_per_pill,
    open_unanswered,
    reopening_names_its_rule,
    reopens_a_request,
    rule_inside_the_repository,
)
from gitflow_harness.learning.requests import STATUSES, Request
from tests.helpers import write

TODAY = dt.date(2026, 11, 30)


# One rule at a time: each request rule, asked of a request record and a gathered context.


def _request(id_: str = "2026-11-20-implementer__parser", **fields: Any) -> Request:
    values: dict[str, Any] = {
        "status": "open",
        "date": dt.date(2026, 11, 20),
        "core": {"gfh": "0.1.0", "ways": None},
        "target": "hooks/ways/implementer",
        "pill": "implementer/parser",
        "occurrences": 3,
        "rule_in": None,
        "answered_in": None,
        "declined": None,
        "reopens": None,
        **fields,
    }
    return Request(
        path=Path(f"requests/{id_}.md"), rel=f"requests/{id_}.md", id=id_, lines={}, **values
    )


def _context(tmp_path: Path, **fields: Any) -> RuleContext:
    values: dict[str, Any] = {
        "top": tmp_path,
        "root_rel": "requests",
        "today": TODAY,
        "outside": {},
        "inside": {},
        "tracked": frozenset(),
        "names": frozenset(),
        "answered": frozenset(),
        **fields,
    }
    return RuleContext(**values)


def _messages(rule: RequestRule, req: Request, ctx: RuleContext) -> list[tuple[str | None, str]]:
    return list(rule(req, ctx))


def test_named_for_its_pill(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    assert _messages(named_for_its_pill, _request(), ctx) == []
    assert _messages(named_for_its_pill, _request("parser"), ctx) == [
        (None, "the file name must be <YYYY-MM-DD>-<name>.md")
    ]
    ((key, message),) = _messages(named_for_its_pill, _request(pill="reviewer/x"), ctx)
    assert key == "pill"
    assert "expected 2026-11-20-reviewer__x.md" in message


def test_dated_as_named(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    assert _messages(dated_as_named, _request(), ctx) == []
    assert _messages(dated_as_named, _request("parser", date=dt.date(2026, 1, 1)), ctx) == []
    assert _messages(dated_as_named, _request(date=dt.date(2026, 11, 3)), ctx) == [
        (
            "date",
            "date 2026-11-03 is not the date its file name begins with (2026-11-20); "
            "make them agree",
        )
    ]


def test_not_in_the_future(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    assert _messages(not_in_the_future, _request(date=TODAY), ctx) == []
    assert _messages(not_in_the_future, _request(date=dt.date(2026, 12, 1)), ctx) == [
        ("date", "date 2026-12-01 is in the future (today is 2026-11-30)")
    ]


def test_rule_inside_the_repository(tmp_path: Path) -> None:
    ctx = _context(tmp_path, outside={"../x": "must stay inside the repository"})
    assert _messages(rule_inside_the_repository, _request(), ctx) == []
    assert _messages(rule_inside_the_repository, _request(rule_in="a.md"), ctx) == []
    assert _messages(rule_inside_the_repository, _request(rule_in="../x"), ctx) == [
        ("rule_in", "rule_in '../x': must stay inside the repository")
    ]


def test_open_unanswered(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    assert _messages(open_unanswered, _request(), ctx) == []
    assert _messages(open_unanswered, _request(rule_in="r.md", declined="no"), ctx) == [
        ("rule_in", "an open request has no rule_in; remove it or set the status"),
        ("declined", "an open request has no declined; remove it or set the status"),
    ]
    # A reopening names the rule that did not hold.
    assert _messages(open_unanswered, _request(rule_in="r.md", reopens="x.md"), ctx) == []


def test_closed_not_declined(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    assert _messages(closed_not_declined, _request(status="closed"), ctx) == []
    assert _messages(closed_not_declined, _request(status="closed", declined="x"), ctx) == [
        ("declined", "a closed request was answered, not declined; remove declined")
    ]


def test_closed_answered(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    done = _request(status="closed", rule_in="r.md", answered_in="abcd")
    assert _messages(closed_answered, done, ctx) == []
    assert _messages(closed_answered, _request(status="closed"), ctx) == [
        (
            "status",
            "a closed request needs rule_in and answered_in: answer it with "
            "`gfh requests answer 2026-11-20-implementer__parser --in PATH`",
        )
    ]


def test_closed_rule_committed(tmp_path: Path) -> None:
    write(tmp_path, "kept.md", "rule\n")
    write(tmp_path, "loose.md", "rule\n")
    ctx = _context(
        tmp_path,
        inside={"./kept.md": "kept.md", "loose.md": "loose.md", "gone.md": "gone.md"},
        outside={"/x": "give a path relative to the repository's top"},
        tracked=frozenset({"kept.md"}),
    )

    def found(rule_in: str | None) -> list[tuple[str | None, str]]:
        return _messages(closed_rule_committed, _request(status="closed", rule_in=rule_in), ctx)

    assert found("./kept.md") == []
    assert found(None) == []
    assert found("/x") == []  # reported once, by rule_inside_the_repository
    assert found("gone.md") == [("rule_in", "rule_in 'gone.md': no such file")]
    assert found("loose.md") == [("rule_in", "rule_in 'loose.md' is not tracked by git; commit it")]


def test_closed_commit_exists(tmp_path: Path) -> None:
    ctx = _context(tmp_path, answered=frozenset({"abcd123"}))

    def found(answered_in: str | None) -> list[tuple[str | None, str]]:
        req = _request(status="closed", answered_in=answered_in)
        return _messages(closed_commit_exists, req, ctx)

    assert found("abcd123") == []
    assert found(None) == []
    assert found("HEAD") == [("answered_in", "answered_in 'HEAD' is not a commit id")]
    assert found("fedc321") == [("answered_in", "answered_in 'fedc321': no such commit here")]


def test_declined_says_why(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    assert _messages(declined_says_why, _request(status="declined", declined="no"), ctx) == []
    assert _messages(declined_says_why, _request(status="declined"), ctx) == [
        (
            "status",
            "a declined request says why: "
            "`gfh requests decline 2026-11-20-implementer__parser --why`",
        )
    ]


def test_declined_unanswered(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    answered = _request(status="declined", rule_in="r.md", answered_in="abcd")
    assert _messages(declined_unanswered, answered, ctx) == [
        ("rule_in", "a declined request has no rule_in"),
        ("answered_in", "a declined request has no answered_in"),
    ]
    reopening = _request(status="declined", rule_in="r.md", reopens="x.md")
    assert _messages(declined_unanswered, reopening, ctx) == []


def test_reopens_a_request(tmp_path: Path) -> None:
    ctx = _context(tmp_path, names=frozenset({"x", "x.md"}))
    assert _messages(reopens_a_request, _request(), ctx) == []
    assert _messages(reopens_a_request, _request(reopens="x.md"), ctx) == []
    assert _messages(reopens_a_request, _request(reopens="y.md"), ctx) == [
        ("reopens", "reopens 'y.md', which is not in requests/")
    ]


def test_reopening_names_its_rule(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    assert _messages(reopening_names_its_rule, _request(), ctx) == []
    assert _messages(reopening_names_its_rule, _request(reopens="x", rule_in="r.md"), ctx) == []
    assert _messages(reopening_names_its_rule, _request(reopens="x"), ctx) == [
        ("reopens", "a reopening names, in rule_in, the rule that did not hold; add it")
    ]


def test_every_status_has_its_rules() -> None:
    """If a status is added, then it is given its rules: the table covers every status."""
    assert set(STATUS_RULES) == set(STATUSES)


def test_one_open_per_pill() -> None:
    first = _request()
    again = _request("2026-11-20-implementer__parser-again")
    closed = _request("2026-11-21-implementer__parser", status="closed")
    other = _request("2026-11-20-reviewer__x", pill="reviewer/x")
    assert list(one_open_per_pill([first, closed, other])) == []
    assert [str(p) for p in one_open_per_pill([again, first, closed, other])] == [
        "requests/2026-11-20-implementer__parser-again.md:1: error: pill implementer/parser "
        "already has an open request (2026-11-20-implementer__parser); one open request per "
        "pill: decline or remove this one"
    ]
