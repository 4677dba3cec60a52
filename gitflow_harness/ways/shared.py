"""The repository's cache of parsed ways by content, shared by all its worktrees.

It lives in the git common dir (`shared_cache_file`) and maps a way's content key (see
`index.content_key`) to what parsing it gave, so the first load in a new worktree, or after a
pull, parses only contents no worktree of the repository has parsed yet. It is JSON: a file in
the repository is not trusted as the user's own state dir is. Plus the helpers the index's
cache files are read and written with.
"""

from __future__ import annotations

import os

from gitflow_harness import jsonio
from gitflow_harness.errors import GfhError

TYPE_CHECKING = False  # see firing/curves.py: no `typing` import at run time
if TYPE_CHECKING:
    from typing import Any

    StrPath = str | os.PathLike[str]

SHARED_FORMAT = 4  # 2: keyed by blob id; 4: a sieve in each payload
MAX_SHARED = 4096  # way versions a repository's shared cache keeps (its oldest go first)
SHARED_FILE = ("gitflow-harness", "ways-cache.json")  # under the git common dir


def shared_cache_file(common_dir: StrPath) -> str:
    """Return the cache by content of the repository whose git common dir is `common_dir`."""
    return os.path.join(os.fspath(common_dir), *SHARED_FILE)


class Shared:
    """A repository's cache of parsed ways by content key, read on first use and rewritten only
    when a way was parsed; a cache that cannot be read or written only costs speed."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._entries: dict[str, Any] | None = None
        self._added = False

    def get(self, key: str) -> tuple[object, object] | None:
        """Return the stored `(payload, problems)` of a content key, or None."""
        value = self._load().get(key)
        if type(value) is list and len(value) == 2:
            return value[0], value[1]
        return None

    def put(self, key: str, value: list[object]) -> None:
        entries = self._load()
        entries.pop(key, None)  # newest last: the oldest are dropped first
        entries[key] = value
        self._added = True

    def save(self) -> None:
        if not self._added or self._entries is None:
            return
        entries = self._entries
        excess = len(entries) - MAX_SHARED
        if excess > 0:
            entries = dict(list(entries.items())[excess:])
        write_json(self.path, {"format": SHARED_FORMAT, "ways": entries})

    def _load(self) -> dict[str, Any]:
        if self._entries is None:
            data = read_json(self.path)
            ways = data.get("ways") if data.get("format") == SHARED_FORMAT else None
            self._entries = ways if type(ways) is dict else {}
        return self._entries


def read_json(path: str) -> dict[str, Any]:
    """Return a cache file's JSON object; {} when it is missing, unreadable or not one."""
    try:
        with open(path, "rb") as fh:
            data = jsonio.loads(fh.read())
    except (OSError, ValueError):
        return {}
    return data if type(data) is dict else {}


def write_json(path: str, data: dict[str, Any]) -> None:
    """Replace a cache file atomically with `data` as JSON (see `write_cache`)."""
    write_cache(path, jsonio.dumps(data, ensure_ascii=False, separators=(",", ":")))


def write_cache(path: str, payload: bytes | str) -> None:
    """Replace a cache file atomically; a cache that cannot be written only costs speed."""
    import contextlib
    from pathlib import Path

    from gitflow_harness.store.fsutil import write_private

    with contextlib.suppress(OSError, GfhError):
        write_private(Path(path), payload, sync=False)  # a cache: rebuilt if damaged
