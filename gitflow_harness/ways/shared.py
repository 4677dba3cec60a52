"""The repository's cache of parsed ways by content, shared by all its worktrees.

It maps a way's content key (see `index.content_key`) to what parsing it gave, so the first
load in a new worktree, or after a pull, parses only contents no worktree of the repository has
parsed yet. It lives in the user's private state dir, one file per repository (named by its git
common dir: `shared_cache_file`), in `marshal` as the index's own cache: the first load in a
new worktree reads every way of the tree from it, and `marshal` reads it in about half the
instructions JSON takes (9.8M against 17M for 500 ways). `marshal` is not meant for data an
attacker could write, which is why it is not kept in the repository's git dir (as JSON once
was). Plus the helpers the index's cache files are read and written with.
"""

from __future__ import annotations

import marshal
import os

from gitflow_harness.errors import GfhError

TYPE_CHECKING = False  # see firing/curves.py: no `typing` import at run time
if TYPE_CHECKING:
    from typing import Any

    from gitflow_harness.store.fsutil import StrPath

SHARED_FORMAT = 6  # 2: by blob id; 4: a sieve in each payload; 5: marshal; 6: lanes opaque
MAX_SHARED = 4096  # way versions a repository's shared cache keeps (its oldest go first)


def shared_cache_file(common_dir: StrPath) -> str | None:
    """Return the cache by content of the repository whose git common dir is `common_dir`:
    `<state>/ways-shared/<hash of the common dir>.marshal`; None with no usable state dir."""
    from gitflow_harness.home import name_hash
    from gitflow_harness.store.state import user_dir

    digest = name_hash(os.path.abspath(os.fspath(common_dir)).encode("utf-8", "surrogateescape"))
    try:
        return os.path.join(user_dir("ways-shared"), f"{digest}.marshal")
    except (OSError, GfhError):
        return None


def named_here(name: str) -> bool:
    """Whether `name` is one `shared_cache_file` gives (`name_hash`'s hex digits): an earlier
    gfh named them by 24 of SHA-256's."""
    from gitflow_harness.home import name_hash

    stem, _, ext = name.partition(".")
    return (
        ext == "marshal"
        and len(stem) == len(name_hash(b""))
        and all(c in "0123456789abcdef" for c in stem)
    )


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

    def holds_any(self) -> bool:
        """True when the cache holds some parsed way."""
        return bool(self._load())

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
        write_cache(self.path, marshal.dumps({"format": SHARED_FORMAT, "ways": entries}))

    def _load(self) -> dict[str, Any]:
        if self._entries is None:
            try:
                with open(self.path, "rb") as fh:
                    data = marshal.loads(fh.read())
            except (OSError, EOFError, ValueError, TypeError):
                data = None  # missing, damaged, or of another Python's `marshal`
            if type(data) is dict and data.get("format") == SHARED_FORMAT:
                ways = data.get("ways")
                self._entries = ways if type(ways) is dict else {}
            else:
                self._entries = {}
        return self._entries


def write_cache(path: str, payload: bytes | str) -> None:
    """Replace a cache file atomically; a cache that cannot be written only costs speed.

    The first call after a way changed writes one, in a new worktree, after a pull or an edit:
    no `pathlib` or `contextlib` for it (49M instructions as installed, more than the call)."""
    from gitflow_harness.store.fsutil import write_private

    try:
        write_private(path, payload, sync=False)  # a cache: rebuilt if damaged
    except (OSError, GfhError):
        pass
