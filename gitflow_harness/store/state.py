"""Session-scoped scratch state: owner-only, outside the repository.

Its directories are `str` paths: every hook call opens its session's, and `pathlib` would bring
`re` and `enum` into a call that needs neither (store/fsutil.py).
"""

from __future__ import annotations

import os

from gitflow_harness.errors import GfhError
from gitflow_harness.home import APP as APP
from gitflow_harness.home import name_hash
from gitflow_harness.home import state_home as state_home
from gitflow_harness.store.fsutil import UnsafePathError, ensure_private_dir, require_private_root

TYPE_CHECKING = False  # not `typing`'s: every hook call imports this
if TYPE_CHECKING:
    from collections.abc import Callable

# What a session id keeps of itself in its directory's name; any other character becomes `_`.
# A set, not a regular expression: compiling one costs every hook call more than this loop.
_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def session_key(session: str) -> str:
    """Return a file-name-safe, collision-free directory name for a session id."""
    readable = "".join(c if c in _SAFE else "_" for c in session[:80])
    digest = name_hash(session.encode("utf-8", "surrogatepass"))[:12]
    return f"{readable}-{digest}"


def session_dir(session: str, *, create: bool = True) -> str:
    """Return the owner-only state directory of `session` (an `<adapter>:<id>` string)."""
    path = os.path.join(state_home(), "sessions", session_key(session))
    if create:
        _ensure(path)
    return path


def user_dir(*parts: str, create: bool = True) -> str:
    """Return an owner-only directory under the state root for data shared across sessions."""
    path = os.path.join(state_home(), *parts)
    if create:
        _ensure(path)
    return path


class StateDirError(GfhError):
    """The state directory cannot be made or used; the message names it and the fix."""


def _ensure(path: str) -> None:
    """Create a directory below the state root: no symlink on the way, a root no one else can
    write to (they could swap its entries)."""
    root = state_home()
    try:
        require_private_root(root)
        ensure_private_dir(path, root=root)
    except UnsafePathError as exc:
        raise StateDirError(f"refusing the state directory: {exc}") from None
    except OSError as exc:
        raise StateDirError(
            f"cannot create the state directory {path}: {exc.strerror or exc}; point "
            "$GFH_STATE_HOME at a directory you own"
        ) from None


def remove_unwritten(name: str, wanted: Callable[[str], bool], before: float) -> int:
    """Remove the files of the state directory `name` that `wanted` names and that were last
    written before the time `before`, and return how many went. These are caches: a directory
    that cannot be listed, or a file gone already or that cannot be removed, is passed by."""
    try:
        directory = user_dir(name)
        names = os.listdir(directory)
    except (OSError, GfhError):
        return 0
    removed = 0
    for file in names:
        if not wanted(file):
            continue
        path = os.path.join(directory, file)
        try:
            if os.stat(path, follow_symlinks=False).st_mtime < before:
                os.unlink(path)
                removed += 1
        except OSError:
            continue
    return removed
