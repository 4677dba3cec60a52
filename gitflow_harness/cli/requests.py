"""`gfh requests`: graduation requests and reopenings."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import click

from gitflow_harness.cli._common import echo_json, json_option, table


@click.group()
def requests() -> None:
    """Graduation requests: list, check, answer or decline them."""


@requests.command("list")
@click.option(
    "--status",
    type=click.Choice(["open", "closed", "declined"]),
    default=None,
    help="Only requests with this status.",
)
@json_option
def list_(status: str | None, as_json: bool) -> int:
    """List requests, oldest first."""
    from gitflow_harness.learning.requests import load_ledger
    from gitflow_harness.workspace import open_workspace

    ws = open_workspace()
    ledger = load_ledger(ws.top, ws.config.paths.requests)
    found = sorted(
        (r for r in ledger.requests if status is None or r.status == status),
        key=lambda r: r.order,
    )
    if as_json:
        echo_json(
            {
                "requests": [
                    {
                        "id": r.id,
                        "path": r.rel,
                        "status": r.status,
                        "date": r.date.isoformat(),
                        "pill": r.pill,
                        "occurrences": r.occurrences,
                        "target": r.target,
                        "rule_in": r.rule_in,
                        "answered_in": r.answered_in,
                        "declined": r.declined,
                        "reopens": r.reopens,
                    }
                    for r in found
                ]
            }
        )
        return 0
    if not found:
        click.echo(
            f"no requests in {ledger.root_rel}/" if status is None else f"no {status} requests"
        )
    rows = []
    for r in found:
        notes = []
        if r.status == "closed":
            notes.append(f"rule in {r.rule_in} ({r.answered_in})")
        elif r.status == "declined":
            notes.append(f"declined: {r.declined}")
        if r.reopens:
            notes.append(f"reopens {r.reopens}")
        rows.append([r.id, r.status, f"{r.pill} x{r.occurrences}", "; ".join(notes)])
    # The status column is as wide as its longest value ("declined") whatever is listed.
    for line in table(rows, least=(0, 8)):
        click.echo(line)
    for problem in ledger.problems:
        click.echo(str(problem), err=True)
    return 0


@requests.command("check")
@json_option
def check(as_json: bool) -> int:
    """Validate every request (fields per status, rule files, one open per pill); exit 1 if bad."""
    from gitflow_harness.learning.request_rules import check_rules
    from gitflow_harness.learning.requests import load_ledger
    from gitflow_harness.workspace import open_workspace

    ws = open_workspace()
    ledger = load_ledger(ws.top, ws.config.paths.requests)
    problems = [*ledger.problems, *check_rules(ledger, ws.repo, today=dt.date.today())]
    problems.sort(key=lambda p: (p.path, p.line or 0))
    bad = [p for p in problems if p.severity in ("error", "warning")]
    if as_json:
        echo_json(
            {
                "requests": len(ledger.requests),
                "ok": not bad,
                "problems": [p._asdict() for p in problems],
            }
        )
        return 1 if bad else 0
    for problem in problems:
        click.echo(str(problem))
    click.echo(
        f"{len(ledger.requests)} request(s) in {ledger.root_rel}/: {len(bad)} problem(s)",
        err=bool(bad),
    )
    return 1 if bad else 0


@requests.command("answer")
@click.argument("request_id", metavar="ID")
@click.option(
    "--in",
    "rule",
    required=True,
    metavar="PATH",
    help="The committed file holding the rule (a way).",
)
@json_option
def answer(request_id: str, rule: str, as_json: bool) -> int:
    """Close request ID with the rule committed at PATH, and retire its pill."""
    from gitflow_harness.learning.answers import answer as do_answer
    from gitflow_harness.workspace import open_workspace

    ws = open_workspace()
    done = do_answer(ws.repo, ws.config, request_id, rule, cwd=Path.cwd())
    moved = done.moved
    if as_json:
        echo_json(
            {
                "id": done.request.id,
                "status": "closed",
                "rule_in": done.rule_in,
                "answered_in": done.answered_in,
                "pill": done.pill.key,
                "pill_path": moved.destination if moved else done.pill.rel,
            }
        )
        return 0
    click.echo(f"{done.request.rel}: closed, rule in {done.rule_in} ({done.answered_in})")
    if moved is not None:
        how = "git mv" if moved.with_git else "moved"
        click.echo(f"{done.pill.key}: retired; {how} {moved.source} -> {moved.destination}")
    elif done.retired:
        click.echo(f"{done.pill.key}: retired")
    click.echo("commit both changes together")
    return 0


@requests.command("decline")
@click.argument("request_id", metavar="ID")
@click.option("--why", required=True, help="Why the lesson does not become a rule.")
@json_option
def decline(request_id: str, why: str, as_json: bool) -> int:
    """Decline request ID, saying why; its pill stays as it is (a reopening's stays retired)."""
    from gitflow_harness.learning.answers import decline as do_decline
    from gitflow_harness.workspace import open_workspace

    ws = open_workspace()
    done = do_decline(ws.repo, ws.config, request_id, why)
    if as_json:
        echo_json({"id": done.request.id, "status": "declined", "declined": done.why})
        return 0
    stays = f"; {done.request.pill} stays {done.pill_status}" if done.pill_status else ""
    click.echo(f"{done.request.rel}: declined{stays}")
    return 0
