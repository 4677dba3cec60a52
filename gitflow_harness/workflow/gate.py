"""`prepare` and `test`: the two stages of the gate, run on their own."""

from __future__ import annotations

from typing import Any

from gitflow_harness import git
from gitflow_harness.hints import Hint, hint
from gitflow_harness.workflow.commands import CommandRun, Console, run_commands
from gitflow_harness.workflow.facts import Facts
from gitflow_harness.workflow.gate_index import GateIndexError, GateRecord, write_gate
from gitflow_harness.workflow.result import Gate, Outcome, VerbResult
from gitflow_harness.workspace import Workspace


def prepare(ws: Workspace, console: Console) -> VerbResult:
    """Run the `gate.prepare` commands, stopping at the first failure."""
    facts = Facts(ws)
    commands = ws.config.gate.prepare
    runs = run_commands("prepare", commands, cwd=ws.top, console=console)
    failed = _failure(runs)
    hints: tuple[Hint, ...] = ()
    if failed is not None:
        hints = (hint("gate-failure-prepare", command=failed.command),)
    elif not commands:
        hints = (hint("gate-not-configured", stage="prepare"),)
    return VerbResult(
        "prepare",
        "failed" if failed else "ok",
        {"commands": [r.to_dict() for r in runs], "configured": len(commands)},
        hints=hints,
        facts=facts.refresh().snapshot(),
        message=_summary("prepare", runs, failed),
    )


def test(ws: Workspace, console: Console) -> VerbResult:
    """Run the `gate.test` commands and record green or red for this exact tree."""
    facts = Facts(ws)
    # The identity of the tree being judged is taken before the commands run: what they write
    # (caches, reports) is their output, not the work under test.
    tree = facts.tree
    snapshot = facts.snapshot()
    commands = ws.config.gate.test
    runs = run_commands("test", commands, cwd=ws.top, console=console)
    failed = _failure(runs)
    gate: Gate = "red" if failed else "green"
    record, unwritten = store_gate(ws, tree, gate, verb="test", head=facts.head)
    hints: tuple[Hint, ...] = ()
    if failed is not None:
        hints = (hint("gate-failure-test", command=failed.command),)
    elif not commands:
        hints = (hint("gate-not-configured", stage="test"),)
    data: dict[str, Any] = {
        "commands": [r.to_dict() for r in runs],
        "configured": len(commands),
        "tree": tree,
        "gate": gate,
        "receipt": record.receipt if record is not None else False,
    }
    message = _summary("test", runs, failed)
    if unwritten is not None:
        data["index_error"] = unwritten
        message = f"{message}; {unwritten}"
    return VerbResult(
        "test",
        judged(failed is not None, unwritten),
        data,
        hints=hints,
        facts=snapshot,
        gate=gate,
        message=message,
    )


def store_gate(
    ws: Workspace, tree: str, gate: Gate, *, verb: str, head: git.Head
) -> tuple[GateRecord | None, str | None]:
    """Write the judgement to the gate index; return it, or why it could not be written.

    The commands ran and their verdict goes into the `verb` event either way: a gate index
    that cannot be written does not lose the run, it makes it `partial`.
    """
    try:
        return write_gate(ws, tree, gate, verb=verb, branch=head.label, head=head.sha), None
    except GateIndexError as exc:
        return None, exc.message


def judged(red: bool, unwritten: str | None) -> Outcome:
    """The outcome of a run of the gate: red fails; green whose index write failed is partial."""
    if red:
        return "failed"
    return "ok" if unwritten is None else "partial"


def _failure(runs: list[CommandRun]) -> CommandRun | None:
    return next((r for r in runs if not r.ok), None)


def _summary(stage: str, runs: list[CommandRun], failed: CommandRun | None) -> str:
    if failed is not None:
        return f"{stage}: red: `{failed.command}` exited {failed.exit_code}"
    if not runs:
        return f"{stage}: nothing configured"
    return f"{stage}: green ({len(runs)} command{'s' if len(runs) != 1 else ''})"
