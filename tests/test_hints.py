from __future__ import annotations

import re
import string
import threading
from collections.abc import Mapping

import pytest

from gitflow_harness import hints
from gitflow_harness.hints import (
    BRANCH_UPDATE,
    FAMILIES,
    HINTS,
    MAIN_WORKTREE_FIRST,
    RED_GATE_REMEDY,
    FollowThrough,
    Hint,
    HintDef,
)

PRESCRIBES_GATE_STAGE = re.compile(r"`gfh (?:prepare|test)\b")
# A gate remedy: the text tells the agent to iterate with the gate's quick stages until green.
REMEDY = re.compile(r"iterate with `gfh (?:prepare|test)`")
# Hints that name `gfh prepare` or `gfh test` without prescribing them as a gate remedy, each
# with why. A new hint that names them must match REMEDY (and join the family) or be listed here.
NOT_A_REMEDY = {
    "update-integrated": "a check after bringing the trunk in: no gate has failed",
}


def members(rule: FollowThrough, registry: Mapping[str, HintDef] = HINTS) -> set[str]:
    return {hid for hid, d in registry.items() if d.follow_through is rule}


def gate_remedies(registry: Mapping[str, HintDef]) -> set[str]:
    """The hints whose text prescribes `gfh prepare` or `gfh test` as a gate remedy, whatever
    their id."""
    return {hid for hid, d in registry.items() if REMEDY.search(d.text)}


def misfiled(registry: Mapping[str, HintDef]) -> set[str]:
    """Hints whose red-gate-remedy membership disagrees with their text, and hints that name
    a gate stage without being a remedy or a listed exception."""
    derived = gate_remedies(registry)
    unclassified = {
        hid
        for hid, d in registry.items()
        if PRESCRIBES_GATE_STAGE.search(d.text) and hid not in derived and hid not in NOT_A_REMEDY
    }
    return (members(RED_GATE_REMEDY, registry) ^ derived) | unclassified


def test_red_gate_remedy_membership_is_exactly_what_the_texts_prescribe() -> None:
    """If any hint, whatever its id, tells the agent to iterate with `gfh prepare` or `gfh test`,
    it is in red-gate-remedy; if it does not, it is not."""
    assert misfiled(HINTS) == set()
    assert members(RED_GATE_REMEDY) == gate_remedies(HINTS)
    assert gate_remedies(HINTS) == {
        "gate-failure-prepare", "gate-failure-test", "done-unchanged-tree-red",
    }  # fmt: skip
    assert "gate-failure-merge" not in gate_remedies(HINTS)  # it prescribes `gfh update`
    assert set(NOT_A_REMEDY) <= set(HINTS)


def test_a_new_remedy_cannot_escape_the_family_whatever_its_id() -> None:
    """If a hint with another prefix prescribes iterating with `gfh test` but carries no rule,
    or a hint joins the family without prescribing it, the derivation flags it."""
    escaped = HintDef(
        "retry-red-tree", "next-step", "all", "still red: iterate with `gfh test` until green"
    )
    enrolled = HintDef("stray-member", "notice", "all", "the gate is slow today", RED_GATE_REMEDY)
    unclassified = HintDef("after-rebase", "next-step", "all", "now run `gfh test`")
    for extra in (escaped, enrolled, unclassified):
        assert misfiled({**HINTS, extra.id: extra}) == {extra.id}


def test_families_and_their_members_match_the_design_table() -> None:
    assert set(FAMILIES) == {"branch-update", "red-gate-remedy", "main-worktree-first"}
    assert members(BRANCH_UPDATE) == {"status-branch-behind"}
    assert members(MAIN_WORKTREE_FIRST) == {"ensure-main-worktree-first"}


def test_one_rule_object_per_family_shared_by_every_member() -> None:
    for hid, definition in HINTS.items():
        rule = definition.follow_through
        if rule is not None:
            assert rule is FAMILIES[rule.family], hid


@pytest.mark.parametrize("rule", list(FAMILIES.values()), ids=list(FAMILIES))
def test_rule_objects_are_frozen_data(rule: FollowThrough) -> None:
    with pytest.raises(AttributeError):
        rule.family = "changed"  # type: ignore[misc]
    assert isinstance(rule.follow, frozenset)
    assert isinstance(rule.end, frozenset)
    assert rule.follow
    assert rule.end
    assert not hasattr(rule, "__dict__")  # slots: nothing can be attached to it


def test_registry_cannot_be_changed_at_run_time() -> None:
    with pytest.raises(TypeError):
        HINTS["new"] = HINTS["status-branch-behind"]  # type: ignore[index]
    with pytest.raises(AttributeError):
        HINTS["status-branch-behind"].text = "x"  # type: ignore[misc]


def test_every_hint_is_well_formed_and_renders() -> None:
    for hid, d in HINTS.items():
        assert d.id == hid
        assert re.fullmatch(r"[a-z]+(?:-[a-z]+)+", hid), hid
        assert d.category in ("next-step", "guardrail", "notice")
        assert d.audience in ("all", "agent")
        fields = {name for _, name, _, _ in string.Formatter().parse(d.text) if name}
        rendered = d.render(**{name: f"<{name}>" for name in fields})
        assert "{" not in rendered.text, hid
        assert "}" not in rendered.text, hid
        assert all(f"<{name}>" in rendered.text for name in fields)


def test_the_design_named_hints_exist() -> None:
    named = {
        "status-branch-behind",
        "done-unchanged-tree-red",
        "ensure-main-worktree-first",
        "gate-failure-prepare",
        "gate-failure-test",
        "gate-failure-merge",
        "update-conflict",
        "done-green-accept",
    }
    assert named <= set(HINTS)


def test_accumulator_drains_in_order_and_empties() -> None:
    hints.drain()
    first = hints.hint("ensure-main-worktree-first", trunk="main")
    second = hints.hint("status-trunk-dirty", trunk="main")
    hints.supplement(first)
    hints.supplement(second)
    assert hints.drain() == (first, second)
    assert hints.drain() == ()


def test_agent_hints_are_delivered_only_to_agents() -> None:
    agent_only = hints.hint("ensure-main-worktree-first", trunk="main")
    for_all = hints.hint("status-trunk-dirty", trunk="main")
    both = (agent_only, for_all)
    assert hints.deliverable(both, agent=True) == both
    assert hints.deliverable(both, agent=False) == (for_all,)


def test_a_hint_is_written_as_its_id_and_text() -> None:
    assert Hint("a-b", "t").to_dict() == {"id": "a-b", "text": "t"}


def test_the_first_scopes_of_threads_side_by_side_share_one_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The context variable is made by the first `isolated` (a command of its own process never
    makes it): threads entering their first scopes at once make one, each still its own queue."""
    monkeypatch.setattr(hints, "_SCOPED", [])
    start = threading.Barrier(8, timeout=30)
    drained: list[tuple[Hint, ...]] = []

    def call(n: int) -> None:
        start.wait()
        with hints.isolated():
            hints.supplement(hints.hint("status-trunk-dirty", trunk=f"t{n}"))
            drained.append(hints.drain())

    threads = [threading.Thread(target=call, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(hints._SCOPED) == 1
    assert sorted(len(d) for d in drained) == [1] * 8
    assert hints.drain() == ()
