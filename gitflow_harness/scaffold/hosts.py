"""Merge gfh's hook entries into each host's own configuration file.

Only entries are added, each at the end of its event's list; nothing a user wrote is removed,
changed or reordered, and keys gfh does not own are kept as they are. An entry already there
(the same `gfh hook ADAPTER EVENT` command, however `gfh` is spelled, or run as
`python -m gitflow_harness`) is left untouched — which
is how a host-set `loop_limit` on Cursor's `stop` survives. Files are rewritten with the
indentation they had.
"""

from __future__ import annotations

import json
import re
from typing import Any

from gitflow_harness.errors import ConfigError

# A hook call fails open at its own budget (hookcall/budget.py, 20 s by default), before this.
HOOK_TIMEOUT_S = 30

# The events each host gets, in the order they are added (docs/hooks.md: the ways' lanes, the
# ritual at Stop, the session's end that tells the report a blocked turn ended).
CLAUDE_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PostToolUse",
    "PostToolUseFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "Stop",
    "SessionEnd",
)
CURSOR_EVENTS = (
    "sessionStart",
    "beforeSubmitPrompt",
    "postToolUse",
    "postToolUseFailure",
    "subagentStart",
    "subagentStop",
    "preCompact",
    "stop",
    "afterAgentResponse",
    "sessionEnd",
)
CODEX_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",  # the tool before it runs (`tool.requested`, phase `pre`)
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "SubagentStart",
    "SubagentStop",
    "Stop",
)

FILES = {
    "claude": ".claude/settings.json",
    "cursor": ".cursor/hooks.json",
    "codex": ".codex/hooks.json",
}
EVENTS = {"claude": CLAUDE_EVENTS, "cursor": CURSOR_EVENTS, "codex": CODEX_EVENTS}


def command(adapter: str, event: str) -> str:
    return f"gfh hook {adapter} {event}"


_GFH = re.compile(r"(?:.*/)?gfh")
_PYTHON = re.compile(r"(?:.*/)?python[0-9.]*")


def is_ours(value: object, adapter: str, event: str) -> bool:
    """True when `value` is a command running `gfh hook ADAPTER EVENT`: `gfh` by any path, or
    `python… [options] -m gitflow_harness`."""
    if not isinstance(value, str):
        return False
    import shlex

    try:
        words = shlex.split(value)
    except ValueError:  # unbalanced quotes: not a command gfh wrote
        words = value.split()
    if words[-3:] != ["hook", adapter, event]:
        return False
    runner = words[:-3]
    if len(runner) == 1:
        return _GFH.fullmatch(runner[0]) is not None
    return (
        len(runner) >= 3
        and _PYTHON.fullmatch(runner[0]) is not None
        and runner[-2:] == ["-m", "gitflow_harness"]
    )


STOP_EVENTS = frozenset({"Stop", "stop"})  # the events whose hook enforces the ritual


def merge(
    adapter: str, path: str, text: str | None, *, skip: frozenset[str] = frozenset()
) -> tuple[str, int]:
    """Return the file's new text and how many entries were added (none for `skip` events)."""
    data = load(path, text)
    original = load(path, text)
    if adapter == "cursor":
        added = _merge_cursor(path, data, skip)
    else:
        added = _merge_grouped(path, data, adapter, skip)
    if not added and text is not None:
        return text, 0
    if text and text.strip():
        from gitflow_harness.scaffold.jsonedit import add_missing

        edited = add_missing(text, original, data)
        if edited is not None:
            return edited, added
    return dump(data, text), added


def _merge_grouped(path: str, data: dict[str, Any], adapter: str, skip: frozenset[str]) -> int:
    """Claude Code and Codex: `{"hooks": {Event: [{"matcher"?, "hooks": [handler]}]}}`."""
    hooks = _table(path, data, "hooks")
    added = 0
    for event in (e for e in EVENTS[adapter] if e not in skip):
        groups = _list(path, hooks, event)
        present = any(
            is_ours(handler.get("command"), adapter, event)
            for group in groups
            for handler in _handlers(group)
        )
        if not present:
            groups.append(
                {
                    "hooks": [
                        {
                            "type": "command",
                            "command": command(adapter, event),
                            "timeout": HOOK_TIMEOUT_S,
                        }
                    ]
                }
            )
            added += 1
    return added


def _handlers(group: object) -> list[dict[str, Any]]:
    handlers = group.get("hooks") if isinstance(group, dict) else None
    return [h for h in handlers if isinstance(h, dict)] if isinstance(handlers, list) else []


def _merge_cursor(path: str, data: dict[str, Any], skip: frozenset[str]) -> int:
    """Cursor: `{"version": 1, "hooks": {event: [{"command", ...}]}}`."""
    version = data.setdefault("version", 1)
    if version != 1:
        raise ConfigError(
            f"{path}: `version` is {json.dumps(version)}; gfh writes Cursor's hooks format "
            "version 1 — check which Cursor reads this file, then set it to 1 or add the "
            "hooks by hand (see docs/hooks.md)"
        )
    hooks = _table(path, data, "hooks")
    added = 0
    for event in (e for e in CURSOR_EVENTS if e not in skip):
        entries = _list(path, hooks, event)
        if not any(
            isinstance(e, dict) and is_ours(e.get("command"), "cursor", event) for e in entries
        ):
            entries.append({"command": command("cursor", event), "timeout": HOOK_TIMEOUT_S})
            added += 1
    return added


def load(path: str, text: str | None) -> dict[str, Any]:
    """Parse a host file's JSON object; malformed JSON is a configuration error at its line."""
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); fix it, then run "
            "`gfh init` again"
        ) from None
    except RecursionError:
        raise ConfigError(
            f"{path}: values nested too deep; fix it, then run `gfh init` again"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object at the top, found {_kind(data)}")
    return data


def _table(path: str, data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.setdefault(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: `{key}` must be an object, found {_kind(value)}")
    return value


def _list(path: str, table: dict[str, Any], key: str) -> list[Any]:
    value = table.setdefault(key, [])
    if not isinstance(value, list):
        raise ConfigError(f"{path}: `hooks.{key}` must be a list, found {_kind(value)}")
    return value


def dump(data: dict[str, Any], original: str | None) -> str:
    """Write `data` as JSON indented like `original`, ending as it ended."""
    indent: str | int = 2
    if original:
        match = re.search(r"^([ \t]+)\S", original, re.M)
        if match:
            indent = match.group(1)
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    return text + "\n" if original is None or original.endswith("\n") else text


def _kind(value: object) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return "a string" if isinstance(value, str) else json.dumps(value)
