"""`gfh init`: wire gfh into a repository and its agents."""

from __future__ import annotations

import click

from gitflow_harness.cli._common import echo_json, json_option


@click.command()
@click.option(
    "--adapter",
    "adapters",
    multiple=True,
    type=click.Choice(["claude", "cursor", "codex"]),
    help="Host to install hooks for (repeatable). Default: the hosts whose folder exists, "
    "else claude.",
)
@click.option("--pre-commit", "pre_commit", is_flag=True, help="Add gfh's checks to pre-commit.")
@click.option(
    "--mcp", "mcp", is_flag=True, help="Register `gfh mcp` as an MCP server with each host."
)
@click.option("--way", "ways", multiple=True, metavar="ID", help="Copy a starter way (repeatable).")
@click.option("--all-ways", is_flag=True, help="Copy every starter way.")
@click.option("--list-ways", is_flag=True, help="List the starter ways and exit.")
@click.option("--dry-run", is_flag=True, help="Print the changes as a unified diff; write nothing.")
@json_option
def init(
    adapters: tuple[str, ...],
    pre_commit: bool,
    mcp: bool,
    ways: tuple[str, ...],
    all_ways: bool,
    list_ways: bool,
    dry_run: bool,
    as_json: bool,
) -> int:
    """Set up gfh in this repository: config, folders, starter ways and agent hooks.

    Creates .gitflow-harness.toml (every default, commented) and the ways, pills and requests
    folders when missing, and merges gfh's hooks into .claude/settings.json,
    .cursor/hooks.json and .codex/hooks.json — adding only what is missing, keeping every
    entry of your own in place. Running it again changes nothing.
    """
    from gitflow_harness import git, scaffold
    from gitflow_harness.scaffold import project

    if list_ways:
        available = project.starter_ways()
        if as_json:
            listed = [{"id": k, "description": project.describe(v)} for k, v in available.items()]
            echo_json({"ways": listed})
        elif not available:
            click.echo("no starter ways in this installation")
        for way_id, tree in available.items() if not as_json else ():
            click.echo(f"{way_id}  {project.describe(tree)}")
        return 0
    top = git.discover().worktree()
    result = scaffold.plan(
        top,
        adapters=list(adapters),
        pre_commit=pre_commit,
        ways=list(ways),
        all_ways=all_ways,
        mcp=mcp,
    )
    if not dry_run:
        scaffold.apply(result)
    if as_json:
        echo_json(
            {
                "dry_run": dry_run,
                "adapters": result.adapters,
                "files": [
                    {"path": c.path, "action": c.action, "note": c.note} for c in result.changes
                ],
                "notes": result.notes,
                "warnings": result.warnings,
            }
        )
        return 0
    if dry_run:
        diff = scaffold.render_diff(result)
        click.echo(diff.rstrip("\n") if diff else "# nothing to change")
    else:
        click.echo(f"adapters: {', '.join(result.adapters)} ({result.adapters_reason})")
        for change in result.changes:
            verb = {"create": "created", "update": "updated", "unchanged": "unchanged"}
            note = f" ({change.note})" if change.note else ""
            click.echo(f"  {verb[change.action]:9} {change.path}{note}")
    for note in result.notes:
        click.echo(f"note: {note}", err=dry_run)
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    return 0
