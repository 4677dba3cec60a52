"""`gfh report`: every detector over the event log and git history."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from gitflow_harness.cli._common import json_text, since_date
from gitflow_harness.errors import UsageError

if TYPE_CHECKING:
    from gitflow_harness.report.runner import Report


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown", "html"]),
    default="text",
    show_default=True,
    help="text fits 80 columns; markdown is ready to paste into a pull request; html is one "
    "self-contained page with pictures.",
)
@click.option(
    "--compact",
    is_flag=True,
    help="With markdown: only this branch's part since it left the trunk, sized for a "
    "pull-request comment.",
)
@click.option(
    "--output",
    metavar="FILE",
    type=click.Path(path_type=Path),  # a directory is refused in the same one line
    help="Write the report to FILE (replaced atomically) instead of stdout.",
)
@click.option("--since", metavar="DATE", help="Only events from DATE (YYYY-MM-DD, UTC) on.")
@click.option(
    "--repo",
    "repos",
    metavar="PATH",
    multiple=True,
    help="Report on this repository (repeatable): together, then each on its own.",
)
def report(
    as_json: bool,
    fmt: str,
    compact: bool,
    output: Path | None,
    since: str | None,
    repos: tuple[str, ...],
) -> int:
    """Report what the detectors found in the event log and git history.

    \b
    Detectors, in report order:
      hint-follow-through  whether hints are followed, per family
      skipped-prepare      branches red under `done` again and again, no `prepare`
      learning             overdue roles, owed graduations, requests, relapses
      stop-ritual          how agent turns ended: blocks by rule, repairs
      way-firing           ways fired and suppressed, placed on their curves
      hook-errors          hook calls that failed open, by adapter, event, reason

    The log is read once; torn and foreign lines are skipped and counted. With --repo, each
    repository's log is read in turn.
    """
    from gitflow_harness.report.runner import run_report, run_reports
    from gitflow_harness.workspace import open_workspace

    since = since_date(since)
    if compact and (as_json or fmt != "markdown"):
        raise UsageError("--compact goes with --format markdown (a pull-request comment)")
    if compact and repos:
        raise UsageError("--compact reports the current branch of one repository: drop --repo")
    if compact:
        from gitflow_harness.report.compact import comment

        text = comment(open_workspace(), since=since)
    else:
        if repos:
            from gitflow_harness.report.repos import open_repositories

            result = run_reports(open_repositories(repos), since=since)
        else:
            result = run_report(open_workspace(), since=since)
        text = json_text(result.to_dict()) if as_json else _render(fmt, result)
    if output is None:
        click.echo(text)
    else:
        from gitflow_harness.report.publish import write

        write(text, output)
    return 0


def _render(fmt: str, result: Report) -> str:
    from gitflow_harness.report import render

    if fmt == "html":
        from gitflow_harness.report.html import html

        return html(result)
    return render.markdown(result) if fmt == "markdown" else render.text(result)
