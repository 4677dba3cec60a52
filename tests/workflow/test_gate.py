from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from gitflow_harness import git as gitmod
from gitflow_harness.workflow.gate_index import latest_gate, read_gate
from tests.helpers import CliRunner, run_gfh, write
from tests.workflow.conftest import configure, runs, tree, verb_events


def test_prepare_runs_commands_in_order_and_stops_at_the_first_failure(
    feature: Path, marker: Path, gfh: CliRunner
) -> None:
    configure(feature, prepare=[f"echo one >> {marker}", "exit 3", f"echo three >> {marker}"])
    result = gfh("prepare", "--json")
    assert result.code == 1
    assert runs(marker) == ["one"]
    envelope = result.json()
    assert envelope["outcome"] == "failed"
    assert [c["exit_code"] for c in envelope["data"]["commands"]] == [0, 3]
    assert [h["id"] for h in envelope["hints"]] == ["gate-failure-prepare"]
    assert "`exit 3` failed" in envelope["hints"][0]["text"]
    [event] = verb_events(feature, "prepare")
    assert event["data"]["hint_ids"] == ["gate-failure-prepare"]
    assert "gate" not in event["data"]


def test_gate_output_is_streamed_to_the_user(feature: Path, gfh: CliRunner) -> None:
    configure(feature, prepare=["echo from-the-command"])
    result = gfh("prepare")
    assert result.code == 0
    lines = result.out.splitlines()
    assert lines.index("from-the-command") < lines.index("prepare: green (1 command)")


@pytest.mark.slow
def test_json_output_keeps_stdout_one_object_and_streams_to_stderr(feature: Path) -> None:
    configure(feature, test=["echo out-line; echo err-line >&2"])
    proc = run_gfh("test", "--json", cwd=feature)
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["data"]["gate"] == "green"
    assert "out-line" in proc.stderr
    assert "err-line" in proc.stderr


@pytest.mark.slow
def test_gate_commands_inherit_the_terminal_streams(feature: Path) -> None:
    configure(feature, test=[f"{sys.executable} -c \"print('live')\""])
    proc = run_gfh("test", cwd=feature)
    assert proc.stdout.splitlines()[1] == "live"  # after the "$ command" note, before the summary


def test_test_records_the_gate_for_the_tree_identity(
    gated: Path, marker: Path, gfh: CliRunner
) -> None:
    judged = tree(gated)
    result = gfh("test")
    assert result.code == 1
    assert "[gate-failure-test]" in result.out
    assert latest_gate(gitmod.discover(gated), judged) == "red"
    [event] = verb_events(gated, "test")
    assert event["data"]["gate"] == "red"
    assert event["data"]["tree"] == judged
    assert event["data"]["hint_ids"] == ["gate-failure-test"]
    write(gated, "ok.txt", "ok\n")
    assert gfh("test").code == 0
    assert latest_gate(gitmod.discover(gated), tree(gated)) == "green"
    assert latest_gate(gitmod.discover(gated), judged) == "red"  # the old tree keeps its verdict


def test_test_judges_the_tree_as_it_was_before_the_commands_ran(
    feature: Path, gfh: CliRunner
) -> None:
    configure(feature, test=["echo cache > written-by-tests.txt"])
    before = tree(feature)
    result = gfh("test", "--json")
    assert result.code == 0
    assert latest_gate(gitmod.discover(feature), before) == "green"
    assert verb_events(feature, "test")[0]["data"]["tree"] == before
    # What the commands wrote makes the next run judge another tree: the run says so.
    envelope = result.json()
    assert envelope["data"]["left_files"] == ["written-by-tests.txt"]
    assert envelope["data"]["left_count"] == 1
    assert envelope["hints"] == [
        {
            "id": "gate-left-files",
            "text": "the gate left 1 untracked file(s) (written-by-tests.txt): add them to "
            ".gitignore, or the next run judges a different tree",
        }
    ]
    assert verb_events(feature, "test")[0]["data"]["hint_ids"] == ["gate-left-files"]


def test_only_the_files_the_gate_created_are_named(feature: Path, gfh: CliRunner) -> None:
    """If untracked files were there before the gate ran, they are the work, not its output;
    ignored files are nobody's concern."""
    configure(
        feature,
        test=["mkdir -p build && touch build/a.o build/b.o notes.log ignored.tmp"],
    )
    write(feature, ".gitignore", "*.tmp\n")
    write(feature, "draft.txt", "mine\n")
    result = gfh("test", "--json")
    assert result.code == 0
    envelope = result.json()
    assert envelope["data"]["left_files"] == ["build/a.o", "build/b.o", "notes.log"]
    [left] = [h for h in envelope["hints"] if h["id"] == "gate-left-files"]
    assert left["text"].startswith("the gate left 3 untracked file(s) (build/…, notes.log): ")
    assert gfh("test", "--json").json()["data"]["left_files"] == []  # the same files: nothing new


