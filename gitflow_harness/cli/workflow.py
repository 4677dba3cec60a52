"""The workflow verbs: start, status, update, prepare, test, done, accept, ensure."""

from __future__ import annotations

import click

from gitflow_harness.cli._common import json_option
from gitflow_harness.cli._verb import default_render, run_verb
from gitflow_harness.workflow.commands import Console
from gitflow_harness.workflow.result import VerbResult
from gitflow_harness.workspace import Workspace


@click.command()
@click.argument("name")
@click.option("--from", "base", metavar="REF", help="Branch from REF instead of the trunk.")
@json_option
def start(name: str, base: str | None, as_json: bool) -> int:
    """Create branch NAME from the trunk in a new worktree and print its path.

    The worktree goes under [repository] worktrees (default ../{repo}.worktrees), in a directory
    named after the branch with "/" replaced by "-". An existing branch is refused.
    """
    from gitflow_harness.workflow.start import start as run

    def action(ws: Workspace, console: Console) -> VerbResult:
        return run(ws, name, base=base)

    flags = ["--from"] if base is not None else []
    return run_verb("start", action, as_json=as_json, flags=flags, render=_render_start)


def _render_start(result: VerbResult) -> list[str]:
    from gitflow_harness.workflow.start import StartData

    data = result.data
    return [data.path] if result.outcome == "ok" and isinstance(data, StartData) else []


@click.command()
@click.option(
    "--end-turn",
    is_flag=True,
    help="Also record that the end-of-turn check ran; exit 1 without the box if that fails.",
)
@json_option
def status(end_turn: bool, as_json: bool) -> int:
    """Show where this working tree stands, as the status box.

    Location, branch, trunk, changes, commits behind and ahead of the local trunk, the gate of
    this exact tree, the session's task and the session.
    """
    from gitflow_harness.cli.status import show

    return show(end_turn=end_turn, as_json=as_json)


@click.command()
@click.option("--rebase", is_flag=True, help="Rebase onto the trunk instead of merging it.")
@json_option
def update(rebase: bool, as_json: bool) -> int:
    """Bring the local trunk into this branch (merge, or --rebase).

    Refused on a dirty tree. Says "already" when the branch contains the trunk. On a conflict the
    merge or rebase is aborted, the conflicted files are listed, and the branch is left exactly
    as it was (exit 1).
    """
    from gitflow_harness.workflow.update import update as run

    def action(ws: Workspace, console: Console) -> VerbResult:
        return run(ws, rebase=rebase, surface="cli")

    flags = ["--rebase"] if rebase else []
    return run_verb("update", action, as_json=as_json, flags=flags, render=_render_update)


def _render_update(result: VerbResult) -> list[str]:
    from gitflow_harness.workflow.update import UpdateData, conflict_of

    lines = default_render(result)
    conflict = conflict_of(result.data)
    if conflict is not None and isinstance(result.data, UpdateData):
        lines.extend(f"  conflict: {path}" for path in conflict.conflicts)
        lines.append(f"{result.data.branch} is unchanged at {conflict.head[:10]}")
    return lines


@click.command()
@json_option
def prepare(as_json: bool) -> int:
    """Run the [gate] prepare commands, stopping at the first failure."""
    from gitflow_harness.workflow.gate import prepare as run

    return run_verb("prepare", run, as_json=as_json, flags=[], render=default_render)


@click.command("test")
@json_option
def test_(as_json: bool) -> int:
    """Run the [gate] test commands; record green or red for this exact tree.

    A command that cannot be run (exit 126 or 127: not executable, not found) judges nothing:
    no gate is recorded and the exit code is 2.
    """
    from gitflow_harness.workflow.gate import test as run

    return run_verb("test", run, as_json=as_json, flags=[], render=default_render)


@click.command()
@click.option(
    "--rerun", is_flag=True, help="Judge a tree already judged red again (recorded as a probe)."
)
@json_option
def done(rerun: bool, as_json: bool) -> int:
    """Judge this branch: it must contain the trunk, then prepare and test must pass.

    A tree already judged red is refused without running anything, unless --rerun. Green writes
    the receipt `gfh accept` needs; it covers exactly this tree, uncommitted changes included.
    A gate command that cannot be run (exit 126 or 127) judges nothing: exit 2.
    """
    from gitflow_harness.workflow.done import done as run

    def action(ws: Workspace, console: Console) -> VerbResult:
        return run(ws, console, rerun=rerun)

    flags = ["--rerun"] if rerun else []
    return run_verb("done", action, as_json=as_json, flags=flags, render=default_render)


@click.command()
@json_option
def accept(as_json: bool) -> int:
    """Fast-forward the trunk to this branch, then remove its worktree and the branch.

    Requires a green receipt from `gfh done` for the current (committed, clean) tree.
    """
    from gitflow_harness.workflow.accept import accept as run
    from gitflow_harness.workflow.accept import accepting

    def action(ws: Workspace, console: Console) -> VerbResult:
        return run(ws)

    return run_verb(
        "accept", action, as_json=as_json, flags=[], render=_render_accept, guard=accepting
    )


def _render_accept(result: VerbResult) -> list[str]:
    from gitflow_harness.workflow.accept import AcceptData, Accepted

    lines = default_render(result)
    data = result.data
    if not isinstance(data, AcceptData) or not isinstance(data.details, Accepted):
        return lines
    if data.details.removed_worktree:
        lines.append(f"removed worktree {data.details.removed_worktree}")
    if data.details.deleted_branch:
        lines.append(f"deleted branch {data.branch}")
    return lines


@click.command()
@json_option
def ensure(as_json: bool) -> int:
    """Check where a session starts (run by the SessionStart hook).

    In the main checkout on the trunk it prints the ensure-main-worktree-first hint, outside the
    result envelope (on stderr under --json). That hint is written for agents: it is shown when
    the environment names an agent session ($GFH_SESSION, or the host's own variable).
    """
    from gitflow_harness.workflow.ensure import ensure as run

    def action(ws: Workspace, console: Console) -> VerbResult:
        return run(ws)

    return run_verb("ensure", action, as_json=as_json, flags=[], render=default_render)
