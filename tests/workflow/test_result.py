"""The typed data of the verbs, written as the `--json` envelope's `data`: key for key, in the
order the contract has always had."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from gitflow_harness.workflow.accept import (
    AcceptData,
    Accepted,
    AcceptRefusal,
    DirtyTree,
    FastForwardFailed,
    NoReceipt,
)
from gitflow_harness.workflow.done import AlreadyRed, DoneData, DoneRefusal, NotJudged, Ran
from gitflow_harness.workflow.ensure import EnsureData
from gitflow_harness.workflow.gate import GateData, PrepareData, Unrunnable, judgement
from gitflow_harness.workflow.result import (
    INLINE,
    EndTurnNotRecorded,
    Refused,
    VerbData,
    VerbResult,
    key,
)
from gitflow_harness.workflow.start import (
    Adopted,
    BranchElsewhere,
    Created,
    Existing,
    PathTaken,
    StartData,
)
from gitflow_harness.workflow.status import StatusView
from gitflow_harness.workflow.update import (
    Already,
    Conflict,
    GitFailure,
    Integrated,
    UpdateData,
    UpdateRefusal,
    conflict_of,
)
from gitflow_harness.workflow.update import DirtyTree as UpdateDirty


@dataclass(frozen=True, slots=True)
class _Inner(VerbData):
    reason: str


@dataclass(frozen=True, slots=True)
class _Outer(VerbData):
    name: str
    keyword: str = field(metadata=key("from"))
    inner: _Inner | None = field(default=None, metadata=INLINE)


def test_fields_are_written_in_order_renamed_and_inlined() -> None:
    assert _Outer("a", "b", _Inner("c")).to_dict() == {"name": "a", "from": "b", "reason": "c"}
    assert json.dumps(_Outer("a", "b").to_dict()) == '{"name": "a", "from": "b"}'
    assert VerbData().to_dict() == {}


def test_the_envelope_writes_the_data_record() -> None:
    result = VerbResult("start", "refused", Refused("no"))
    assert json.dumps(result.envelope()) == (
        '{"verb": "start", "outcome": "refused", "data": {"error": "no"}, "hints": []}'
    )


UNRUN = Unrunnable(None, "environment", "python", "pytest")
CASES: list[tuple[VerbData, list[str]]] = [
    (
        EnsureData("main", "main", "main", True, True),
        ["location", "branch", "trunk", "on_trunk", "clean"],
    ),
    (StartData("b", "main", "/p", Created("h")), ["branch", "from", "path", "head"]),
    (StartData("b", None, "/p", Existing("h")), ["branch", "from", "path", "head", "existing"]),
    (StartData("b", None, "/p", Adopted("h")), ["branch", "from", "path", "head", "adopted"]),
    (
        StartData("b", None, "/p", BranchElsewhere("branch-exists", "/q")),
        ["branch", "from", "path", "reason", "checked_out_at"],
    ),
    (StartData("b", "main", "/p", PathTaken("path-exists")), ["branch", "from", "path", "reason"]),
    (
        UpdateData("b", "main", "merge", UpdateRefusal("on-trunk")),
        ["branch", "trunk", "via", "reason"],
    ),
    (
        UpdateData("b", "main", "merge", UpdateDirty("dirty", 2)),
        ["branch", "trunk", "via", "reason", "changed"],
    ),
    (
        UpdateData("b", "main", "merge", Already("already", "h", "o")),
        ["branch", "trunk", "via", "result", "head", "onto"],
    ),
    (
        UpdateData("b", "main", "merge", Integrated("merged", "h", "o", None)),
        ["branch", "trunk", "via", "result", "head", "onto", "brought_in"],
    ),
    (
        UpdateData("b", "main", "merge", Conflict("conflict", ["a"], "h")),
        ["branch", "trunk", "via", "result", "conflicts", "head"],
    ),
    (
        UpdateData("b", "main", "merge", GitFailure("error", "bad", "h")),
        ["branch", "trunk", "via", "result", "error", "head"],
    ),
    (PrepareData([], 0), ["commands", "configured"]),
    (PrepareData([], 1, UNRUN), ["commands", "configured", "gate", "reason", "program", "module"]),
    (
        GateData([], 1, "t", judgement("green", True, [], None)),
        ["commands", "configured", "tree", "gate", "receipt", "left_files", "left_count"],
    ),
    (
        GateData([], 1, "t", judgement("green", False, ["x"], "cannot write")),
        [
            "commands",
            "configured",
            "tree",
            "gate",
            "receipt",
            "left_files",
            "left_count",
            "index_error",
        ],
    ),
    (
        GateData([], 1, "t", UNRUN),
        ["commands", "configured", "tree", "gate", "reason", "program", "module"],
    ),
    (DoneData("b", "main", DoneRefusal("on-trunk")), ["branch", "trunk", "reason"]),
    (
        DoneData("b", "main", AlreadyRed("t", "unchanged-tree-red", {})),
        ["branch", "trunk", "tree", "reason", "judged"],
    ),
    (
        DoneData("b", "main", Ran("t", [], judgement("red", False, [], None))),
        ["branch", "trunk", "tree", "commands", "gate", "receipt", "left_files", "left_count"],
    ),
    (
        DoneData("b", "main", Ran("t", [], NotJudged(False, UNRUN))),
        ["branch", "trunk", "tree", "commands", "receipt", "gate", "reason", "program", "module"],
    ),
    (
        AcceptData("b", "main", "h", AcceptRefusal("on-trunk")),
        ["branch", "trunk", "head", "reason"],
    ),
    (
        AcceptData("b", "main", "h", NoReceipt("no-receipt", "t", None)),
        ["branch", "trunk", "head", "reason", "tree", "gate"],
    ),
    (
        AcceptData("b", "main", "h", DirtyTree("dirty", 1, "judged")),
        ["branch", "trunk", "head", "reason", "changed", "remedy"],
    ),
    (
        AcceptData("b", "main", "h", FastForwardFailed("fast-forward-failed", "e")),
        ["branch", "trunk", "head", "reason", "error"],
    ),
    (
        AcceptData("b", "main", "h", Accepted("o", "h", None, [], True, "/m", [])),
        [
            "branch",
            "trunk",
            "head",
            "trunk_from",
            "trunk_to",
            "removed_worktree",
            "removed_ignored",
            "deleted_branch",
            "main_checkout",
            "left",
        ],
    ),
    (EndTurnNotRecorded("end-turn-not-recorded", "disk full"), ["reason", "error"]),
    (Refused("bad"), ["error"]),
]


def test_every_verb_record_writes_the_contracts_keys_in_order() -> None:
    for data, keys in CASES:
        assert list(data.to_dict()) == keys, data


def test_status_writes_its_values_as_they_are() -> None:
    view = StatusView({"location": "main", "box": "┌─ gfh"})
    assert view.to_dict() == {"location": "main", "box": "┌─ gfh"}
    assert view.box == "┌─ gfh"


def test_conflict_of_finds_only_an_undone_conflict() -> None:
    conflict = Conflict("conflict", ["a.txt"], "h")
    assert conflict_of(UpdateData("b", "main", "merge", conflict)) == conflict
    assert conflict_of(UpdateData("b", "main", "merge", Already("already", "h", "o"))) is None
    assert conflict_of(Refused("x")) is None


def test_a_slots_record_compares_and_shows_its_fields() -> None:
    """The records the hook's path loads are not dataclasses: equal by their fields, shown by
    them, in the contract's order."""
    assert EnsureData("main", "b", "main", False, True) == EnsureData(
        "main", "b", "main", False, True
    )
    assert EnsureData("main", "b", "main", False, True) != EnsureData(
        "main", "b", "main", False, False
    )
    assert repr(Refused("no")) == "Refused(error='no')"
    assert repr(EndTurnNotRecorded("r", "e")) == "EndTurnNotRecorded(reason='r', error='e')"
