from __future__ import annotations

import multiprocessing
import stat
from pathlib import Path

import pytest

from gitflow_harness import git
from gitflow_harness.workflow import gate_index
from gitflow_harness.workflow.gate_index import latest_gate, read_gate, write_gate
from gitflow_harness.workspace import open_workspace

TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def test_round_trip_and_receipt_rules(repo: Path) -> None:
    r = git.discover(repo)
    assert latest_gate(r, TREE) is None
    assert write_gate(r, TREE, "green", verb="test", branch="b", head=None).receipt is False
    assert write_gate(r, TREE, "green", verb="done", branch="b", head=None).receipt is True
    assert write_gate(r, TREE, "green", verb="test", branch="b", head=None).receipt is True
    assert write_gate(r, TREE, "red", verb="test", branch="b", head=None).receipt is False
    assert latest_gate(r, TREE) == "red"
    assert latest_gate(open_workspace(), TREE) == "red"  # a workspace works as well as a repo


def test_index_lives_in_the_common_dir_owner_only(repo: Path) -> None:
    write_gate(git.discover(repo), TREE, "red", verb="done", branch="b", head=None)
    directory = repo / ".git" / "gitflow-harness" / "gates"
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE((directory / f"{TREE}.json").stat().st_mode) == 0o600


def test_damaged_entry_reads_as_unjudged(repo: Path) -> None:
    r = git.discover(repo)
    write_gate(r, TREE, "red", verb="done", branch="b", head=None)
    (gate_index.gates_dir(r) / f"{TREE}.json").write_text("{torn")
    assert read_gate(r, TREE) is None


@pytest.mark.parametrize("bad", ["../../etc/passwd", "HEAD", "abc"])
def test_only_tree_ids_are_accepted(repo: Path, bad: str) -> None:
    with pytest.raises(ValueError, match="not a tree id"):
        latest_gate(git.discover(repo), bad)


def test_index_is_pruned(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gate_index, "KEEP", 8)
    r = git.discover(repo)
    trees = [f"{i:040x}" for i in range(9)]
    for t in trees:
        write_gate(r, t, "green", verb="test", branch="b", head=None)
    kept = sorted(p.stem for p in gate_index.gates_dir(r).glob("*.json"))
    assert len(kept) == 4
    assert trees[-1] in kept  # the newest survives


def _write_many(args: tuple[str, int]) -> None:
    common, start = args
    r = git.Repo(top=None, git_dir=Path(common), common_dir=Path(common), bare=True, shallow=False)
    for i in range(start, start + 10):
        write_gate(r, f"{i:040x}", "red" if i % 2 else "green", verb="test", branch=None, head=None)


@pytest.mark.slow
def test_concurrent_writers_lose_nothing(repo: Path) -> None:
    common = str(repo / ".git")
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        pool.map(_write_many, [(common, n * 10) for n in range(4)])
    r = git.discover(repo)
    assert all(latest_gate(r, f"{i:040x}") == ("red" if i % 2 else "green") for i in range(40))


def test_an_index_that_cannot_be_written_is_a_clear_error(repo: Path) -> None:
    directory = repo / ".git" / "gitflow-harness" / "gates"
    directory.parent.mkdir(parents=True)
    directory.write_text("not a directory\n")
    with pytest.raises(gate_index.GateIndexError) as raised:
        write_gate(git.discover(repo), TREE, "green", verb="test", branch="b", head=None)
    message = raised.value.message
    assert message.startswith(f"the green gate of tree {TREE[:10]} could not be written to ")
    assert str(directory) in message
    assert "move what is there aside, then run `gfh test` again" in message
