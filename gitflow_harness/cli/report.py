"""`gfh report`: every detector over the event log and git history."""

from __future__ import annotations

import click

from gitflow_harness.cli._common import echo_json, since_date


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
@click.option(
    "--repo",
    "repos",
    metavar="PATH",
    multiple=True,
    help="Report on this repository (repeatable): together, then each on its own.",
)
def report(as_json: bool, fmt: str, since: str | None, repos: tuple[str, ...]) -> int:
    """Report what the detectors found in the event log and git history.

    \b
    Detectors, in report order:
      hint-follow-through  whether hints are followed, per family
      skipped-prepare      branches red under `done` again and again, no `prepare`
      learning             overdue roles, owed graduations, requests, relapses
      stop-ritual          how agent turns ended: blocks by rule, repairs
      hook-errors          hook calls that failed open, by adapter, event, reason

    The log is read once; torn and foreign lines are skipped and counted. With --repo, each
    repository's log is read in turn.
    """
    from gitflow_harness.report import render
    from gitflow_harness.report.repos import open_repositories
    from gitflow_harness.report.runner import run_report, run_reports
    from gitflow_harness.workspace import open_workspace

    since = since_date(since)
    if repos:
        result = run_reports(open_repositories(repos), since=since)
    else:
        result = run_report(open_workspace(), since=since)
    if as_json:
        echo_json(result.to_dict())
    elif fmt == "markdown":
        click.echo(render.markdown(result))
    else:
        click.echo(render.text(result))
    return 0
