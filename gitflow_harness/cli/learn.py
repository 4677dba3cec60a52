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
        from gitflow_harness.learning.graduation import file_owed as do_file
        from gitflow_harness.learning.graduation import not_added
        from gitflow_harness.learning.report import evidence

        filed = do_file(
            ws.repo,
            ws.config,
            today=dt.date.today(),
            evidence=evidence(ws.repo, ws.config, ws.log, now=now),
        )
        new = {f.rel for f in filed}
        waiting = [rel for rel in not_added(ws.repo, ws.config) if rel not in new]
        if as_json:
            echo_json(
                {
                    "filed": [
                        {
                            "path": f.rel,
                            "pill": f.owed.pill.key,
                            "kind": f.owed.kind,
                            "reopens": f"{f.owed.reopens.id}.md" if f.owed.reopens else None,
                        }
                        for f in filed
                    ],
                    "not_added": waiting,
                }
            )
        else:
            for f in filed:
                click.echo(f"filed {f.rel} ({f.owed.describe()})")
            for rel in waiting:
                click.echo(f"{rel}: filed earlier, not added to git yet")
            if filed or waiting:
                paths = " ".join([*(f.rel for f in filed), *waiting])
                click.echo(
                    "review the request file(s) and commit them with your change (this check "
                    f"fails until git tracks them): git add {paths} && git commit",
                    err=True,
                )
            else:
                click.echo("nothing owed")
        return 1 if filed or waiting else 0
    from gitflow_harness.learning.report import analyze, collect, render_text, to_dict

    report = analyze(ws.repo, ws.config, collect(ws.log), now=now, days=days)
    if as_json:
        echo_json(to_dict(report))
    else:
        for line in render_text(report):
            click.echo(line)
    return 0
