"""`gfh done`: the full judgement of a branch's exact tree, and the receipt `accept` needs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitflow_harness import git as gitmod
from gitflow_harness.workflow.gate_index import latest_gate, read_gate
from tests.helpers import CliRunner, commit, write
from tests.workflow.conftest import configure, runs, tree, verb_events


def test_done_whose_gate_leaves_files_does_not_promise_accept(
    feature: Path, gfh: CliRunner
) -> None:
    """If the gate's own output dirties a clean tree, `accept` would refuse it: `done` names the
    files instead of saying `gfh accept` brings the work in, and `accept` says what to do."""
    configure(feature, test=["mkdir -p src/__pycache__ && touch src/__pycache__/calc.pyc"])
    result = gfh("done", "--json")
    assert result.code == 0
    envelope = result.json()
    assert (envelope["data"]["gate"], envelope["data"]["receipt"]) == ("green", True)
    assert [h["id"] for h in envelope["hints"]] == ["gate-left-files"]
    assert "(src/__pycache__/calc.pyc)" in envelope["hints"][0]["text"]
    refused = gfh("accept")
    assert refused.code == 1
    assert refused.out == (
        "hint: 1 untracked file(s) here: commit them or add them to .gitignore, then "
        "`gfh done` and `gfh accept`  [accept-dirty-tree]\n"
    )


def test_a_gate_program_that_is_not_installed_judges_nothing(
    feature: Path, gfh: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If a gate command is not found (exit 127), the tree was not judged: no gate result is
    recorded, the exit is 2 (the environment's problem), the hint names the program; once it is
    installed, `done` runs on the same tree instead of refusing it as already red."""
    configure(feature, prepare=["gfh-test-lint-tool --all"], test=["true"])
    judged_tree = tree(feature)
    result = gfh("done", "--json")
    assert result.code == 2
    envelope = result.json()
    assert envelope["outcome"] == "failed"
    assert envelope["data"]["gate"] is None
    assert envelope["data"]["reason"] == "command-unrunnable"
    assert envelope["hints"] == [
        {
            "id": "gate-command-missing",
            "text": "`gfh-test-lint-tool` was not found (exit 127): install it, or change "
            "[gate] prepare in .gitflow-harness.toml",
        }
    ]
    assert read_gate(gitmod.discover(feature), judged_tree) is None
    [event] = verb_events(feature, "done")
    assert (event["data"]["outcome"], event["data"]["gate"]) == ("failed", None)
    assert event["data"]["hint_ids"] == ["gate-command-missing"]
    text = gfh("done")  # not refused as already red: nothing was judged
    assert text.code == 2
    assert (
        "gfh done: failed: `gfh-test-lint-tool` was not found (exit 127); the tree was not judged"
        in text.err
    )

    for verb in ("prepare", "test"):
        assert gfh(verb).code == (2 if verb == "prepare" else 0)

    # Installed now: the same tree is judged, not refused as red.
    bin_dir = tmp_path / "bin"
    write(bin_dir, "gfh-test-lint-tool", "#!/bin/sh\nexit 0\n").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    again = gfh("done", "--json")
    assert again.code == 0, again.err
    assert again.json()["data"]["gate"] == "green"
    assert latest_gate(gitmod.discover(feature), judged_tree) == "green"


def test_done_refuses_without_the_trunk_and_runs_nothing(
    repo: Path, gated: Path, marker: Path, gfh: CliRunner
) -> None:
    commit(repo, "trunk moves", {"t.txt": "t\n"})
    result = gfh("done", "--json")
    assert result.code == 1
    envelope = result.json()
    assert envelope["outcome"] == "refused"
    assert [h["id"] for h in envelope["hints"]] == ["gate-failure-merge"]
    assert runs(marker) == []
    [event] = verb_events(repo, "done")
    assert event["data"]["gate"] is None
    assert event["data"]["probe"] is False


def test_done_red_then_unchanged_tree_is_refused_without_running(
    gated: Path, marker: Path, gfh: CliRunner
) -> None:
    first = gfh("done")
    assert first.code == 1
    assert "[gate-failure-test]" in first.out
    assert runs(marker) == ["prepare", "test"]
    second = gfh("done", "--json")
    assert second.code == 1
    envelope = second.json()
    assert envelope["outcome"] == "refused"
    assert [h["id"] for h in envelope["hints"]] == ["done-unchanged-tree-red"]
    assert runs(marker) == ["prepare", "test"]  # nothing ran
    events = verb_events(gated, "done")
    assert [e["data"]["gate"] for e in events] == ["red", "red"]
    assert [e["data"]["probe"] for e in events] == [False, False]


