"""`gfh learn`: the learning report, and filing what is owed."""

from __future__ import annotations

import datetime as dt

import click

from gitflow_harness.cli._common import echo_json, json_option
from gitflow_harness.store.config import MAX_DAYS


@click.command()
@click.option(
    "--check",
    "file_owed",
    is_flag=True,
    help="File the requests and reopenings that are owed; exit 1 when it filed any.",
)
@click.option(
    "--days",
    type=click.IntRange(min=1, max=MAX_DAYS),
    default=None,
    help="Window for loop-backs and overdue roles (default learning.capture_days).",
)
@json_option
def learn(file_owed: bool, days: int | None, as_json: bool) -> int:
    """Report what the lessons say: overdue roles, owed requests, relapses, verify readings."""
    from gitflow_harness.workspace import open_workspace

    ws = open_workspace()
    now = dt.datetime.now(dt.UTC)
    if file_owed:
        from gitflow_harness.learning.learn import check

        checked = check(ws, today=dt.date.today(), now=now)
        if as_json:
            echo_json(checked.to_dict())
        else:
            for line in checked.lines():
                click.echo(line)
            if checked.filed or checked.waiting:
                paths = " ".join([*(f.rel for f in checked.filed), *checked.waiting])
                click.echo(
                    "review the request file(s) and commit them with your change (this check "
                    f"fails until git tracks them): git add {paths} && git commit",
                    err=True,
                )
        for problem in checked.problems():
            click.echo(f"gfh: {problem}", err=True)
        return 1 if checked.owed else 0
    from gitflow_harness.learning.learn import report as learning_report
    from gitflow_harness.learning.report import render_text, to_dict

    report = learning_report(ws, now=now, days=days)
    if as_json:
        echo_json(to_dict(report))
    else:
        for line in render_text(report):
            click.echo(line)
    return 0
