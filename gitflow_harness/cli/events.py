"""`gfh events`: read the event log."""

from __future__ import annotations

import json
import sys

import click

from gitflow_harness.cli._common import echo_json, json_option, since_date, table
from gitflow_harness.store.events import Event


@click.group()
def events() -> None:
    """Read the append-only event log in the git common dir."""


@events.command("tail")
@click.option(
    "-n",
    "count",
    type=click.IntRange(min=0),
    default=20,
    show_default=True,
    help="How many of the latest events.",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of the envelopes.")
def tail(count: int, as_json: bool) -> int:
    """Print the latest events, oldest first."""
    from gitflow_harness.store.events import unreadable_log
    from gitflow_harness.workspace import open_workspace

    log = open_workspace().log
    try:
        found = log.tail(count)
    except OSError as exc:
        raise unreadable_log(exc, log.directory) from None
    if as_json:
        echo_json([ev.to_dict() for ev in found])
        return 0
    for line in table([_row(ev) for ev in found]):
        click.echo(line)
    return 0


def _row(ev: Event) -> list[str]:
    data = json.dumps(ev.data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    if len(data) > 160:
        data = data[:157] + "..."
    return [ev.at, ev.type, ev.surface, ev.session or "-", ev.branch or "-", data]


@events.command("verify")
@json_option
def verify(as_json: bool) -> int:
    """Count events, foreign and torn lines per file; exit 1 when any line is torn."""
    from gitflow_harness.workspace import open_workspace

    log = open_workspace().log
    files = log.verify()
    torn = sum(f.torn for f in files)
    if as_json:
        echo_json(
            {
                "directory": str(log.directory),
                "files": [
                    {"file": f.path.name, "events": f.events, "foreign": f.foreign, "torn": f.torn}
                    for f in files
                ],
                "ok": torn == 0,
            }
        )
    else:
        if not files:
            click.echo(f"no event log yet ({log.directory})")
        for f in files:
            click.echo(f"{f.path.name}: {f.events} events, {f.foreign} foreign, {f.torn} torn")
        if torn:
            click.echo(
                f"{torn} torn line(s): a writer was interrupted mid-line; readers skip them",
                err=True,
            )
    return 1 if torn else 0


@events.command("export")
@click.option(
    "--repo",
    "repos",
    metavar="PATH",
    multiple=True,
    help="Export this repository's events (repeatable; default: the current one).",
)
@click.option("--since", metavar="DATE", help="Only events from DATE (YYYY-MM-DD, UTC) on.")
def export(repos: tuple[str, ...], since: str | None) -> int:
    """Write every event, each with its repository, as JSON lines on stdout.

    The schema is versioned and documented (docs/events.md); DuckDB reads it as it is:
    `SELECT repo.name, type, count(*) FROM read_ndjson('events.jsonl') GROUP BY ALL`.
    Torn and foreign lines are not exported.
    """
    from gitflow_harness.report.export import export_lines
    from gitflow_harness.report.repos import open_repositories
    from gitflow_harness.workspace import open_workspace

    since = since_date(since)
    workspaces = open_repositories(repos) if repos else [open_workspace()]
    write = sys.stdout.write
    for line in export_lines(workspaces, since=since):
        write(line)
    sys.stdout.flush()
    return 0
