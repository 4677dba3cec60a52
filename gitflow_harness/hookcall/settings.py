"""The configuration as the hook path needs it: plain data, cached by content.

Parsing `.gitflow-harness.toml` means importing the declared schema (dataclasses, tomllib):
~10 ms, on every tool call. The hook parses a configuration once, for every session and every
worktree that checks it out, and again only when the file's bytes change (or
`.pre-commit-config.yaml` appears or goes, which changes a default). A configuration error is
raised as `ConfigError`: the hook fails open with it.
"""

from __future__ import annotations

import os

from gitflow_harness import __version__, jsonio

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypedDict

    from gitflow_harness.hookcall.session import SessionState
    from gitflow_harness.store.fsutil import StrPath

    # The configuration as the hook holds it: `Config.as_dict()` of `store/config.py`, section
    # by section, in JSON's types (lists for tuples). Type checkers read these; at run time it
    # is the plain dict the cache holds, so the hook's path imports nothing to have them.

    class RepositorySettings(TypedDict):
        trunk: str  # "" to detect: origin/HEAD, else main, else master
        worktrees: str
        protect_trunk: str

    class PathsSettings(TypedDict):
        ways: str
        pills: str
        requests: str

    class GateSettings(TypedDict):
        prepare: list[str]
        test: list[str]
        push: str

    class WaysSettings(TypedDict):
        floor: float
        budget_chars: int
        postcheck_timeout_s: float
        default_half_life: int

    class RitualSettings(TypedDict):
        enforce: list[str]
        require_status: bool
        require_box: bool
        require_task: bool
        max_blocks: int
        chat_turns: str

    class LearningSettings(TypedDict):
        graduation_at: int
        capture_at: int
        capture_days: int
        verify_days: int
        verify_min: int
        loop_back: list[str]

    class GraphSettings(TypedDict):
        stages: list[str]
        loops: dict[str, dict[str, list[str]]]  # role -> verdict -> stages

    class HookConfig(TypedDict):
        """The hook's configuration: what `hook_config` returns and its readers take."""

        repository: RepositorySettings
        paths: PathsSettings
        gate: GateSettings
        ways: WaysSettings
        ritual: RitualSettings
        learning: LearningSettings
        graph: GraphSettings


CONFIG_FILE = ".gitflow-harness.toml"
CACHE_DIR = "config"  # in the user state dir: <hash of what the configuration is made of>.json
MAX_READ = 1024 * 1024  # past the parser's own bound: parsed (and refused), never cached


def hook_config(top: StrPath | None, store: SessionState | None) -> HookConfig:
    """Return the effective configuration of the repository at `top`, section by section.

    A call with a session caches it in the user state dir, in a file named by what the
    configuration is made of (`cache_file`): every session in every worktree that checks out
    the same configuration reads it. It is replaced atomically and never under a lock: parallel
    hook calls write the same content, and a reader sees a whole file or none.
    """
    if top is None:
        from gitflow_harness.store.config import default_config

        return _typed(default_config().as_dict())
    return _read(top, keep=store is not None)


def cached_config(top: StrPath) -> HookConfig:
    """`hook_config` of the repository at `top` as a call with a session reads it: from the
    cache every session shares while the configuration is unchanged. `gfh status`, asked at the
    end of every turn, reads it so too."""
    return _read(top, keep=True)


def _read(top: StrPath, *, keep: bool) -> HookConfig:
    made_of = _made_of(top) if keep else None
    cache = _cache_path(made_of) if made_of is not None else None
    of = made_of.decode("latin-1") if made_of is not None else None  # every byte, as text
    if cache is not None:
        try:
            from gitflow_harness.store.fsutil import read_bytes

            cached = jsonio.loads(read_bytes(cache))
        except (OSError, ValueError):
            cached = None
        # What it was made of, checked: its name is a short hash, not a digest (`name_hash`).
        if isinstance(cached, dict) and cached.get("of") == of:
            values = cached.get("values")
            if isinstance(values, dict):
                return _typed(values)
    from pathlib import Path

    from gitflow_harness.store.config import load_config

    values = load_config(Path(top)).as_dict()
    if cache is not None:
        from gitflow_harness.store.fsutil import write_private

        # Rebuilt if damaged.
        write_private(cache, jsonio.dumps({"of": of, "values": values}), sync=False)
    return _typed(values)


def _typed(values: dict[str, Any]) -> HookConfig:
    # `Config.as_dict()`, or the cache of it: the sections and keys of `HookConfig`.
    return values  # type: ignore[return-value]


def cache_file(top: StrPath) -> str | None:
    """Return the configuration cache for the worktree at `top`, named by a hash of what the
    configuration is made of (`_made_of`), which the file holds too; None when there is no
    state dir or the file is not plainly readable (parsing it says why)."""
    made_of = _made_of(top)
    return None if made_of is None else _cache_path(made_of)


def _made_of(top: StrPath) -> bytes | None:
    """What the configuration of the worktree at `top` is made of: gfh's version, whether
    `.pre-commit-config.yaml` exists (it changes a default) and the configuration file's
    bytes; None when the file is not plainly readable."""
    from gitflow_harness.store.fsutil import read_within

    try:
        data, _ = read_within(os.path.join(top, CONFIG_FILE), MAX_READ)
    except FileNotFoundError:
        data = b""
        present = b"-"
    except OSError:
        return None
    else:
        present = b"+"
    if data is None:  # past MAX_READ
        return None
    pre_commit = b"+" if os.path.exists(os.path.join(top, ".pre-commit-config.yaml")) else b"-"
    return __version__.encode("utf-8") + b"\0" + pre_commit + present + data


KEEP_CACHE_S = 30 * 86400  # a configuration's cache unwritten this long is removed


def prune_cache(now: float | None = None) -> int:
    """Remove the configuration caches not written for `KEEP_CACHE_S`, and return how many:
    each configuration a worktree checked out (every edit of the file is another) leaves one,
    and one still in use costs a parse to write again."""
    import time

    from gitflow_harness.store.state import remove_unwritten

    before = (time.time() if now is None else now) - KEEP_CACHE_S
    return remove_unwritten(CACHE_DIR, lambda name: name.endswith(".json"), before)


def _cache_path(made_of: bytes) -> str | None:
    from gitflow_harness.errors import GfhError
    from gitflow_harness.home import name_hash
    from gitflow_harness.store.state import user_dir

    try:
        directory = user_dir(CACHE_DIR)
    except (OSError, GfhError):
        return None
    return os.path.join(directory, f"{name_hash(made_of)}.json")


def setting(config: HookConfig, section: str, key: str) -> Any:
    """Return `config[section][key]`; the declared default where the data lacks it (the one
    declaration of every default is the configuration's schema)."""
    table = config.get(section)
    if isinstance(table, dict) and key in table:
        return table[key]
    from gitflow_harness.store.config import default_config

    return default_config().as_dict()[section][key]
