"""`prepare` and `test`: the two stages of the gate, run on their own."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Final

from gitflow_harness import git
from gitflow_harness.errors import GfhError
from gitflow_harness.hints import Hint, hint
from gitflow_harness.workflow.commands import (
    CommandRun,
    Console,
    run_commands,
    unrunnable_program,
)
from gitflow_harness.workflow.facts import Facts
from gitflow_harness.workflow.gate_index import GateIndexError, GateRecord, write_gate
from gitflow_harness.workflow.result import INLINE, Gate, Outcome, VerbData, VerbResult
from gitflow_harness.workspace import Workspace

LEFT_LISTED: Final = 100  # at most this many left-behind paths go into the envelope


@dataclass(frozen=True, slots=True)
class Unrunnable(VerbData):
    """A gate command could not be run at all: the tree was not judged."""

    gate: None
    reason: str  # command-unrunnable | environment
    program: str
    module: str | None  # the module an interpreter lacks (environment)


@dataclass(frozen=True, slots=True)
class IndexFailure(VerbData):
    index_error: str  # why the judgement could not be written to the gate index


@dataclass(frozen=True, slots=True)
class Judged(VerbData):
    """The tree's judgement, and the untracked files the run left behind."""

    gate: Gate
    receipt: bool
    left_files: list[str]  # the first LEFT_LISTED of them
    left_count: int
    unindexed: IndexFailure | None = field(default=None, metadata=INLINE)


def judgement(gate: Gate, receipt: bool, left: list[str], unwritten: str | None) -> Judged:
    failure = IndexFailure(unwritten) if unwritten is not None else None
    return Judged(gate, receipt, left[:LEFT_LISTED], len(left), failure)


@dataclass(frozen=True, slots=True)
class PrepareData(VerbData):
    commands: list[dict[str, Any]]
    configured: int  # how many commands are configured
    details: Unrunnable | None = field(default=None, metadata=INLINE)


@dataclass(frozen=True, slots=True)
class GateData(VerbData):
    """The data of `test`."""

    commands: list[dict[str, Any]]
    configured: int
    tree: str
    details: Judged | Unrunnable = field(metadata=INLINE)


def prepare(ws: Workspace, console: Console) -> VerbResult:
    """Run the `gate.prepare` commands, stopping at the first failure."""
    facts = Facts(ws)
    commands = ws.config.gate.prepare
    runs = run_commands("prepare", commands, cwd=ws.top, console=console)
    failed = _failure(runs)
    data = partial(PrepareData, [r.to_dict() for r in runs], len(commands))
    if failed is not None and failed.unrunnable:
        return unrunnable("prepare", ws, failed, data, facts.refresh().snapshot())
    hints: tuple[Hint, ...] = ()
    if failed is not None:
        hints = (hint("gate-failure-prepare", command=failed.command),)
    elif not commands:
        hints = (hint("gate-not-configured", stage="prepare"),)
    return VerbResult(
        "prepare",
        "failed" if failed else "ok",
        data(),
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
    untracked = untracked_paths(facts.changes)
    commands = ws.config.gate.test
    runs = run_commands("test", commands, cwd=ws.top, console=console)
    failed = _failure(runs)
    commands_run = [r.to_dict() for r in runs]
    if failed is not None and failed.unrunnable:
        data = partial(GateData, commands_run, len(commands), tree)
        return unrunnable("test", ws, failed, data, snapshot)
    gate: Gate = "red" if failed else "green"
    record, unwritten = store_gate(ws, tree, gate, verb="test", head=facts.head)
    hints: tuple[Hint, ...] = ()
    if failed is not None:
        hints = (hint("gate-failure-test", command=failed.command),)
    elif not commands:
        hints = (hint("gate-not-configured", stage="test"),)
    left = left_behind(ws, untracked)
    hints += left_hints(left)
    receipt = record.receipt if record is not None else False
    message = _summary("test", runs, failed)
    if unwritten is not None:
        message = f"{message}; {unwritten}"
    return VerbResult(
        "test",
        judged(failed is not None, unwritten),
        GateData(commands_run, len(commands), tree, judgement(gate, receipt, left, unwritten)),
        hints=hints,
        facts=snapshot,
        gate=gate,
        message=message,
    )


def unrunnable(
    verb: str,
    ws: Workspace,
    failed: CommandRun,
    data: Callable[[Unrunnable], VerbData],
    snapshot: dict[str, Any],
    *,
    probe: bool | None = None,
) -> VerbResult:
    """The result of a gate whose command could not be run at all (exit 126 or 127, or an
    interpreter without the module it was asked to run); `data` makes the verb's data of it.

    A program that is not installed says nothing about the tree: no gate result is recorded
    (the `verb` event keeps the run, gate null), so installing it and running the gate again is
    not refused as an already-red tree. It is the environment's problem: exit 2.
    """
    program, problem = unrunnable_program(failed, ws.top)
    code = failed.exit_code
    if failed.missing_module is not None:
        found = hint(
            "gate-environment",
            program=program,
            module=failed.missing_module,
            command=failed.command,
            verb=verb,
        )
        reason = "environment"
    else:
        found = hint(
            "gate-command-missing", program=program, problem=problem, code=code, stage=failed.stage
        )
        reason = "command-unrunnable"
    return VerbResult(
        verb,
        "failed",
        data(Unrunnable(None, reason, program, failed.missing_module)),
        hints=(found,),
        facts=snapshot,
        probe=probe,
        message=f"`{program}` {problem} (exit {code}); the tree was not judged",
        usage=True,
    )


def untracked_paths(changes: Iterable[git.Change]) -> frozenset[str]:
    """The untracked, not ignored files among `changes`."""
    return frozenset(c.path for c in changes if c.untracked)


def left_behind(ws: Workspace, before: frozenset[str]) -> list[str]:
    """Return the untracked files that appeared while the gate ran, sorted.

    They change the tree identity, so the next run judges another tree, and `accept` refuses the
    dirty tree. An unreadable status afterwards only loses this notice, never the run.
    """
    try:
        after = untracked_paths(git.changes(ws.repo))
    except (GfhError, OSError):
        return []
    return sorted(after - before)


def left_hints(left: list[str]) -> tuple[Hint, ...]:
    if not left:
        return ()
    return (hint("gate-left-files", count=len(left), paths=sample_paths(left)),)


def sample_paths(paths: list[str], shown: int = 3) -> str:
    """A few of `paths` for one line: files of a directory holding several become `dir/…`."""
    per_dir: dict[str, int] = {}
    for path in paths:
        parent = path.rpartition("/")[0]
        per_dir[parent] = per_dir.get(parent, 0) + 1
    items: list[str] = []
    for path in paths:
        parent = path.rpartition("/")[0]
        item = f"{parent}/…" if parent and per_dir[parent] > 1 else path
        if item not in items:
            items.append(item)
    return ", ".join(items[:shown]) + (", …" if len(items) > shown else "")


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
