"""The configuration as the hook path needs it: plain data, cached per worktree.

Parsing `.gitflow-harness.toml` means importing the declared schema (dataclasses, tomllib):
~10 ms, on every tool call. The hook reads it once per worktree, for every session that works
there, and again only when the file's size, mtime or inode change (or `.pre-commit-config.yaml`
appears or goes, which changes a default). A configuration error is raised as `ConfigError`: the
hook fails open with it.
"""

from __future__ import annotations

import json
import os

from gitflow_harness import __version__

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from gitflow_harness.agent.session import SessionState

CONFIG_FILE = ".gitflow-harness.toml"
CACHE_DIR = "config"  # in the user state dir: <sha256 of the worktree's top>.json


def config_key(top: Path) -> list[Any]:
    """Return what identifies the configuration files' current content."""
    try:
        st = os.stat(top / CONFIG_FILE)
        stamp: list[int] | None = [st.st_size, st.st_mtime_ns, st.st_ino]
    except OSError:
        stamp = None
    return [__version__, str(top), stamp, os.path.exists(top / ".pre-commit-config.yaml")]


def hook_config(top: Path | None, store: SessionState | None) -> dict[str, Any]:
    """Return the effective configuration of the repository at `top`, section by section.

    A call with a session caches it, one file per worktree in the user state dir (a new
    session's first call reads it too), replaced atomically and never under a lock: parallel
    hook calls write the same content, and a reader sees a whole file or none.
    """
    if top is None:
        from gitflow_harness.store.config import default_config

        return default_config().as_dict()
    key = config_key(top)
    cache = cache_file(top) if store is not None else None
    if cache is not None:
        try:
            cached = json.loads(cache.read_bytes())
        except (OSError, ValueError):
            cached = None
        if isinstance(cached, dict) and cached.get("key") == key:
            values = cached.get("values")
            if isinstance(values, dict):
                return values
    from gitflow_harness.store.config import load_config

    values = load_config(top).as_dict()
    if cache is not None:
        from gitflow_harness.store.fsutil import write_private

        write_private(cache, json.dumps({"key": key, "values": values}))
    return values


def cache_file(top: Path) -> Path | None:
    """Return the configuration cache of the worktree at `top`; None without a state dir."""
    from gitflow_harness.errors import GfhError
    from gitflow_harness.store.digest import sha256_hex
    from gitflow_harness.store.state import user_dir

    try:
        directory = user_dir(CACHE_DIR)
    except (OSError, GfhError):
        return None
    return directory / f"{sha256_hex(str(top).encode('utf-8', 'surrogateescape'))[:24]}.json"


def setting(config: dict[str, Any], section: str, key: str) -> Any:
    """Return `config[section][key]`; the declared default where the data lacks it (the one
    declaration of every default is the configuration's schema)."""
    table = config.get(section)
    if isinstance(table, dict) and key in table:
        return table[key]
    from gitflow_harness.store.config import default_config

    return default_config().as_dict()[section][key]
