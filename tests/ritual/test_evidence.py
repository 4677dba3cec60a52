from __future__ import annotations

from gitflow_harness.ritual.evidence import box_flags, box_observations, tool_call_count
from gitflow_harness.store.events import make_event

BOX = """Done.

┌─ gfh · feature/parser ──────────┐
│ branch   feature/parser         │
│ tree     clean                  │
└─────────────────────────────────┘
"""


def test_box_flags() -> None:
    assert box_flags(BOX) == (True, True)
    assert box_flags("┌─ gfh · x\nno rows") == (True, False)
    assert box_flags("see ┌─ gfh inline") == (False, False)
    assert box_flags("") == (False, False)
    top_only = BOX.split("│ tree")[0]
    assert box_flags(top_only) == (True, False)


def test_box_observations_never_carry_text() -> None:
    obs = box_observations("canary-7731 " + BOX)
    assert obs == {
        "status_box": {"state": "observed", "value": True},
        "status_box_strict": {"state": "observed", "value": True},
    }
    assert "canary" not in repr(obs)
    assert box_observations(None)["status_box"] == {"state": "unknown", "reason": "no_reply_text"}


def _tool(phase: str) -> object:
    return make_event(
        "tool.requested", {"tool": "Bash", "phase": phase}, surface="hook", session="s", branch="b"
    )


def test_tool_call_count_counts_calls_not_reports() -> None:
    events = [_tool("pre"), _tool("post"), _tool("pre"), _tool("failure")]
    assert tool_call_count(events) == {"state": "observed", "value": 2}  # type: ignore[arg-type]
    assert tool_call_count([_tool("post")] * 3) == {"state": "observed", "value": 3}  # type: ignore[list-item]
    assert tool_call_count([]) == {"state": "observed", "value": 0}


def test_a_silent_tool_channel_is_expected_but_missing() -> None:
    verb = make_event(
        "coord.status_observed",
        {"status": "end_turn_checked"},
        surface="cli",
        session="s",
        branch="b",
    )
    assert tool_call_count([verb]) == {
        "state": "expected_but_missing",
        "reason": "tool_channel_unattested",
    }
    assert tool_call_count([verb], unsupported_reason="tool_hooks") == {
        "state": "unsupported",
        "capability": "tool_hooks",
    }
