"""The state root: where gfh keeps what it observes outside the repositories.

Its own module at the package's top, importing nothing of gfh: a process looks it up before
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
