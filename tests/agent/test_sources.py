"""The hook points: which lanes each event opens and which sources it consults, in order."""

from __future__ import annotations

import pytest

from gitflow_harness.agent import sources
from gitflow_harness.hookcall import model as ev


def test_every_lane_of_the_design_is_opened_by_its_event() -> None:
    assert {
        ev.PROMPT: {"prompt", "keywords"},
        ev.TOOL_POST: {"files", "commands", "postcheck"},
        ev.TOOL_FAILURE: {"postcheck"},
        ev.SESSION_START: {"session_start"},
        ev.SUBAGENT_START: {"roles"},
    } == sources.LANES
    assert ev.TOOL_PRE not in sources.LANES


def test_each_event_with_lanes_consults_the_ways_and_the_rest_in_delivery_order() -> None:
    assert sources.context_sources(ev.SESSION_START) == (sources.ENSURE, sources.WAYS)
    assert sources.context_sources(ev.SUBAGENT_START) == (sources.WAYS, sources.LESSONS)
    for kind in (ev.PROMPT, ev.TOOL_POST, ev.TOOL_FAILURE):
        assert sources.context_sources(kind) == (sources.WAYS,)
    # Before a tool no lane opens; the ways deliver only what waits for a channel (Codex).
    assert sources.context_sources(ev.TOOL_PRE) == (sources.WAYS,)
    assert ev.TOOL_PRE not in sources.LANES


@pytest.mark.parametrize("spec", [sources.WAYS, sources.ENSURE, sources.LESSONS])
def test_every_registered_source_resolves_to_a_function(spec: str) -> None:
    assert callable(sources.resolve(spec))
