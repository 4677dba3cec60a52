"""`gfh pills`: lessons learned, as committed files."""

from __future__ import annotations

import datetime as dt

import click

from gitflow_harness.cli._common import echo_json, json_option

DATE = click.DateTime(formats=["%Y-%m-%d"])


@click.group()
def pills() -> None:
    """Lessons learned (pills): check, bump, write, index and tidy them."""


@pills.command("check")
@json_option
@click.option("-q", "--quiet", is_flag=True, help="Print only problems that fail the check.")
def check(as_json: bool, quiet: bool) -> int:
    """Validate every pill (fields, dates, place, citations); exit 1 on errors."""
    from gitflow_harness.cli.pills_check import show

    return show(as_json=as_json, quiet=quiet)


@pills.command("bump")
@click.argument("pill")
@click.option("--date", "on", type=DATE, default=None, help="The day it recurred (default today).")
@json_option
def bump(pill: str, on: dt.datetime | None, as_json: bool) -> int:
    """Count one more occurrence of PILL (a path, `role/slug`, or id) and set last_seen."""
    from gitflow_harness.learning import edits, graduation
    from gitflow_harness.learning.pills import load_catalog
    from gitflow_harness.workspace import open_workspace

    ws = open_workspace()
    today = dt.date.today()
    found = load_catalog(ws.top, ws.config.paths.pills).find(pill, top=ws.top)
    done = edits.bump(ws.repo, found, on=on.date() if on else today, today=today)
    owed = graduation.owed_for(ws.top, ws.config, found.key)
    if as_json:
        echo_json(
            {
                "pill": found.key,
                "path": found.rel,
                "occurrences": done.occurrences,
                "last_seen": done.last_seen.isoformat(),
                "owed": owed.kind if owed else None,
            }
        )
        return 0
    click.echo(
        f"{found.rel}: occurrences {done.occurrences} (was {done.was}), last_seen {done.last_seen}"
    )
    if owed is not None:
        click.echo(f"{owed.describe()}: `gfh learn --check` files it")
    return 0


@pills.command("new")
@click.argument("role")
@click.argument("slug")
@click.option("--trigger", required=True, help="When the lesson applies (one line).")
@click.option(
    "--severity",
    type=click.Choice(["low", "medium", "high"]),
    default="medium",
    show_default=True,
    help="How much forgetting it costs.",
)
@click.option(
    "--applies-to",
    "applies_to",
    multiple=True,
    help="A role it applies to (repeat; required for ROLE `shared`).",
)
@click.option("--source", default="", help="Where it was learned (a PR, a commit, a run).")
@json_option
def new(
    role: str,
    slug: str,
    trigger: str,
    severity: str,
    applies_to: tuple[str, ...],
    source: str,
    as_json: bool,
) -> int:
    """Write a new pill at pills/ROLE/SLUG.md (ROLE `shared` for several roles)."""
    from gitflow_harness.learning.edits import new_pill
    from gitflow_harness.learning.pills import load_catalog
    from gitflow_harness.workspace import open_workspace

    ws = open_workspace()
    catalog = load_catalog(ws.top, ws.config.paths.pills)
    path = new_pill(
        catalog,
        ws.top,
        role,
        slug,
        trigger=trigger,
        applies_to=applies_to,
        severity=severity,
        source=source,
        today=dt.date.today(),
    )
    rel = path.relative_to(ws.top).as_posix()
    if as_json:
        echo_json({"path": rel})
    else:
        click.echo(f"wrote {rel}: fill in its sections, cite the files it is about, commit it")
    return 0


@pills.command("index")
@click.argument("role")
def index(role: str) -> int:
    """Print ROLE's lessons index: what its subagents are given when they start."""
    from gitflow_harness.learning.folders import layout_folder
    from gitflow_harness.learning.index import lessons_index
    from gitflow_harness.workspace import open_workspace

    ws = open_workspace()
    layout_folder(ws.top, ws.config.paths.pills, "paths.pills")
    text = lessons_index(ws.top, ws.config.paths.pills, role)
    if text:
        click.echo(text, nl=False)
    else:
        click.echo(f"no active lesson applies to {role}", err=True)
    return 0


@pills.command("tidy")
@click.option("--dry-run", is_flag=True, help="Say what would move; move nothing.")
@json_option
def tidy(dry_run: bool, as_json: bool) -> int:
    """Move retired pills under retired/ (and active ones out), with `git mv` when tracked."""
    from gitflow_harness.learning import edits
    from gitflow_harness.workspace import open_workspace

    ws = open_workspace()
    moves = edits.tidy(ws.repo, ws.config.paths.pills, dry_run=dry_run)
    if as_json:
        echo_json(
            {
                "dry_run": dry_run,
                "moves": [
                    {"from": m.source, "to": m.destination, "git": m.with_git} for m in moves
                ],
            }
        )
        return 0
    if not moves:
        click.echo("every pill is where its status says")
    for m in moves:
        verb = "would move" if dry_run else ("git mv" if m.with_git else "moved")
        click.echo(f"{verb} {m.source} -> {m.destination}")
    return 0
