"""The rules a filed request must keep: fields per status, its rule file, one open per pill.

Each rule is a small named function of one request and a context gathered once for the whole
ledger; the tables below say which rules apply to which status, in the order they report.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from gitflow_harness import git
from gitflow_harness.learning.request_names import request_id
from gitflow_harness.learning.requests import COMMIT_ID, DATED, Ledger, Request, again_of
from gitflow_harness.store.schema import Problem


@dataclass(frozen=True, slots=True)
class RuleContext:
    """What the request rules may ask beyond the request itself, gathered once for the ledger
    (git is asked in bulk, never per request)."""

    top: Path
    root_rel: str  # the requests folder, as configured
    today: dt.date
    outside: Mapping[str, str]  # rule_in -> why it names no place inside the repository
    inside: Mapping[str, str]  # rule_in -> the repository path it names
    tracked: frozenset[str]  # of the inside rule paths that are files, those git tracks
    names: frozenset[str]  # every request id, and its file name
    answered: frozenset[str]  # of the closed requests' answered_in, those that are commits


# A rule's finding: the key whose line it is reported on (None: the file's first line), and
# the message. Every finding of the request rules is an error.
Finding = tuple[str | None, str]
RequestRule = Callable[[Request, RuleContext], Iterator[Finding]]


def rule_context(ledger: Ledger, repo: git.Repo, *, today: dt.date) -> RuleContext:
    """Gather what the rules need of git and the file system for every request of `ledger`."""
    from gitflow_harness.learning.citations import Outside, repo_path

    top = Path(repo.worktree())
    # Every rule_in, read as a place in the repository; only files there are asked of git.
    placed = {r.rule_in: repo_path(r.rule_in) for r in ledger.requests if r.rule_in}
    outside = {k: p.reason for k, p in placed.items() if isinstance(p, Outside)}
    inside = {k: p for k, p in placed.items() if isinstance(p, str)}
    rules = [p for p in inside.values() if (top / p).is_file()]
    # Every answered_in of a closed request, asked of git at once.
    answered = git.commits_among(repo, _answers(ledger.requests))
    return RuleContext(
        top=top,
        root_rel=ledger.root_rel,
        today=today,
        outside=outside,
        inside=inside,
        tracked=frozenset(git.tracked(repo, rules) if rules else ()),
        names=frozenset({r.id for r in ledger.requests} | {f"{r.id}.md" for r in ledger.requests}),
        answered=frozenset(answered),
    )


def _answers(requests: Iterable[Request]) -> Iterator[str]:
    """The answered_in of the closed requests that can name a commit."""
    for r in requests:
        if r.status == "closed" and r.answered_in and COMMIT_ID.fullmatch(r.answered_in):
            yield r.answered_in


def named_for_its_pill(req: Request, ctx: RuleContext) -> Iterator[Finding]:
    """The file is `<YYYY-MM-DD>-<name>.md`, named for the pill it names."""
    match = DATED.match(req.id)
    if match is None:
        yield None, "the file name must be <YYYY-MM-DD>-<name>.md"
    elif again_of(req.id, req.pill) is None:
        yield (
            "pill",
            f"names pill {req.pill!r} but its file is not named for it: expected "
            f"{request_id(match['date'], req.pill, 0)}.md (or with -again, -again-N)",
        )


def dated_as_named(req: Request, ctx: RuleContext) -> Iterator[Finding]:
    """The date field is the date the file name begins with."""
    match = DATED.match(req.id)
    if match is not None and match["date"] != req.date.isoformat():
        # The filing order (and so `-again` and one-open-per-pill) reads the date field.
        yield (
            "date",
            f"date {req.date} is not the date its file name begins with ({match['date']}); "
            "make them agree",
        )


def not_in_the_future(req: Request, ctx: RuleContext) -> Iterator[Finding]:
    if req.date > ctx.today:
        yield "date", f"date {req.date} is in the future (today is {ctx.today})"


def rule_inside_the_repository(req: Request, ctx: RuleContext) -> Iterator[Finding]:
    """A rule_in names a place inside the repository, whatever the status."""
    if req.rule_in is not None and req.rule_in in ctx.outside:
        yield "rule_in", f"rule_in {req.rule_in!r}: {ctx.outside[req.rule_in]}"


def open_unanswered(req: Request, ctx: RuleContext) -> Iterator[Finding]:
    """An open request has no answer yet; a reopening names, in rule_in, the rule that did not
    hold."""
    keys = ("answered_in", "declined") if req.reopens else ("rule_in", "answered_in", "declined")
    for key in keys:
        if getattr(req, key) is not None:
            yield key, f"an open request has no {key}; remove it or set the status"


def closed_not_declined(req: Request, ctx: RuleContext) -> Iterator[Finding]:
    if req.declined is not None:
        yield "declined", "a closed request was answered, not declined; remove declined"


def closed_answered(req: Request, ctx: RuleContext) -> Iterator[Finding]:
    """A closed request names the rule that answered it and the commit that made it."""
    missing = [k for k in ("rule_in", "answered_in") if getattr(req, k) is None]
    if missing:
        yield (
            "status",
            f"a closed request needs {' and '.join(missing)}: answer it with "
            f"`gfh requests answer {req.id} --in PATH`",
        )


def closed_rule_committed(req: Request, ctx: RuleContext) -> Iterator[Finding]:
    """A closed request's rule is a file of the repository that git tracks."""
    rule = ctx.inside.get(req.rule_in) if req.rule_in is not None else None
    if rule is None:
        return
    if not (ctx.top / rule).is_file():
        yield "rule_in", f"rule_in {req.rule_in!r}: no such file"
    elif rule not in ctx.tracked:
        yield "rule_in", f"rule_in {req.rule_in!r} is not tracked by git; commit it"


