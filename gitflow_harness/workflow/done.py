"""`done [--rerun]`: judge this branch's exact tree; green writes the receipt `accept` needs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gitflow_harness import git
from gitflow_harness.hints import Hint, hint
from gitflow_harness.workflow.commands import Console, run_commands
from gitflow_harness.workflow.facts import Facts, require_trunk
from gitflow_harness.workflow.gate import (
    Judged,
    Unrunnable,
    judged,
    judgement,
    left_behind,
    left_hints,
    store_gate,
    unrunnable,
    untracked_paths,
)
from gitflow_harness.workflow.gate_index import read_gate
from gitflow_harness.workflow.result import INLINE, Gate, VerbData, VerbResult
from gitflow_harness.workspace import Workspace


@dataclass(frozen=True, slots=True)
class DoneRefusal(VerbData):
    reason: str  # on-trunk | trunk-not-merged


@dataclass(frozen=True, slots=True)
class AlreadyRed(VerbData):
    """This exact tree was judged red before, and no rerun was asked for."""

    tree: str
    reason: str  # unchanged-tree-red
    judged: dict[str, Any]  # the gate index's record of that judgement


@dataclass(frozen=True, slots=True)
class NotJudged(VerbData):
    """A command could not be run: no receipt, and the tree was not judged."""

    receipt: bool
    unrun: Unrunnable = field(metadata=INLINE)


@dataclass(frozen=True, slots=True)
class Ran(VerbData):
    """The gate ran on the tree."""

    tree: str
    commands: list[dict[str, Any]]
    details: Judged | NotJudged = field(metadata=INLINE)


@dataclass(frozen=True, slots=True)
class DoneData(VerbData):
    branch: str
    trunk: str
    details: DoneRefusal | AlreadyRed | Ran = field(metadata=INLINE)


def done(ws: Workspace, console: Console, *, rerun: bool = False) -> VerbResult:
    """Check the merge state, then run prepare and test, and record the tree's gate."""
    repo = ws.repo
    head = git.require(repo, "gfh done")
    trunk = require_trunk(ws)
    assert head.branch is not None
    assert head.sha is not None
    facts = Facts(ws)
    branch = head.branch
    if branch == trunk:
        return _result(
            "refused",
            DoneData(branch, trunk, DoneRefusal("on-trunk")),
            (hint("verb-on-trunk", verb="done", trunk=trunk),),
            facts,
            None,
            rerun,
            f"{trunk} is the trunk",
        )
    git.require_history(repo, head.branch, trunk, "gfh done")
    if not git.is_ancestor(repo, trunk, head.sha):
        return _result(
            "refused",
            DoneData(branch, trunk, DoneRefusal("trunk-not-merged")),
            (hint("gate-failure-merge", branch=head.branch, trunk=trunk),),
            facts,
            None,
            rerun,
            f"{head.branch} does not contain {trunk}",
        )
    tree = facts.tree
    previous = read_gate(ws, tree)
    if previous is not None and previous.gate == "red" and not rerun:
        return _result(
            "refused",
            DoneData(branch, trunk, AlreadyRed(tree, "unchanged-tree-red", previous.to_dict())),
            (hint("done-unchanged-tree-red"),),
            facts,
            "red",
            rerun,
            f"this tree was already judged red by `gfh {previous.verb}` at {previous.at}",
        )
    snapshot = facts.snapshot()
    changed = len(facts.changes)
    untracked = untracked_paths(facts.changes)
    runs = run_commands("prepare", ws.config.gate.prepare, cwd=ws.top, console=console)
    if all(r.ok for r in runs):
        runs += run_commands("test", ws.config.gate.test, cwd=ws.top, console=console)
    failed = next((r for r in runs if not r.ok), None)
    commands = [r.to_dict() for r in runs]

    def data(details: Judged | NotJudged) -> DoneData:
        return DoneData(branch, trunk, Ran(tree, commands, details))

    if failed is not None and failed.unrunnable:

        def not_judged(unrun: Unrunnable) -> DoneData:
            return data(NotJudged(False, unrun))

        return unrunnable("done", ws, failed, not_judged, snapshot, probe=rerun)
    gate: Gate = "red" if failed else "green"
    record, unwritten = store_gate(ws, tree, gate, verb="done", head=head)
    receipt = record.receipt if record is not None else False
    left = left_behind(ws, untracked)
    hints: tuple[Hint, ...] = ()
    if failed is None:
        if receipt and changed:
            # The receipt is for the tree with these changes: committing exactly them gives HEAD
            # that tree, and `accept` finds the receipt without another run.
            hints = (hint("done-green-commit", count=changed, trunk=trunk),)
        elif receipt and not left:
            hints = (hint("done-green-accept", trunk=trunk),)
        if not ws.config.gate.prepare and not ws.config.gate.test:
            hints += (hint("gate-not-configured", stage="prepare and test"),)
        message = f"green for tree {tree[:10]}: receipt written"
    else:
        which = "gate-failure-prepare" if failed.stage == "prepare" else "gate-failure-test"
        hints = (hint(which, command=failed.command),)
        message = f"red: `{failed.command}` exited {failed.exit_code}"
    hints += left_hints(left)
    if unwritten is not None:
        message = unwritten if failed is None else f"{message}; {unwritten}"
    return VerbResult(
        "done",
        judged(failed is not None, unwritten),
        data(judgement(gate, receipt, left, unwritten)),
        hints=hints,
        facts=snapshot,
        gate=gate,
        probe=rerun,
        message=message,
    )


def _result(
    outcome: Any,
    data: DoneData,
    hints: tuple[Hint, ...],
    facts: Facts,
    gate: Any,
    rerun: bool,
    message: str,
) -> VerbResult:
    return VerbResult(
        "done",
        outcome,
        data,
        hints=hints,
        facts=facts.snapshot(),
        gate=gate,
        probe=rerun,
        message=message,
    )
