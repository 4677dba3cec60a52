"""Session-scoped scratch state: owner-only, outside the repository.

Its directories are `str` paths: every hook call opens its session's, and `pathlib` would bring
`re` and `enum` into a call that needs neither (store/fsutil.py).
"""

from __future__ import annotations

import os
import sys

from gitflow_harness.errors import GfhError
from gitflow_harness.store.digest import sha256_hex
from gitflow_harness.store.fsutil import UnsafePathError, ensure_private_dir, require_private_root

APP = "gitflow-harness"
# What a session id keeps of itself in its directory's name; any other character becomes `_`.
# A set, not a regular expression: compiling one costs every hook call more than this loop.
_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def state_home() -> str:
    """Return the state root: `$GFH_STATE_HOME`, else the platform's user state dir
    (`platformdirs.user_state_dir`)."""
    override = os.environ.get("GFH_STATE_HOME")
    if override:
        return os.path.normpath(override)
    xdg = _xdg_state_home()
    if xdg is not None:
        return os.path.normpath(os.path.join(xdg, APP))
    # Only here: importing platformdirs (4.14) brings pathlib, tempfile, shutil and random,
    # 74M instructions, twice an installed interpreter's start, on every hook call.
    import platformdirs

    return os.path.normpath(platformdirs.user_state_dir(APP))


def _xdg_state_home() -> str | None:
    """The XDG base directory rule where it is unambiguous, as platformdirs applies it on
    Linux: `$XDG_STATE_HOME` when it is an absolute path, `$HOME/.local/state` when it is unset
    or empty and `$HOME` is absolute. Anything else (another platform, a relative path, no
    HOME) is platformdirs' to answer."""
    if sys.platform != "linux":
        return None
    xdg = os.environ.get("XDG_STATE_HOME", "")
    if xdg.startswith("/"):
        return xdg
    home = os.environ.get("HOME", "")
    if xdg or not home.startswith("/"):
        return None
    return home.rstrip("/") + "/.local/state"


def session_key(session: str) -> str:
    """Return a file-name-safe, collision-free directory name for a session id."""
    readable = "".join(c if c in _SAFE else "_" for c in session[:80])
    digest = sha256_hex(session.encode("utf-8"))[:12]
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
