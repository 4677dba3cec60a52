"""The folders lessons and requests live in, refused in one line when a file stands in the way."""

from __future__ import annotations

import os
from pathlib import Path

from gitflow_harness.errors import ConfigError


def layout_folder(top: Path, rel: str, setting: str) -> Path:
    """Return `top/rel`, the folder `setting` names; refuse (exit 2) when a file is in its way."""
    return require_folder(
        top,
        rel,
        f"{setting} = {rel!r} names a folder there: move the file away or set {setting} in "
        ".gitflow-harness.toml",
    )


def require_folder(top: Path, rel: str, why: str) -> Path:
    """Return `top/rel`; raise ConfigError when a file stands where it or a parent must be.

    Otherwise a missing folder reads as an empty one (a check passes on nothing) and creating
    one fails with a bare OSError.
    """
    folder = top / rel
    probe = folder
    while not probe.exists() and probe != top and probe.parent != probe:
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        shown = os.path.relpath(probe, top).replace(os.sep, "/")
        raise ConfigError(f"{shown} is a file, but {why}")
    return folder
