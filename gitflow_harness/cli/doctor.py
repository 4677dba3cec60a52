"""`gfh doctor`: check what a user cannot see, and say how to fix each problem."""

from __future__ import annotations

import os

import click

from gitflow_harness.cli._common import echo_json, json_option


@click.command()
@json_option
def doctor(as_json: bool) -> int:
    """Check that gfh is wired up where you cannot see it; exit 1 on a problem.

    Checks that each host's hook command finds gfh on PATH and has every hook this gfh
    installs, that pre-commit can run gfh's hooks and git's stages for them are installed (or
    gfh's own git hooks), that an agent's shell hands its session to the CLI, that the event
    log can be written and that the ways lint clean. Every problem comes with its fix.
    """
    from gitflow_harness.scaffold.doctor import run_checks
    from gitflow_harness.workspace import open_workspace

    checks = run_checks(open_workspace(), os.environ)
    problems = [c for c in checks if not c.ok]
    if as_json:
        echo_json({"ok": not problems, "checks": [c.to_dict() for c in checks]})
    else:
        for check in checks:
            click.echo(f"{'ok' if check.ok else 'problem':8} {check.message}")
            if check.fix:
                click.echo(f"{'':8} fix: {check.fix}")
        said = f"{len(problems)} problem(s)" if problems else "no problems"
        click.echo(f"gfh doctor: {said} in {len(checks)} check(s)", err=bool(problems))
    return 1 if problems else 0