def closed_commit_exists(req: Request, ctx: RuleContext) -> Iterator[Finding]:
    """A closed request's answered_in is a commit id, of a commit this repository has."""
    if req.answered_in is None:
        return
    if not COMMIT_ID.fullmatch(req.answered_in):
        yield "answered_in", f"answered_in {req.answered_in!r} is not a commit id"
    elif req.answered_in not in ctx.answered:
        yield "answered_in", f"answered_in {req.answered_in!r}: no such commit here"


def declined_says_why(req: Request, ctx: RuleContext) -> Iterator[Finding]:
    if req.declined is None:
        yield "status", f"a declined request says why: `gfh requests decline {req.id} --why`"


def declined_unanswered(req: Request, ctx: RuleContext) -> Iterator[Finding]:
    """A declined request has no answer; a declined reopening still names, in rule_in, the
    rule that did not hold."""
    for key in ("answered_in",) if req.reopens else ("rule_in", "answered_in"):
        if getattr(req, key) is not None:
            yield key, f"a declined request has no {key}"


def reopens_a_request(req: Request, ctx: RuleContext) -> Iterator[Finding]:
    if req.reopens is not None and req.reopens not in ctx.names:
        yield "reopens", f"reopens {req.reopens!r}, which is not in {ctx.root_rel}/"


def reopening_names_its_rule(req: Request, ctx: RuleContext) -> Iterator[Finding]:
    if req.reopens is not None and req.rule_in is None:
        yield "reopens", "a reopening names, in rule_in, the rule that did not hold; add it"


# The rules of one request, in the order their problems are reported: those of every request,
# then those of its status, then those of a reopening.
COMMON_RULES: Final[tuple[RequestRule, ...]] = (
    named_for_its_pill,
    dated_as_named,
    not_in_the_future,
    rule_inside_the_repository,
)
STATUS_RULES: Final[Mapping[str, tuple[RequestRule, ...]]] = {
    "open": (open_unanswered,),
    "closed": (closed_not_declined, closed_answered, closed_rule_committed, closed_commit_exists),
    "declined": (declined_says_why, declined_unanswered),
}
REOPENING_RULES: Final[tuple[RequestRule, ...]] = (reopens_a_request, reopening_names_its_rule)


def request_problems(req: Request, ctx: RuleContext) -> Iterator[Problem]:
    """The problems of one parsed request, rule by rule."""
    for rule in (*COMMON_RULES, *STATUS_RULES[req.status], *REOPENING_RULES):
        for key, message in rule(req, ctx):
            yield Problem(req.rel, req.line(key) if key else 1, "error", message)


def one_open_per_pill(requests: Iterable[Request]) -> Iterator[Problem]:
    """Every open request of a pill after its first, by filing order, is a problem."""
    by_pill: dict[str, list[Request]] = {}
    for req in requests:
        if req.status == "open":
            by_pill.setdefault(req.pill, []).append(req)
    for pill, found in sorted(by_pill.items()):
        # By filing order, not file name: `-again.md` sorts before `.md`.
        first, *extras = sorted(found, key=lambda r: r.order)
        for extra in extras:
            yield Problem(
                extra.rel,
                extra.line("status"),
                "error",
                f"pill {pill} already has an open request ({first.id}); "
                "one open request per pill: decline or remove this one",
            )


def check_rules(ledger: Ledger, repo: git.Repo, *, today: dt.date) -> list[Problem]:
    """Return the problems of the parsed requests: fields per status, rule files, one open each."""
    ctx = rule_context(ledger, repo, today=today)
    out = [p for req in ledger.requests for p in request_problems(req, ctx)]
    return [*out, *one_open_per_pill(ledger.requests)]
