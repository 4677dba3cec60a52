"""Registering `gfh mcp` with each host's file: merged, idempotent, every other byte kept."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from gitflow_harness.errors import ConfigError
from gitflow_harness.scaffold import mcp
from tests.helpers import CliRunner, write

USER_JSON = """{
    "mcpServers": {
        "docs": {"command": "npx", "args": ["-y", "docs-server"], "env": {"K": "v"}}
    },
    "other": true
}
"""
USER_TOML = """# my codex settings
model = "o5"   # keep this comment

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-server"]
"""


@pytest.mark.parametrize("adapter", ["claude", "cursor"])
def test_json_gains_gfh_and_keeps_the_users_servers_byte_for_byte(adapter: str) -> None:
    text, added = mcp.merge(adapter, USER_JSON)
    assert added
    data = json.loads(text)
    assert data["mcpServers"]["gfh"] == {"command": "gfh", "args": ["mcp"]}
    assert data["mcpServers"]["docs"] == json.loads(USER_JSON)["mcpServers"]["docs"]
    assert text.startswith(
        USER_JSON[: USER_JSON.index("}\n    },")]
    )  # the user's lines as they were
    assert mcp.merge(adapter, text) == (text, False)


def test_a_new_json_file_is_the_documented_object() -> None:
    text, added = mcp.merge("claude", None)
    assert added
    assert json.loads(text) == {"mcpServers": {"gfh": {"command": "gfh", "args": ["mcp"]}}}


def test_a_users_own_gfh_entry_is_left_alone(tmp_path: Path) -> None:
    own = '{"mcpServers": {"gfh": {"command": "/opt/gfh-dev", "args": ["mcp", "--x"]}}}\n'
    assert mcp.merge("claude", own) == (own, False)
    write(tmp_path, ".mcp.json", own)
    assert not mcp.mcp_registered(tmp_path, "claude")
    assert not remove(tmp_path, "claude")
    assert (tmp_path / ".mcp.json").read_text() == own


def test_toml_gains_a_table_and_keeps_every_byte() -> None:
    text, added = mcp.merge("codex", USER_TOML)
    assert added
    assert text.startswith(USER_TOML)
    assert text[len(USER_TOML) :] == "\n" + mcp.TOML_TABLE
    assert tomllib.loads(text)["mcp_servers"]["gfh"] == {"command": "gfh", "args": ["mcp"]}
    assert mcp.merge("codex", text) == (text, False)
    no_newline = USER_TOML.rstrip("\n")
    assert mcp.merge("codex", no_newline)[0] == no_newline + "\n\n" + mcp.TOML_TABLE


def test_toml_that_cannot_take_the_table_is_refused_with_the_way_out() -> None:
    inline = 'mcp_servers = { docs = { command = "npx" } }\n'
    with pytest.raises(ConfigError, match=r"add it by hand"):
        mcp.merge("codex", inline)
    with pytest.raises(ConfigError, match="not valid TOML"):
        mcp.merge("codex", "model = \n")
    with pytest.raises(ConfigError, match=r"\.mcp\.json:1:2: not valid JSON"):
        mcp.merge("claude", "{,}")


@pytest.mark.parametrize("adapter", ["claude", "cursor", "codex"])
def test_remove_restores_the_users_file_exactly(tmp_path: Path, adapter: str) -> None:
    original = USER_TOML if adapter == "codex" else USER_JSON
    rel = mcp.FILES[adapter]
    write(tmp_path, rel, mcp.merge(adapter, original)[0])
    assert mcp.mcp_registered(tmp_path, adapter)
    assert remove(tmp_path, adapter)
    assert (tmp_path / rel).read_text() == original
    assert not mcp.mcp_registered(tmp_path, adapter)
    assert not remove(tmp_path, adapter)


@pytest.mark.parametrize("adapter", ["claude", "cursor", "codex"])
def test_remove_deletes_a_file_that_held_only_gfh(tmp_path: Path, adapter: str) -> None:
    rel = mcp.FILES[adapter]
    write(tmp_path, rel, mcp.merge(adapter, None)[0])
    assert remove(tmp_path, adapter)
    assert not (tmp_path / rel).exists()


def test_remove_keeps_the_servers_either_side(tmp_path: Path) -> None:
    text = '{"mcpServers": {"a": {"command": "a"}, "gfh": {"command": "gfh", "args": ["mcp"]}, "b": {"command": "b"}}}\n'  # noqa: E501
    write(tmp_path, ".mcp.json", text)
    assert remove(tmp_path, "claude")
    assert json.loads((tmp_path / ".mcp.json").read_text()) == {
        "mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}}
    }
    first = '{"mcpServers": {"gfh": {"command": "gfh", "args": ["mcp"]}, "b": {}}}\n'
    write(tmp_path, ".mcp.json", first)
    assert remove(tmp_path, "claude")
    assert (tmp_path / ".mcp.json").read_text() == '{"mcpServers": {"b": {}}}\n'
    table_after = mcp.merge("codex", USER_TOML)[0] + '\n[profiles.x]\nmodel = "m"\n'
    write(tmp_path, ".codex/config.toml", table_after)
    assert remove(tmp_path, "codex")
    assert (tmp_path / ".codex/config.toml").read_text() == (
        USER_TOML + '\n[profiles.x]\nmodel = "m"\n'
    )


def test_a_python_m_spelling_counts_as_registered(tmp_path: Path) -> None:
    write(
        tmp_path,
        ".cursor/mcp.json",
        '{"mcpServers": {"gfh": {"command": "/venv/bin/python3", '
        '"args": ["-m", "gitflow_harness", "mcp"]}}}',
    )
    assert mcp.mcp_registered(tmp_path, "cursor")


def test_init_mcp_registers_every_chosen_host_once(repo: Path, gfh: CliRunner) -> None:
    write(repo, ".mcp.json", USER_JSON)
    args = ("init", "--mcp", "--adapter", "claude", "--adapter", "cursor", "--adapter", "codex")
    dry = gfh(*args, "--dry-run")
    assert dry.code == 0, dry.err
    assert '+        "gfh": {' in dry.out
    assert "+[mcp_servers.gfh]" in dry.out
    assert (repo / ".mcp.json").read_text() == USER_JSON
    assert not (repo / ".codex/config.toml").exists()
    first = gfh(*args)
    assert first.code == 0, first.err
    for adapter in ("claude", "cursor", "codex"):
        assert mcp.mcp_registered(repo, adapter)
    snapshot = {rel: (repo / rel).read_bytes() for rel in mcp.FILES.values()}
    again = gfh(*args, "--json")
    assert again.code == 0
    actions = {f["path"]: f["action"] for f in again.json()["files"]}
    assert {actions[rel] for rel in mcp.FILES.values()} == {"unchanged"}
    assert {rel: (repo / rel).read_bytes() for rel in mcp.FILES.values()} == snapshot


def test_init_without_mcp_writes_no_mcp_file(repo: Path, gfh: CliRunner) -> None:
    assert gfh("init", "--adapter", "claude").code == 0
    assert not (repo / ".mcp.json").exists()


def remove(top: Path, adapter: str) -> bool:
    """Apply the removal `gfh deinit` plans for the host's MCP file; whether there was one."""
    found = mcp.removal(top, adapter)
    if found is None:
        return False
    path = top / mcp.FILES[adapter]
    _, after = found
    if after is None:
        path.unlink()
    else:
        path.write_bytes(after)
    return True


def test_removal_takes_the_servers_sub_tables_and_keeps_the_rest(tmp_path: Path) -> None:
    """If the user gave gfh's server an `env` table, then deinit takes that too: a leftover
    `[mcp_servers.gfh.env]` alone would make Codex read a server `gfh` with no command."""
    added = mcp.merge("codex", USER_TOML)[0]
    text = added + '\n[mcp_servers.gfh.env]\nGFH_X = "1"\n\n[profiles.x]\nmodel = "m"\n'
    write(tmp_path, ".codex/config.toml", text)
    assert remove(tmp_path, "codex")
    rest = tomllib.loads((tmp_path / ".codex/config.toml").read_text(encoding="utf-8"))
    assert "gfh" not in rest.get("mcp_servers", {})
    assert rest["profiles"] == {"x": {"model": "m"}}
    assert rest == {**tomllib.loads(USER_TOML), "profiles": {"x": {"model": "m"}}}