def test_done_rerun_forces_a_recorded_probe(gated: Path, marker: Path, gfh: CliRunner) -> None:
    gfh("done")
    result = gfh("done", "--rerun")
    assert result.code == 1
    assert runs(marker) == ["prepare", "test", "prepare", "test"]
    last = verb_events(gated, "done")[-1]
    assert last["data"]["probe"] is True
    assert last["data"]["flags"] == ["--rerun"]


def test_done_runs_again_once_the_tree_changes(gated: Path, marker: Path, gfh: CliRunner) -> None:
    gfh("done")
    write(gated, "ok.txt", "fixed\n")
    result = gfh("done", "--json")
    assert result.code == 0
    envelope = result.json()
    assert envelope["data"]["gate"] == "green"
    assert envelope["data"]["receipt"] is True
    record = read_gate(gitmod.discover(gated), tree(gated))
    assert record is not None
    assert record.receipt
    assert record.verb == "done"


def test_done_green_on_uncommitted_changes_says_to_commit_them_as_they_are(
    repo: Path, gated: Path, marker: Path, gfh: CliRunner
) -> None:
    """If `done` judged uncommitted changes green, `accept` refuses the dirty tree: the hint says
    to commit exactly these (the receipt covers this tree), and then `accept` works without
    another `done`."""
    write(gated, "ok.txt", "fixed\n")
    result = gfh("done", "--json")
    assert result.code == 0
    assert result.json()["hints"] == [
        {
            "id": "done-green-commit",
            "text": "the gate is green for this tree, uncommitted changes included: commit the "
            "1 changed file(s) as they are (the receipt covers exactly this tree), then "
            "`gfh accept` brings it into main",
        }
    ]
    commit(gated, "the fix", {})
    assert runs(marker) == ["prepare", "test"]
    accepted = gfh("accept")
    assert accepted.code == 0, accepted.out + accepted.err
    assert runs(marker) == ["prepare", "test"]  # no second run was needed


def test_done_stops_at_a_failing_prepare(feature: Path, marker: Path, gfh: CliRunner) -> None:
    configure(feature, prepare=["exit 1"], test=[f"echo test >> {marker}"])
    result = gfh("done", "--json")
    assert result.code == 1
    assert [h["id"] for h in result.json()["hints"]] == ["gate-failure-prepare"]
    assert runs(marker) == []


def test_done_on_the_trunk_is_refused(repo: Path, gfh: CliRunner) -> None:
    result = gfh("done")
    assert result.code == 1
    assert "[verb-on-trunk]" in result.out


def test_a_python_without_the_module_a_gate_runs_is_the_environment_not_a_red_tree(
    feature: Path, gfh: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If a virtualenv's bin/ first on PATH shadows the user's python3 (the venv gfh was
    installed in, say), then a gate `python3 -m pytest` fails "No module named pytest": that is
    an environment error with its own hint, no red verdict is recorded, and once PATH is right
    `done` judges the same tree instead of refusing it as already red."""
    import subprocess
    import sys

    shadow = tmp_path / "shadow-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(shadow)], check=True)
    configure(feature, test=["python3 -m pytest --version"])
    monkeypatch.setenv("PATH", f"{shadow / 'bin'}{os.pathsep}{os.environ['PATH']}")
    judged_tree = tree(feature)
    result = gfh("done", "--json")
    assert result.code == 2
    envelope = result.json()
    assert envelope["data"]["gate"] is None
    assert envelope["data"]["reason"] == "environment"
    assert envelope["data"]["module"] == "pytest"
    [found] = envelope["hints"]
    assert found["id"] == "gate-environment"
    assert "`python3` has no module pytest" in found["text"]
    assert read_gate(gitmod.discover(feature), judged_tree) is None
    assert gfh("test").code == 2

    real = Path(sys.executable).parent
    monkeypatch.setenv("PATH", f"{real}{os.pathsep}{os.environ['PATH']}")
    again = gfh("done", "--json")
    assert again.code == 0, again.out + again.err
    assert again.json()["data"]["gate"] == "green"
