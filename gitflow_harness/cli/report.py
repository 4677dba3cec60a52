"""`gfh report`: every detector over the event log and git history."""

from __future__ import annotations

import datetime as dt

import click

from gitflow_harness.cli._common import echo_json
from gitflow_harness.errors import UsageError


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown"]),
    default="text",
    show_default=True,
    help="text fits 80 columns; markdown is ready to paste into a pull request.",
)
@click.option("--since", metavar="DATE", help="Only events from DATE (YYYY-MM-DD, UTC) on.")
def report(as_json: bool, fmt: str, since: str | None) -> int:
    """Report what the detectors found in the event log and git history.

    \b
    Detectors, in report order:
      hint-follow-through  whether hints are followed, per family
      skipped-prepare      branches red under `done` again and again, no `prepare`
      learning             overdue roles, owed graduations, requests, relapses
      stop-ritual          how agent turns ended: blocks by rule, repairs
      hook-errors          hook calls that failed open, by adapter, event, reason

    The log is read once; torn and foreign lines are skipped and counted.
    """
    from gitflow_harness.report import render
    from gitflow_harness.report.runner import run_report
    from gitflow_harness.workspace import open_workspace

    if since is not None:
        try:
            since = dt.date.fromisoformat(since).isoformat()
        except ValueError:
            raise UsageError(f"--since {since!r}: expected a date YYYY-MM-DD") from None
    result = run_report(open_workspace(), since=since)
    if as_json:
        echo_json(result.to_dict())
    elif fmt == "markdown":
        click.echo(render.markdown(result))
    else:
        click.echo(render.text(result))
    return 0
