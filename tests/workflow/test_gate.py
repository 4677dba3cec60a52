from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from gitflow_harness import git as gitmod
from gitflow_harness.workflow.gate_index import latest_gate, read_gate
from tests.helpers import CliRunner, commit, run_gfh, write
from tests.workflow.conftest import configure, verb_events


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    """A file outside every worktree where gate commands log that they ran."""
    return tmp_path / "ran.log"


def runs(marker: Path) -> list[str]:
    return marker.read_text().split() if marker.exists() else []


def tree(path: Path) -> str:
    return gitmod.tree_identity(gitmod.discover(path))


@pytest.fixture
def gated(feature: Path, marker: Path) -> Path:
    """feature/x with a prepare that always passes and a test that passes once ok.txt exists."""
    configure(
        feature,
        prepare=[f"echo prepare >> {marker}"],
        test=[f"echo test >> {marker}", "test -f ok.txt"],
    )
    return feature


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
    assert gfh("test").code == 0
    assert latest_gate(gitmod.discover(feature), before) == "green"
    assert verb_events(feature, "test")[0]["data"]["tree"] == before


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
    assert [h["id"] for h in envelope["hints"]] == ["done-green-accept"]
    record = read_gate(gitmod.discover(gated), tree(gated))
    assert record is not None
    assert record.receipt
    assert record.verb == "done"


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
    gates = gitmod.discover(gated).common_dir / "gitflow-harness" / "gates"
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
