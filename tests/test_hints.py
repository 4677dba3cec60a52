from __future__ import annotations

import dataclasses
import re
import string

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
)

PRESCRIBES_GATE_STAGE = re.compile(r"`gfh (?:prepare|test)\b")


def members(rule: FollowThrough) -> set[str]:
    return {hid for hid, d in HINTS.items() if d.follow_through is rule}


def test_red_gate_remedy_membership_is_exactly_what_the_texts_prescribe() -> None:
    """If a gate-failure hint tells the agent to iterate with `gfh prepare` or `gfh test`, it is
    in red-gate-remedy; if it does not, it is not; nothing else but done-unchanged-tree-red is."""
    gate_failures = {hid for hid in HINTS if hid.startswith("gate-failure-")}
    assert len(gate_failures) >= 3
    prescribing = {hid for hid in gate_failures if PRESCRIBES_GATE_STAGE.search(HINTS[hid].text)}
    assert prescribing == {"gate-failure-prepare", "gate-failure-test"}
    assert members(RED_GATE_REMEDY) == prescribing | {"done-unchanged-tree-red"}
    assert PRESCRIBES_GATE_STAGE.search(HINTS["done-unchanged-tree-red"].text)


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
    with pytest.raises(dataclasses.FrozenInstanceError):
        rule.family = "changed"  # type: ignore[misc]
    assert isinstance(rule.follow, frozenset)
    assert isinstance(rule.end, frozenset)
    assert rule.follow
    assert rule.end
    assert not hasattr(rule, "__dict__")  # slots: nothing can be attached to it


def test_registry_cannot_be_changed_at_run_time() -> None:
    with pytest.raises(TypeError):
        HINTS["new"] = HINTS["status-branch-behind"]  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
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


def test_family_of_unknown_id_is_none() -> None:
    assert hints.family_of("no-such-hint") is None
    assert hints.family_of("gate-failure-test") is RED_GATE_REMEDY
    assert Hint("a-b", "t").to_dict() == {"id": "a-b", "text": "t"}
