"""What is owed, and filing it: graduation requests and reopenings (docs/learning.md).

Owed: a request for an active pill at `graduation_at` that no request names yet; after a
decline, again once its occurrences grew by `graduation_at` since the declined request; a
reopening for a relapsed pill (retired, its latest request closed, its occurrences grown past
that request's). Filing runs under one lock in the git common dir and creates every file
exclusively, so concurrent checks (a pre-commit hook and an agent hook) file each thing once.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, NamedTuple

from gitflow_harness import __version__, git
from gitflow_harness.errors import GfhError
from gitflow_harness.learning.lock import held
from gitflow_harness.learning.pills import SHARED, Catalog, Pill, load_catalog
from gitflow_harness.learning.request_names import MAX_AGAIN, name_problem
from gitflow_harness.learning.requests import Ledger, Request, candidates, load_ledger
from gitflow_harness.store.config import Config


# NamedTuples, not dataclasses: a frozen dataclass costs about five times as much to define
# (~0.5 ms each on these machines), on every run of the commands that import this module.
class Owed(NamedTuple):
    """One request `learn --check` must file."""

    pill: Pill
    kind: Literal["request", "reopening"]
    reopens: Request | None = None  # the closed request whose rule did not hold
    after_decline: Request | None = None  # the declined request it follows

    def describe(self) -> str:
        if self.kind == "reopening":
            assert self.reopens is not None
            grown = self.pill.occurrences - self.reopens.occurrences
            return (
                f"reopening: {self.pill.key} recurred {grown} time(s) since "
                f"{self.reopens.id} was answered"
            )
        if self.after_decline is not None:
            grown = self.pill.occurrences - self.after_decline.occurrences
            return (
                f"request: {self.pill.key} recurred {grown} more time(s) since "
                f"{self.after_decline.id} was declined"
            )
        return f"request: {self.pill.key} recurred {self.pill.occurrences} times"


class Relapse(NamedTuple):
    """A retired pill that came back after its request was answered."""

    pill: Pill
    closed: Request  # the answer whose rule did not hold
    declined: Request | None = None  # its reopening, declined: the maintainer kept the rule

    @property
    def grown(self) -> int:
        return self.pill.occurrences - self.closed.occurrences


def owed(catalog: Catalog, ledger: Ledger, graduation_at: int) -> list[Owed]:
    """Return what is owed, pill by pill."""
    out: list[Owed] = []
    for pill in catalog.pills:
        found = ledger.for_pill(pill.key)
        if any(r.status == "open" for r in found):
            continue  # one open request per pill at a time
        closed = [r for r in found if r.status == "closed"]
        latest = found[-1] if found else None
        if latest is None:
            if pill.active and pill.occurrences >= graduation_at:
                out.append(Owed(pill, "request"))
        elif latest.status == "declined":
            if pill.occurrences >= latest.occurrences + graduation_at:
                if pill.active:
                    out.append(Owed(pill, "request", after_decline=latest))
                elif closed:
                    out.append(Owed(pill, "reopening", reopens=closed[-1], after_decline=latest))
        elif (
            latest.status == "closed" and not pill.active and pill.occurrences > latest.occurrences
        ):
            out.append(Owed(pill, "reopening", reopens=latest))
    return out


def owed_for(top: Path, config: Config, key: str) -> Owed | None:
    """Return what is owed for one pill, if anything (read without the lock: advice only)."""
    catalog = load_catalog(top, config.paths.pills)
    ledger = load_ledger(top, config.paths.requests)
    due = [o for o in owed(catalog, ledger, config.learning.graduation_at) if o.pill.key == key]
    return due[0] if due else None


def relapses(catalog: Catalog, ledger: Ledger) -> list[Relapse]:
    """Return retired pills whose occurrences grew past their latest closed request's.

    As in `owed`, the latest request decides: closed, the relapse stands; open, the relapse is
    that reopening (reported as an open request, not twice); declined, the relapse is kept
    with the decline, which stands until the lesson recurs enough to be owed again.
    """
    out = []
    for pill in catalog.pills:
        if pill.active:
            continue
        found = ledger.for_pill(pill.key)
        closed = [r for r in found if r.status == "closed"]
        if not closed or pill.occurrences <= closed[-1].occurrences:
            continue
        latest = found[-1]
        if latest.status == "closed":
            out.append(Relapse(pill, latest))
        elif latest.status == "declined":
            out.append(Relapse(pill, closed[-1], declined=latest))
    return out


def target_of(pill: Pill, ways_root: str) -> str:
    """Return the proposed home of a pill's rule: its role's ways folder, or shared/."""
    roles = pill.roles
    folder = roles[0] if len(roles) == 1 else SHARED
    return f"{ways_root.rstrip('/')}/{folder}/"


class Filed(NamedTuple):
    owed: Owed
    rel: str  # repo-relative path of the new request


class NotFiled(NamedTuple):
    """An owed request that could not be filed, and why (one line naming the pill)."""

    owed: Owed
    problem: str


class Filing(NamedTuple):
    """What one `learn --check` filed, and what it could not: one pill never stops the rest."""

    filed: list[Filed]
    failed: list[NotFiled]


Evidence = Callable[[Sequence[Owed]], dict[str, list[str]]]


def file_owed(
    repo: git.Repo,
    config: Config,
    *,
    today: dt.date,
    evidence: Evidence | None = None,
) -> Filing:
    """File every owed request and reopening, under the learning lock; return what was filed
    and what could not be (each with its reason), the one never stopping the others."""
    top = Path(repo.worktree())
    with held(repo):
        # Read everything again under the lock: another check may have filed a moment ago.
        catalog = load_catalog(top, config.paths.pills)
        ledger = load_ledger(top, config.paths.requests)
        broken = [p for p in ledger.problems if p.severity == "error"]
        if broken:
            raise GfhError(
                f"{broken[0]} — a request that cannot be read might already name a pill, so "
                "nothing was filed; fix it (`gfh requests check`) and run again"
            )
        due = owed(catalog, ledger, config.learning.graduation_at)
        failed: list[NotFiled] = []
        for item in due:
            problem = name_problem(item.pill.key)
            if problem is not None:
                failed.append(NotFiled(item, f"{item.pill.rel}: not filed: {problem}"))
        due = [o for o in due if all(f.owed is not o for f in failed)]
        if not due:
            return Filing([], failed)
        lines = evidence(due) if evidence is not None else {}
        core = {"gfh": __version__, "ways": git.tree_short(repo, config.paths.ways)}
        ledger.root.mkdir(parents=True, exist_ok=True)
        filed: list[Filed] = []
        for item in due:
            try:
                filed.append(
                    _file_one(item, ledger, config, core, today, lines.get(item.pill.key, []))
                )
            except (OSError, GfhError) as exc:
                reason = exc.message if isinstance(exc, GfhError) else exc.strerror or str(exc)
                failed.append(NotFiled(item, f"{item.pill.rel}: not filed: {reason}"))
        return Filing(filed, failed)


def not_added(repo: git.Repo, config: Config) -> list[str]:
    """Request files that exist but git does not track yet: filed, not yet reviewed and added.

    The check keeps failing on them, so a commit cannot slip past a request it filed.
    """
    top = Path(repo.worktree())
    root = top / config.paths.requests
    on_disk = (
        {p.relative_to(top).as_posix() for p in root.glob("*.md") if p.name != "README.md"}
        if root.is_dir()
        else set()
    )
    if not on_disk:
        return []  # nothing filed: no need to ask git
    return sorted(on_disk - git.tracked(repo, [config.paths.requests]))


def _file_one(
    item: Owed,
    ledger: Ledger,
    config: Config,
    core: dict[str, Any],
    today: dt.date,
    evidence: list[str],
) -> Filed:
    from gitflow_harness.store import documents
    from gitflow_harness.store.fsutil import FileExistsGfhError

    pill = item.pill
    meta: dict[str, Any] = {
        "kind": "harness-request",
        "status": "open",
        "date": today,
        "core": core,
        "target": target_of(pill, config.paths.ways),
        "pill": pill.key,
        "occurrences": pill.occurrences,
    }
    if item.reopens is not None:
        meta["rule_in"] = item.reopens.rule_in
        meta["reopens"] = f"{item.reopens.id}.md"
    for attempt, name in enumerate(candidates(today, pill.key)):
        if attempt >= MAX_AGAIN:
            break
        path = ledger.root / name
        if path.exists():
            continue
        request_id = path.stem
        body = render_body(item, request_id, meta["target"], evidence, config.paths.ways)
        try:
            documents.create(path, meta, body)
        except FileExistsGfhError:
            continue  # taken between the check and the create: the next name
        return Filed(item, f"{ledger.root_rel}/{name}")
    raise GfhError(f"{ledger.root_rel}/: no free name for a request of {pill.key}")


def render_body(
    item: Owed, request_id: str, target: str, evidence: list[str], ways_root: str
) -> str:
    """Return the body of a request: it must stand alone in a pull request."""
    pill = item.pill
    reopening = item.kind == "reopening"
    if reopening:
        answer = "Commit the revised rule, then close this request (the pill stays retired):"
        closed = item.reopens
        assert closed is not None
        headline = (
            f"The rule that answered lesson `{pill.key}` in `{closed.rule_in}` (request "
            f"{closed.id}, commit {closed.answered_in}) did not hold: the lesson recurred "
            f"{pill.occurrences - closed.occurrences} time(s) since, last on {pill.last_seen}; "
            "revise the rule or its firing."
        )
        title = f"# Reopen: `{pill.key}` came back"
    else:
        headline = (
            f"Make lesson `{pill.key}`, which recurred {pill.occurrences} times, a rule: a way "
            f"under `{target}`, so it is injected when its trigger applies."
        )
        if item.after_decline is not None:
            declined = item.after_decline
            headline += (
                f" Asked again: {declined.id} was declined at {declined.occurrences} "
                f"occurrences ({declined.declined}), and the lesson recurred "
                f"{pill.occurrences - declined.occurrences} more times since."
            )
        title = f"# Graduate `{pill.key}` into a rule"
        answer = "Commit the rule, then close this request (the pill is retired):"
    text = pill.path.read_text(encoding="utf-8-sig").replace("\r\n", "\n")
    fence = "```"
    while fence in text:
        fence += "`"
    slug = pill.place.slug
    if item.reopens is not None and item.reopens.rule_in:
        example = item.reopens.rule_in
    else:
        example = f"{target}{slug}/{slug}.md"
    facts = [
        f"- occurrences: {pill.occurrences} (first seen {pill.date}, last seen {pill.last_seen})",
        *evidence,
    ]
    return "\n".join(
        [
            title,
            "",
            headline,
            "",
            f"## The lesson (`{pill.rel}`)",
            "",
            f"{fence}markdown",
            text.rstrip("\n"),
            fence,
            "",
            "## Evidence",
            "",
            *facts,
            "",
            "## Answer it",
            "",
            answer,
            "",
            f"    gfh requests answer {request_id} --in {example}",
            "",
            f"Or decline it, saying why (the pill stays {'retired' if reopening else 'active'}):",
            "",
            f'    gfh requests decline {request_id} --why "…"',
            "",
        ]
    )
