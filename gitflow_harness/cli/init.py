"""`gfh init`: wire gfh into a repository and its agents."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from gitflow_harness.cli._common import echo_json, json_option, table

if TYPE_CHECKING:
    from gitflow_harness.scaffold import Plan
    from gitflow_harness.scaffold.precommit import Source


@click.command()
@click.option(
    "--adapter",
    "adapters",
    multiple=True,
    type=click.Choice(["claude", "cursor", "codex"]),
    help="Host to install hooks for (repeatable). Default: the hosts whose folder exists, "
    "else claude.",
)
@click.option(
    "--pre-commit",
    "pre_commit",
    is_flag=True,
    help="Add gfh's hooks to .pre-commit-config.yaml in the published form: gfh's repository "
    "at a pinned rev, so pre-commit installs gfh for everyone who commits.",
)
@click.option(
    "--hooks-repo",
    metavar="URL",
    help="The repository pre-commit fetches gfh from (default: where this gfh was installed "
    "from). Needs --hooks-rev.",
)
@click.option("--hooks-rev", metavar="REV", help="The tag or commit of --hooks-repo to pin.")
@click.option(
    "--pre-commit-local",
    "pre_commit_local",
    is_flag=True,
    help="Add gfh's hooks as `repo: local` instead, running the gfh on each committer's PATH "
    "(everyone who commits needs gfh installed).",
)
@click.option(
    "--git-hooks",
    "git_hooks",
    is_flag=True,
    help="Install plain git hooks running gfh's git-stage checks (no hook manager needed); "
    "a hook already there is kept and runs first.",
)
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
    hooks_repo: str | None,
    hooks_rev: str | None,
    pre_commit_local: bool,
    git_hooks: bool,
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
    entry of your own in place. A host whose Stop enforces the end-of-turn ritual also gets the
    starter way workflow/end-of-turn that teaches it. --pre-commit adds gfh's hooks to
    .pre-commit-config.yaml and prints the one `pre-commit install` line they need; --git-hooks
    writes plain git hooks instead. Running it again changes nothing; `gfh deinit` undoes it.
    """
    from gitflow_harness import git, scaffold
    from gitflow_harness.errors import UsageError
    from gitflow_harness.scaffold import project

    if list_ways:
        available = project.starter_ways()
        if as_json:
            listed = [{"id": k, "description": project.describe(v)} for k, v in available.items()]
            echo_json({"ways": listed})
        elif not available:
            click.echo("no starter ways in this installation")
        rows = [[way_id, project.describe(tree)] for way_id, tree in available.items()]
        for line in table(rows) if not as_json else ():
            click.echo(line)
        return 0
    top = Path(git.discover().worktree())
    source, source_warning = None, None
    if pre_commit and not pre_commit_local:
        source, source_warning = _hooks_source(hooks_repo, hooks_rev)
    elif hooks_repo or hooks_rev:
        raise UsageError("--hooks-repo and --hooks-rev go with --pre-commit")
    result = scaffold.plan(
        top,
        adapters=list(adapters),
        pre_commit=pre_commit,
        pre_commit_local=pre_commit_local,
        hooks_source=source,
        git_hooks=git_hooks,
        ways=list(ways),
        all_ways=all_ways,
        mcp=mcp,
    )
    if source_warning and any(c.path == ".pre-commit-config.yaml" for c in result.pending):
        result.warnings.append(source_warning)  # only when it writes that source
    if not dry_run:
        scaffold.apply(result)
    _report(result, dry_run=dry_run, as_json=as_json)
    return 0


def _hooks_source(repo: str | None, rev: str | None) -> tuple[Source, str | None]:
    """Where pre-commit fetches gfh from: the flags, else where this gfh was installed from."""
    from gitflow_harness.errors import UsageError
    from gitflow_harness.scaffold import source
    from gitflow_harness.scaffold.precommit import Source

    if repo and rev:
        return Source(repo, rev), None
    if repo or rev:
        raise UsageError("--hooks-repo and --hooks-rev go together: the repository and its rev")
    return source.installed_source()


@click.command()
@click.option("--dry-run", is_flag=True, help="Print the changes as a unified diff; write nothing.")
@json_option
def deinit(dry_run: bool, as_json: bool) -> int:
    """Remove what `gfh init` added, and nothing of yours.

    Takes gfh's hook entries out of .claude/settings.json, .cursor/hooks.json and
    .codex/hooks.json (a file left empty is deleted), the .pre-commit-config.yaml entry that
    holds only gfh's hooks, and the git hooks of `gfh init --git-hooks` (a hook they chained
    is put back). Keeps .gitflow-harness.toml, the ways, pills and requests. Running it again
    changes nothing.
    """
    from gitflow_harness import git, scaffold
    from gitflow_harness.scaffold import deinit as plan_deinit

    result = plan_deinit.plan(Path(git.discover().worktree()))
    if not dry_run:
        scaffold.apply(result)
    _report(result, dry_run=dry_run, as_json=as_json, removing=True)
    return 0


def _report(result: Plan, *, dry_run: bool, as_json: bool, removing: bool = False) -> None:
    """Print what init or deinit did (or would do, under --dry-run)."""
    from gitflow_harness import scaffold

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
        return
    if dry_run:
        diff = scaffold.render_diff(result)
        click.echo(diff.rstrip("\n") if diff else "# nothing to change")
    elif removing:
        if not result.pending:
            click.echo("nothing of gfh's to remove")
        for change in result.pending:
            verb = "removed" if change.action == "remove" else "updated"
            note = f" ({change.note})" if change.note else ""
            click.echo(f"  {verb:9} {change.path}{note}")
    else:
        click.echo(f"adapters: {', '.join(result.adapters)} ({result.adapters_reason})")
        verbs = {"create": "created", "update": "updated", "unchanged": "unchanged"}
        for change in result.changes:
            note = f" ({change.note})" if change.note else ""
            click.echo(f"  {verbs.get(change.action, change.action):9} {change.path}{note}")
    for note in result.notes:
        click.echo(f"note: {note}", err=dry_run)
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
