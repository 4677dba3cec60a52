from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from gitflow_harness import halves
from gitflow_harness.ways import index as index_module
from gitflow_harness.ways.index import Found, load_index
from tests.ways.conftest import EXP, settle_tree, write_way

pytestmark = pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="needs Linux and a second CPU",
)


@pytest.fixture(autouse=True)
def idle(monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine's load as if idle (the suite's own workers load it)."""
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))


ITEMS = list(range(halves.MIN_ITEMS * 2))


class Work:
    """`in_halves`' three callbacks, recording which process did what."""

    def __init__(self, answer: object = None, accept: bool = True) -> None:
        self.done: dict[int, int] = {}  # item -> pid of the process that did it
        self.answer = answer
        self.accept = accept

    def mine(self, part: Sequence[int]) -> None:
        for item in part:
            self.done[item] = os.getpid()

    def theirs(self, part: Sequence[int]) -> object:
        if self.answer is not None:
            return self.answer
        return [[item, os.getpid()] for item in part]

    def take(self, part: Sequence[int], answer: object) -> bool:
        assert isinstance(answer, list)
        if not self.accept:
            return False
        for item, pid in answer:
            self.done[item] = pid
        return True

    def run(self, items: Sequence[int] = ITEMS) -> None:
        halves.in_halves(items, self.mine, self.theirs, self.take)


def test_a_child_process_does_the_second_half() -> None:
    work = Work()
    work.run()
    assert sorted(work.done) == ITEMS
    half = halves.split_at(len(ITEMS))
    assert 0 < half < len(ITEMS) - half
    assert {work.done[i] for i in ITEMS[:half]} == {os.getpid()}
    (child,) = {work.done[i] for i in ITEMS[half:]}
    assert child != os.getpid()
    with pytest.raises(ChildProcessError):
        os.waitpid(child, os.WNOHANG)  # reaped


def test_few_items_are_done_in_this_process() -> None:
    work = Work()
    work.run(ITEMS[: halves.MIN_ITEMS - 1])
    assert set(work.done.values()) == {os.getpid()}


def test_an_answer_marshal_cannot_write_is_done_here() -> None:
    work = Work(answer=object())  # the child fails to send it
    work.run()
    assert sorted(work.done) == ITEMS
    assert set(work.done.values()) == {os.getpid()}


def test_an_answer_refused_is_done_here() -> None:
    work = Work(accept=False)
    work.run()
    assert sorted(work.done) == ITEMS
    assert set(work.done.values()) == {os.getpid()}


def test_a_child_that_dies_costs_only_time() -> None:
    work = Work()

    def dies(part: Sequence[int]) -> object:
        os._exit(3)

    halves.in_halves(ITEMS, work.mine, dies, work.take)
    assert sorted(work.done) == ITEMS
    assert set(work.done.values()) == {os.getpid()}


def test_when_this_process_fails_the_child_is_killed_and_reaped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started: list[int] = []
    real = halves._start

    def start(items: Sequence[int], theirs: object, dumps: object) -> tuple[int, int] | None:
        child = real(items, theirs, dumps)  # type: ignore[arg-type]
        assert child is not None
        started.append(child[0])
        return child

    monkeypatch.setattr(halves, "_start", start)

    def mine(part: Sequence[int]) -> None:
        raise KeyboardInterrupt

    def sleeps(part: Sequence[int]) -> object:
        threading.Event().wait(60)
        return []

    with pytest.raises(KeyboardInterrupt):
        halves.in_halves(ITEMS, mine, sleeps, lambda part, answer: True)
    with pytest.raises(ChildProcessError):
        os.waitpid(started[0], os.WNOHANG)


def test_no_fork_beside_another_thread() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not halves.available()
        work = Work()
        work.run()
        assert set(work.done.values()) == {os.getpid()}
    finally:
        stop.set()
        thread.join()


def test_no_fork_when_it_cannot_start(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse() -> int:
        raise OSError("no more processes")

    monkeypatch.setattr(os, "fork", refuse)
    work = Work()
    work.run()
    assert sorted(work.done) == ITEMS
    assert set(work.done.values()) == {os.getpid()}


def _tree(root: Path, count: int) -> None:
    for n in range(count):
        keywords = f"[k{n}, phrase {n}]"
        write_way(
            root, f"g{n % 7}/w{n:03d}", f"description: D{n}\nwhen: {{keywords: {keywords}}}\n" + EXP
        )
    write_way(root, "g0/broken", "description: [unclosed\n")
    settle_tree(root)


def test_a_load_in_two_processes_is_the_load_in_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every way and problem, the caches written: the same whether a child parsed half."""
    count = halves.MIN_ITEMS * 2
    root = tmp_path / "ways"
    _tree(root, count)
    shared = tmp_path / "shared.marshal"
    here: list[str] = []
    real = index_module._parse

    def counted(found: Found, data: bytes | None) -> object:
        here.append(found.id)
        return real(found, data)

    monkeypatch.setattr(index_module, "_parse", counted)
    parallel = load_index(root, cache_file=tmp_path / "a.marshal", shared_file=shared)
    assert len(here) == halves.split_at(count + 1)  # the child parsed the rest
    monkeypatch.setattr(halves, "MIN_ITEMS", 10**9)
    serial = load_index(root, cache_file=tmp_path / "b.marshal", use_cache=True)
    assert len(here) == halves.split_at(count + 1) + count + 1
    assert parallel.ways == serial.ways
    assert [w.lanes for w in parallel.ways] == [w.lanes for w in serial.ways]
    assert parallel.problems == serial.problems
    assert len(parallel.ways) == count
    assert len(parallel.problems) == 1
    # The child's half reached this process's caches: nothing is parsed again.
    monkeypatch.setattr(index_module, "_parse", pytest.fail)
    monkeypatch.setattr(halves, "MIN_ITEMS", 64)
    again = load_index(root, cache_file=tmp_path / "a.marshal", shared_file=shared)
    assert again.ways == parallel.ways
    other = load_index(root, cache_file=tmp_path / "c.marshal", shared_file=shared)
    assert other.ways == parallel.ways
    assert other.problems == parallel.problems


def test_no_fork_on_a_machine_already_busy(monkeypatch: pytest.MonkeyPatch) -> None:
    cpus = len(os.sched_getaffinity(0))
    monkeypatch.setattr(os, "getloadavg", lambda: (cpus - 0.5, 0.0, 0.0))
    assert not halves.available()
    work = Work()
    work.run()
    assert set(work.done.values()) == {os.getpid()}
