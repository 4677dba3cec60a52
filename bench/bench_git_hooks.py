"""The git-stage hooks, run as pre-commit runs them, in a feature worktree of a repository with
20,000 commits and 1,000 files, against a bare `python -c pass`: `gfh git-hook record-update`
right after a real merge of the trunk (it decides and appends one `git.update`) and after a merge
of an unrelated branch (it decides and appends nothing), and `gfh git-hook gate-push` for a
judged tree. pre-commit's own start-up comes on top of each."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bench.bench_status import feature_worktree
from bench.runner import PYTHON, Measurement, command_vs_pass

HOOK = [PYTHON, "-m", "gitflow_harness", "git-hook"]


def run(work: Path) -> list[Measurement]:
    repo = work / "repo"
    feature = feature_worktree(work)
    _git(feature, "merge", "-q", "--no-edit", "main")
    env = {
        "GFH_SESSION": "claude:bench",
        "GFH_STATE_HOME": str(work / "state"),
        "PRE_COMMIT": "1",
        "PRE_COMMIT_IS_SQUASH_MERGE": "0",
    }
    recorded = command_vs_pass(
        "record-update after a merge of the trunk",
        [*HOOK, "record-update"],
        cwd=feature,
        env=env,
    )
    events = repo / ".git" / "gitflow-harness" / "events"
    lines = sum(len(p.read_bytes().splitlines()) for p in events.glob("*.jsonl"))
    recorded.notes.append(f"{lines} git.update events appended over the warm-up and the runs")

    _git(feature, "switch", "-q", "-c", "side", "HEAD~1")
    (feature / "side.txt").write_text("side\n", encoding="utf-8")
    _git(feature, "add", "side.txt")
    _git(feature, "commit", "-q", "-m", "side")
    _git(feature, "switch", "-q", "feature/bench")
    _git(feature, "merge", "-q", "--no-edit", "side")
    unrelated = command_vs_pass(
        "record-update after an unrelated merge",
        [*HOOK, "record-update"],
        cwd=feature,
        env=env,
    )

    _git(feature, "config", "gc.auto", "0")
    gate = _write_gate(feature, work)
    push_env = {
        "GFH_STATE_HOME": str(work / "state"),
        "PRE_COMMIT": "1",
        "PRE_COMMIT_TO_REF": _git(feature, "rev-parse", "HEAD").strip(),
        "PRE_COMMIT_LOCAL_BRANCH": "refs/heads/feature/bench",
    }
    push = command_vs_pass(
        "gate-push of a judged (green) tree", [*HOOK, "gate-push"], cwd=feature, env=push_env
    )
    push.notes.append(f"the tree's gate: {gate}")
    return [recorded, unrelated, push]


def _write_gate(feature: Path, work: Path) -> str:
    code = (
        "from gitflow_harness import git; from gitflow_harness.workflow.gate_index import "
        "write_gate; r = git.discover(); "
        "print(write_gate(r, git.tree_of(r), 'green', verb='test', branch=None, head=None).gate)"
    )
    return subprocess.run(
        [PYTHON, "-c", code], cwd=feature, check=True, capture_output=True, text=True
    ).stdout.strip()


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout
