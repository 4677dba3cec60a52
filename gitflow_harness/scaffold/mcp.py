"""Register `gfh mcp` with each host (`gfh init --mcp`), check it (`gfh doctor`), and plan
its removal (`gfh deinit`).

Claude Code reads `.mcp.json`, Cursor `.cursor/mcp.json` (both `{"mcpServers": {name: …}}`),
Codex the `[mcp_servers.<name>]` tables of `.codex/config.toml`. An entry named `gfh` that is
already there is left as it is, whatever it runs; every other byte of the file is kept (JSON by
span edits, TOML by appending or cutting whole lines).
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any, Final

from gitflow_harness.errors import ConfigError
from gitflow_harness.scaffold import hosts

SERVER: Final = "gfh"
COMMAND: Final = "gfh"
ARGS: Final = ("mcp",)
FILES: Final = {"claude": ".mcp.json", "cursor": ".cursor/mcp.json", "codex": ".codex/config.toml"}
TOML_TABLE: Final = f'[mcp_servers.{SERVER}]\ncommand = "{COMMAND}"\nargs = ["mcp"]\n'
_HEADER = re.compile(r"^\s*\[\s*mcp_servers\s*\.\s*(?:gfh|\"gfh\"|'gfh')\s*\]\s*(?:#.*)?$")
_OURS = re.compile(
    r"^\s*\[\s*mcp_servers\s*\.\s*(?:gfh|\"gfh\"|'gfh')\s*(?:\.[^\]]*)?\]\s*(?:#.*)?$"
)  # the table and its sub-tables
_ANY_HEADER = re.compile(r"^\s*\[")


def entry() -> dict[str, Any]:
    """The server entry of the JSON files."""
    return {"command": COMMAND, "args": list(ARGS)}


def merge(adapter: str, text: str | None) -> tuple[str, bool]:
    """Return the host file's text with gfh's server in it, and whether it was added."""
    path = FILES[adapter]
    if adapter == "codex":
        return _merge_toml(path, text)
    return _merge_json(path, text)


def mcp_registered(top: Path, adapter: str) -> bool:
    """True when the host's file names a server `gfh` that runs `gfh mcp`."""
    path = top / FILES[adapter]
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError, IsADirectoryError):
        return False
    try:
        servers = _servers(FILES[adapter], adapter, text)
    except ConfigError:
        return False
    found = servers.get(SERVER)
    return isinstance(found, dict) and _runs_gfh_mcp(found)


def removal(top: Path, adapter: str) -> tuple[bytes, bytes | None] | None:
    """gfh's server taken out of the host's file, as `gfh deinit` plans it: the file's bytes
    before and after (None: nothing else is left, so the file goes), or None when the file
    registers no `gfh mcp`. An entry `gfh` that does not run `gfh mcp` is the user's: it stays.
    """
    path = top / FILES[adapter]
    if not mcp_registered(top, adapter):
        return None
    before = path.read_bytes()
    text = before.decode("utf-8")
    rest = _cut_toml(text) if adapter == "codex" else _cut_json(FILES[adapter], text)
    if rest is None:
        return None
    return before, None if _empty(adapter, rest) else rest.encode("utf-8")


def _runs_gfh_mcp(found: dict[str, Any]) -> bool:
    command, args = found.get("command"), found.get("args") or []
    if not isinstance(command, str) or not isinstance(args, list):
        return False
    words = [command, *args]
    if Path(words[0]).name == COMMAND:
        return words[1:] == list(ARGS)
    return re.fullmatch(r"python[0-9.]*", Path(words[0]).name) is not None and words[-3:] == [
        "-m",
        "gitflow_harness",
        *ARGS,
    ]


# -- JSON: .mcp.json, .cursor/mcp.json ------------------------------------------------------


def _merge_json(path: str, text: str | None) -> tuple[str, bool]:
    original = hosts.load(path, text)
    data: dict[str, Any] = json.loads(json.dumps(original))  # a deep copy to add to
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise ConfigError(f"{path}: `mcpServers` must be an object; fix it, then run gfh again")
    if SERVER in servers:
        return text or "", False
    servers[SERVER] = entry()
    if text and text.strip():
        from gitflow_harness.scaffold.jsonedit import add_missing

        edited = add_missing(text, original, data)
        if edited is not None:
            return edited, True
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n", True