def test_sample_paths_names_a_few_and_folds_directories() -> None:
    from gitflow_harness.workflow.gate import sample_paths

    assert sample_paths(["a.txt"]) == "a.txt"
    assert sample_paths(["d/x", "d/y", "e.txt"]) == "d/…, e.txt"
    assert sample_paths(["a", "b", "c", "d"]) == "a, b, c, …"
    assert sample_paths(["top1", "top2"]) == "top1, top2"  # the root is not a folder to fold


def test_a_test_command_that_cannot_be_executed_records_no_gate(
    feature: Path, gfh: CliRunner
) -> None:
    configure(feature, test=["./check.sh"])
    write(feature, "check.sh", "#!/bin/sh\nexit 0\n")  # not executable: exit 126
    judged_tree = tree(feature)
    result = gfh("test", "--json")
    assert result.code == 2
    envelope = result.json()
    assert envelope["data"]["gate"] is None
    assert envelope["hints"][0]["text"].startswith(
        "`./check.sh` could not be executed (exit 126): install it, or change [gate] test"
    )
    assert read_gate(gitmod.discover(feature), judged_tree) is None
    assert verb_events(feature, "test")[0]["data"]["gate"] is None


def test_unconfigured_gate_says_so(feature: Path, gfh: CliRunner) -> None:
    assert "[gate-not-configured]" in gfh("prepare").out
    assert "[gate-not-configured]" in gfh("test").out
    out = gfh("done").out
    assert "[done-green-accept]" in out
    assert "[gate-not-configured]" in out


def test_gate_commands_know_they_run_under_the_gate(
    feature: Path, marker: Path, gfh: CliRunner
) -> None:
    configure(feature, test=[f'echo "$GFH_GATE" > {marker}'])
    gfh("test")
    assert marker.read_text().strip() == "1"
    assert "GFH_GATE" not in os.environ


# A gate command that says "ready", then waits (boundedly) for a file the test creates only once
# it has read "ready" from the live stream. Output held back until the command exits would
# never let the test see it in time: the command gives up and fails, and so does the test.
HANDSHAKE = (
    "echo ready; i=0; "
    'while [ ! -f "$GO" ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done; '
    'test -f "$GO" && echo streamed'
)


class Watcher:
    """A text stream without a file descriptor that creates `go` when it sees "ready"."""

    def __init__(self, go: Path) -> None:
        self.go = go
        self.text = ""

    def write(self, text: str) -> int:
        self.text += text
        if "ready\n" in self.text and not self.go.exists():
            self.go.write_text("go\n")
        return len(text)

    def flush(self) -> None:
        pass


def test_gate_output_reaches_the_console_while_the_command_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the output were collected and written after the command exits, the command would wait
    for its go file in vain and fail."""
    from gitflow_harness.workflow.commands import Console, run_commands

    go = tmp_path / "go"
    monkeypatch.setenv("GO", str(go))
    watcher = Watcher(go)
    notes: list[str] = []
    [run] = run_commands("test", [HANDSHAKE], cwd=tmp_path, console=Console(watcher, notes.append))  # type: ignore[arg-type]
    assert run.exit_code == 0, f"the output was not streamed live: {watcher.text!r}"
    assert watcher.text == "ready\nstreamed\n"


@pytest.mark.slow
def test_gate_output_reaches_the_terminal_while_the_command_runs(
    feature: Path, tmp_path: Path
) -> None:
    """The same handshake through `gfh test` as a process, reading its stdout line by line."""
    import subprocess

    go = tmp_path / "go"
    configure(feature, test=[HANDSHAKE])
    proc = subprocess.Popen(
        [sys.executable, "-m", "gitflow_harness", "test"],
        cwd=feature,
        env={**os.environ, "GO": str(go)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line.rstrip("\n"))
        if line == "ready\n":
            go.write_text("go\n")
    assert proc.wait() == 0, (lines, proc.stderr.read() if proc.stderr else "")
    assert lines[1:3] == ["ready", "streamed"]


def test_a_gate_index_that_cannot_be_written_keeps_the_run(
    gated: Path, marker: Path, gfh: CliRunner
) -> None:
    """If the gate index cannot be written (its place holds a file), the commands' verdict is
    not lost as an internal error: the run is recorded with its gate, as partial, and one line
    says where the index is and how to fix it. A green `done` then offers no receipt."""
    write(gated, "ok.txt", "green\n")
    gates = Path(gitmod.discover(gated).common_dir, "gitflow-harness", "gates")
    gates.parent.mkdir(parents=True, exist_ok=True)
    gates.write_text("not a directory\n")
    for verb in ("test", "done"):
        result = gfh(verb, "--json")
        assert result.code == 1, result.err
        envelope = result.json()
        assert envelope["outcome"] == "partial"
        assert (envelope["data"]["gate"], envelope["data"]["receipt"]) == ("green", False)
        assert str(gates) in envelope["data"]["index_error"]
        assert "done-green-accept" not in [h["id"] for h in envelope["hints"]]
        assert "internal error" not in result.err
        [event] = verb_events(gated, verb)
        assert (event["data"]["outcome"], event["data"]["gate"]) == ("partial", "green")
    assert runs(marker) == ["test", "prepare", "test"]
    text = gfh("test")
    assert text.err.splitlines()[0].startswith("gfh test: partial: test: green (2 commands); ")
