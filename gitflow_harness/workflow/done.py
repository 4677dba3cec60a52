"""`done [--rerun]`: judge this branch's exact tree; green writes the receipt `accept` needs."""

from __future__ import annotations

from typing import Any

from gitflow_harness import git
from gitflow_harness.hints import Hint, hint
from gitflow_harness.workflow.commands import Console, run_commands
from gitflow_harness.workflow.facts import Facts, require_trunk
from gitflow_harness.workflow.gate import (
    judged,
    left_behind,
    left_data,
    left_hints,
    store_gate,
    unrunnable,
    untracked_paths,
)
from gitflow_harness.workflow.gate_index import read_gate
from gitflow_harness.workflow.result import Gate, VerbResult
from gitflow_harness.workspace import Workspace


def done(ws: Workspace, console: Console, *, rerun: bool = False) -> VerbResult:
    """Check the merge state, then run prepare and test, and record the tree's gate."""
    repo = ws.repo
    head = git.require(repo, "gfh done")
    trunk = require_trunk(ws)
    assert head.branch is not None
    assert head.sha is not None
    facts = Facts(ws)
    data: dict[str, Any] = {"branch": head.branch, "trunk": trunk}
    if head.branch == trunk:
        return _result(
            "refused",
            {**data, "reason": "on-trunk"},
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
            {**data, "reason": "trunk-not-merged"},
            (hint("gate-failure-merge", branch=head.branch, trunk=trunk),),
            facts,
            None,
            rerun,
            f"{head.branch} does not contain {trunk}",
        )
    tree = facts.tree
    data["tree"] = tree
    previous = read_gate(ws, tree)
    if previous is not None and previous.gate == "red" and not rerun:
        return _result(
            "refused",
            {**data, "reason": "unchanged-tree-red", "judged": previous.to_dict()},
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
    data["commands"] = [r.to_dict() for r in runs]
    if failed is not None and failed.unrunnable:
        return unrunnable("done", ws, failed, {**data, "receipt": False}, snapshot, probe=rerun)
    gate: Gate = "red" if failed else "green"
    record, unwritten = store_gate(ws, tree, gate, verb="done", head=head)
    receipt = record.receipt if record is not None else False
    left = left_behind(ws, untracked)
    data.update({"gate": gate, "receipt": receipt, **left_data(left)})
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
        data["index_error"] = unwritten
        message = unwritten if failed is None else f"{message}; {unwritten}"
    return VerbResult(
        "done",
        judged(failed is not None, unwritten),
        data,
        hints=hints,
        facts=snapshot,
        gate=gate,
        probe=rerun,
        message=message,
    )


def _result(
    outcome: Any,
    data: dict[str, Any],
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