def _cut_json(path: str, text: str) -> str | None:
    """Remove the `gfh` member of `mcpServers` by its span; None when that cannot be done."""
    from gitflow_harness.scaffold.jsonedit import parse

    root = parse(text)
    servers = root.get("mcpServers")
    if servers is None:
        return None
    index = next((i for i, (k, _) in enumerate(servers.members) if k == SERVER), None)
    if index is None:
        return None
    value = servers.members[index][1]
    key_start = text.rfind(json.dumps(SERVER), servers.start, value.start)
    if index > 0:
        start, end = servers.members[index - 1][1].end, value.end
    elif len(servers.members) > 1:
        start, end = key_start, servers.members[1][1].start
        end = text.rfind(json.dumps(servers.members[1][0]), value.end, end)
    else:
        start, end = servers.start + 1, servers.end - 1
    rest = text[:start] + text[end:]
    expected = json.loads(text)
    del expected["mcpServers"][SERVER]
    return rest if json.loads(rest) == expected else None


# -- TOML: .codex/config.toml ---------------------------------------------------------------


def _merge_toml(path: str, text: str | None) -> tuple[str, bool]:
    original = text or ""
    if SERVER in _servers(path, "codex", original):
        return original, False
    head = original
    if head and not head.endswith("\n"):
        head += "\n"
    if head.strip():
        head += "\n"
    edited = head + TOML_TABLE
    try:
        tomllib.loads(edited)
    except tomllib.TOMLDecodeError:
        # `mcp_servers` written as an inline table cannot take a table of its own after it.
        raise ConfigError(
            f"{path}: cannot add [mcp_servers.{SERVER}] after how `mcp_servers` is written "
            f'there; add it by hand: command = "{COMMAND}", args = ["mcp"] (docs/mcp.md)'
        ) from None
    return edited, True


def _cut_toml(text: str) -> str | None:
    """Remove the `[mcp_servers.gfh]` table and its sub-tables (`[mcp_servers.gfh.env]`), each
    from its header to the next, with the blank lines `merge` put before it; None when that
    cannot be done by lines (the table written inline or as dotted keys: left alone) or the
    result would not be the file less gfh's server."""
    lines = text.splitlines(keepends=True)
    headers = [i for i, line in enumerate(lines) if _ANY_HEADER.match(line)]
    ours = [i for i in headers if _OURS.match(lines[i])]
    if not any(_HEADER.match(lines[i]) for i in ours):
        return None
    keep = [True] * len(lines)
    for start in ours:
        end = next((h for h in headers if h > start), len(lines))
        last = end - 1
        # A table comes after it: the blank lines that end the block stay, as its separator.
        while end < len(lines) and last > start and not lines[last].strip():
            last -= 1
        for i in range(start, last + 1):
            keep[i] = False
        before = start - 1
        while before >= 0 and keep[before] and not lines[before].strip():
            keep[before] = False
            before -= 1
    rest = "".join(line for line, kept in zip(lines, keep, strict=True) if kept)
    if not rest.strip():
        rest = ""
    expected = tomllib.loads(text)
    expected.get("mcp_servers", {}).pop(SERVER, None)
    if expected.get("mcp_servers") == {}:
        del expected["mcp_servers"]
    try:
        if tomllib.loads(rest) != expected:
            return None
    except tomllib.TOMLDecodeError:
        return None
    return rest


def _servers(path: str, adapter: str, text: str) -> dict[str, Any]:
    if adapter == "codex":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(
                f"{path}: not valid TOML ({exc}); fix it, then run gfh again"
            ) from None
        servers = data.get("mcp_servers", {})
    else:
        servers = hosts.load(path, text).get("mcpServers", {})
    return servers if isinstance(servers, dict) else {}


def _empty(adapter: str, text: str) -> bool:
    if not text.strip():
        return True
    if adapter == "codex":
        return False
    return json.loads(text) in ({}, {"mcpServers": {}})
