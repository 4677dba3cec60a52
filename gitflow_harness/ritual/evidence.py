"""Evidence for the ritual, reduced to booleans and counts at the moment it is observed.

The reply text a host hands the Stop hook is inspected here and dropped: only observations
(`{"state": "observed", "value": true}`) leave this module, never a character of the text.
"""

from __future__ import annotations

from gitflow_harness.store.events import Event

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any, Final

BOX_TOP: Final = "┌─ gfh"


def observed(value: Any) -> dict[str, Any]:
    return {"state": "observed", "value": value}


def unsupported(capability: str) -> dict[str, Any]:
    return {"state": "unsupported", "capability": capability}


def expected_but_missing(reason: str) -> dict[str, Any]:
    return {"state": "expected_but_missing", "reason": reason}


def unknown(reason: str) -> dict[str, Any]:
    return {"state": "unknown", "reason": reason}


def box_flags(text: str) -> tuple[bool, bool]:
    """Return (a line starts with the box's top, a whole box is there: top, rows, bottom)."""
    lines = [line.strip() for line in text.splitlines()]
    loose = any(line.startswith(BOX_TOP) for line in lines)
    strict = False
    for i, line in enumerate(lines):
        if not line.startswith(BOX_TOP) or not line.endswith("┐"):
            continue
        rows = 0
        for later in lines[i + 1 :]:
            if later.startswith("│") and later.endswith("│"):
                rows += 1
                continue
            strict = rows > 0 and later.startswith("└") and later.endswith("┘")
            break
        if strict:
            break
    return loose, strict


def box_observations(text: str | None, *, missing_reason: str = "no_reply_text") -> dict[str, Any]:
    """Reduce a reply to the `ritual` object of `turn.completed`."""
    if text is None:
        return {"status_box": unknown(missing_reason), "status_box_strict": unknown(missing_reason)}
    loose, strict = box_flags(text)
    return {"status_box": observed(loose), "status_box_strict": observed(strict)}


def tool_call_count(
    turn_events: Iterable[Event], *, unsupported_reason: str | None = None
) -> dict[str, Any]:
    """Count the turn's tool hooks; say when a channel that should have reported was silent.

    If the agent ran `gfh` itself during the turn (a CLI event of this session) yet no tool hook
    reported, the tool channel is not attesting: that is `expected_but_missing`, not zero.
    """
    if unsupported_reason is not None:
        return unsupported(unsupported_reason)
    pre = post = cli_events = 0
    for ev in turn_events:
        if ev.type == "tool.requested":
            if ev.data.get("phase") == "pre":
                pre += 1
            else:
                post += 1
        elif ev.surface in ("cli", "mcp"):
            cli_events += 1
    # A call reports once before and once after when both hooks are installed: count calls,
    # not reports.
    tools = max(pre, post)
    if tools == 0 and cli_events:
        return expected_but_missing("tool_channel_unattested")
    return observed(tools)
