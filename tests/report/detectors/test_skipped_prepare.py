from __future__ import annotations

from tests.helpers import CliRunner
from tests.report.conftest import Seeder, detector, report


def test_fires_on_four_dones_two_red_and_no_prepare(seed: Seeder, gfh: CliRunner) -> None:
    seed.verb("done", ("gate-failure-test",), gate="red")
    seed.verb("done", ("gate-failure-prepare",), gate="red")
    seed.verb("done", ("done-green-accept",), gate="green")
    seed.verb("done", ("done-green-accept",), gate="green")
    doc = report(gfh)
    found = detector(doc, "skipped-prepare")
    assert found["status"] == "fired"
    assert found["considered"] == 1
    [finding] = [f for f in doc["findings"] if f["detector"] == "skipped-prepare"]
    assert finding["subject"] == "feature/x"
    assert finding["evidence"] == {"done": 4, "red": 2, "prepare": 0}
    assert finding["tone"] == "attention"
    assert "gfh prepare" in finding["next_step"]
    # Distinct from follow-through: its findings never speak for skipped-prepare.
    assert all(
        f["subject"] != "feature/x" for f in doc["findings"] if f["detector"] != "skipped-prepare"
    )


def test_a_prepare_anywhere_on_the_branch_keeps_it_quiet(seed: Seeder, gfh: CliRunner) -> None:
    seed.verb("prepare")
    for gate in ("red", "red", "green", "green"):
        seed.verb("done", gate=gate)
    found = detector(report(gfh), "skipped-prepare")
    assert found["status"] == "quiet"
    assert found["considered"] == 1


def test_needs_two_red_and_four_dones(seed: Seeder, gfh: CliRunner) -> None:
    for gate in ("red", "green", "green", "green"):
        seed.verb("done", gate=gate, branch="one-red")
    for gate in ("red", "red", "red"):
        seed.verb("done", gate=gate, branch="three-dones")
    found = detector(report(gfh), "skipped-prepare")
    assert found["status"] == "quiet"
    assert found["considered"] == 1


def test_no_branch_with_enough_dones_is_insufficient_evidence(gfh: CliRunner, repo) -> None:  # type: ignore[no-untyped-def]
    found = detector(report(gfh), "skipped-prepare")
    assert found == {"id": "skipped-prepare", "status": "insufficient-evidence", "considered": 0}


def test_refused_dones_ran_no_gate_and_are_not_counted(seed: Seeder, gfh: CliRunner) -> None:
    """If `done` refuses to run (the same red tree again, or the trunk not merged), it judged
    nothing: one red run and three refusals are one `done` run, not four runs, four red. The
    refusal's event keeps the tree's recorded gate (red): that is the tree's state."""
    seed.verb("done", ("gate-failure-test",), gate="red", outcome="failed")
    for _ in range(3):
        seed.verb("done", ("done-unchanged-tree-red",), gate="red", outcome="refused")
    seed.verb("done", ("gate-failure-merge",), outcome="refused")
    doc = report(gfh)
    assert detector(doc, "skipped-prepare") == {
        "id": "skipped-prepare", "status": "insufficient-evidence", "considered": 0,
    }  # fmt: skip
    assert [f for f in doc["findings"] if f["detector"] == "skipped-prepare"] == []


def test_dones_whose_gate_program_was_missing_judged_nothing(seed: Seeder, gfh: CliRunner) -> None:
    """If a gate program was not installed, `done` stopped without a verdict (outcome failed,
    gate null): those runs are not runs of the gate, so two red runs and three such stops are
    not the four runs the detector needs."""
    seed.verb("done", ("gate-failure-test",), gate="red")
    seed.verb("done", ("gate-failure-test",), gate="red")
    for _ in range(3):
        seed.verb("done", ("gate-command-missing",), gate=None, outcome="failed")
    found = detector(report(gfh), "skipped-prepare")
    assert found == {"id": "skipped-prepare", "status": "insufficient-evidence", "considered": 0}
