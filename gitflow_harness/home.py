"""The state root, where gfh keeps what it observes outside the repositories, and the names of
the files it keeps there (`name_hash`).

Its own module at the package's top, importing nothing of gfh (but SHA-256 where this
interpreter's hashes are too narrow to name a file): a process looks it up before
loading the modules of its command (`preload.py`), and the import of a package on the way
(`gitflow_harness.store`, through the import system's search: half a million instructions)
would come before that too.
"""

from __future__ import annotations

import os
import sys

APP = "gitflow-harness"


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


# CPython hashes an int as itself (no per-process randomisation, as for a str), and a tuple by
# xxHash's rounds over its items' hashes: a 64-bit value the same in every process.
_WIDE = sys.hash_info.width >= 64 and sys.implementation.name == "cpython"
_MASK = (1 << 64) - 1


def name_hash(data: bytes) -> str:
    """Return 16 hex digits that name `data` in a file's name, the same in every process of
    this interpreter: CPython's hash of the tuple of its bytes (elsewhere, SHA-256's first 16).
    A name, not a digest: where content must be told apart, the file holds what it was made
    of, and a collision only costs a rebuild."""
    if _WIDE:
        return f"{hash(tuple(data)) & _MASK:016x}"
    from gitflow_harness.store.digest import sha256_hex

    return sha256_hex(data)[:16]
