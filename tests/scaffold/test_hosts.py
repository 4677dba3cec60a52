"""Hook entries merged into the hosts' files: added once, the user's own entries untouched."""

from __future__ import annotations

import json

import pytest

from gitflow_harness.errors import ConfigError
from gitflow_harness.scaffold import hosts


def _commands(data: dict, event: str) -> list[str]:
    out = []
    for group in data["hooks"][event]:
        if "hooks" in group:
            out.extend(h["command"] for h in group["hooks"])
        else:
            out.append(group["command"])
    return out


def test_claude_entries_are_added_once() -> None:
    text, added = hosts.merge("claude", ".claude/settings.json", None)
    assert added == len(hosts.CLAUDE_EVENTS)
    data = json.loads(text)
    assert list(data["hooks"]) == list(hosts.CLAUDE_EVENTS)
    assert data["hooks"]["PostToolUse"] == [
        {"hooks": [{"type": "command", "command": "gfh hook claude PostToolUse", "timeout": 30}]}
    ]
    again, added = hosts.merge("claude", ".claude/settings.json", text)
    assert (again, added) == (text, 0)


def test_a_users_own_entries_keep_their_place_and_ours_follow() -> None:
    user = {
        "model": "opus",
        "hooks": {
            "PostToolUse": [
                {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "./fmt.sh"}]},
                {"hooks": [{"type": "command", "command": "./audit.sh", "timeout": 5}]},
            ],
            "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
        },
        "env": {"A": "1"},
    }
    text, _ = hosts.merge("claude", "s.json", json.dumps(user, indent=2) + "\n")
    data = json.loads(text)
    assert list(data) == ["model", "hooks", "env"]
    assert data["hooks"]["PostToolUse"][:2] == user["hooks"]["PostToolUse"]
    assert _commands(data, "PostToolUse") == [
        "./fmt.sh",
        "./audit.sh",
        "gfh hook claude PostToolUse",
    ]
    assert data["hooks"]["Notification"] == user["hooks"]["Notification"]
    assert list(data["hooks"])[:2] == ["PostToolUse", "Notification"]


def test_an_entry_with_another_path_to_gfh_counts_as_ours() -> None:
    mine = {
        "hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": "/opt/bin/gfh hook claude Stop"}]}]
        }
    }
    text, added = hosts.merge("claude", "s.json", json.dumps(mine))
    assert added == len(hosts.CLAUDE_EVENTS) - 1
    assert _commands(json.loads(text), "Stop") == ["/opt/bin/gfh hook claude Stop"]
    assert not hosts.is_ours("gfh hook claude Stop --x", "claude", "Stop")
    assert not hosts.is_ours("notgfh hook claude Stop", "claude", "Stop")


@pytest.mark.parametrize(
    "command",
    [
        "gfh hook claude Stop",
        '"$CLAUDE_PROJECT_DIR"/.venv/bin/gfh hook claude Stop',
        "python -m gitflow_harness hook claude Stop",
        "/srv/app/.venv/bin/python3.11 -I -m gitflow_harness hook claude Stop",
        "'/path with space/python3' -m gitflow_harness hook claude Stop",
    ],
)
def test_every_way_of_running_gfh_counts_as_ours(command: str) -> None:
    """If the user already runs gfh's hook through python -m (or any path to gfh), then init
    adds no second handler: every event would be recorded twice."""
    mine = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": command}]}]}}
    text, added = hosts.merge("claude", "s.json", json.dumps(mine))
    assert added == len(hosts.CLAUDE_EVENTS) - 1
    assert _commands(json.loads(text), "Stop") == [command]


@pytest.mark.parametrize(
    "command",
    [
        "python -m gitflow_harness hook claude PreCompact",  # another event
        "python -m other hook claude Stop",
        "node -m gitflow_harness hook claude Stop",
        "python gitflow_harness hook claude Stop",
        "gfh hook claude",
        "'unbalanced hook claude Stop",
    ],
)
def test_other_commands_are_not_ours(command: str) -> None:
    assert not hosts.is_ours(command, "claude", "Stop")


def test_cursor_keeps_a_host_set_loop_limit_and_gets_version_1() -> None:
    user = {"hooks": {"stop": [{"command": "gfh hook cursor stop", "loop_limit": 12}]}}
    text, added = hosts.merge("cursor", ".cursor/hooks.json", json.dumps(user))
    data = json.loads(text)
    assert data["version"] == 1
    assert data["hooks"]["stop"] == [{"command": "gfh hook cursor stop", "loop_limit": 12}]
    assert added == len(hosts.CURSOR_EVENTS) - 1
    assert _commands(data, "sessionStart") == ["gfh hook cursor sessionStart"]


def test_codex_uses_the_grouped_shape() -> None:
    data = json.loads(hosts.merge("codex", ".codex/hooks.json", None)[0])
    assert list(data["hooks"]) == list(hosts.CODEX_EVENTS)
    assert _commands(data, "Stop") == ["gfh hook codex Stop"]


def test_codex_gets_pre_tool_use_its_only_mid_session_context_channel() -> None:
    """If Codex takes context only at SessionStart and PreToolUse, then PreToolUse must be
    installed, or what the ways match during a session would never be delivered."""
    data = json.loads(hosts.merge("codex", ".codex/hooks.json", None)[0])
    assert _commands(data, "PreToolUse") == ["gfh hook codex PreToolUse"]


@pytest.mark.parametrize(
    ("adapter", "text", "message"),
    [
        ("claude", '{"hooks": [', r"s\.json:1:\d+: not valid JSON"),
        ("claude", "[]", "expected a JSON object"),
        ("claude", '{"hooks": []}', "`hooks` must be an object"),
        ("claude", '{"hooks": {"Stop": {}}}', "`hooks.Stop` must be a list"),
        ("cursor", '{"version": 2}', "version"),
    ],
)
def test_files_gfh_cannot_merge_are_refused_clearly(adapter: str, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        hosts.merge(adapter, "s.json", text)
